package stdio

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv selects a behaviour when the test binary is started as a stdio server by a test.
const helperEnv = "SENTINEL_STDIO_HELPER"

// TestMain turns the test binary into one of the misbehaving servers below when helperEnv is set,
// so the tests run real child processes without building anything.
func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helperServer(mode))
	}
	os.Exit(m.Run())
}

// helper returns Options that start the test binary as the server named mode.
func helper(t *testing.T, mode string, extra ...string) Options {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A server that exits on its own when stdin closes gets all the time a loaded machine may
	// need (Stop returns as soon as it exits); one that ignores stdin and SIGTERM reaches SIGKILL
	// whatever the grace, so it gets a short one.
	grace := within / 4
	if mode == "hang" || mode == "noread" {
		grace = 200 * time.Millisecond
	}
	return Options{Path: exe, Args: extra, Env: []string{helperEnv + "=" + mode}, Grace: grace}
}

// helperServer is the body of each helper mode; it returns the exit status.
func helperServer(mode string) int {
	switch mode {
	case "echo":
		// A well-behaved server: answers every request with {"echo": <method>}; exits on EOF.
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
				continue
			}
			fmt.Fprintf(os.Stdout, `{"jsonrpc":"2.0","id":%s,"result":{"echo":%q}}`+"\n", m.ID, m.Method)
		}
		return 0
	case "slow":
		// Reports progress on every request and never answers; acknowledges a cancellation with
		// a notification naming the request.
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					RequestID json.RawMessage `json:"requestId"`
					Meta      struct {
						ProgressToken json.RawMessage `json:"progressToken"`
					} `json:"_meta"`
				} `json:"params"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			switch {
			case m.Method == "notifications/cancelled":
				fmt.Printf(`{"jsonrpc":"2.0","method":"got-cancel","params":{"requestId":%s}}`+"\n", m.Params.RequestID)
			case m.ID != nil && m.Params.Meta.ProgressToken != nil:
				fmt.Printf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":1}}`+"\n", m.Params.Meta.ProgressToken)
			}
		}
		return 0
	case "env":
		// Prints the value of the variable named by its argument, and its working directory.
		wd, _ := os.Getwd()
		fmt.Printf(`{"jsonrpc":"2.0","method":"env","params":{"value":%q,"wd":%q}}`+"\n", os.Getenv(os.Args[1]), wd)
		return 0
	case "garbage":
		fmt.Println("Server starting on stdio...")
		fmt.Println("{")
		fmt.Println(`  "jsonrpc": "2.0"`)
		fmt.Println("}")
		_, _ = bufio.NewReader(os.Stdin).WriteTo(devNull{}) // then wait for stdin to close
		return 0
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: missing configuration")
		return 3
	case "hang":
		// Reads and ignores everything, ignores SIGTERM, never exits on its own.
		signal.Ignore(syscall.SIGTERM)
		go func() { _, _ = bufio.NewReader(os.Stdin).WriteTo(devNull{}) }()
		select {}
	case "noread":
		// Never reads stdin, ignores SIGTERM: only SIGKILL ends it.
		signal.Ignore(syscall.SIGTERM)
		select {}
	case "flood":
		// 100 MB on one line, then a valid message.
		w := bufio.NewWriterSize(os.Stdout, 1<<20)
		chunk := []byte(strings.Repeat("x", 1<<20))
		for range 100 {
			_, _ = w.Write(chunk)
		}
		_, _ = w.WriteString("\n" + `{"jsonrpc":"2.0","method":"after"}` + "\n")
		_ = w.Flush()
		_, _ = bufio.NewReader(os.Stdin).WriteTo(devNull{})
		return 0
	case "stderr":
		// 10 MB of stderr, then a message, then exit on EOF.
		line := strings.Repeat("e", 1023) + "\n"
		for range 10 << 10 {
			_, _ = os.Stderr.WriteString(line)
		}
		fmt.Println(`{"jsonrpc":"2.0","method":"ready"}`)
		_, _ = bufio.NewReader(os.Stdin).WriteTo(devNull{})
		return 0
	case "fork":
		// Starts a grandchild that holds stdout open and never exits, prints its pid, then exits.
		exe, _ := os.Executable()
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), helperEnv+"=noread")
		cmd.Stdout = os.Stdout
		if err := cmd.Start(); err != nil {
			return 9
		}
		fmt.Printf(`{"jsonrpc":"2.0","method":"grandchild","params":{"pid":%d}}`+"\n", cmd.Process.Pid)
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
	return 2
}

type devNull struct{}

func (devNull) Write(p []byte) (int, error) { return len(p), nil }

// alive reports whether a process with this pid exists (and is not a zombie we own).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err)
	}
	// The state is the field after the parenthesised command name: Z is a zombie.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
