package audit

import (
	"testing"
	"time"
)

// chain builds n signed records (signer nil: unsigned).
func chain(n int, s *Signer) []Record {
	var out []Record
	var prev *Record
	at := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	for i := range n {
		r := Link(prev, Entry{At: at.Add(time.Duration(i) * time.Second), Tenant: "t", Subject: "s", Tool: "flag_injection", ArgsDigest: "d", Outcome: "ok", DecidedBy: "heuristic"})
		if s != nil {
			s.SignRecord(&r)
		}
		out = append(out, r)
		prev = &out[len(out)-1]
	}
	return out
}

// rehash recomputes every hash and link from i on, as an attacker without the key can.
func rehash(r []Record, i int) []Record {
	for ; i < len(r); i++ {
		if i > 0 {
			r[i].PrevHash = r[i-1].Hash
		}
		r[i].Hash = Hash(r[i].Seq, r[i].PrevHash, r[i].Entry)
	}
	return r
}

func checkpointOf(s *Signer, r []Record) Checkpoint {
	last := r[len(r)-1]
	return s.SignCheckpoint(Checkpoint{Seq: last.Seq, Hash: last.Hash, At: time.Date(2026, 7, 28, 13, 0, 0, 0, time.UTC).UnixMicro()})
}

func TestVerifyTellsTruncationRewriteAndForgeryApart(t *testing.T) {
	key, err := GenerateSigner()
	if err != nil {
		t.Fatal(err)
	}
	other, _ := GenerateSigner()
	keys := Keys{}
	keys.Add(key.Public())
	const n = 200
	tests := []struct {
		name     string
		tamper   func(r []Record) []Record // on a chain whose checkpoint covers all n entries
		extra    func(r []Record) []Checkpoint
		wantKind string // "" intact
		wantSeq  int64
	}{
		{"an untouched chain verifies", func(r []Record) []Record { return r }, nil, "", 0},
		{"deleting the last entry is a truncation at the first missing entry", func(r []Record) []Record { return r[:n-1] }, nil, Truncated, n},
		{"deleting the last 100 is a truncation at the first of them", func(r []Record) []Record { return r[:n-100] }, nil, Truncated, n - 99},
		{"rewriting the tail with recomputed hashes is a rewrite at the first changed entry", func(r []Record) []Record {
			for i := 150; i < n; i++ {
				r[i].Entry.Outcome = "error"
			}
			return rehash(r, 150)
		}, nil, Rewritten, 151},
		{"re-signing a rewritten entry with another key is still a rewrite", func(r []Record) []Record {
			r[120].Entry.Tenant = "evil"
			r = rehash(r, 120)
			for i := 120; i < n; i++ {
				other.SignRecord(&r[i])
			}
			return r
		}, nil, Rewritten, 121},
		{"a naive edit of one row is a rewrite of that row", func(r []Record) []Record { r[9].Entry.Outcome = "error"; return r }, nil, Rewritten, 10},
		{"a removed middle row is a rewrite where the gap starts", func(r []Record) []Record { return append(r[:4], r[5:]...) }, nil, Rewritten, 5},
		{"a fabricated entry appended after the checkpoint is a forgery", func(r []Record) []Record {
			f := Link(&r[n-1], Entry{At: time.Now(), Tenant: "t", Tool: "set_metric_policy", Outcome: "ok"})
			return append(r, f)
		}, nil, Forged, n + 1},
		{"a fabricated entry signed by an unknown key is a forgery", func(r []Record) []Record {
			f := Link(&r[n-1], Entry{At: time.Now(), Tenant: "t", Tool: "set_metric_policy", Outcome: "ok"})
			other.SignRecord(&f)
			return append(r, f)
		}, nil, Forged, n + 1},
		{"entries signed after the checkpoint verify", func(r []Record) []Record {
			for range 3 {
				f := Link(&r[len(r)-1], Entry{At: time.Now(), Tenant: "t", Tool: "flag_injection", Outcome: "ok"})
				key.SignRecord(&f)
				r = append(r, f)
			}
			return r
		}, nil, "", 0},
		{"a forged checkpoint is a forgery", func(r []Record) []Record { return r }, func(r []Record) []Checkpoint {
			c := other.SignCheckpoint(Checkpoint{Seq: n + 50, Hash: r[n-1].Hash, At: 1})
			return []Checkpoint{c}
		}, Forged, n + 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := chain(n, key)
			cps := []Checkpoint{checkpointOf(key, r[:n/2]), checkpointOf(key, r)}
			if tt.extra != nil {
				cps = append(cps, tt.extra(r)...)
			}
			rep := Verify(tt.tamper(r), keys, cps)
			if tt.wantKind == "" {
				if rep.Break != nil {
					t.Fatalf("Verify() = %v, want intact", rep.Break)
				}
				if rep.Checkpoint == nil || rep.Checkpoint.Seq != n {
					t.Errorf("checked against %+v, want the checkpoint at %d", rep.Checkpoint, n)
				}
				return
			}
			if rep.Break == nil || rep.Break.Kind != tt.wantKind || rep.Break.Seq != tt.wantSeq {
				t.Fatalf("Verify() = %v, want %s at entry %d", rep.Break, tt.wantKind, tt.wantSeq)
			}
		})
	}
}

