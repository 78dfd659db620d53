//go:build unix

package pricing

import (
	"syscall"
	"testing"
	"time"
)

// cpuClock is the process's CPU time (user plus system), which a loaded
// machine inflates far less than wall time: the shared machine these
// benchmarks run on often has more runnable threads than cores.
func cpuClock() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per iteration since start as cpu-ns/op
// (call it after the b.Loop loop, when b.N is the number of iterations).
func reportCPU(b *testing.B, start time.Duration) {
	if now := cpuClock(); start >= 0 && now >= 0 && b.N > 0 {
		b.ReportMetric(float64(now-start)/float64(b.N), "cpu-ns/op")
	}
}
