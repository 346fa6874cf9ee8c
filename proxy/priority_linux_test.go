package proxy

import (
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/mcp-sentinel/sentinel/findings"
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

// Each grading worker holds a processor of the Go scheduler while it runs, and its thread runs
// last: a pipeline reserves one more processor per worker for as long as the worker lives, so
// traffic never waits for a processor held by a thread the kernel keeps off the CPU.
func TestGradingWorkersReserveAProcessorEach(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	store, err := findings.Open(t.Context(), filepath.Join(t.TempDir(), "f.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	p, err := NewPipeline(PipelineOptions{Store: store, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n := runtime.GOMAXPROCS(0); n != before+2 {
		t.Fatalf("GOMAXPROCS is %d with two grading workers, want %d", n, before+2)
	}
	if err := p.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := runtime.GOMAXPROCS(0); n != before {
		t.Fatalf("GOMAXPROCS is %d after the workers ended, want %d again", n, before)
	}
}
