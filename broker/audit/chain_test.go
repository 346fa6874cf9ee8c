package audit

import (
	"errors"
	"testing"
	"time"
)

func chain(n int) []Record {
	var out []Record
	var prev *Record
	at := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	for i := range n {
		r := Link(prev, Entry{At: at.Add(time.Duration(i) * time.Second), Tenant: "t", Subject: "s", Tool: "flag_injection", ArgsDigest: "d", Outcome: "ok", DecidedBy: "heuristic"})
		out = append(out, r)
		prev = &out[len(out)-1]
	}
	return out
}

func TestVerifyNamesFirstBrokenLink(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func([]Record) []Record
		wantSeq int64
	}{
		{"intact chain verifies", func(r []Record) []Record { return r }, 0},
		{"edited outcome breaks its own entry", func(r []Record) []Record { r[2].Entry.Outcome = "error"; return r }, 3},
		{"edited tenant breaks its own entry", func(r []Record) []Record { r[0].Entry.Tenant = "x"; return r }, 1},
		{"removed middle row is a gap", func(r []Record) []Record { return append(r[:1], r[2:]...) }, 2},
		{"rehashed row breaks its successor", func(r []Record) []Record {
			r[1].Entry.Outcome = "error"
			r[1].Hash = Hash(r[1].Seq, r[1].PrevHash, r[1].Entry)
			return r
		}, 3},
		{"removed head row is a gap at 1", func(r []Record) []Record { return r[1:] }, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Verify(tc.mutate(chain(4)))
			var b *Break
			if tc.wantSeq == 0 {
				if err != nil {
					t.Fatalf("Verify() = %v, want nil", err)
				}
				return
			}
			if !errors.As(err, &b) || b.Seq != tc.wantSeq {
				t.Fatalf("Verify() = %v, want a break at %d", err, tc.wantSeq)
			}
		})
	}
}

func TestHashSeparatesFields(t *testing.T) {
	a := Entry{Tenant: "ab", Subject: "c"}
	b := Entry{Tenant: "a", Subject: "bc"}
	if Hash(1, Genesis, a) == Hash(1, Genesis, b) {
		t.Fatal("shifting text between fields kept the hash")
	}
}

func TestNoteCarriesValuesAndIsSafeWhenAbsent(t *testing.T) {
	ctx, n := WithNote(t.Context())
	NoteFrom(ctx).SetDecidedBy("judge")
	NoteFrom(ctx).SetOutcome("replayed")
	if d, o := n.Values(); d != "judge" || o != "replayed" {
		t.Fatalf("Values() = %q, %q", d, o)
	}
	none := NoteFrom(t.Context())
	none.SetDecidedBy("x")
	if d, o := none.Values(); d != "" || o != "" {
		t.Fatalf("nil note Values() = %q, %q", d, o)
	}
}
