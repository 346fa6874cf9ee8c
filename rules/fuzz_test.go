package rules

import (
	"testing"
	"time"
)

// FuzzParseID checks that ParseID never panics and that whatever it accepts round-trips through
// MakeID exactly, so an accepted ID is canonical.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"MCP/2026-07-28/MUST-NOT/retired-codes", "MCP/2026-07-28/MUST NOT/x", "", "MCP/2026-07-28//", "MCP/2026-07-28/SHOULD/a-b-c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		l, name, err := ParseID(id)
		if err != nil {
			return
		}
		if got := MakeID(l, name); got != id {
			t.Fatalf("ParseID(%q) = %q, %q, which rebuilds as %q", id, l, name, got)
		}
	})
}

// FuzzLookup checks that Lookup never panics and that a hit is a real rule whose name the query
// names.
func FuzzLookup(f *testing.F) {
	for _, s := range []string{"origin-invalid-403", "MCP/2026-07-28/MUST/origin-invalid-403", " X ", "MCP/2026-07-28/MUST/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		r, ok := Lookup(q)
		if !ok {
			return
		}
		if _, found := ByID(r.ID); !found {
			t.Fatalf("Lookup(%q) returned %q, which is not in the registry", q, r.ID)
		}
	})
}

// FuzzMonthsUntil checks the properties the deprecation inventory relies on: swapping the
// arguments negates the result, and a later target is never fewer months away.
func FuzzMonthsUntil(f *testing.F) {
	f.Add(int64(0), int64(86400*365), int64(3600))
	f.Add(int64(1785196800), int64(1816732800), int64(1))
	f.Fuzz(func(t *testing.T, a, b, step int64) {
		const bound = int64(1) << 40 // about 35,000 years either side: no overflow in time arithmetic
		if a > bound || a < -bound || b > bound || b < -bound || step < 0 || step > bound {
			return
		}
		from, to := time.Unix(a, 0), time.Unix(b, 0)
		m := MonthsUntil(from, to)
		if back := MonthsUntil(to, from); back != -m {
			t.Fatalf("MonthsUntil(%v, %v) = %d but the reverse is %d", from, to, m, back)
		}
		if later := MonthsUntil(from, to.Add(time.Duration(step)*time.Second)); later < m {
			t.Fatalf("moving the target later reduced the months from %d to %d", m, later)
		}
	})
}
