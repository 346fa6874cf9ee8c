package main

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// scanHeapBytes is how much heap a scan is given in huge pages up front: a scan of the Go SDK
// everything-server allocates about 8 MB and start-up about 2, so 12 MB covers the whole scan of
// a typical server; a bigger scan takes the rest of its heap the ordinary way. Kept at or under
// the collector's floor at scanGCPercent (16 MB), so the runtime's scavenger, which returns free
// memory beyond that, has none of it to return.
const scanHeapBytes = 12 << 20

// hugePageBytes is the size of a transparent huge page on amd64 and arm64 (4 KiB base pages).
const hugePageBytes = 2 << 20

// prepareHeap gives the scan its heap in transparent huge pages. A one-shot process touches
// every page of its heap for the first time, and each 4 KiB page is a page fault: about 2,300
// of a scan's 3,000, and on a virtual machine each fault is a trip through the hypervisor
// (docs/performance.md: a fifth of the probe's CPU). The runtime does not ask for huge pages,
// and on a kernel whose THP mode is "madvise" (the common default) none are given unless asked.
// So: one large allocation makes the runtime map scanHeapBytes of fresh heap, the aligned part
// of it is advised MADV_HUGEPAGE, and a collection frees the allocation, after which the
// runtime hands those addresses (the lowest free ones) to the scan's small objects, faulting in
// 2 MB at a time. The collection runs beside the scan's first round trips, not before them.
// Where THP is off the advice does nothing and the cost is one small collection; where it is
// "always" the heap already had huge pages.
func prepareHeap() {
	b := make([]byte, scanHeapBytes)
	if lo, hi := hugeAligned(uintptr(unsafe.Pointer(unsafe.SliceData(b))), len(b)); lo < hi {
		_ = unix.Madvise(b[lo:hi], unix.MADV_HUGEPAGE) // advice only: without it the heap is what it was
	}
	runtime.KeepAlive(b)
	go runtime.GC()
}

// hugeAligned returns the offsets within [base, base+n) of its largest run of whole huge pages
// (lo == hi when there is none).
func hugeAligned(base uintptr, n int) (lo, hi int) {
	start := (base + hugePageBytes - 1) &^ (hugePageBytes - 1)
	end := (base + uintptr(n)) &^ (hugePageBytes - 1)
	if start >= end {
		return 0, 0
	}
	return int(start - base), int(end - base)
}
