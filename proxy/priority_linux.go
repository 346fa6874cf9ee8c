package proxy

import (
	"runtime"
	"syscall"
)

// gradingNice is the niceness of a grading worker's thread: the kernel then gives traffic the
// CPU first whenever both want it, and grading still has all the CPU that traffic leaves idle.
const gradingNice = 19

// lowerPriority pins the calling goroutine to its own thread and lowers that thread's priority.
// The thread is never handed back: when the goroutine ends while locked, the runtime ends the
// thread with it, so no other goroutine ever runs at this priority.
func lowerPriority() {
	runtime.LockOSThread()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), gradingNice)
}