func TestUnsignedEntriesNeedACheckpoint(t *testing.T) {
	key, _ := GenerateSigner()
	keys := Keys{}
	keys.Add(key.Public())
	legacy := chain(5, nil) // written before the broker had a key
	if rep := Verify(legacy, keys, nil); rep.Break == nil || rep.Break.Kind != Forged {
		t.Fatalf("unsigned entries with no checkpoint: %v, want a forgery", rep.Break)
	}
	cp := checkpointOf(key, legacy)
	next := Link(&legacy[4], Entry{At: time.Now(), Tenant: "t", Tool: "x", Outcome: "ok"})
	key.SignRecord(&next)
	all := append(legacy, next)
	if rep := Verify(all, keys, []Checkpoint{cp}); rep.Break != nil || rep.Unsigned != 5 || rep.AfterCheckpoint != 1 {
		t.Fatalf("a checkpointed unsigned prefix: %+v", rep)
	}
	unsignedAfter := Link(&all[5], Entry{At: time.Now(), Tenant: "t", Tool: "x", Outcome: "ok"})
	if rep := Verify(append(all, unsignedAfter), keys, []Checkpoint{cp}); rep.Break == nil || rep.Break.Kind != Forged || rep.Break.Seq != 7 {
		t.Fatalf("an unsigned entry after signed ones: %v, want a forgery at 7", rep.Break)
	}
}

func TestVerifyWithoutKeysChecksLinksOnly(t *testing.T) {
	r := chain(4, nil)
	if rep := Verify(r, nil, nil); rep.Break != nil || rep.SignaturesChecked || rep.Entries != 4 {
		t.Fatalf("Verify() = %+v", rep)
	}
	r[2].Entry.Outcome = "error"
	if rep := Verify(r, nil, nil); rep.Break == nil || rep.Break.Seq != 3 || rep.Break.Kind != Rewritten {
		t.Fatalf("an edited row without keys: %v, want a rewrite at 3", rep.Break)
	}
}

func TestHashSeparatesFields(t *testing.T) {
	a := Entry{Tenant: "ab", Subject: "c"}
	b := Entry{Tenant: "a", Subject: "bc"}
	if Hash(1, Genesis, a) == Hash(1, Genesis, b) {
		t.Fatal("shifting text between fields kept the hash")
	}
	c := Entry{Tenant: "t", RequestID: "ev_1"}
	d := Entry{Tenant: "t", Detail: "ev_1"}
	if Hash(1, Genesis, c) == Hash(1, Genesis, d) || Hash(1, Genesis, c) == Hash(1, Genesis, Entry{Tenant: "t"}) {
		t.Fatal("RequestID and Detail do not take part in the hash")
	}
}

func TestKeysRoundTripThroughFiles(t *testing.T) {
	path := t.TempDir() + "/audit.pem"
	s, created, err := LoadOrCreateSigner(path)
	if err != nil || !created {
		t.Fatalf("LoadOrCreateSigner = %v, %v", created, err)
	}
	again, created, err := LoadOrCreateSigner(path)
	if err != nil || created || again.ID() != s.ID() {
		t.Fatalf("second LoadOrCreateSigner = %v, %v (id %s vs %s)", created, err, again.ID(), s.ID())
	}
	keys, err := LoadKeys(path)
	if err != nil || keys[s.ID()] == nil {
		t.Fatalf("LoadKeys(private) = %v, %v", keys, err)
	}
	pub := t.TempDir() + "/audit.pub"
	if err := writeFile(pub, s.PublicPEM()); err != nil {
		t.Fatal(err)
	}
	keys, err = LoadKeys(pub)
	r := chain(1, s)[0]
	if err != nil || !keys.VerifyRecord(r) {
		t.Fatalf("LoadKeys(public) = %v; VerifyRecord = false", err)
	}
}

func TestReplicasCreatingTheKeyTogetherShareOne(t *testing.T) {
	path := t.TempDir() + "/audit-key.pem"
	const n = 8
	ids := make([]string, n)
	errs := make([]error, n)
	done := make(chan int, n)
	for i := range n {
		go func() {
			s, _, err := LoadOrCreateSigner(path)
			if err == nil {
				ids[i] = s.ID()
			}
			errs[i] = err
			done <- i
		}()
	}
	for range n {
		<-done
	}
	for i := range n {
		if errs[i] != nil || ids[i] != ids[0] {
			t.Fatalf("replica %d: key %s, %v; replica 0 has %s", i, ids[i], errs[i], ids[0])
		}
	}
}
