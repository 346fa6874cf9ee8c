package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/wire"
)

// within is the bound every test below puts on a misbehaving server: generous, so a loaded
// machine never fails a test, and finite, so a regression fails instead of hanging.
const within = 60 * time.Second

func start(t *testing.T, opts Options) (*Process, *Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	t.Cleanup(cancel)
	p, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { p.Stop() })
	return p, Dial(p, ConnOptions{MaxLineBytes: 1 << 20})
}

func callCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestCallAndGracefulStop(t *testing.T) {
	p, c := start(t, helper(t, "echo"))
	for i := 1; i <= 3; i++ {
		msg := `{"jsonrpc":"2.0","id":` + string(rune('0'+i)) + `,"method":"tools/list"}`
		x, err := c.Call(callCtx(t, within), []byte(msg))
		if err != nil {
			t.Fatalf("Call %d: %v", i, err)
		}
		req, resp := x.Request, x.Response()
		if x.End != wire.EndResponse || resp == nil || req.Dir != wire.ToServer || resp.Dir != wire.ToClient || resp.Seq <= req.Seq {
			t.Fatalf("exchange: %+v", x)
		}
		if got := resp.Message.IDString(); got != string(rune('0'+i)) {
			t.Errorf("response id %s, want %d", got, i)
		}
	}
	exit := p.Stop()
	if exit.Code != 0 || exit.Signal != "" || exit.StoppedBy != "stdin closed" {
		t.Errorf("Stop = %+v, want status 0 after stdin closed", exit)
	}
	if alive(p.PID()) {
		t.Errorf("pid %d still alive after Stop", p.PID())
	}
	if len(c.Frames(0, 0)) != 6 || len(c.Strays()) != 0 {
		t.Errorf("kept %d frames and %d strays, want 6 and 0", len(c.Frames(0, 0)), len(c.Strays()))
	}
}

// TestCallTimeoutCancels: a request the server never answers comes back, once the deadline has
// passed, as an abandoned exchange that still holds the progress the server sent for it, and the
// server is told with notifications/cancelled.
func TestCallTimeoutCancels(t *testing.T) {
	_, c := start(t, helper(t, "slow"))
	x, err := c.Call(callCtx(t, time.Second), []byte(`{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"_meta":{"progressToken":"tok"}}}`))
	if !errors.Is(err, ErrNoReply) {
		t.Fatalf("Call = %v, want ErrNoReply", err)
	}
	if x.End != wire.EndAbandoned || len(x.Replies) != 1 || x.Replies[0].Message.Method != "notifications/progress" {
		t.Fatalf("exchange = %+v, want the abandoned request with its progress", x)
	}
	f, err := c.WaitFor(callCtx(t, within), 0, func(f wire.Frame) bool { return f.Message != nil && f.Message.Method == "got-cancel" })
	if err != nil {
		t.Fatalf("the server never saw notifications/cancelled: %v", err)
	}
	if got := string(f.Message.ParamField("requestId")); got != `"r1"` {
		t.Errorf("cancelled %s, want \"r1\"", got)
	}
}

func TestEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	opts := helper(t, "env", "SENTINEL_STDIO_TEST_VALUE")
	opts.Env = append(opts.Env, "SENTINEL_STDIO_TEST_VALUE=k=v with spaces")
	opts.Dir = dir
	_, c := start(t, opts)
	f, err := c.WaitFor(callCtx(t, within), 0, func(f wire.Frame) bool { return f.Message != nil })
	if err != nil {
		t.Fatal(err)
	}
	var params struct{ Value, Wd string }
	if err := json.Unmarshal(f.Message.Params, &params); err != nil {
		t.Fatal(err)
	}
	wantDir, _ := filepath.EvalSymlinks(dir)
	gotDir, _ := filepath.EvalSymlinks(params.Wd)
	if params.Value != "k=v with spaces" || gotDir != wantDir {
		t.Errorf("child saw %+v, want the value and dir %s", params, wantDir)
	}
}

