package active

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
)

// TestProbeWeightsNameProbes keeps the start-order table true to the registry: a renamed or
// removed probe would otherwise drop back to the default weight without a word.
func TestProbeWeightsNameProbes(t *testing.T) {
	var names []string
	for _, p := range Probes() {
		names = append(names, p.Name)
	}
	for name, w := range probeWeights {
		if !slices.Contains(names, name) {
			t.Errorf("probeWeights names %q, which is not a probe", name)
		}
		if w <= 1 {
			t.Errorf("probeWeights gives %q weight %d: list only probes heavier than one request", name, w)
		}
	}
}

// TestStartOrder: heaviest first, the registry's order among equals, the input untouched.
func TestStartOrder(t *testing.T) {
	in := []Probe{{Name: "a"}, {Name: "tools-list"}, {Name: "b"}, {Name: "tool-call"}, {Name: "c"}}
	var got []string
	for _, p := range startOrder(in) {
		got = append(got, p.Name)
	}
	want := []string{"tool-call", "tools-list", "a", "b", "c"}
	if !slices.Equal(got, want) {
		t.Errorf("startOrder = %v, want %v", got, want)
	}
	if in[0].Name != "a" || in[3].Name != "tool-call" {
		t.Errorf("startOrder modified its input: %v", in)
	}
}

// TestDiscoverOnlyProbesNeedOnlyTheDiscover: a probe that starts before discovery has read the
// lists is gated by what the DiscoverResult settles; one whose feature needs the lists (a
// callable tool, a listed resource) would be gated against lists not read yet.
func TestDiscoverOnlyProbesNeedOnlyTheDiscover(t *testing.T) {
	n := 0
	for _, p := range Probes() {
		if !p.DiscoverOnly {
			continue
		}
		n++
		if !discoverSettles(p.Requires) {
			t.Errorf("probe %q is DiscoverOnly but requires %q, which the DiscoverResult does not settle", p.Name, p.Requires)
		}
	}
	if n == 0 {
		t.Error("no probe is DiscoverOnly: every probe waits for the lists again")
	}
}

// TestDiscoverSettlesOnlyCapabilities: the features the DiscoverResult alone decides, against
// those that need the lists or the legacy handshake.
func TestDiscoverSettlesOnlyCapabilities(t *testing.T) {
	for _, tc := range []struct {
		f    rules.Feature
		want bool
	}{
		{rules.FeatureNone, true},
		{rules.FeatureTools, true},
		{rules.FeatureLogging, true},
		{rules.FeatureSubscribe, true},
		{rules.FeatureCallableTool, false},
		{rules.FeatureMRTRTool, false},
		{rules.FeatureHeaderParams, false},
		{rules.FeaturePagination, false},
		{rules.FeatureFileResources, false},
		{rules.FeatureLegacyClients, false},
	} {
		if got := discoverSettles(tc.f); got != tc.want {
			t.Errorf("discoverSettles(%q) = %v, want %v", tc.f, got, tc.want)
		}
	}
}

// TestRunnerMergesBatchesHeaviestFirst: a heavy probe of the batch that arrives once discovery
// has finished goes to the next free worker before the light probes of the first batch still
// waiting, and Progress counts every probe of both batches against their total.
func TestRunnerMergesBatchesHeaviestFirst(t *testing.T) {
	type tick struct{ done, total int }
	var ticks []tick
	tg := &Target{Options: Options{Concurrency: 1, Progress: func(done, total int, _ string) {
		ticks = append(ticks, tick{done, total}) // one worker, and the runner serialises Progress
	}}.withDefaults(), started: time.Now()}
	var order []string // appended by the one worker only
	inFirst, release := make(chan struct{}), make(chan struct{})
	probe := func(name string) Probe {
		return Probe{Name: name, Run: func(context.Context, *Target) ([]rules.Outcome, error) {
			order = append(order, name)
			if name == "first" {
				close(inFirst)
				<-release
			}
			return nil, nil
		}}
	}
	r := tg.startRunner(t.Context(), t.Context())
	r.add([]Probe{probe("first"), probe("light-a"), probe("light-b")})
	<-inFirst // the one worker is busy; the light probes wait
	r.last([]Probe{probe("light-c"), probe("tool-call")})
	close(release)
	if _, unfinished := r.wait(); len(unfinished) > 0 {
		t.Fatalf("unfinished: %v", unfinished)
	}
	want := []string{"first", "tool-call", "light-a", "light-b", "light-c"}
	if !slices.Equal(order, want) {
		t.Errorf("probes ran in the order %v, want %v", order, want)
	}
	for i, tk := range ticks {
		if tk != (tick{i + 1, len(want)}) {
			t.Errorf("Progress call %d was (%d, %d), want (%d, %d)", i, tk.done, tk.total, i+1, len(want))
		}
	}
	if len(ticks) != len(want) {
		t.Errorf("Progress was called %d times, want %d", len(ticks), len(want))
	}
}
