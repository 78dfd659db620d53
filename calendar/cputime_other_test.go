//go:build !linux

package calendar

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }
