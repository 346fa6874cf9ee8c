package seal

import (
	"errors"
	"strings"
	"testing"
	"time"
)

type flow struct {
	ID string `json:"id"`
}

func ring(t *testing.T, keys ...Key) *Keyring {
	t.Helper()
	k, err := NewKeyring(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestOpenRejectsEveryMisuse(t *testing.T) {
	base := Binding{Tool: "set_metric_policy", Tenant: "acme", Subject: "alice", RequestDigest: "d1"}
	k1, k2 := GenerateKey("k1"), GenerateKey("k2")
	sealer := ring(t, k1)
	state, err := sealer.Seal(base, flow{ID: "f"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(s string) string {
		b := []byte(s)
		b[len(b)-5] ^= 'A' ^ 'B'
		if b[len(b)-5] == s[len(s)-5] {
			b[len(b)-5] = 'Q'
		}
		return string(b)
	}
	tests := []struct {
		name    string
		opener  *Keyring
		state   string
		binding Binding
		ok      bool
	}{
		{"untouched state opens", sealer, state, base, true},
		{"state opens after rotation keeps the old key", ring(t, k2, k1), state, base, true},
		{"tampered ciphertext", sealer, flip(state), base, false},
		{"another tool", sealer, state, Binding{Tool: "flag_injection", Tenant: "acme", Subject: "alice", RequestDigest: "d1"}, false},
		{"another subject", sealer, state, Binding{Tool: base.Tool, Tenant: "acme", Subject: "mallory", RequestDigest: "d1"}, false},
		{"another tenant", sealer, state, Binding{Tool: base.Tool, Tenant: "evil", Subject: "alice", RequestDigest: "d1"}, false},
		{"another request", sealer, state, Binding{Tool: base.Tool, Tenant: "acme", Subject: "alice", RequestDigest: "d2"}, false},
		{"key retired", ring(t, k2), state, base, false},
		{"empty", sealer, "", base, false},
		{"foreign format", sealer, "eyJmb28iOiJiYXIifQ", base, false},
		{"truncated", sealer, state[:len(state)/2], base, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got flow
			err := tc.opener.Open(tc.state, tc.binding, &got)
			if tc.ok {
				if err != nil || got.ID != "f" {
					t.Fatalf("Open = %v, data %+v; want success", err, got)
				}
				return
			}
			if !errors.Is(err, ErrRejected) {
				t.Fatalf("Open = %v, want ErrRejected", err)
			}
			if err.Error() == ErrRejected.Error() {
				return
			}
			if !strings.HasPrefix(err.Error(), "requestState rejected") {
				t.Fatalf("error %q does not start with the shared message", err)
			}
		})
	}
}

func TestOpenRejectsExpiredState(t *testing.T) {
	k := ring(t, GenerateKey("k"))
	now := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	k.now = func() time.Time { return now }
	b := Binding{Tool: "t", Tenant: "a", Subject: "s"}
	state, err := k.Seal(b, nil, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Open(state, b, nil); err != nil {
		t.Fatalf("Open before expiry = %v", err)
	}
	now = now.Add(time.Minute)
	var r *Rejection
	if err := k.Open(state, b, nil); !errors.As(err, &r) || r.Reason != "expired" {
		t.Fatalf("Open at expiry = %v, want an expired rejection", err)
	}
}

func TestNewKeyringRefusesBadKeys(t *testing.T) {
	for name, keys := range map[string][]Key{
		"none":         nil,
		"short secret": {{ID: "a", Secret: []byte("short")}},
		"dotted id":    {{ID: "a.b", Secret: make([]byte, KeySize)}},
		"duplicate":    {{ID: "a", Secret: make([]byte, KeySize)}, {ID: "a", Secret: make([]byte, KeySize)}},
	} {
		if _, err := NewKeyring(keys...); err == nil {
			t.Errorf("%s: NewKeyring = nil error", name)
		}
	}
}

func TestParseKeysReadsIDHexPairs(t *testing.T) {
	keys, err := ParseKeys("new:" + strings.Repeat("ab", 32) + ", old:" + strings.Repeat("cd", 32))
	if err != nil || len(keys) != 2 || keys[0].ID != "new" || keys[1].Secret[0] != 0xcd {
		t.Fatalf("ParseKeys = %+v, %v", keys, err)
	}
	for _, bad := range []string{"", "nohex", "a:zz"} {
		if _, err := ParseKeys(bad); err == nil {
			t.Errorf("ParseKeys(%q) = nil error", bad)
		}
	}
}

// FuzzOpen feeds arbitrary states: Open must never panic and never accept anything but what the
// keyring sealed for this binding.
func FuzzOpen(f *testing.F) {
	k, _ := NewKeyring(Key{ID: "k", Secret: make([]byte, KeySize)})
	b := Binding{Tool: "t", Tenant: "a", Subject: "s", RequestDigest: "r"}
	good, _ := k.Seal(b, flow{ID: "x"}, time.Hour)
	f.Add(good)
	f.Add("s1.k.")
	f.Add("s1..AAAA")
	f.Fuzz(func(t *testing.T, state string) {
		err := k.Open(state, b, nil)
		if err != nil && !errors.Is(err, ErrRejected) {
			t.Fatalf("Open(%q) = %v, not a rejection", state, err)
		}
		if err == nil && state != good {
			// A different string may still be valid only if it decodes to the same ciphertext
			// (base64 padding bits); it must then carry the same plaintext.
			if err := k.Open(state, Binding{Tool: "other", Tenant: "a", Subject: "s", RequestDigest: "r"}, nil); err == nil {
				t.Fatalf("Open(%q) accepted for another tool", state)
			}
		}
	})
}

// FuzzParseKeys: parsing never panics, and every key it returns has an id without ':' or ','.
func FuzzParseKeys(f *testing.F) {
	f.Add("k1:" + strings.Repeat("ab", 32))
	f.Add("a:00,b:ff")
	f.Add(",,:")
	f.Fuzz(func(t *testing.T, s string) {
		keys, err := ParseKeys(s)
		if err != nil {
			return
		}
		if len(keys) == 0 {
			t.Fatalf("ParseKeys(%q) = no keys and no error", s)
		}
		for _, k := range keys {
			if strings.ContainsAny(k.ID, ":,") {
				t.Fatalf("ParseKeys(%q) gave id %q", s, k.ID)
			}
		}
	})
}
