package findings

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
)

// execer is what a write needs: the database or one transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// RecordFinding upserts f under (target, rule, key).
func (s *sqlStore) RecordFinding(ctx context.Context, f Finding) error {
	return s.recordFinding(ctx, prepared{s.insFinding}, f)
}

// RecordExchange stores ex without credentials, with capped and redacted bodies.
func (s *sqlStore) RecordExchange(ctx context.Context, ex Exchange) error {
	return s.recordExchange(ctx, prepared{s.insExchange}, ex)
}

// Record writes a batch in one transaction: one commit for many rows is what lets a busy proxy
// keep up (a commit per row costs far more than the row).
func (s *sqlStore) Record(ctx context.Context, b Batch) error {
	if len(b.Exchanges)+len(b.Findings) == 0 {
		return nil
	}
	// One lock order for every writer, so proxies sharing a PostgreSQL store cannot deadlock.
	fs := fold(b.Findings)
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Target != fs[j].Target {
			return fs[i].Target < fs[j].Target
		}
		if fs[i].RuleID != fs[j].RuleID {
			return fs[i].RuleID < fs[j].RuleID
		}
		return fs[i].Key < fs[j].Key
	})
	b.Findings = fs
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("starting a batch of %d exchanges: %w", len(b.Exchanges), err)
	}
	fstmt, estmt := tx.StmtContext(ctx, s.insFinding), tx.StmtContext(ctx, s.insExchange)
	rowCtx := s.rowContext(ctx)
	yield := b.Yield
	if yield == nil {
		yield = func() {}
	}
	for _, f := range b.Findings {
		if err := s.recordFinding(rowCtx, prepared{fstmt}, f); err != nil {
			_ = tx.Rollback()
			return err
		}
		yield()
	}
	for _, ex := range b.Exchanges {
		if err := s.recordExchange(rowCtx, prepared{estmt}, ex); err != nil {
			_ = tx.Rollback()
			return err
		}
		yield()
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing a batch of %d exchanges: %w", len(b.Exchanges), err)
	}
	return nil
}

// rowContext is the context a batch's row inserts run under. For SQLite it is ctx without its
// deadline: the driver (modernc.org/sqlite) starts a goroutine to watch every statement whose
// context can end, and a batch runs one insert per exchange, so a small exchange's row paid for
// a goroutine, a channel and the progress handler besides the insert itself. A row cannot hang
// on its own there: the connection is the process's only one, and a lock held by another
// process is waited for at most busy_timeout (5 s, sqliteSource); the transaction's begin and
// commit keep ctx. PostgreSQL rows keep ctx, because there a statement waits on the network.
func (s *sqlStore) rowContext(ctx context.Context) context.Context {
	if s.d.name != "sqlite" {
		return ctx
	}
	return context.WithoutCancel(ctx)
}

// fold merges the findings of one batch that share a key, as the upsert would: a busy proxy
// sees the same few failures on every exchange, and one row write per key and batch instead of
// one per exchange is most of what recording findings costs.
func fold(in []Finding) []Finding {
	type key struct{ target, rule, k string }
	at := make(map[key]int, len(in))
	out := make([]Finding, 0, len(in))
	for _, f := range in {
		if f.Count <= 0 {
			f.Count = 1
		}
		if f.LastSeen.IsZero() {
			f.LastSeen = f.FirstSeen
		}
		k := key{f.Target, f.RuleID, f.Key}
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			out = append(out, f)
			continue
		}
		g := &out[i]
		g.Count += f.Count
		if f.FirstSeen.Before(g.FirstSeen) {
			g.FirstSeen = f.FirstSeen
		}
		if !f.LastSeen.Before(g.LastSeen) {
			g.LastSeen, g.Observed, g.ExchangeID = f.LastSeen, f.Observed, f.ExchangeID
		}
		g.Level, g.Status, g.Remediation, g.SpecURL = f.Level, f.Status, f.Remediation, f.SpecURL
	}
	return out
}

// prepared runs one prepared statement through the execer shape (the query text is ignored).
type prepared struct{ stmt *sql.Stmt }

func (p prepared) ExecContext(ctx context.Context, _ string, args ...any) (sql.Result, error) {
	return p.stmt.ExecContext(ctx, args...)
}

const insertFinding = `INSERT INTO findings (target, rule_id, key, level, status, observed, remediation,
		spec_url, exchange_id, first_seen, last_seen, count) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (target, rule_id, key) DO UPDATE SET
			count = findings.count + excluded.count,
			first_seen = CASE WHEN excluded.first_seen < findings.first_seen THEN excluded.first_seen ELSE findings.first_seen END,
			observed = CASE WHEN excluded.last_seen >= findings.last_seen THEN excluded.observed ELSE findings.observed END,
			exchange_id = CASE WHEN excluded.last_seen >= findings.last_seen THEN excluded.exchange_id ELSE findings.exchange_id END,
			last_seen = CASE WHEN excluded.last_seen > findings.last_seen THEN excluded.last_seen ELSE findings.last_seen END,
			level = excluded.level, status = excluded.status,
			remediation = excluded.remediation, spec_url = excluded.spec_url`

