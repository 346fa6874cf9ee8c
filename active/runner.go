package active

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/report"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/stdio"
	"github.com/mcp-sentinel/sentinel/wire"
)

// Defaults for Options.
const (
	// DefaultTimeout bounds a whole scan.
	DefaultTimeout = 60 * time.Second
	// DefaultConcurrency is how many probes run at once.
	DefaultConcurrency = 4
	// MaxProbeTimeout caps one probe, so a slow probe cannot starve the others of the scan's time.
	// A probe sends several requests in turn, so the cap is never less than twice the per-request
	// timeout (Limits.ReadTimeout): raising --request-timeout raises it too.
	MaxProbeTimeout = 20 * time.Second
)

// Options configure one scan. Zero values take the defaults noted on each field.
type Options struct {
	// Endpoint is the MCP endpoint URL (http or https); required unless Command is set.
	Endpoint string
	// Command, when set, is a stdio server to launch and scan over the stdio binding instead of
	// an endpoint: the HTTP binding's rules are then n/a, the stdio binding's are graded, and
	// probes run one at a time on the one channel.
	Command *stdio.Options
	// Client is the shared HTTP client; nil builds one that ignores HTTP_PROXY for loopback and
	// follows no redirects (a redirect is something to grade, not to follow).
	Client *http.Client
	// Header is added to every request that does not set the header itself (--header, and the
	// Authorization built from --token).
	Header http.Header
	// Secrets are values redacted from every exchange, outcome and note (the token).
	Secrets []string
	// AllowCall names tools the scan may call besides those with readOnlyHint: true.
	AllowCall []string
	// ToolArgs gives the arguments to call a tool with (--tool-args name=JSON), for tools whose
	// schema alone does not say what a valid call looks like (a city the tool knows). Tools not
	// named here get arguments built from their inputSchema. Naming a tool here does not make it
	// callable: AllowCall or readOnlyHint still decides that.
	ToolArgs map[string]map[string]any
	// Origin is an Origin the server allows (--origin); empty means none is known.
	Origin string
	// Timeout bounds the whole scan (0 → DefaultTimeout).
	Timeout time.Duration
	// Rules restricts the scan to these rule IDs or names (empty: all rules).
	Rules []string
	// Areas restricts the scan to rules in these areas (empty: all areas).
	Areas []rules.Area
	// Concurrency bounds how many probes run at once (0 → DefaultConcurrency).
	Concurrency int
	// Limits bound every read (zero fields → wire defaults). Limits.ReadTimeout is the
	// per-request timeout (--request-timeout): one request and its whole answer, end to end.
	Limits wire.Limits
	// Tool names the producer in the result, e.g. "sentinel 0.1.0" (empty: "sentinel").
	Tool string
	// Passive runs on every exchange (nil → passive.Run). Tests substitute it.
	Passive func(ex *wire.Exchange, h *passive.History) []rules.Outcome
	// Probes overrides the registry (nil → Probes()). Tests use it for hostile probes.
	Probes []Probe
	// Logger receives progress at debug level (nil → discard).
	Logger *slog.Logger
	// Progress, when set, is called after each probe with how many have finished.
	Progress func(done, total int, probe string)
}

