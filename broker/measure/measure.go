// Package measure produces the broker's numbers for `make measure`: how many distinct tools/list
// results a running broker serves across repeated calls (the goal is one), and how many tokens the
// manifest and the concise and detailed tool results cost an agent, counted with a real BPE
// tokenizer (o200k_base, whose vocabulary is compiled into the tiktoken-go module, so counting
// works offline).
//
// measure is used by `broker manifest` only, so the tokenizer's vocabulary does not weigh on the
// serving path's packages. It must not import Sentinel's harness.
package measure

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/tiktoken-go/tokenizer"

	"github.com/mcp-sentinel/sentinel/broker"
	"github.com/mcp-sentinel/sentinel/broker/tools"
)

// Tokenizer names the encoding Tokens uses.
const Tokenizer = "o200k_base (tiktoken-go/tokenizer)"

// Tokens counts s in o200k_base BPE tokens.
func Tokens(s string) (int, error) {
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return 0, fmt.Errorf("loading tokenizer: %w", err)
	}
	ids, _, err := codec.Encode(s)
	if err != nil {
		return 0, fmt.Errorf("tokenizing: %w", err)
	}
	return len(ids), nil
}

// ManifestReport is what Manifest measured on one broker process.
type ManifestReport struct {
	// Calls is how many tools/list requests were made.
	Calls int `json:"calls"`
	// DistinctDigests is the number of distinct SHA-256 digests of the tools/list result object.
	DistinctDigests int `json:"distinctDigests"`
	// Digest is the digest of the first result (hex), to compare across restarts.
	Digest string `json:"digest"`
	// ResultBytes is the size of the result object.
	ResultBytes int `json:"resultBytes"`
	// ManifestTokens counts the tools array alone (what an agent's context pays for the tools).
	ManifestTokens int    `json:"manifestTokens"`
	Tokenizer      string `json:"tokenizer"`
}

const listRequest = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// Manifest starts a dev-mode broker on 127.0.0.1:0 in this process, calls tools/list calls
// times over HTTP with its dev token, and reports the digests and the manifest's token count.
func Manifest(ctx context.Context, scorer tools.Scorer, calls int) (ManifestReport, error) {
	if calls < 1 {
		return ManifestReport{}, errors.New("measuring manifest: calls must be at least 1")
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		errc <- broker.RunHTTP(ctx, broker.RunOptions{Dev: true, Scorer: scorer, Version: "measure", Stdout: pw}, "127.0.0.1:0")
		pw.Close()
	}()
	url, token, err := readReady(pr)
	go io.Copy(io.Discard, pr) //nolint:errcheck // drain anything printed later
	if err != nil {
		cancel()
		return ManifestReport{}, fmt.Errorf("measuring manifest: starting broker: %w (the broker: %w)", err, <-errc)
	}
	digests := map[string]bool{}
	rep := ManifestReport{Calls: calls, Tokenizer: Tokenizer}
	var first []byte
	client := &http.Client{Timeout: 10 * time.Second}
	for i := range calls {
		res, err := listOnce(ctx, client, url, token)
		if err != nil {
			cancel()
			return ManifestReport{}, fmt.Errorf("measuring manifest: call %d: %w", i+1, err)
		}
		sum := sha256.Sum256(res)
		digests[hex.EncodeToString(sum[:])] = true
		if first == nil {
			first = res
			rep.Digest = hex.EncodeToString(sum[:])
		}
	}
	cancel()
	if err := <-errc; err != nil {
		return ManifestReport{}, fmt.Errorf("measuring manifest: broker: %w", err)
	}
	rep.DistinctDigests = len(digests)
	rep.ResultBytes = len(first)
	var parsed struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(first, &parsed); err != nil {
		return ManifestReport{}, fmt.Errorf("measuring manifest: decoding result: %w", err)
	}
	if rep.ManifestTokens, err = Tokens(string(parsed.Tools)); err != nil {
		return ManifestReport{}, fmt.Errorf("measuring manifest: %w", err)
	}
	return rep, nil
}

// readReady reads the "listening on" and "dev token:" lines RunHTTP prints.
func readReady(r io.Reader) (url, token string, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if u, ok := strings.CutPrefix(line, "listening on "); ok {
			url = u
		}
		if t, ok := strings.CutPrefix(line, "dev token: "); ok {
			return url, t, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", "", err
	}
	return "", "", errors.New("the broker stopped before printing its dev token")
}

// listOnce returns the raw result object of one tools/list call.
func listOnce(ctx context.Context, c *http.Client, url, token string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(listRequest))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, bytes.TrimSpace(body))
	}
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Result == nil {
		return nil, fmt.Errorf("no result in %s", body)
	}
	return env.Result, nil
}
