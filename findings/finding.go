package findings

import (
	"context"
	"net/http"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
)

// Finding is one rule a target failed on one method or tool, aggregated over every exchange that
// showed it. The store keys it by (Target, RuleID, Key).
type Finding struct {
	// Target is the upstream endpoint URL the traffic went to.
	Target string `json:"target"`
	// RuleID is the full rule ID (MCP/2026-07-28/<LEVEL>/<name>).
	RuleID string `json:"ruleId"`
	// Key is the JSON-RPC method, with the tool, prompt or resource after a colon when there is
	// one ("tools/call:search"); empty when the exchange carried no parsable method.
	Key string `json:"key"`
	// Level, Remediation and SpecURL are copied from the registry when the finding is recorded,
	// so a stored finding reads without the registry that produced it.
	Level rules.Level `json:"level"`
	// Status is the outcome the finding records (fail: the proxy stores failures).
	Status rules.Status `json:"status"`
	// Observed is the latest evidence, in the check's words (a byte span for an injection).
	Observed    string `json:"observed"`
	Remediation string `json:"remediation,omitempty"`
	SpecURL     string `json:"specUrl,omitempty"`
	// ExchangeID is the most recent exchange that showed the finding.
	ExchangeID string `json:"exchangeId,omitempty"`
	// FirstSeen and LastSeen bound when the finding was observed; Count is how many times.
	FirstSeen time.Time `json:"firstSeen"`
	LastSeen  time.Time `json:"lastSeen"`
	Count     int64     `json:"count"`
}

// FromOutcome builds the finding an outcome stands for, with the rule's level, remediation and
// spec URL from the registry. Rules the registry does not know keep only the ID.
func FromOutcome(target, key string, o rules.Outcome, seen time.Time) Finding {
	f := Finding{
		Target: target, RuleID: o.RuleID, Key: key, Status: o.Status, Observed: o.Observed,
		ExchangeID: o.Exchange, FirstSeen: seen, LastSeen: seen, Count: 1,
	}
	if f.Observed == "" {
		f.Observed = o.Why
	}
	if r, ok := rules.ByID(o.RuleID); ok {
		f.Level, f.Remediation, f.SpecURL = r.Level, r.Remediation, r.SpecURL
	}
	return f
}

// Exchange is a stored exchange: the request and response as they crossed the proxy, with
// credentials removed, bodies capped and redacted, and the grading verdict.
type Exchange struct {
	// ID is the proxy's exchange ID; Target the upstream endpoint graded; Start when the
	// request arrived.
	ID     string    `json:"id"`
	Target string    `json:"target"`
	Start  time.Time `json:"started"`
	// Duration is from the request's arrival until the response body ended.
	Duration time.Duration `json:"durationNs"`
	// HTTPMethod and URL are the HTTP request line; RPCMethod and Key the JSON-RPC view of it.
	HTTPMethod string `json:"httpMethod"`
	URL        string `json:"url"`
	RPCMethod  string `json:"rpcMethod,omitempty"`
	Key        string `json:"key,omitempty"`
	// Status is the upstream's HTTP status, 0 when no response arrived (see Error).
	Status int `json:"status"`
	// RequestHeader and ResponseHeader are stored without credential headers; the bodies are
	// stored decoded (a gzip Content-Encoding inflated), capped (Options.MaxStoredBody) and
	// redacted; the store may keep them compressed (body_coding.go) but always returns them
	// inflated.
	RequestHeader  http.Header `json:"requestHeader,omitempty"`
	RequestBody    []byte      `json:"requestBody,omitempty"`
	ResponseHeader http.Header `json:"responseHeader,omitempty"`
	ResponseBody   []byte      `json:"responseBody,omitempty"`
	// Truncated is true when a stored body is only a prefix of what crossed the wire.
	Truncated bool `json:"truncated,omitempty"`
	// Graded is "graded", or why grading did not happen ("not graded: body too large",
	// "not graded: queue full").
	Graded string `json:"graded"`
	// Error is the transport failure, if any (refused, reset, cancelled by the client).
	Error string `json:"error,omitempty"`
	// Findings is how many failing outcomes grading produced.
	Findings int `json:"findings"`
}

// Filter narrows a query. Zero fields do not filter.
type Filter struct {
	// Since keeps rows last seen (findings) or started (exchanges) at or after it.
	Since time.Time
	// Target keeps one target URL.
	Target string
	// Rule keeps one rule: a full ID, or the kebab-case name at its end.
	Rule string
	// Level keeps one level ("MUST", "MUST NOT", ...); exchanges ignore it.
	Level rules.Level
	// Key keeps one method or method:name (exchanges and findings).
	Key string
	// ExchangeID keeps one exchange by its ID (exchanges), or the findings whose latest
	// evidence is that exchange (findings).
	ExchangeID string
	// Limit caps the rows returned; 0 means DefaultLimit, negative means no cap.
	Limit int
	// After continues a listing after the row a previous page ended on (ExchangeCursor or
	// FindingCursor of that row); zero starts with the newest row.
	After Cursor
	// MaxBody caps each body Exchanges returns, in bytes, cut in the database so that a page of
	// large exchanges is never read whole; 0 returns bodies as stored. A cut body sets
	// Truncated.
	MaxBody int
}

// DefaultLimit is how many rows a query returns when Filter.Limit is 0.
const DefaultLimit = 1000

// FindingStore records and reads findings. Implementations are safe for concurrent use.
type FindingStore interface {
	// RecordFinding inserts f, or folds it into the stored finding with the same key: count is
	// added, LastSeen, Observed and ExchangeID take the newer values, FirstSeen the older.
	RecordFinding(ctx context.Context, f Finding) error
	// Findings returns findings matching the filter, most recently seen first.
	Findings(ctx context.Context, f Filter) ([]Finding, error)
}

// ExchangeStore records and reads exchanges. Implementations are safe for concurrent use.
type ExchangeStore interface {
	// RecordExchange stores ex after removing credentials and redacting payloads. Recording
	// an ID twice keeps the first.
	RecordExchange(ctx context.Context, ex Exchange) error
	// Exchanges returns exchanges matching the filter (Level ignored), newest first.
	Exchanges(ctx context.Context, f Filter) ([]Exchange, error)
}

// Batch is what one grading round writes: exchanges and the findings they produced.
type Batch struct {
	Exchanges []Exchange
	Findings  []Finding
	// Yield, when set, is called between the rows of the batch. A batch of large exchanges
	// takes tens of milliseconds to write; the proxy's grading worker gives its processor back
	// to traffic there (runtime.Gosched), not only at the runtime's 10 ms preemption.
	Yield func()
}

// Store is both stores over one database, with batched writes and retention.
type Store interface {
	FindingStore
	ExchangeStore
	// Record writes a batch atomically (one transaction), with the same folding and redaction
	// as RecordFinding and RecordExchange. It must not keep b's slices, or the bodies they
	// hold, once it returns: the proxy copies later requests' bodies into the same memory.
	Record(ctx context.Context, b Batch) error
	// Prune deletes exchanges started and findings last seen before the cutoff, returning how
	// many rows went. The proxy calls it periodically when a retention is configured.
	Prune(ctx context.Context, before time.Time) (int64, error)
	// Close releases the database.
	Close() error
}
