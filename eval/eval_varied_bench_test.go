package eval

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// The 8 KiB benchmarks in eval_bench_test.go repeat one paragraph (injection) or one sentence
// (groundedness context) until the input is large enough, and the detectors now remember what
// they saw a moment ago: a repeated input measures the memo more than the detector. These build
// an input of the same size from distinct items of the training split (never a held-out file),
// so `make measure` reports the latency of text that does not repeat, beside the old figures.

// variedToolResult8KiB joins distinct benign training texts to about 8 KiB; poisoned appends one
// injection from the same split at the end, as an attacker's line inside ordinary data.
func variedToolResult8KiB(b testing.TB, poisoned bool) string {
	b.Helper()
	cases := readJSONL[injectionItem](b, "testdata/corpus/injection_train.jsonl")
	var sb strings.Builder
	var attack string
	for _, c := range cases {
		switch {
		case c.Label == "injection" && attack == "":
			attack = c.Text
		case c.Label == "benign" && sb.Len() < 8<<10-600:
			sb.WriteString(c.Text)
			sb.WriteString("\n\n")
		}
	}
	s := sb.String()
	if poisoned {
		s += attack
	}
	if len(s) < 6<<10 || attack == "" {
		b.Fatalf("the training split gave only %d bytes of benign text (attack found: %v)", len(s), attack != "")
	}
	return s
}

func BenchmarkDetectInjectionVaried8KiB(b *testing.B) {
	for _, poisoned := range []bool{false, true} {
		name := map[bool]string{false: "benign", true: "poisoned"}[poisoned]
		b.Run(name, func(b *testing.B) { benchDetectInjection(b, variedToolResult8KiB(b, poisoned)) })
	}
}

// BenchmarkCheckGroundednessVaried8KiB checks the responses of six training items, in turn,
// against one context made of distinct training items' context (about 8 KiB, unique IDs).
func BenchmarkCheckGroundednessVaried8KiB(b *testing.B) {
	cases := readJSONL[groundednessItem](b, "testdata/corpus/groundedness_train.jsonl")
	var ctx []ContextItem
	var responses []string
	size := 0
	for i, c := range cases {
		if len(responses) < 6 && strings.TrimSpace(c.Response) != "" {
			responses = append(responses, c.Response)
		}
		for _, it := range c.Context {
			if size >= 8<<10 {
				break
			}
			it.ID = it.ID + "-" + strconv.Itoa(i)
			ctx = append(ctx, it)
			size += len(it.Content)
		}
	}
	if size < 6<<10 || len(responses) < 6 {
		b.Fatalf("the training split gave %d bytes of context and %d responses", size, len(responses))
	}
	e := &Evaluator{}
	pol := MetricPolicy{Metric: MetricGroundedness, Enabled: true, Threshold: 0.5, OnTimeout: FailClosed}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		in := GroundednessInput{Response: responses[i%len(responses)], Context: ctx}
		i++
		start := time.Now()
		if _, err := e.CheckGroundedness(b.Context(), in, pol); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	reportPercentiles(b, lat)
}