// Output is what a scan produced: the result and every exchange behind it (for `sentinel
// deprecations`, debugging and saved evidence).
type Output struct {
	Result    *report.Result
	Exchanges []*wire.Exchange
	// Target is the target as discovery established it.
	Target *Target
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Tool == "" {
		o.Tool = "sentinel"
	}
	if o.Passive == nil {
		o.Passive = passive.Run
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Client == nil {
		o.Client = &http.Client{
			// As many idle connections as probes run at once, so every probe's next request
			// reuses a kept-alive connection instead of dialling (and, over TLS, handshaking).
			Transport:     &http.Transport{Proxy: nil, MaxIdleConnsPerHost: max(8, o.Concurrency), TLSHandshakeTimeout: 10 * time.Second},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return o
}

// ValidateEndpoint checks that raw is an absolute http(s) URL with a host.
func ValidateEndpoint(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("parsing endpoint %q: %w", wire.RedactString(raw), err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q must be an absolute http:// or https:// URL", u.Redacted())
	}
	return u, nil
}

// Scan probes one endpoint and returns the merged result. The returned error means the scanner
// could not run at all (bad options, nothing answering at the endpoint) — exit 2 — and is
// distinct from a target that fails its rules, which is a result with failures. Two more outcomes
// are results that can never pass: Result.CouldNotRun when the endpoint answered but could not be
// graded (it requires authorization the scan was not given, or it is not an MCP endpoint), and
// Result.Incomplete when some probes did not finish (the scan's Timeout ran out, a probe hit its
// own limit, or ctx was cancelled). Both still carry every outcome that was settled.
func Scan(ctx context.Context, opts Options) (*Output, error) {
	opts = opts.withDefaults()
	selected, err := SelectRules(opts.Rules, opts.Areas)
	if err != nil {
		return nil, err
	}
	var link *stdioLink
	targetName := ""
	transport := rules.TransportHTTP
	if opts.Command != nil {
		if link, err = startStdio(ctx, *opts.Command, opts.Limits); err != nil {
			return nil, fmt.Errorf("starting the stdio server: %w", err)
		}
		defer link.stop()
		opts.Concurrency = 1
		opts.Endpoint = ""
		targetName, transport = link.label, rules.TransportStdio
	} else {
		u, err := ValidateEndpoint(opts.Endpoint)
		if err != nil {
			return nil, err
		}
		u.User = nil
		targetName = u.String()
	}
	targetName = wire.RedactString(targetName, opts.Secrets...)
	started := time.Now()
	scanCtx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()

	t := &Target{Endpoint: opts.Endpoint, Options: opts, Client: opts.Client, history: passive.NewHistory(), stdio: link, started: started}
	want := make(map[string]bool, len(selected))
	for _, r := range selected {
		want[r.ID] = true
	}
	probes := opts.Probes
	if probes == nil {
		probes = Probes()
	}
	// Rules of the other transport's binding are n/a, once each, with the reason; a probe with
	// no rule that binds this transport is not run at all.
	// Which probes bind is decided over every rule, not only the selected ones: a restricted
	// scan that needs every probe (a rule with a passive check) runs each probe a full scan of
	// this transport runs. None of this depends on discovery.
	catalogue := selected // SelectRules' copy of the whole registry when no rule or area was named
	if len(opts.Rules) > 0 || len(opts.Areas) > 0 {
		catalogue = rules.All()
	}
	applies := make(map[string]bool, len(catalogue))
	for _, r := range catalogue {
		if ok, _ := r.AppliesOver(transport); ok {
			applies[r.ID] = true
		}
	}
	var outcomes []rules.Outcome
	for _, r := range selected {
		if ok, why := r.AppliesOver(transport); !ok {
			outcomes = append(outcomes, rules.Absent(r.ID, why))
		}
	}
	everyProbe := needsEveryProbe(want, len(catalogue))
	cands := make([]Probe, 0, len(probes)) // the probes to gate, in the registry's order
	for _, p := range probes {
		if !everyProbe && !touches(p, want) {
			continue
		}
		if !touches(p, applies) {
			continue
		}
		cands = append(cands, p)
	}
	gated := make([][]rules.Outcome, len(cands)) // each gated candidate's outcomes
	early := make([]bool, len(cands))            // gated, and started if it could run, by eraPassed
	var runner *probeRunner
	// eraPassed is called by discovery once a modern HTTP target's server/discover is in and
	// before the lists are read: the probes that need nothing more (Probe.DiscoverOnly) are gated
	// and started then, so the workers send them while discovery waits for the lists. Over stdio
	// (one channel) and at --concurrency 1 every probe waits for discovery, as it always did.
	eraPassed := func() {
		if link != nil || opts.Concurrency <= 1 {
			return
		}
		var first []Probe
		for i, p := range cands {
			if !p.DiscoverOnly || !discoverSettles(p.Requires) {
				continue
			}
			early[i] = true
			if g := t.gate(p); g != nil {
				gated[i] = g
				continue
			}
			first = append(first, p)
		}
		runner = t.startRunner(scanCtx, ctx)
		runner.add(first)
	}
	// stopEarly waits for the probes eraPassed started, on a way out that runs no others.
	stopEarly := func() {
		if runner != nil {
			runner.last(nil)
			runner.wait()
		}
	}

	if link == nil {
		// Over stdio one probe runs at a time on one channel: nothing to overlap the grading with.
		t.startGrader()
		defer t.drainGrader()
	}
	discoverCtx, discoverStat := withStep(scanCtx)
	err = t.discover(discoverCtx, eraPassed)
	discoverCut := ""
	if scanCtx.Err() != nil {
		discoverCut = scanCut(ctx)
	}
	t.recordStep(report.DiscoveryStep, started, discoverStat.requests.Load(), discoverCut)
	if err != nil {
		stopEarly() // none started: discovery fails only before the era gate passes
		if scanCtx.Err() == nil {
			return nil, err
		}
		// The deadline or the caller ended the scan before the server answered discovery:
		// nothing was graded, and the scan did not finish.
		cut := scanCut(ctx)
		unfinished := make([]unfinishedProbe, len(probes))
		for i, p := range probes {
			unfinished[i] = unfinishedProbe{p.Name, cut}
		}
		res := &report.Result{Schema: report.SchemaVersion, Tool: opts.Tool, Target: targetName,
			Started: started.UTC(), Duration: time.Since(started), Era: "unknown", Notes: t.notesCopy(),
			Rules: report.Merge(selected, nil), Incomplete: incomplete(unfinished, len(probes), opts.Timeout, t.probeTimeout()), Probes: t.stepsCopy()}
		res.Incomplete.Reason += " (server/discover itself was not answered in time"
		if link != nil {
			if n := link.stdoutNoise(); n != "" {
				res.Incomplete.Reason += "; " + n
			}
		}
		res.Incomplete.Reason += ")"
		return &Output{Result: res, Exchanges: t.Exchanges(), Target: t}, nil
	}
	res := &report.Result{
		Schema:  report.SchemaVersion,
		Tool:    opts.Tool,
		Target:  targetName,
		Started: started.UTC(),
		Era:     t.Era,
	}
	if t.couldNotRun != "" {
		stopEarly() // none started: only a target outside the era cannot be graded
		reason := wire.RedactString(t.couldNotRun, opts.Secrets...)
		res.CouldNotRun = &report.CouldNotRun{Reason: reason}
		res.Notes = t.notesCopy()
		res.Rules = []report.RuleResult{}
		res.Duration = time.Since(started)
		res.Probes = t.stepsCopy()
		return &Output{Result: res, Exchanges: t.Exchanges(), Target: t}, nil
	}
	opts.Logger.Debug("era gate", "era", t.Era, "modern", t.Modern)
	switch {
	case t.LegacySession:
		t.Note("Era gate: this server does not speak %s (%s). Every probe ran inside the legacy session: what the server did wrong is a failure, and every would-be pass is indeterminate, because an answer given in a 2025 session says nothing about the new era.", wire.ProtocolVersion, t.EraWhy)
	case !t.Modern:
		t.Note("Era gate: this server does not speak %s (%s). Rules of the new era that it cannot meet fail; negative checks are indeterminate, because a rejection from a server that rejects everything proves nothing.", wire.ProtocolVersion, t.EraWhy)
	}

	late := make([]Probe, 0, len(cands))
	for i, p := range cands {
		if early[i] {
			continue
		}
		if g := t.gate(p); g != nil {
			gated[i] = g
			continue
		}
		late = append(late, p)
	}
	// The gated outcomes in the registry's order whichever batch a probe was in, after the other
	// binding's rules, as when every probe was gated at once.
	for _, g := range gated {
		outcomes = append(outcomes, g...)
	}
	if runner == nil {
		runner = t.startRunner(scanCtx, ctx)
	}
	runner.last(late)
	probed, unfinished := runner.wait()
	outcomes = append(outcomes, probed...)

	t.drainGrader()
	// The passive outcomes go straight after the probes' in one array, not copied into it.
	probedN := len(outcomes)
	outcomes = t.passiveOutcomes(outcomes)
	controlsStart := time.Now()
	controlsCtx, controlsStat := withStep(scanCtx)
	outcomes = append(outcomes[:probedN], t.controlledPassive(controlsCtx, outcomes[probedN:])...)
	if n := controlsStat.requests.Load(); n > 0 {
		t.recordStep(ControlsStep, controlsStart, n, "")
	}
	if link != nil {
		outcomes = append(outcomes, link.finish()...)
		for _, n := range link.takeNotes() {
			t.Note("%s", n)
		}
	}
	if !t.Modern {
		// Outside the era only failures are evidence; a pass (an active probe's inside the
		// legacy session, or a passive check's) would credit a 2025 server with 2026 behaviour.
		outcomes = eraDowngrade(outcomes, t.Era)
	}

	// Filtered in place: outcomes is not read again, and a scan's few thousand outcomes copied
	// into a slice grown by appending were a third of a megabyte of fresh pages on the way out.
	kept := outcomes[:0]
	for _, o := range outcomes {
		if t.LegacySession {
			o.Observed = standInObserved(o.Observed)
		}
		if o.Status != rules.NotApplicable && !applies[o.RuleID] {
			continue // a verdict on a rule of the other binding (a mixed probe's, a passive check's)
		}
		if want[o.RuleID] {
			o.Observed = wire.RedactString(o.Observed, opts.Secrets...)
			o.Why = wire.RedactString(o.Why, opts.Secrets...)
			kept = append(kept, o)
		}
	}
	if len(unfinished) > 0 {
		res.Incomplete = incomplete(unfinished, runner.total, opts.Timeout, t.probeTimeout())
	}
	res.Duration = time.Since(started)
	res.Notes = t.notesCopy()
	res.Probes = t.stepsCopy()
	res.Rules = report.Merge(selected, kept)
	return &Output{Result: res, Exchanges: t.Exchanges(), Target: t}, nil
}

// needsEveryProbe reports whether a restricted scan must still run every probe to give the
// verdicts a full scan gives: a rule any passive check can settle is judged on whatever exchange
// shows it, and any probe's exchange may be the one (retired-codes shows on a tools/call).
func needsEveryProbe(want map[string]bool, catalogue int) bool {
	if len(want) == catalogue {
		return true
	}
	for _, e := range passive.All() {
		for _, id := range e.RuleIDs {
			if want[id] {
				return true
			}
		}
	}
	return false
}

func (t *Target) notesCopy() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.notes...)
}

func touches(p Probe, want map[string]bool) bool {
	for _, id := range p.RuleIDs {
		if want[id] {
			return true
		}
	}
	return false
}

// gate returns the outcomes of a probe that must not run (era gate, absent or unusable feature),
// or nil when it may run.
func (t *Target) gate(p Probe) []rules.Outcome {
	if !t.Modern && !t.LegacySession && !p.AnyEra {
		why := fmt.Sprintf("not probed: the server does not speak %s (era: %s), so its answer to this probe would prove nothing", wire.ProtocolVersion, t.Era)
		return each(p.RuleIDs, func(id string) rules.Outcome { return rules.Undecided(id, why) })
	}
	present, usable, why := t.Feature(p.Requires)
	switch {
	case !present:
		return each(p.RuleIDs, func(id string) rules.Outcome { return rules.Absent(id, why) })
	case !usable:
		return each(p.RuleIDs, func(id string) rules.Outcome { return rules.Undecided(id, why) })
	}
	return nil
}

func each(ids []string, f func(string) rules.Outcome) []rules.Outcome {
	out := make([]rules.Outcome, len(ids))
	for i, id := range ids {
		out[i] = f(id)
	}
	return out
}

// ControlsStep names the step, after every probe, that sends the controls passive failures are
// judged against (listed among the steps only when it sent a request).
const ControlsStep = "passive-controls"

// How a probe failed to finish; the values of an unfinished probe's cut.
const (
	cutScanTimeout  = "scan-timeout"  // the scan's --timeout ran out
	cutProbeTimeout = "probe-timeout" // the probe's own limit ran out
	cutInterrupted  = "interrupted"   // the caller cancelled the scan
)

// unfinishedProbe names a probe that did not finish and why.
type unfinishedProbe struct{ name, cut string }

// probeRunner runs probes on Options.Concurrency workers, each under its own deadline, handing
// the heaviest waiting probe (startOrder) to the next free worker. Probes arrive in batches: on an
// HTTP target the probes that need only server/discover (Probe.DiscoverOnly) as soon as the era
// gate has passed, while discovery still reads the lists, and every other probe once discovery
// has finished, so the workers are not idle for the lists' round trips. A heavy probe of the
// second batch still goes before the light ones of the first that are waiting.
type probeRunner struct {
	t       *Target
	scanCtx context.Context // the scan's deadline
	parent  context.Context // the caller's context, which tells an interruption from a timeout
	batches chan []Probe    // closed by last
	queue   chan Probe
	workers sync.WaitGroup
	fed     chan struct{} // closed when the feeder has handed out or cut every probe

	mu         sync.Mutex
	out        []rules.Outcome
	unfinished []unfinishedProbe
	added      int // probes in the batches so far
	total      int // every probe, once last was called; -1 before
	reported   int // probes Progress was told of
	// held are the probes that finished before the total was known, in order: Progress reports
	// them once it is.
	held       []string
	progressMu sync.Mutex // keeps Progress calls in the order of done
}

// startRunner starts the workers and the feeder; add hands them probes, last the final batch, and
// wait collects the outcomes.
func (t *Target) startRunner(scanCtx, parent context.Context) *probeRunner {
	r := &probeRunner{t: t, scanCtx: scanCtx, parent: parent, batches: make(chan []Probe), queue: make(chan Probe),
		fed: make(chan struct{}), total: -1}
	// The order is decided by the feeder, not by which of fifty goroutines wins a semaphore, and
	// a worker's stack, once grown by a probe's JSON, serves the next probe instead of being
	// grown again from 8 KiB.
	for range t.Options.Concurrency {
		r.workers.Go(func() {
			growStack()
			for p := range r.queue {
				r.runProbe(p)
			}
		})
	}
	go r.feed()
	return r
}

// add hands probes to the workers; it does not wait for them to start.
func (r *probeRunner) add(probes []Probe) {
	r.mu.Lock()
	r.added += len(probes)
	r.mu.Unlock()
	if len(probes) > 0 {
		r.batches <- probes
	}
}

// last hands the final batch to the workers: after it the number of probes is known.
func (r *probeRunner) last(probes []Probe) {
	r.add(probes)
	close(r.batches)
	r.mu.Lock()
	r.total = r.added
	held := r.held
	r.held = nil
	r.mu.Unlock()
	r.progress(held)
}

// wait returns, once every probe added has finished or been cut, their outcomes (by rule ID) and
// the probes that did not finish (by name). last must have been called.
func (r *probeRunner) wait() ([]rules.Outcome, []unfinishedProbe) {
	<-r.fed
	r.workers.Wait()
	sort.SliceStable(r.out, func(i, j int) bool { return r.out[i].RuleID < r.out[j].RuleID })
	sort.Slice(r.unfinished, func(i, j int) bool { return r.unfinished[i].name < r.unfinished[j].name })
	return r.out, r.unfinished
}

// feed hands the waiting probes to free workers, heaviest first, merging each batch into the
// waiting ones as it arrives; once the scan's context ends, every probe not yet started is cut.
func (r *probeRunner) feed() {
	defer close(r.fed)
	defer close(r.queue)
	var waiting []Probe
	batches := r.batches
	for batches != nil || len(waiting) > 0 {
		var queue chan<- Probe
		var next Probe
		if len(waiting) > 0 {
			queue, next = r.queue, waiting[0]
		}
		select {
		case queue <- next:
			waiting = waiting[1:]
		case b, ok := <-batches:
			if !ok {
				batches = nil
				continue
			}
			waiting = startOrder(append(waiting, b...))
		case <-r.scanCtx.Done():
			cut := scanCut(r.parent)
			for _, p := range waiting {
				r.finish(p, nil, cut)
			}
			if batches != nil {
				for b := range batches {
					for _, p := range b {
						r.finish(p, nil, cut)
					}
				}
			}
			return
		}
	}
}

// runProbe runs one probe on a worker and records how it went.
func (r *probeRunner) runProbe(p Probe) {
	t := r.t
	var res []rules.Outcome
	cut := ""
	if r.scanCtx.Err() == nil {
		start := time.Now()
		stepCtx, stat := withStep(r.scanCtx)
		res, cut = t.runOne(stepCtx, r.parent, p)
		if cut == "" {
			res = t.controlled(stepCtx, p, res)
		}
		t.recordStep(p.Name, start, stat.requests.Load(), cut)
	} else {
		cut = scanCut(r.parent)
	}
	r.finish(p, res, cut)
}

// finish records a probe's outcomes, or indeterminate outcomes for its rules when it did not
// finish, and reports progress.
func (r *probeRunner) finish(p Probe, res []rules.Outcome, cut string) {
	t := r.t
	if cut != "" {
		why := unfinishedWhy(p.Name, cut, t.Options.Timeout, t.probeTimeout())
		res = each(p.RuleIDs, func(id string) rules.Outcome { return rules.Undecided(id, why) })
	}
	r.mu.Lock()
	r.out = append(r.out, res...)
	if cut != "" {
		r.unfinished = append(r.unfinished, unfinishedProbe{p.Name, cut})
	}
	if r.total < 0 {
		r.held = append(r.held, p.Name)
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	r.progress([]string{p.Name})
}

// progress reports the probes named as finished, in order, once the total is known.
func (r *probeRunner) progress(names []string) {
	if r.t.Options.Progress == nil || len(names) == 0 {
		return
	}
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	r.mu.Lock()
	total := r.total
	r.reported += len(names)
	n := r.reported
	r.mu.Unlock()
	for i, name := range names {
		r.t.Options.Progress(n-len(names)+i+1, total, name)
	}
}

// scanCut says why the scan context ended: the caller cancelled it, or its deadline passed.
func scanCut(parent context.Context) string {
	if parent.Err() != nil {
		return cutInterrupted
	}
	return cutScanTimeout
}

// unfinishedWhy is the reason given on every rule of a probe that did not finish.
func unfinishedWhy(name, cut string, scanTimeout, probeTimeout time.Duration) string {
	switch cut {
	case cutInterrupted:
		return fmt.Sprintf("probe %q did not finish: the scan was interrupted", name)
	case cutProbeTimeout:
		return fmt.Sprintf("probe %q did not finish within its limit of %s (a slow server: raise --request-timeout)", name, probeTimeout)
	}
	return fmt.Sprintf("probe %q did not finish before --timeout %s", name, scanTimeout)
}

// incomplete summarises the unfinished probes for Result.Incomplete, in one sentence a user can
// act on.
func incomplete(unfinished []unfinishedProbe, total int, scanTimeout, probeTimeout time.Duration) *report.Incomplete {
	var names []string
	counts := map[string]int{}
	for _, u := range unfinished {
		names = append(names, u.name)
		counts[u.cut]++
	}
	n := len(unfinished)
	var reason string
	switch {
	case counts[cutInterrupted] > 0:
		reason = fmt.Sprintf("%d of %d probes did not finish: the scan was interrupted", n, total)
	case counts[cutProbeTimeout] == n:
		reason = fmt.Sprintf("%d of %d probes did not finish within the per-probe limit of %s; the server answers slowly: raise --request-timeout", n, total, probeTimeout)
	case counts[cutProbeTimeout] > 0:
		reason = fmt.Sprintf("%d of %d probes did not finish before --timeout %s (%d of them hit the per-probe limit of %s); raise --timeout", n, total, scanTimeout, counts[cutProbeTimeout], probeTimeout)
	default:
		reason = fmt.Sprintf("%d of %d probes did not finish before --timeout %s; raise --timeout", n, total, scanTimeout)
	}
	return &report.Incomplete{Unfinished: n, Total: total, Reason: reason, Probes: names}
}

// probeTimeout is the limit on one probe: MaxProbeTimeout, or twice the per-request timeout when
// that is longer.
func (t *Target) probeTimeout() time.Duration {
	if rt := 2 * t.Options.Limits.WithDefaults().ReadTimeout; rt > MaxProbeTimeout {
		return rt
	}
	return MaxProbeTimeout
}

// runOne runs one probe with a deadline and panic recovery, keeping only outcomes for its rules.
// cut is non-empty when the probe did not finish: the scan's context ended while it ran, or its
// own limit did.
func (t *Target) runOne(scanCtx, parent context.Context, p Probe) (out []rules.Outcome, cut string) {
	ctx, cancel := context.WithTimeout(scanCtx, t.probeTimeout())
	defer cancel()
	res, err := t.safeRun(ctx, p)
	switch {
	case scanCtx.Err() != nil:
		return nil, scanCut(parent)
	case ctx.Err() != nil:
		return nil, cutProbeTimeout
	}
	if err != nil {
		why := fmt.Sprintf("probe %q could not run: %v", p.Name, err)
		t.Note("%s", why)
		return append(res, each(p.RuleIDs, func(id string) rules.Outcome { return rules.Undecided(id, why) })...), ""
	}
	allowed := map[string]bool{}
	for _, id := range p.RuleIDs {
		allowed[id] = true
	}
	for _, o := range res {
		if allowed[o.RuleID] {
			out = append(out, o)
		} else {
			t.Options.Logger.Warn("probe returned an outcome for a rule it does not declare", "probe", p.Name, "rule", o.RuleID)
		}
	}
	return out, ""
}

// safeRun runs p, turning a panic into indeterminate outcomes for its rules and a note.
func (t *Target) safeRun(ctx context.Context, p Probe) (out []rules.Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			t.Options.Logger.Error("probe panicked", "probe", p.Name, "panic", r, "stack", string(debug.Stack()))
			t.Note("probe %q panicked (%v); its rules are indeterminate", p.Name, r)
			out, err = each(p.RuleIDs, func(id string) rules.Outcome {
				return rules.Undecided(id, fmt.Sprintf("probe %q crashed: %v", p.Name, r))
			}), nil
		}
	}()
	return p.Run(ctx, t)
}

