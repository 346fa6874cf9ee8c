package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/active"
	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

func init() { register(newProbeCmd, "probe", "scan") }

// TokenEnv is the environment variable the token is read from when no flag gives one.
const TokenEnv = "SENTINEL_TOKEN"

// Secret holds a credential. Every way of printing it — fmt verbs, JSON, slog — yields
// "<redacted>"; only Reveal returns the value, and only the HTTP layer calls it.
type Secret struct{ v string }

// String redacts.
func (s Secret) String() string {
	if s.v == "" {
		return ""
	}
	return wire.Redacted
}

// GoString redacts (the %#v verb).
func (s Secret) GoString() string { return s.String() }

// MarshalJSON redacts.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// LogValue redacts in structured logs.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// Reveal returns the credential itself.
func (s Secret) Reveal() string { return s.v }

// Empty reports whether no credential was given.
func (s Secret) Empty() bool { return s.v == "" }

// probeOptions is what `sentinel probe` parses its flags into.
type probeOptions struct {
	endpoint    string
	server      serverCommand
	serverArgs  []string
	gate        string
	output      sentinelcmd.OutputOptions
	baseline    string
	configPath  string
	headers     []string
	token       string
	tokenFile   string
	allowCall   []string
	toolArgs    []string
	origin      string
	timeout     time.Duration
	reqTimeout  time.Duration
	rules       []string
	areas       []string
	concurrency int
	profile     profileFlags
}

func newProbeCmd() *cobra.Command {
	var o probeOptions
	cmd := &cobra.Command{
		Use:     "probe [flags] [ENDPOINT | -- COMMAND [ARGS...]]",
		Aliases: []string{"scan"},
		Short:   "Grade an MCP endpoint actively against the 2026-07-28 revision",
		Long: `Send crafted requests to an MCP endpoint (the one argument, or --endpoint) and grade every
answer against the rules of the 2026-07-28 revision. The scan first checks that the server
speaks 2026-07-28 (server/discover); a server that does not is told so plainly. If it completes
a 2025 initialize, the scan runs inside that legacy session and reports every failure it sees,
while would-be passes are indeterminate. Rules whose feature the server lacks are n/a; rules the
scan could not settle are indeterminate and always listed with the reason.

A local stdio server is scanned the same way: give its command after -- (or as --command
'node server.js'), with --env KEY=VALUE and --cwd for its environment. The scan launches it in
its own process group, speaks the stdio binding (one message per line), grades the stdio rules
and every protocol-level one (the HTTP-only rules are n/a), starts it again if a probe makes it
exit (saying so), shows its stderr when it matters, and always stops it, Ctrl-C included.

Tools are called only when annotated readOnlyHint: true or named with --allow-call; --tool-args
gives the arguments for a tool whose schema does not say what a valid call looks like. Prompts are
got freely (prompts/get has no side effects): one that answers input_required gets every MRTR
check a tool does.

Exit codes: 0 the target passed the gate, 1 it failed the gate, 2 the scan could not run or did
not finish: the endpoint is unreachable, requires authorization the scan was not given, is not an
MCP endpoint, or --timeout ran out before every probe finished (the partial report is still
written, and says it is incomplete).`,
		Example: `  sentinel probe http://127.0.0.1:8080/mcp
  sentinel probe --endpoint http://127.0.0.1:8080/mcp --format json --out result.json
  sentinel scan --endpoint https://mcp.example.com/mcp --token-file token.txt --format sarif --out sentinel.sarif
  SENTINEL_TOKEN=... sentinel probe --endpoint https://mcp.example.com/mcp --area headers --gate should
  sentinel probe -- node build/index.js
  sentinel probe --command 'python -m my_server' --env API_KEY=test --cwd ~/src/my-server`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := applyConfig(cmd, &o, cmd.ErrOrStderr()); err != nil {
				return err
			}
			o.serverArgs = commandArgs(cmd, args)
			if o.server.command == "" && len(o.serverArgs) == 0 {
				if err := requireEndpoint(o.endpoint); err != nil {
					return err
				}
			}
			stop, err := o.profile.start()
			if err != nil {
				return err
			}
			scanGC()
			return errors.Join(runProbe(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o), stop())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.endpoint, "endpoint", "", "MCP endpoint URL to probe (required, here or in sentinel.yaml, unless a stdio server is given)")
	addCommandFlags(cmd, &o.server)
	f.StringVar(&o.gate, "gate", string(report.GateMust), "which failures fail the run: must, should or none")
	sentinelcmd.AddOutputFlags(cmd, &o.output, report.FormatText)
	addBaselineFlag(cmd, &o.baseline)
	addConfigFlag(cmd, &o.configPath)
	f.StringArrayVar(&o.headers, "header", nil, `extra request header "Name: value" (repeatable)`)
	f.StringVar(&o.token, "token", "", "bearer token sent as Authorization (never printed; prefer --token-file or "+TokenEnv+")")
	f.StringVar(&o.tokenFile, "token-file", "", "read the bearer token from this file")
	f.StringArrayVar(&o.allowCall, "allow-call", nil, "a tool the scan may call besides readOnlyHint tools (repeatable)")
	f.StringArrayVar(&o.toolArgs, "tool-args", nil, `arguments for one tool as name=JSON object, e.g. 'get_weather={"city":"Paris"}' (repeatable; does not make the tool callable)`)
	f.StringVar(&o.origin, "origin", "", "an Origin the server allows, e.g. http://localhost:3000 (the control for the foreign-Origin check)")
	f.DurationVar(&o.timeout, "timeout", active.DefaultTimeout, "deadline for the whole scan; a scan that runs out of it is incomplete (exit 2)")
	f.DurationVar(&o.reqTimeout, "request-timeout", wire.DefaultReadTimeout, "deadline for one request and its whole answer; a request past it gets no answer")
	f.StringArrayVar(&o.rules, "rule", nil, "only this rule, by ID or name (repeatable)")
	f.StringArrayVar(&o.areas, "area", nil, "only rules of this area, e.g. headers (repeatable)")
	f.IntVar(&o.concurrency, "concurrency", active.DefaultConcurrency, "probes run at once (at least 1)")
	addProfileFlags(cmd, &o.profile)
	registerProbeCompletions(cmd)
	return cmd
}

