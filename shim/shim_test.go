package shim

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/proxy"
	"github.com/mcp-sentinel/sentinel/stdio"
	"github.com/mcp-sentinel/sentinel/wire"
)

const helperEnv = "SENTINEL_SHIM_HELPER"

// within bounds every wait: generous for a loaded machine, finite so a regression fails.
const within = 60 * time.Second

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helperServer(mode))
	}
	os.Exit(m.Run())
}

// helperServer is a stdio server with awkward output: for every line it reads it writes a reply
// naming the line's length, and between replies a log line, invalid UTF-8 and a 3 MiB line; it
// records every byte it read to $SENTINEL_SHIM_RECORD and exits with status 7 at the end of stdin.
func helperServer(mode string) int {
	switch mode {
	case "script":
		rec, err := os.Create(os.Getenv("SENTINEL_SHIM_RECORD"))
		if err != nil {
			return 90
		}
		defer rec.Close()
		out := bufio.NewWriter(os.Stdout)
		r := bufio.NewReader(io.TeeReader(os.Stdin, rec))
		for i := 1; ; i++ {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete","len":%d}}`+"\n", i, len(line))
				switch i % 3 {
				case 0:
					out.WriteString("not a message: a log line on stdout\r\n")
				case 1:
					out.Write([]byte{'{', 0xff, 0xfe, '}', '\n'})
				case 2:
					out.WriteString(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"pad":"` + strings.Repeat("p", 3<<20) + `"}}` + "\n")
				}
				out.Flush()
			}
			if err != nil {
				out.WriteString(`{"jsonrpc":"2.0","method":"bye"}`) // no final newline
				out.Flush()
				return 7
			}
		}
	case "term":
		// Exits with 42 on SIGTERM, proving the signal reached it.
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM)
		fmt.Println(`{"jsonrpc":"2.0","method":"ready"}`)
		<-ch
		return 42
	case "exit":
		fmt.Fprintln(os.Stderr, "no config")
		return 3
	case "fork":
		// Leaves a grandchild holding stdout open, and exits 0.
		exe, _ := os.Executable()
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), helperEnv+"=sleep")
		cmd.Stdout = os.Stdout
		_ = cmd.Start()
		fmt.Printf("{\"jsonrpc\":\"2.0\",\"method\":\"grandchild\",\"params\":{\"pid\":%d}}\n", cmd.Process.Pid)
		return 0
	case "sleep":
		signal.Ignore(syscall.SIGTERM)
		select {}
	case "echo":
		// Answers every request line with a result echoing its id, until stdin ends.
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 4<<20), 4<<20)
		w := bufio.NewWriter(os.Stdout)
		for sc.Scan() {
			line := sc.Bytes()
			i := bytes.Index(line, []byte(`"id":`))
			j := bytes.IndexByte(line[max(i, 0):], ',')
			if i < 0 || j < 0 {
				continue
			}
			id := line[i+5 : i+j]
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","content":[{"type":"text","text":"%d bytes received"}],"isError":false}}`+"\n", id, len(line))
			w.Flush()
		}
		return 0
	case "shim":
		// The shim itself, as a process between real pipes: the test binary relays to a copy of
		// itself in echo mode, as `sentinel shim -- …` would.
		exe, _ := os.Executable()
		obs, done := measureObserver()
		opts := Options{
			Server: stdio.Options{Path: exe, Env: []string{helperEnv + "=echo"}},
			Stdin:  os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		}
		if obs != nil {
			opts.Observer = obs
		}
		r, err := Run(context.Background(), opts)
		done()
		if err != nil {
			return 2
		}
		return r.Exit.Code
	}
	return 2
}

func helper(t testing.TB, mode string, env ...string) stdio.Options {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return stdio.Options{Path: exe, Env: append([]string{helperEnv + "=" + mode}, env...), Grace: within / 4}
}

