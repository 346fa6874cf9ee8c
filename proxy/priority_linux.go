package proxy

import (
	"runtime"
	"sync"
	"syscall"
)

// gradingNice is the niceness of a grading worker's thread: the kernel then gives traffic the
// CPU first whenever both want it, and grading still has all the CPU that traffic leaves idle.
const gradingNice = 19

// lowerPriority pins the calling goroutine to its own thread, lowers that thread's priority and
// reserves a processor (a P of the Go scheduler) for it; the returned function gives the
// processor back and is called when the worker ends. The thread is never handed back: when the
// goroutine ends while locked, the runtime ends the thread with it, so no other goroutine ever
// runs at this priority.
//
// The reserved processor is what makes the low priority mean "after traffic" rather than "in
// traffic's way". A goroutine locked to a thread holds one of the runtime's GOMAXPROCS
// processors while it runs, whether or not the kernel runs its thread. On a busy machine the
// kernel runs a nice-19 thread rarely, and the processor it holds is then lost to forwarding:
// with GOMAXPROCS at the core count, a busy grading worker left traffic one processor of two
// (a spinning niced goroutine beside eight busy ones on two loaded cores: the eight did 1.7-2.9x
// more work with one processor more). With one processor more per worker, traffic keeps every
// processor it had and the kernel alone decides who gets the cores.
func lowerPriority() (release func()) {
	runtime.LockOSThread()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), gradingNice)
	return reserveProc()
}

// procs counts the processors reserved by live grading workers, above base (GOMAXPROCS when the
// first was reserved).
var procs struct {
	mu   sync.Mutex
	n    int
	base int
}

// reserveProc raises GOMAXPROCS by one for as long as the returned function is not called.
func reserveProc() (release func()) {
	procs.mu.Lock()
	if procs.n == 0 {
		procs.base = runtime.GOMAXPROCS(0)
	}
	procs.n++
	runtime.GOMAXPROCS(procs.base + procs.n)
	procs.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			procs.mu.Lock()
			defer procs.mu.Unlock()
			procs.n--
			runtime.GOMAXPROCS(procs.base + procs.n)
		})
	}
}
