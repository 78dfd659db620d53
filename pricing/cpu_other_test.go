//go:build !unix

package pricing

import (
	"testing"
	"time"
)

// cpuClock is unknown here: no cpu-ns/op metric is reported.
func cpuClock() time.Duration { return -1 }

func reportCPU(*testing.B, time.Duration) {}
