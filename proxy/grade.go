package proxy

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/passive"
	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// Grader judges one exchange. It is called on a worker, never on the traffic path; h is the
// target's history, and the pipeline serialises calls for one target. A panic is recovered and
// counted, and the exchange is then recorded as not graded. What it keeps past the call (in h,
// say) it copies: the bodies' memory is reused for later exchanges once this one is stored.
type Grader interface {
	Grade(ex *wire.Exchange, h *passive.History) []rules.Outcome
}

// GraderFunc adapts a function (passive.Run, for one) to Grader.
type GraderFunc func(ex *wire.Exchange, h *passive.History) []rules.Outcome

// Grade calls f.
func (f GraderFunc) Grade(ex *wire.Exchange, h *passive.History) []rules.Outcome { return f(ex, h) }

// Passive grades with every registered passive check; it is what `sentinel proxy` and `sentinel
// shim` run. An exchange that travelled over stdio is graded by the rules that bind a stdio
// server (passive.RunOver), an HTTP one by all of them.
func Passive() Grader {
	return GraderFunc(func(ex *wire.Exchange, h *passive.History) []rules.Outcome {
		if ex.Stdio() {
			return passive.RunOver(rules.TransportStdio, ex, h)
		}
		return passive.Run(ex, h)
	})
}

type targetHistory struct {
	mu sync.Mutex
	h  *passive.History
}

func (p *Pipeline) historyFor(target string) *targetHistory {
	p.historyMu.Lock()
	defer p.historyMu.Unlock()
	th := p.history[target]
	if th == nil {
		th = &targetHistory{h: passive.NewHistory()}
		p.history[target] = th
	}
	return th
}

// grade judges one capture (unless it cannot be graded, or hurry says there is no time) and
// returns the exchange record and its findings, unwritten.
func (p *Pipeline) grade(c *Capture, hurry bool) (findings.Exchange, []findings.Finding) {
	reason := c.NotGraded
	if reason == "" && hurry {
		reason = NotGradedShutdown
	}
	var ex *wire.Exchange
	if reason == "" {
		ex = toExchange(c, p.maxBody)
	} else {
		// Only what names the exchange: the request, when its body was kept.
		ex = &wire.Exchange{Request: wire.Request{Method: c.Method, URL: c.URL, Header: c.RequestHeader,
			Body: wire.Inflate(c.RequestHeader, c.RequestBody, p.maxBody)}}
		ex.Parse(parseLimits(len(ex.Request.Body)))
	}
	method, key := keyOf(ex)
	rec := findings.Exchange{ID: c.ID, Target: c.Target, Start: c.Start, Duration: c.End.Sub(c.Start),
		HTTPMethod: c.Method, URL: c.URL, RPCMethod: method, Key: key, Status: c.Status,
		RequestHeader: c.RequestHeader, RequestBody: ex.Request.Body, ResponseHeader: c.ResponseHeader,
		Truncated: reason != "" && (c.RequestBytes > int64(len(c.RequestBody)) || c.ResponseBytes > 0),
		Graded:    Graded}
	if c.Err != nil {
		rec.Error = c.Err.Error()
	}
	if ex.Response != nil {
		rec.ResponseBody = ex.Response.Body
	}
	var outcomes []rules.Outcome
	if reason != "" {
		rec.Graded = reason
		p.metrics.notGraded(reason)
	} else {
		start := time.Now()
		var panicked bool
		outcomes, panicked = p.runGraders(ex, c.Target)
		p.metrics.grading.observe(time.Since(start).Seconds())
		if panicked {
			rec.Graded = NotGradedPanic
			p.metrics.notGraded(NotGradedPanic)
		} else {
			p.metrics.graded.Add(1)
		}
	}
	outcomes = append(outcomes, c.Outcomes...)
	now := time.Now()
	var fs []findings.Finding
	for _, o := range outcomes {
		if o.Status != rules.Fail {
			continue
		}
		if o.Exchange == "" {
			o.Exchange = c.ID
		}
		f := findings.FromOutcome(c.Target, key, o, now)
		p.metrics.finding(f.RuleID, f.Level)
		fs = append(fs, f)
	}
	rec.Findings = len(fs)
	if p.log.Enabled(context.Background(), slog.LevelInfo) {
		p.log.Info("exchange", logExchangeID, c.ID, logTarget, c.Target, logMethod, method, logKey, key,
			logStatus, c.Status, logGraded, rec.Graded, logFindings, rec.Findings,
			logDuration, rec.Duration.Milliseconds())
	}
	return rec, fs
}

// runGraders calls every grader under the target's history lock, recovering panics one by one.
func (p *Pipeline) runGraders(ex *wire.Exchange, target string) (out []rules.Outcome, panicked bool) {
	th := p.historyFor(target)
	th.mu.Lock()
	defer th.mu.Unlock()
	for _, g := range p.graders {
		os, ok := safeGrade(g, ex, th.h)
		if !ok {
			panicked = true
			p.metrics.panics.Add(1)
			continue
		}
		for _, o := range os {
			if passive.IsPanic(o) {
				// passive.Run recovers each check itself and says so in an indeterminate
				// outcome; /metrics counts those panics too.
				p.metrics.panics.Add(1)
			}
		}
		out = append(out, os...)
	}
	return out, panicked
}

func safeGrade(g Grader, ex *wire.Exchange, h *passive.History) (out []rules.Outcome, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			out, ok = nil, false
		}
	}()
	return g.Grade(ex, h), true
}

// exchangeSummary is what the live stream carries for an exchange: no bodies or headers.
type exchangeSummary struct {
	ID       string    `json:"id"`
	Target   string    `json:"target"`
	Started  time.Time `json:"started"`
	Method   string    `json:"rpcMethod,omitempty"`
	Key      string    `json:"key,omitempty"`
	Status   int       `json:"status"`
	Graded   string    `json:"graded"`
	Findings int       `json:"findings"`
	Error    string    `json:"error,omitempty"`
	Duration int64     `json:"durationMs"`
}

func summaryOf(r findings.Exchange) exchangeSummary {
	return exchangeSummary{ID: r.ID, Target: r.Target, Started: r.Start, Method: r.RPCMethod, Key: r.Key,
		Status: r.Status, Graded: r.Graded, Findings: r.Findings, Error: r.Error, Duration: r.Duration.Milliseconds()}
}