// TestBadServers is the table of servers that misbehave: each ends in bounded time with the
// error a caller can tell apart, and leaves no process behind.
func TestBadServers(t *testing.T) {
	tests := []struct {
		name     string
		mode     string
		wait     time.Duration // how long the call may wait for its reply
		wantErr  error
		check    func(t *testing.T, p *Process, c *Conn)
		wantExit func(Exit) bool
	}{
		{
			name: "garbage on stdout is framed and classified, and the call gets no reply",
			mode: "garbage", wait: 2 * time.Second, wantErr: ErrNoReply,
			check: func(t *testing.T, _ *Process, c *Conn) {
				var problems []wire.LineProblem
				for _, f := range c.Frames(0, 0) {
					if f.Dir == wire.ToClient {
						problems = append(problems, f.Problem)
					}
				}
				want := []wire.LineProblem{wire.ProblemNotJSON, wire.ProblemSplit, wire.ProblemSplit, wire.ProblemSplit}
				if len(problems) != len(want) {
					t.Fatalf("problems %v, want %v", problems, want)
				}
				for i := range want {
					if problems[i] != want[i] {
						t.Errorf("line %d: %q, want %q", i, problems[i], want[i])
					}
				}
			},
			wantExit: func(e Exit) bool { return e.Code == 0 && e.StoppedBy == "stdin closed" },
		},
		{
			name: "exit at start is a closed stream, with stderr kept and the status",
			mode: "exit", wait: within, wantErr: ErrClosed,
			check: func(t *testing.T, p *Process, _ *Conn) {
				// Settle, not Done: the child is reaped before its stderr pipe is drained, so
				// only Settle promises the whole of what it wrote (a clean-clone CI run read "").
				if _, ok := p.Settle(callCtx(t, within)); !ok {
					t.Fatal("the child did not exit")
				}
				if !strings.Contains(p.Stderr(), "missing configuration") {
					t.Errorf("stderr = %q", p.Stderr())
				}
			},
			wantExit: func(e Exit) bool { return e.Code == 3 && e.Signal == "" },
		},
		{
			name: "a hang that ignores SIGTERM gets no reply and is killed",
			mode: "hang", wait: 1 * time.Second, wantErr: ErrNoReply,
			wantExit: func(e Exit) bool { return e.Signal == "SIGKILL" && e.StoppedBy == "SIGKILL" && e.Code == 137 },
		},
		{
			name: "100 MB on one line is refused without holding it, and the next line still reads",
			mode: "flood", wait: 2 * time.Second, wantErr: ErrNoReply,
			check: func(t *testing.T, _ *Process, c *Conn) {
				f, err := c.WaitFor(callCtx(t, within), 0, func(f wire.Frame) bool { return f.Message != nil && f.Message.Method == "after" })
				if err != nil {
					t.Fatalf("the message after the flood never arrived: %v", err)
				}
				var long *wire.Frame
				for _, g := range c.Frames(0, f.Seq) {
					if g.Problem == wire.ProblemTooLong {
						long = &g
					}
				}
				if long == nil || long.Line.Size != 100<<20 || len(long.Line.Bytes) != 1<<20 {
					t.Fatalf("too-long frame = %+v", long)
				}
			},
			wantExit: func(e Exit) bool { return e.Code == 0 },
		},
		{
			name: "a server that never reads stdin fails the write, then is killed",
			mode: "noread", wait: 1 * time.Second, wantErr: ErrNotReading,
			wantExit: func(e Exit) bool { return e.Signal == "SIGKILL" },
		},
		{
			name: "10 MB of stderr is drained and kept bounded",
			mode: "stderr", wait: 2 * time.Second, wantErr: ErrNoReply,
			check: func(t *testing.T, p *Process, c *Conn) {
				if _, err := c.WaitFor(callCtx(t, within), 0, func(f wire.Frame) bool { return f.Message != nil }); err != nil {
					t.Fatalf("the server blocked on a full stderr pipe: %v", err)
				}
				if p.StderrTotal() != 10<<20 {
					t.Errorf("stderr total %d, want %d", p.StderrTotal(), 10<<20)
				}
				if s := p.Stderr(); len(s) > DefaultStderrBytes+100 || !strings.Contains(s, "bytes of stderr not kept") {
					t.Errorf("kept %d bytes of stderr, want at most %d with a marker", len(s), DefaultStderrBytes)
				}
			},
			wantExit: func(e Exit) bool { return e.Code == 0 },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, c := start(t, helper(t, tt.mode))
			msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`)
			if tt.mode == "noread" {
				// Fill the pipe: a message bigger than any pipe buffer cannot be written.
				msg = []byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"pad":"` + strings.Repeat("p", 4<<20) + `"}}`)
			}
			x, err := c.Call(callCtx(t, tt.wait), msg)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Call error = %v, want %v", err, tt.wantErr)
			}
			if x == nil || x.Request.Message == nil || x.Response() != nil {
				t.Fatalf("Call's exchange = %+v, want the request without a response", x)
			}
			if tt.check != nil {
				tt.check(t, p, c)
			}
			exit := p.Stop()
			if !tt.wantExit(exit) {
				t.Errorf("exit = %+v (%s)", exit, exit)
			}
			if alive(p.PID()) {
				t.Errorf("pid %d still alive after Stop", p.PID())
			}
		})
	}
}

