package main

import "testing"

func TestHugeAligned(t *testing.T) {
	const h = hugePageBytes
	tests := []struct {
		name   string
		base   uintptr
		n      int
		lo, hi int
	}{
		{"aligned start and end", 4 * h, 3 * h, 0, 3 * h},
		{"unaligned start", 4*h + 4096, 3 * h, h - 4096, 3*h - 4096},
		{"unaligned both", 4*h + 4096, 3*h + 8192, h - 4096, 3*h - 4096},
		{"less than a huge page", 4*h + 4096, h, 0, 0},
		{"exactly one inside", 4*h - 4096, h + 4096, 4096, h + 4096},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := hugeAligned(tt.base, tt.n)
			if lo != tt.lo || hi != tt.hi {
				t.Fatalf("hugeAligned(%#x, %d) = %d, %d; want %d, %d", tt.base, tt.n, lo, hi, tt.lo, tt.hi)
			}
			if lo < hi && ((tt.base+uintptr(lo))%h != 0 || (tt.base+uintptr(hi))%h != 0) {
				t.Fatalf("run [%d, %d) is not huge-page aligned", lo, hi)
			}
		})
	}
}

func TestPrepareHeapRuns(t *testing.T) {
	prepareHeap() // advice and a background collection: nothing to observe but that it returns
}
