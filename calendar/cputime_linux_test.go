package calendar

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU returns the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID):
// benchmarks lock their goroutine to a thread and report CPU time per
// operation beside wall time, which a loaded shared machine inflates.
func threadCPU() (time.Duration, bool) {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