const insertExchange = `INSERT INTO exchanges (id, target, started, duration_ns, http_method, url, rpc_method,
		key, status, request_header, request_body, response_header, response_body, truncated, graded,
		error, findings, body_coding) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (id) DO NOTHING`

func (s *sqlStore) recordFinding(ctx context.Context, db execer, f Finding) error {
	if f.Count <= 0 {
		f.Count = 1
	}
	if f.LastSeen.IsZero() {
		f.LastSeen = f.FirstSeen
	}
	_, err := db.ExecContext(ctx, s.d.bind(insertFinding), f.Target, f.RuleID, f.Key, string(f.Level),
		string(f.Status), string(s.redact.Payload([]byte(f.Observed))), f.Remediation, f.SpecURL,
		f.ExchangeID, f.FirstSeen.UnixMicro(), f.LastSeen.UnixMicro(), f.Count)
	if err != nil {
		return fmt.Errorf("recording finding %s for %s: %w", f.RuleID, f.Target, err)
	}
	return nil
}

// Listing orders: newest first, ties broken by these columns ascending (the cursor's keys).
var (
	findingKeyCols  = []string{"target", "rule_id", "key"}
	exchangeKeyCols = []string{"id"}
)

// where builds a WHERE clause from the filter; timeCol is the column Since and the cursor
// apply to, keyCols the cursor's tie-breaking columns.
func where(f Filter, timeCol string, keyCols []string, withLevel bool) (string, []any, error) {
	var conds []string
	var args []any
	cond, cargs, err := f.After.after(timeCol, keyCols)
	if err != nil {
		return "", nil, err
	}
	if cond != "" {
		conds, args = append(conds, cond), append(args, cargs...)
	}
	if !f.Since.IsZero() {
		conds, args = append(conds, timeCol+" >= ?"), append(args, f.Since.UnixMicro())
	}
	if f.Target != "" {
		conds, args = append(conds, "target = ?"), append(args, f.Target)
	}
	if f.Key != "" {
		conds, args = append(conds, "key = ?"), append(args, f.Key)
	}
	if f.ExchangeID != "" {
		col := "id"
		if withLevel {
			col = "exchange_id"
		}
		conds, args = append(conds, col+" = ?"), append(args, f.ExchangeID)
	}
	if withLevel && f.Level != "" {
		conds, args = append(conds, "level = ?"), append(args, string(f.Level))
	}
	if withLevel && f.Rule != "" {
		conds, args = append(conds, "(rule_id = ? OR rule_id LIKE ?)"), append(args, f.Rule, "%/"+f.Rule)
	}
	if len(conds) == 0 {
		return "", nil, nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args, nil
}

// Findings returns findings matching f, most recently seen first.
func (s *sqlStore) Findings(ctx context.Context, f Filter) ([]Finding, error) {
	w, args, err := where(f, "last_seen", findingKeyCols, true)
	if err != nil {
		return nil, err
	}
	q := `SELECT target, rule_id, key, level, status, observed, remediation, spec_url, exchange_id,
		first_seen, last_seen, count FROM findings` + w + ` ORDER BY last_seen DESC, target, rule_id, key`
	if n := limitOf(f); n > 0 {
		q += fmt.Sprintf(" LIMIT %d", n)
	}
	rows, err := s.db.QueryContext(ctx, s.d.bind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("querying findings: %w", err)
	}
	defer func() { _ = rows.Close() }()
	var out []Finding
	for rows.Next() {
		var fd Finding
		var level, status string
		var first, last int64
		if err := rows.Scan(&fd.Target, &fd.RuleID, &fd.Key, &level, &status, &fd.Observed,
			&fd.Remediation, &fd.SpecURL, &fd.ExchangeID, &first, &last, &fd.Count); err != nil {
			return nil, fmt.Errorf("reading a finding row: %w", err)
		}
		fd.Level, fd.Status = rules.Level(level), rules.Status(status)
		fd.FirstSeen, fd.LastSeen = time.UnixMicro(first).UTC(), time.UnixMicro(last).UTC()
		out = append(out, fd)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading findings: %w", err)
	}
	return out, nil
}

func (s *sqlStore) recordExchange(ctx context.Context, db execer, ex Exchange) error {
	reqBody, cut1 := s.body(ex.RequestBody)
	respBody, cut2 := s.body(ex.ResponseBody)
	reqHdr, respHdr := headerJSON(ex.RequestHeader), headerJSON(ex.ResponseHeader)
	truncated := 0
	if ex.Truncated || cut1 || cut2 {
		truncated = 1
	}
	coding := 0
	reqBody, reqBuf, ok := compressBody(reqBody)
	defer giveBackEncoded(reqBuf)
	if ok {
		coding |= codingRequestS2
	}
	respBody, respBuf, ok := compressBody(respBody)
	defer giveBackEncoded(respBuf)
	if ok {
		coding |= codingResponseS2
	}
	_, err := db.ExecContext(ctx, s.d.bind(insertExchange), ex.ID, ex.Target, ex.Start.UnixMicro(),
		int64(ex.Duration), ex.HTTPMethod, s.redact.URL(ex.URL), ex.RPCMethod, ex.Key, ex.Status, reqHdr,
		reqBody, respHdr, respBody, truncated, ex.Graded, ex.Error, ex.Findings, coding)
	if err != nil {
		return fmt.Errorf("recording exchange %s: %w", ex.ID, err)
	}
	return nil
}

// body caps and redacts a payload for storage; it reports whether it cut anything.
func (s *sqlStore) body(b []byte) ([]byte, bool) {
	if s.maxBody < 0 {
		return nil, len(b) > 0
	}
	cut := false
	if len(b) > s.maxBody {
		b, cut = b[:s.maxBody], true
	}
	return s.redact.Payload(b), cut
}

// Exchanges returns exchanges matching f, newest first.
func (s *sqlStore) Exchanges(ctx context.Context, f Filter) ([]Exchange, error) {
	w, args, err := where(f, "started", exchangeKeyCols, false)
	if err != nil {
		return nil, err
	}
	reqBody, respBody := "request_body", "response_body"
	if f.MaxBody > 0 {
		// Cut in the database: a page of large exchanges is never read whole into memory. A
		// compressed body is read whole (it is at most the stored-body cap inflated) and cut once
		// decoded.
		reqBody = s.d.prefixUnless("request_body", f.MaxBody, codingRequestS2)
		respBody = s.d.prefixUnless("response_body", f.MaxBody, codingResponseS2)
	}
	q := `SELECT id, target, started, duration_ns, http_method, url, rpc_method, key, status,
		request_header, ` + reqBody + `, response_header, ` + respBody + `, truncated, graded, error,
		findings, ` + s.d.length("request_body") + `, ` + s.d.length("response_body") + `, body_coding
		FROM exchanges` + w + ` ORDER BY started DESC, id`
	if n := limitOf(f); n > 0 {
		q += fmt.Sprintf(" LIMIT %d", n)
	}
	rows, err := s.db.QueryContext(ctx, s.d.bind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("querying exchanges: %w", err)
	}
	defer func() { _ = rows.Close() }()
	var out []Exchange
	for rows.Next() {
		ex, err := scanExchange(rows, f.MaxBody)
		if err != nil {
			return nil, err
		}
		out = append(out, ex)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading exchanges: %w", err)
	}
	return out, nil
}

// scanExchange reads one row of the Exchanges query, inflating compressed bodies and cutting
// them to maxBody (0: whole) as the query cut the others.
func scanExchange(rows *sql.Rows, maxBody int) (Exchange, error) {
	var ex Exchange
	var started, dur int64
	var reqHdr, respHdr string
	var truncated, coding int
	var reqLen, respLen sql.NullInt64
	if err := rows.Scan(&ex.ID, &ex.Target, &started, &dur, &ex.HTTPMethod, &ex.URL, &ex.RPCMethod,
		&ex.Key, &ex.Status, &reqHdr, &ex.RequestBody, &respHdr, &ex.ResponseBody, &truncated,
		&ex.Graded, &ex.Error, &ex.Findings, &reqLen, &respLen, &coding); err != nil {
		return ex, fmt.Errorf("reading an exchange row: %w", err)
	}
	cut := false
	for _, b := range []struct {
		bit    int
		body   *[]byte
		stored int64
	}{{codingRequestS2, &ex.RequestBody, reqLen.Int64}, {codingResponseS2, &ex.ResponseBody, respLen.Int64}} {
		if coding&b.bit == 0 {
			cut = cut || b.stored > int64(len(*b.body))
			continue
		}
		whole, err := decodeBody(ex.ID, *b.body)
		if err != nil {
			return ex, err
		}
		if maxBody > 0 && len(whole) > maxBody {
			whole, cut = whole[:maxBody:maxBody], true
		}
		*b.body = whole
	}
	ex.Start, ex.Duration, ex.Truncated = time.UnixMicro(started).UTC(), time.Duration(dur), truncated != 0 || cut
	for _, h := range []struct {
		raw string
		dst *http.Header
	}{{reqHdr, &ex.RequestHeader}, {respHdr, &ex.ResponseHeader}} {
		if err := json.Unmarshal([]byte(h.raw), h.dst); err != nil {
			return ex, fmt.Errorf("decoding a stored header of exchange %s: %w", ex.ID, err)
		}
	}
	return ex, nil
}