// TestStopKillsTheWholeGroup: a server that forks a grandchild holding stdout open and exits
// leaves nothing behind once stopped.
func TestStopKillsTheWholeGroup(t *testing.T) {
	p, c := start(t, helper(t, "fork"))
	f, err := c.WaitFor(callCtx(t, within), 0, func(f wire.Frame) bool { return f.Message != nil })
	if err != nil {
		t.Fatal(err)
	}
	var params struct{ PID int }
	if err := json.Unmarshal(f.Message.Params, &params); err != nil || params.PID == 0 {
		t.Fatalf("grandchild pid: %s %v", f.Message.Params, err)
	}
	<-p.Done()
	if !alive(params.PID) {
		t.Fatal("the grandchild died before Stop: the test proves nothing")
	}
	p.Stop()
	deadline := time.Now().Add(within)
	for alive(params.PID) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(params.PID) {
		t.Errorf("grandchild %d outlived Stop", params.PID)
	}
	select {
	case <-c.Closed():
	case <-time.After(within):
		t.Error("stdout did not close once the group was killed")
	}
}

// TestContextCancelStops: cancelling the context Start got (Ctrl-C in a command) stops and
// reaps the server without a Stop call.
func TestContextCancelStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, err := Start(ctx, helper(t, "hang"))
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-p.Done():
	case <-time.After(within):
		t.Fatal("the server outlived its context")
	}
	if e, _ := p.Exited(); e.Signal != "SIGKILL" {
		t.Errorf("exit = %+v, want SIGKILL (the hang ignores SIGTERM)", e)
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(t.Context(), Options{}); err == nil {
		t.Error("Start with no command succeeded")
	}
	_, err := Start(t.Context(), Options{Path: "sentinel-no-such-program-xyz"})
	if err == nil || !strings.Contains(err.Error(), "sentinel-no-such-program-xyz") {
		t.Errorf("Start of a missing program = %v, want an error naming it", err)
	}
}

func TestSendRefusesEmbeddedNewline(t *testing.T) {
	_, c := start(t, helper(t, "echo"))
	if _, err := c.Send(t.Context(), []byte("{\n}")); !errors.Is(err, wire.ErrEmbeddedNewline) {
		t.Errorf("Send = %v, want ErrEmbeddedNewline", err)
	}
	if n := len(c.Frames(0, 0)); n != 0 {
		t.Errorf("a refused message was recorded (%d frames)", n)
	}
}

func TestBoundedBuffer(t *testing.T) {
	b := newBoundedBuffer(10)
	for _, s := range []string{"abc", "defgh", "ijklmnop", "q"} {
		_, _ = b.Write([]byte(s))
	}
	if got := b.String(); got != "abcde\n[… 7 bytes of stderr not kept …]\nmnopq" || b.Total() != 17 {
		t.Errorf("String = %q total %d", got, b.Total())
	}
	small := newBoundedBuffer(10)
	_, _ = small.Write([]byte("short"))
	if small.String() != "short" {
		t.Errorf("String = %q", small.String())
	}
}

