package e2e

import (
	"slices"
	"testing"
)

// TestRoundOrderVariesNeighbours guards the measurement's interleaving: every round runs every
// command exactly once, the orders repeat from one run of the measurement to the next, and no
// command keeps the same predecessor round after round (a rotation would keep it in all rounds
// but one), so what one process leaves behind does not always slow the same next one.
func TestRoundOrderVariesNeighbours(t *testing.T) {
	const n = 8
	before := make([]map[int]bool, n)
	for i := range before {
		before[i] = map[int]bool{}
	}
	for r := range speedRounds {
		order := roundOrder(n, r)
		if got := slices.Sorted(slices.Values(order)); !slices.Equal(got, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
			t.Fatalf("round %d: order %v is not a permutation of 0..%d", r, order, n-1)
		}
		if again := roundOrder(n, r); !slices.Equal(order, again) {
			t.Fatalf("round %d: order %v then %v: the orders must repeat between runs", r, order, again)
		}
		for k := 1; k < n; k++ {
			before[order[k]][order[k-1]] = true
		}
	}
	for c, preds := range before {
		if len(preds) < 4 {
			t.Errorf("command %d followed only %d distinct commands over %d rounds: %v", c, len(preds), speedRounds, preds)
		}
	}
	if slices.Equal(roundOrder(n, 0), roundOrder(n, 1)) {
		t.Error("rounds 0 and 1 ran in the same order")
	}
}