// eraDowngrade turns passes into indeterminate outcomes on a server outside the era:
// a 2025 server's answers say nothing about 2026-07-28 rules. Failures stand.
func eraDowngrade(outs []rules.Outcome, era string) []rules.Outcome {
	for i, o := range outs {
		if o.Status == rules.Pass {
			outs[i] = rules.Undecided(o.RuleID, fmt.Sprintf("observed %q, but the server does not speak %s (era: %s), so this is not a pass", o.Observed, wire.ProtocolVersion, era))
			outs[i].Exchange = o.Exchange
		}
	}
	return outs
}

// SelectRules returns the rules a scan covers: those named (by ID or name) in only, in the
// areas given, or all rules. An unknown name or area is an error naming it.
func SelectRules(only []string, areas []rules.Area) ([]rules.Rule, error) {
	for _, a := range areas {
		if !a.Valid() {
			return nil, fmt.Errorf("unknown area %q: see `sentinel rules list` for the areas", a)
		}
	}
	names := map[string]bool{}
	for _, n := range only {
		r, ok := rules.ByID(n)
		if !ok {
			r, ok = rules.ByName(n)
		}
		if !ok {
			return nil, fmt.Errorf("unknown rule %q: give a rule ID or its kebab-case name (see `sentinel rules list`)", n)
		}
		names[r.ID] = true
	}
	all := rules.All()
	if len(names) == 0 && len(areas) == 0 {
		return all, nil
	}
	var out []rules.Rule
	for _, r := range all {
		if len(names) > 0 && !names[r.ID] {
			continue
		}
		if len(areas) > 0 && !anyArea(r, areas) {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

func anyArea(r rules.Rule, areas []rules.Area) bool {
	for _, a := range areas {
		if r.HasArea(a) {
			return true
		}
	}
	return false
}
