// Package stdio runs a local MCP server as a child process and talks to it over the 2026-07-28
// stdio binding. Process owns the child's life: its own process group, stdin and stdout pipes that
// honour deadlines, stderr drained continuously into a bounded buffer, and a wait that always
// reaps it. Conn is the client side of the conversation: it frames and decodes every line through
// wire, correlates responses with requests by id, and keeps everything it read, bounded.
//
// A server that dies, hangs, floods, writes garbage or never reads its stdin costs a bounded time
// and bounded memory, and leaves no process behind: Stop escalates from closing stdin to SIGTERM
// to SIGKILL of the whole group, and a context cancelled by Ctrl-C stops it the same way.
//
// stdio imports wire only; never rules, passive, active, proxy, broker or fixtures.
//
// [stdio binding]: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio
package stdio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Defaults for Options.
const (
	// DefaultStderrBytes is how much of the child's stderr is kept: the first and last halves.
	DefaultStderrBytes = 64 << 10
	// DefaultGrace is how long Stop waits at each step (stdin closed, then SIGTERM) before the
	// next one. The spec asks a server to exit promptly when its stdin closes.
	DefaultGrace = 2 * time.Second
)

// Options say what to launch and how.
type Options struct {
	// Path is the program to run; a bare name is looked up on PATH.
	Path string
	// Args are its arguments (without the program name).
	Args []string
	// Env is added to the environment the child inherits, as KEY=VALUE; a key given here
	// replaces an inherited one.
	Env []string
	// Dir is the child's working directory (empty: the caller's).
	Dir string
	// StderrBytes caps the stderr kept (0 → DefaultStderrBytes). The rest is counted, not kept.
	StderrBytes int
	// Grace is the wait at each step of Stop (0 → DefaultGrace).
	Grace time.Duration
	// Stderr, when set, also receives the child's stderr as it arrives (the shim passes it
	// through to its own). It must not block for long: the child writes through it.
	Stderr interface{ Write([]byte) (int, error) }
	// Logger receives lifecycle events at debug level (nil → discard).
	Logger *slog.Logger
}

// Command returns a human-readable form of the command line, for notes and reports.
func (o Options) Command() string {
	parts := append([]string{o.Path}, o.Args...)
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t\n'\"\\$") {
			parts[i] = fmt.Sprintf("%q", p)
		}
	}
	return strings.Join(parts, " ")
}

// Exit is how a child ended.
type Exit struct {
	// Code is the exit status, or 128+N for a child killed by signal N (the shell's convention),
	// or -1 when it could not be determined.
	Code int
	// Signal names the signal that killed it; empty when it exited by itself.
	Signal string
	// StoppedBy says which step of Stop ended it ("stdin closed", "SIGTERM", "SIGKILL"); empty
	// when it ended on its own before any.
	StoppedBy string
}

// String describes the exit in a phrase: "exited with status 3", "killed by SIGKILL".
func (e Exit) String() string {
	s := fmt.Sprintf("exited with status %d", e.Code)
	if e.Signal != "" {
		s = "killed by " + e.Signal
	}
	if e.StoppedBy != "" {
		s += " after " + e.StoppedBy
	}
	return s
}

// Process is one running child. Its methods are safe for concurrent use.
type Process struct {
	opts Options
	cmd  *exec.Cmd
	// Stdin is the write end of the child's stdin (supports SetWriteDeadline).
	Stdin *os.File
	// Stdout is the read end of the child's stdout (supports SetReadDeadline).
	Stdout *os.File

	stderr     *boundedBuffer
	stderrDone chan struct{}
	done       chan struct{} // closed once the child has been reaped
	exit       Exit
	stopOnce   sync.Once
	stopMu     sync.Mutex
	stoppedBy  string
	closeIn    sync.Once
}

// Start launches the child. Cancelling ctx stops it (Stop's escalation) and reaps it; the caller
// should still call Stop, which waits for that. The error means the program could not be started.
func Start(ctx context.Context, opts Options) (*Process, error) {
	if opts.Path == "" {
		return nil, errors.New("starting a stdio server: no command given")
	}
	if opts.StderrBytes <= 0 {
		opts.StderrBytes = DefaultStderrBytes
	}
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	path, err := exec.LookPath(opts.Path)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", opts.Command(), err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting %s: creating stdin pipe: %w", opts.Command(), err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("starting %s: creating stdout pipe: %w", opts.Command(), err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("starting %s: creating stderr pipe: %w", opts.Command(), err)
	}
	cmd := exec.Command(path, opts.Args...)
	cmd.Dir = opts.Dir
	cmd.Env = mergeEnv(os.Environ(), opts.Env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("starting %s: %w", opts.Command(), err)
	}
	// The child holds its own copies; the parent keeps only its ends, so the child's exit is an
	// EOF on stdout and a closed stdin is an EOF for the child.
	closeAll(inR, outW, errW)
	p := &Process{
		opts: opts, cmd: cmd, Stdin: inW, Stdout: outR,
		stderr: newBoundedBuffer(opts.StderrBytes), stderrDone: make(chan struct{}), done: make(chan struct{}),
	}
	go p.drainStderr(errR)
	go p.reap()
	go func() {
		select {
		case <-ctx.Done():
			p.opts.Logger.Debug("context ended: stopping the stdio server", "pid", cmd.Process.Pid)
			p.Stop()
		case <-p.done:
		}
	}()
	opts.Logger.Debug("started stdio server", "pid", cmd.Process.Pid, "command", opts.Command())
	return p, nil
}