// scanGCPercent is the garbage collector's target for a scan: a scan allocates a few megabytes
// of short-lived JSON in well under a second and exits, so collecting at every doubling of a
// small heap is CPU spent on the scan's critical path for memory the exit frees anyway. A
// hostile server cannot use it to grow the heap without bound: every read is capped by wire's
// limits, and the soft limit below brings collection back long before memory is short.
const scanGCPercent = 400

// scanGCMemoryLimit is the heap size from which the collector works as hard as it must.
const scanGCMemoryLimit = 512 << 20

// scanGC applies scanGCPercent and gives the scan its heap in huge pages (prepareHeap), unless
// the operator set GOGC or GOMEMLIMIT themselves.
func scanGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(scanGCPercent)
		debug.SetMemoryLimit(scanGCMemoryLimit)
		prepareHeap()
	}
}

// resolveToken picks the token: --token, else --token-file, else $SENTINEL_TOKEN.
func resolveToken(o probeOptions, getenv func(string) string) (Secret, error) {
	return tokenFrom(o.token, o.tokenFile, getenv)
}

// tokenFrom picks the token of a command with --token and --token-file flags: the flag, else the
// file, else $SENTINEL_TOKEN. Giving both flags is an error.
func tokenFrom(flag, file string, getenv func(string) string) (Secret, error) {
	switch {
	case flag != "" && file != "":
		return Secret{}, errors.New("give the token once: --token or --token-file, not both")
	case flag != "":
		return Secret{strings.TrimSpace(flag)}, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return Secret{}, fmt.Errorf("reading --token-file: %w", err)
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return Secret{}, fmt.Errorf("--token-file %s is empty", file)
		}
		return Secret{tok}, nil
	}
	return Secret{strings.TrimSpace(getenv(TokenEnv))}, nil
}

