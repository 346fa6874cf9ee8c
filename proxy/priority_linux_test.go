package proxy

import (
	"runtime"
	"syscall"
	"testing"
)

// niceOf is the niceness of the calling thread (the raw getpriority result is 20 - nice).
func niceOf(t *testing.T) int {
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	return 20 - p
}

// A grading worker runs on a thread of its own at the lowest priority, so traffic gets the CPU
// first, and no other goroutine ever inherits that thread.
func TestGradingRunsOnALowPriorityThreadOfItsOwn(t *testing.T) {
	runtime.LockOSThread()
	before := niceOf(t)
	runtime.UnlockOSThread()
	got := make(chan int)
	go func() {
		lowerPriority()
		got <- niceOf(t)
		// Ending while locked ends the thread with the goroutine.
	}()
	if n := <-got; n != gradingNice {
		t.Fatalf("a grading thread runs at nice %d, want %d", n, gradingNice)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if n := niceOf(t); n != before {
		t.Fatalf("another goroutine's thread is at nice %d, was %d: the low priority leaked", n, before)
	}
}