func TestOptionsCommand(t *testing.T) {
	o := Options{Path: "node", Args: []string{"server.js", "--name", "a b", ""}}
	if got := o.Command(); got != `node server.js --name "a b" ""` {
		t.Errorf("Command = %s", got)
	}
}

// TestCallUntilStopsAtTheAwaitedMessage: the exchange ends at the first message until accepts,
// without waiting for a response, and the request is cancelled since nobody reads it any more.
func TestCallUntilStopsAtTheAwaitedMessage(t *testing.T) {
	_, c := start(t, helper(t, "slow"))
	x, err := c.CallUntil(callCtx(t, within), []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":7}}}`),
		func(m *wire.Message) bool { return m.Method == "notifications/progress" })
	if err != nil {
		t.Fatalf("CallUntil: %v", err)
	}
	if x.End != wire.EndUntil || len(x.Replies) != 1 {
		t.Fatalf("exchange = %+v, want it ended at the progress notification", x)
	}
	if _, err := c.WaitFor(callCtx(t, within), 0, func(f wire.Frame) bool { return f.Message != nil && f.Message.Method == "got-cancel" }); err != nil {
		t.Fatalf("the request was not cancelled: %v", err)
	}
}

// TestSettleWaitsForAServerThatWent: the kernel closes a dying server's pipes before the server
// can be reaped, so at the end of its stdout it may still look alive. Settle waits for the reap
// and the rest of its stderr; a Stop after it does not credit the server's own exit to the stdin
// it closes. A server that is still running is reported so when the wait ends, not stopped.
func TestSettleWaitsForAServerThatWent(t *testing.T) {
	for range 20 {
		p, c := start(t, helper(t, "exit"))
		<-c.Closed()
		exit, ok := p.Settle(callCtx(t, within))
		if !ok || exit.Code != 3 || exit.StoppedBy != "" {
			t.Fatalf("Settle = %+v, %v; want status 3 on its own", exit, ok)
		}
		if !strings.Contains(p.Stderr(), "fatal: missing configuration") {
			t.Fatalf("stderr after Settle = %q", p.Stderr())
		}
		if again := p.Stop(); again != exit {
			t.Fatalf("Stop after Settle = %+v, want %+v", again, exit)
		}
	}
	p, _ := start(t, helper(t, "noread"))
	if exit, ok := p.Settle(callCtx(t, 200*time.Millisecond)); ok {
		t.Fatalf("Settle on a running server = %+v, true", exit)
	}
	if _, gone := p.Exited(); gone {
		t.Fatal("Settle stopped a running server")
	}
}

// TestStopCreditsNoStepWithAnExitThatCameFirst: a server that exits on its own is a zombie until
// the reaping goroutine runs, which on a loaded machine can be after Stop has begun. Stop looks
// for that zombie without reaping it, so how the server ended never depends on who ran first:
// "exited with status 3", never "... after stdin closed". A server still running is stopped.
func TestStopCreditsNoStepWithAnExitThatCameFirst(t *testing.T) {
	for range 20 {
		p, _ := start(t, helper(t, "exit"))
		deadline := time.Now().Add(within)
		for !exitedUnreaped(p.PID()) {
			if time.Now().After(deadline) {
				t.Fatal("the exit helper never exited")
			}
			time.Sleep(time.Millisecond)
		}
		if exit := p.Stop(); exit.Code != 3 || exit.StoppedBy != "" || exit.String() != "exited with status 3" {
			t.Fatalf("Stop of a server that had exited = %+v (%s), want status 3 on its own", exit, exit)
		}
	}
	p, _ := start(t, helper(t, "noread"))
	if exitedUnreaped(p.PID()) {
		t.Fatal("a running server is reported as exited")
	}
	if exit := p.Stop(); exit.StoppedBy == "" {
		t.Fatalf("Stop of a running server = %+v, want the step that ended it", exit)
	}
}