// probeHeaders turns "Name: value" flags into a header, and lists the values that must never be
// printed (credential headers given by hand).
func probeHeaders(hs []string) (http.Header, []string, error) {
	h := http.Header{}
	var secrets []string
	for i, s := range hs {
		name, value, ok := strings.Cut(s, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if err := headerShape(i, ok, name); err != nil {
			return nil, nil, err
		}
		h.Add(name, value)
		for _, sens := range wire.SensitiveHeaders {
			if strings.EqualFold(name, sens) && value != "" {
				secrets = append(secrets, value)
				if _, cred, ok := strings.Cut(value, " "); ok && len(cred) >= 8 {
					secrets = append(secrets, cred)
				}
			}
		}
	}
	return h, secrets, nil
}

func runProbe(ctx context.Context, stdout, stderr io.Writer, o probeOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	gate, err := report.ParseGate(o.gate)
	if err != nil {
		return fmt.Errorf("--gate: %w", err)
	}
	outs, err := o.output.Plan()
	if err != nil {
		return err
	}
	known, err := loadBaseline(o.baseline)
	if err != nil {
		return err
	}
	if o.timeout <= 0 {
		return errors.New("--timeout must be positive")
	}
	if o.reqTimeout <= 0 {
		return errors.New("--request-timeout must be positive")
	}
	if o.concurrency < 1 {
		return fmt.Errorf("--concurrency %d: run at least 1 probe at a time (the default is %d)", o.concurrency, active.DefaultConcurrency)
	}
	if err := checkOrigin(o.origin); err != nil {
		return err
	}
	tok, err := resolveToken(o, os.Getenv)
	if err != nil {
		return err
	}
	header, secrets, err := probeHeaders(o.headers)
	if err != nil {
		return err
	}
	if !tok.Empty() {
		header.Set(wire.HeaderAuthorization, "Bearer "+tok.Reveal())
		secrets = append(secrets, tok.Reveal())
	}
	toolArgs, err := parseToolArgs(o.toolArgs)
	if err != nil {
		return err
	}
	server, err := o.server.resolve(o.serverArgs, o.endpoint)
	if err != nil {
		return err
	}
	target := o.endpoint
	if server != nil {
		target = "stdio: " + server.Command()
	}
	areas := make([]rules.Area, len(o.areas))
	for i, a := range o.areas {
		areas[i] = rules.Area(a)
	}
	opts := active.Options{
		Endpoint: o.endpoint, Command: server, Header: header, Secrets: secrets, AllowCall: o.allowCall, ToolArgs: toolArgs, Origin: o.origin,
		Timeout: o.timeout, Rules: o.rules, Areas: areas, Concurrency: o.concurrency,
		Limits: wire.Limits{ReadTimeout: o.reqTimeout},
		Tool:   "sentinel " + cli.Version,
	}
	if isTerminal(stderr) {
		opts.Progress = func(done, total int, name string) {
			fmt.Fprintf(stderr, "\r\033[Kprobe %d/%d %s", done, total, name)
			if done == total {
				fmt.Fprint(stderr, "\r\033[K")
			}
		}
	}
	if err := sentinelcmd.OpenOutputs(outs); err != nil {
		return err
	}
	out, scanErr := active.Scan(ctx, opts)
	res := scanResult(target, opts.Tool, out, scanErr, secrets)
	judge(res, gate, o.baseline, known)
	writeErr := o.output.Write(stdout, outs, res, secrets)
	sentinelcmd.PrintSummary(sentinelcmd.NewRedactingWriter(stderr, secrets), res)
	if scanErr != nil {
		return errors.Join(fmt.Errorf("probing %s: %s", wire.RedactString(target, secrets...), wire.RedactString(scanErr.Error(), secrets...)), writeErr)
	}
	if writeErr != nil {
		return writeErr
	}
	return sentinelcmd.VerdictErr(stderr, res)
}

// checkOrigin accepts "" (no control) or an Origin as a browser sends it: "null", or a scheme,
// a host and an optional port with nothing after them (RFC 6454). The value is the control of
// the foreign-Origin check, so a malformed one would be refused for being malformed and turn
// that check indeterminate for a reason that is the operator's typo, not the server's policy.
func checkOrigin(origin string) error {
	if origin == "" || origin == "null" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return fmt.Errorf("--origin %q: want an origin as a browser sends it, a scheme and host with an optional port and nothing after, e.g. --origin http://localhost:3000", origin)
	}
	return nil
}

// parseToolArgs turns --tool-args "name=JSON object" flags into the scan's ToolArgs; each error
// says which tool, what was wrong, and what a good value looks like.
func parseToolArgs(flags []string) (map[string]map[string]any, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	out := map[string]map[string]any{}
	for _, f := range flags {
		name, raw, ok := strings.Cut(f, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("--tool-args %q: want TOOL=JSON object, e.g. 'get_weather={\"city\":\"Paris\"}'", f)
		}
		args, err := toolArgsObject(raw)
		if err != nil {
			return nil, fmt.Errorf("--tool-args for tool %q: %w", name, err)
		}
		out[name] = args
	}
	return out, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
