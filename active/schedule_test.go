package active

import (
	"slices"
	"testing"
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