// script is what the scripted client writes, chunk by chunk: ordinary requests, a line split
// across writes, CRLF, invalid UTF-8, a 10 MiB line (over the framing cap used below) and a last
// line without a newline.
func script() [][]byte {
	return [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}` + "\n"),
		[]byte(`{"jsonrpc":"2.0","id":2,"meth`),
		[]byte(`od":"tools/list"}` + "\r\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"),
		{0xc3, 0x28, '\n'},
		[]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{"big":"` + strings.Repeat("b", 10<<20) + `"}}}` + "\n"),
		[]byte(`{"jsonrpc":"2.0","id":4,"method":"ping"}`),
	}
}

// drive writes the script to w (closing it after) and returns everything read from r.
func drive(t *testing.T, w io.WriteCloser, r io.Reader) []byte {
	t.Helper()
	var got bytes.Buffer
	read := make(chan error, 1)
	go func() { _, err := io.Copy(&got, r); read <- err }()
	for _, c := range script() {
		if _, err := w.Write(c); err != nil {
			t.Fatalf("client write: %v", err)
		}
	}
	_ = w.Close()
	select {
	case <-read:
	case <-time.After(within):
		t.Fatal("the client never saw the end of stdout")
	}
	return got.Bytes()
}

// direct runs the server with the scripted client on a plain pipe, for the bytes a client gets
// without the shim.
func direct(t *testing.T, record string) []byte {
	t.Helper()
	o := helper(t, "script", "SENTINEL_SHIM_RECORD="+record)
	cmd := exec.Command(o.Path)
	cmd.Env = append(os.Environ(), o.Env...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	got := drive(t, in, out)
	_ = cmd.Wait()
	return got
}

type collector struct {
	mu     sync.Mutex
	frames []wire.Frame
}

func (c *collector) Observe(f wire.Frame) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.frames = append(c.frames, f)
}

// TestShimIsByteExact drives the shim with a scripted client and compares bytes: the server
// receives exactly what the client sent, the client receives exactly what the server sends on a
// direct pipe, the shim's exit status is the server's, and every line was framed for grading.
func TestShimIsByteExact(t *testing.T) {
	dir := t.TempDir()
	want := direct(t, filepath.Join(dir, "direct.rec"))

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	obs := &collector{}
	res := make(chan Result, 1)
	go func() {
		r, err := Run(context.Background(), Options{
			Server: helper(t, "script", "SENTINEL_SHIM_RECORD="+filepath.Join(dir, "shim.rec")),
			Stdin:  inR, Stdout: outW, Stderr: &stderr, Observer: obs, MaxLineBytes: 1 << 20,
		})
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		_ = outW.Close()
		res <- r
	}()
	got := drive(t, inW, outR)
	var r Result
	select {
	case r = <-res:
	case <-time.After(within):
		t.Fatal("Run did not return")
	}

	if !bytes.Equal(got, want) {
		t.Errorf("client received %d bytes through the shim, %d directly; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	sent := bytes.Join(script(), nil)
	for _, rec := range []string{"direct.rec", "shim.rec"} {
		b, err := os.ReadFile(filepath.Join(dir, rec))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, sent) {
			t.Errorf("%s: the server received %d bytes, the client sent %d; first difference at %d", rec, len(b), len(sent), firstDiff(b, sent))
		}
	}
	if r.Exit.Code != 7 {
		t.Errorf("exit = %+v, want the server's status 7", r.Exit)
	}

	obs.mu.Lock()
	defer obs.mu.Unlock()
	if int64(len(obs.frames)) != r.Frames || r.Dropped != 0 {
		t.Fatalf("observed %d frames, framed %d, dropped %d", len(obs.frames), r.Frames, r.Dropped)
	}
	var toServer, toClient []wire.Frame
	for i, f := range obs.frames {
		if f.Seq != int64(i+1) {
			t.Fatalf("frame %d has seq %d", i, f.Seq)
		}
		if f.Dir == wire.ToServer {
			toServer = append(toServer, f)
		} else {
			toClient = append(toClient, f)
		}
	}
	wantServer := []wire.LineProblem{wire.ProblemNone, wire.ProblemNone, wire.ProblemNone, wire.ProblemNotUTF8, wire.ProblemTooLong, wire.ProblemNone}
	if len(toServer) != len(wantServer) {
		t.Fatalf("client→server frames: %d, want %d", len(toServer), len(wantServer))
	}
	for i, p := range wantServer {
		if toServer[i].Problem != p {
			t.Errorf("client→server frame %d: %q (%s), want %q", i, toServer[i].Problem, toServer[i].Detail, p)
		}
	}
	if !toServer[5].Line.Unterminated {
		t.Error("the last client line has no newline, but its frame is not marked unterminated")
	}
	// Every reply the server wrote came after the request that caused it.
	for _, f := range toClient {
		if f.Message == nil || !f.Message.IsResponse() {
			continue
		}
		n, _ := strconv.Atoi(f.Message.IDString())
		if n < 1 || n > len(toServer) || toServer[n-1].Seq > f.Seq {
			t.Errorf("reply %d (seq %d) was queued before its request", n, f.Seq)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// run starts the shim over pipes and returns the client's ends and the result channel.
func run(t *testing.T, opts Options) (io.WriteCloser, *bufio.Reader, <-chan Result) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	opts.Stdin, opts.Stdout = inR, outW
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	res := make(chan Result, 1)
	go func() {
		r, err := Run(context.Background(), opts)
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		_ = outW.Close()
		res <- r
	}()
	t.Cleanup(func() { _ = inW.Close(); _ = outR.Close() })
	return inW, bufio.NewReader(outR), res
}

func result(t *testing.T, res <-chan Result) Result {
	t.Helper()
	select {
	case r := <-res:
		return r
	case <-time.After(within):
		t.Fatal("Run did not return")
	}
	return Result{}
}

func TestShimExitAtStartPassesStatusAndStderr(t *testing.T) {
	var stderr syncBuffer
	_, out, res := run(t, Options{Server: helper(t, "exit"), Stderr: &stderr})
	if b, _ := io.ReadAll(out); len(b) != 0 {
		t.Errorf("the shim wrote %q to stdout for a server that wrote nothing", b)
	}
	if r := result(t, res); r.Exit.Code != 3 {
		t.Errorf("exit = %+v, want 3", r.Exit)
	}
	if !strings.Contains(stderr.String(), "no config") {
		t.Errorf("the server's stderr did not pass through: %q", stderr.String())
	}
}

func TestShimForwardsSignals(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	_, out, res := run(t, Options{Server: helper(t, "term"), Signals: sigs})
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	sigs <- syscall.SIGTERM
	if r := result(t, res); r.Exit.Code != 42 {
		t.Errorf("exit = %+v, want 42 (the server's answer to SIGTERM)", r.Exit)
	}
}

func TestShimEndsAGroupThatOutlivesTheServer(t *testing.T) {
	_, out, res := run(t, Options{Server: helper(t, "fork"), Drain: 200 * time.Millisecond})
	line, err := out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid := 0
	if _, err := fmt.Sscanf(line[strings.Index(line, `"pid":`):], `"pid":%d`, &pid); err != nil {
		t.Fatalf("grandchild line %q: %v", line, err)
	}
	if r := result(t, res); r.Exit.Code != 0 {
		t.Errorf("exit = %+v, want the server's 0", r.Exit)
	}
	deadline := time.Now().Add(within)
	for syscall.Kill(pid, 0) == nil && !zombie(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil && !zombie(pid) {
		t.Errorf("grandchild %d outlived the shim", pid)
	}
}

func TestShimClientGone(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	t.Cleanup(func() { _ = inW.Close() })
	res := make(chan Result, 1)
	go func() {
		r, _ := Run(context.Background(), Options{
			Server: helper(t, "script", "SENTINEL_SHIM_RECORD="+filepath.Join(t.TempDir(), "rec")),
			Stdin:  inR, Stdout: outW, Stderr: io.Discard,
		})
		res <- r
	}()
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"x"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(outR).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	// The client stops reading without closing its stdin: only its end of stdout goes away. The
	// reply to its next request cannot be delivered, and the shim shuts the server down instead
	// of hanging.
	_ = outR.Close()
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"x"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	r := result(t, res)
	if !r.ClientGone || r.Exit.Code != 7 {
		t.Errorf("result %+v: want the client noticed gone and the server's own exit 7", r)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// measureObserver is the Observer of the measured shim: the grading `sentinel shim` runs (the
// proxy's stdio front end and pipeline, passive checks, a SQLite store in a temporary folder), or
// none with SENTINEL_SHIM_NO_OBSERVER=1, to tell the cost of grading from the cost of copying.
// The returned func drains the pipeline and removes the store.
func measureObserver() (Observer, func()) {
	if os.Getenv("SENTINEL_SHIM_NO_OBSERVER") != "" {
		return nil, func() {}
	}
	dir, err := os.MkdirTemp("", "shim-measure")
	if err != nil {
		return nil, func() {}
	}
	store, err := findings.Open(context.Background(), filepath.Join(dir, "m.db"), nil)
	if err != nil {
		return nil, func() { _ = os.RemoveAll(dir) }
	}
	pipe, err := proxy.NewPipeline(proxy.PipelineOptions{Store: store, Graders: []proxy.Grader{proxy.Passive()}})
	if err != nil {
		return nil, func() { _ = store.Close(); _ = os.RemoveAll(dir) }
	}
	fe := proxy.NewStdioFrontEnd(pipe, "stdio: echo")
	return fe, func() {
		fe.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = pipe.Close(ctx)
		_ = store.Close()
		_ = os.RemoveAll(dir)
	}
}
