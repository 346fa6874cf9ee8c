package sentinelcmd

import "testing"

func TestByteSizeFlag(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4194304", 4 << 20, true},
		{"64MiB", 64 << 20, true},
		{"512 KiB", 512 << 10, true},
		{"1gib", 1 << 30, true},
		{"2MB", 2e6, true},
		{"0", 0, false},
		{"-1MiB", 0, false},
		{"lots", 0, false},
		{"99999999999GiB", 0, false},
	}
	for _, tt := range tests {
		var b ByteSize
		err := b.Set(tt.in)
		if (err == nil) != tt.ok || (tt.ok && int64(b) != tt.want) {
			t.Errorf("Set(%q) = %d, %v; want %d (ok %v)", tt.in, b, err, tt.want, tt.ok)
		}
	}
	b := ByteSize(64 << 20)
	if b.String() != "64MiB" {
		t.Errorf("String() = %q, want 64MiB", b.String())
	}
}