// PID is the child's process ID (also its process group ID).
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Done is closed once the child has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the child has exited, and how.
func (p *Process) Exited() (Exit, bool) {
	select {
	case <-p.done:
		return p.exit, true
	default:
		return Exit{}, false
	}
}

// Stderr returns what the child wrote to stderr so far, bounded: the first and last parts, with
// a marker saying how much was dropped between them.
func (p *Process) Stderr() string { return p.stderr.String() }

// StderrTotal is how many bytes the child wrote to stderr, kept or not.
func (p *Process) StderrTotal() int64 { return p.stderr.Total() }

// CloseStdin closes the child's stdin: the spec's graceful-shutdown signal. It is idempotent.
func (p *Process) CloseStdin() {
	p.closeIn.Do(func() { _ = p.Stdin.Close() })
}

// Signal sends sig to the child's whole process group.
func (p *Process) Signal(sig syscall.Signal) error {
	if _, done := p.Exited(); done {
		return nil
	}
	if err := signalGroup(p.PID(), sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signalling the stdio server's process group: %w", err)
	}
	return nil
}

// Stop ends the child and returns how it ended: it closes stdin and waits Grace, then sends
// SIGTERM to the process group and waits Grace, then SIGKILL to the group, and waits for the
// reap. It always returns once the child is reaped, within about twice Grace plus the kill; a
// second call returns the same Exit.
func (p *Process) Stop() Exit {
	p.stopOnce.Do(func() {
		grace := p.opts.Grace
		steps := []struct {
			name string
			do   func()
		}{
			{"stdin closed", p.CloseStdin},
			{"SIGTERM", func() { _ = p.Signal(syscall.SIGTERM) }},
			{"SIGKILL", func() { _ = p.Signal(syscall.SIGKILL) }},
		}
		for _, s := range steps {
			// A child that has already ended, reaped or not, ended on its own: no step is
			// credited with it, however late the reap comes.
			if _, done := p.Exited(); done || exitedUnreaped(p.PID()) {
				break
			}
			p.stopMu.Lock()
			p.stoppedBy = s.name
			p.stopMu.Unlock()
			s.do()
			select {
			case <-p.done:
			case <-time.After(grace):
			}
		}
		<-p.done
		// The group may still hold members (a grandchild the server forked): they get the
		// SIGKILL too, so nothing of the server outlives Stop.
		_ = signalGroup(p.PID(), syscall.SIGKILL)
		p.CloseStdin()
		_ = p.Stdout.Close()
		// What the server wrote to stderr before it exited is still in the pipe: wait for the
		// drain, so Stderr (and Options.Stderr) has all of it, within one more grace.
		select {
		case <-p.stderrDone:
		case <-time.After(grace):
		}
	})
	<-p.done
	return p.exit
}

// Wait blocks until the child has exited on its own or ctx ends, and returns its exit.
func (p *Process) Wait(ctx context.Context) (Exit, error) {
	select {
	case <-p.done:
		return p.exit, nil
	case <-ctx.Done():
		return Exit{}, fmt.Errorf("waiting for the stdio server to exit: %w", ctx.Err())
	}
}

// Settle waits, within ctx, for a child that is ending on its own to be reaped and for the rest of
// its stderr, without stopping it, and reports how it ended. A caller that saw the child go (its
// stdout ended, a write to its stdin broke) calls it before asking how the child ended: the
// kernel closes a dying process's pipes before it can be reaped, so at that moment Exited still
// says it runs, and a Stop then would credit the child's own exit to the stdin it closed.
// ok is false when the child is still running when ctx ends.
func (p *Process) Settle(ctx context.Context) (exit Exit, ok bool) {
	select {
	case <-p.done:
	case <-ctx.Done():
		return Exit{}, false
	}
	select {
	case <-p.stderrDone:
	case <-ctx.Done():
	}
	return p.exit, true
}

// reap waits for the child and records its exit; it is the only caller of cmd.Wait.
func (p *Process) reap() {
	err := p.cmd.Wait()
	// Wait returns once the process is gone; stderr may still be draining from a grandchild,
	// which the drain goroutine finishes on its own.
	e := Exit{Code: -1}
	if st := p.cmd.ProcessState; st != nil {
		e.Code = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = signalName(ws.Signal())
			e.Code = 128 + int(ws.Signal())
		}
	} else if err != nil {
		p.opts.Logger.Debug("waiting for the stdio server failed", "error", err)
	}
	p.stopMu.Lock()
	e.StoppedBy = p.stoppedBy
	p.stopMu.Unlock()
	p.exit = e
	p.opts.Logger.Debug("stdio server exited", "pid", p.PID(), "exit", e.String())
	close(p.done)
}

// drainStderr reads the child's stderr until it closes, keeping a bounded part of it and
// passing it through to Options.Stderr.
func (p *Process) drainStderr(r *os.File) {
	defer close(p.stderrDone)
	defer r.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = p.stderr.Write(buf[:n]) // never fails: it keeps what fits
			if p.opts.Stderr != nil {
				_, _ = p.opts.Stderr.Write(buf[:n])
			}
		}
		if err != nil {
			return
		}
	}
}

// mergeEnv returns base with extra applied: a KEY=VALUE in extra replaces base's KEY.
func mergeEnv(base, extra []string) []string {
	if len(extra) == 0 {
		return base
	}
	override := map[string]bool{}
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		override[k] = true
	}
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !override[k] {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}
