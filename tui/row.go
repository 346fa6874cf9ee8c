package tui

import (
	"strconv"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/findings"
	"github.com/mcp-sentinel/sentinel/rules"
)

// Row is one exchange as the list shows it: the live stream's summary (no headers or bodies)
// plus the findings known to have been raised on it. Rows are immutable once in the cache.
type Row struct {
	ID       string        `json:"id"`
	Target   string        `json:"target"`
	Started  time.Time     `json:"started"`
	Method   string        `json:"rpcMethod,omitempty"`
	Key      string        `json:"key,omitempty"`
	Status   int           `json:"status"`
	Graded   string        `json:"graded"`
	Count    int           `json:"findings"`
	Err      string        `json:"error,omitempty"`
	Duration time.Duration `json:"-"`
	// DurationMS is the wire form of Duration (the live stream sends milliseconds).
	DurationMS int64 `json:"durationMs"`
	// Findings are the findings known for this exchange: from the live stream, or for history
	// the findings whose latest exchange it was. len(Findings) < Count means some are unknown.
	Findings []findings.Finding `json:"-"`
	hay      string
}

// rowOf builds a row from a stored exchange (GET /exchanges).
func rowOf(ex findings.Exchange) Row {
	return Row{ID: ex.ID, Target: ex.Target, Started: ex.Start, Method: ex.RPCMethod, Key: ex.Key,
		Status: ex.Status, Graded: ex.Graded, Count: ex.Findings, Err: ex.Error, Duration: ex.Duration}
}

// Name is the tool, prompt or resource after the colon of the key, or "".
func (r *Row) Name() string {
	_, n, _ := strings.Cut(r.Key, ":")
	return n
}

// Verdict is fail (findings), error (no response), ungraded, or pass.
func (r *Row) Verdict() string {
	switch {
	case r.Count > 0:
		return VerdictFail
	case r.Status == 0 && r.Err != "":
		return VerdictError
	case r.Graded != "" && r.Graded != "graded":
		return VerdictUngraded
	}
	return VerdictPass
}

// Worst is the most severe level among the row's known findings ("" when none is known).
func (r *Row) Worst() rules.Level {
	best := rules.Level("")
	for _, f := range r.Findings {
		if severity(f.Level) > severity(best) {
			best = f.Level
		}
	}
	return best
}

// severity orders levels for display: MUST and MUST NOT above SHOULD and SHOULD NOT.
func severity(l rules.Level) int {
	switch l {
	case rules.Must, rules.MustNot:
		return 2
	case rules.Should, rules.ShouldNot:
		return 1
	}
	return 0
}

func (r *Row) haystack() string {
	if r.hay != "" {
		return r.hay
	}
	var b strings.Builder
	b.WriteString(strings.ToLower(r.ID + " " + r.Target + " " + r.Method + " " + r.Key + " " + strconv.Itoa(r.Status) + " " + r.Err))
	for _, f := range r.Findings {
		b.WriteString(" " + strings.ToLower(f.RuleID))
	}
	return b.String()
}

// finalize fixes derived fields once, before the row is shared.
func (r *Row) finalize() {
	if r.Duration == 0 && r.DurationMS != 0 {
		r.Duration = time.Duration(r.DurationMS) * time.Millisecond
	}
	r.hay = ""
	r.hay = r.haystack()
}
