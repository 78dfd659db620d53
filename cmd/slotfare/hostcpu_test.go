package main

import (
	"os"
	"testing"
)

// TestHostShare reads two /proc/stat snapshots as the kernel writes them
// and turns the ticks between them into cores: 2 CPUs, 400 ticks, of which
// 200 busy (user, nice, system, irq, softirq), 100 idle, 60 iowait, 40
// steal.
func TestHostShare(t *testing.T) {
	a, err := parseCPUTicks([]byte("cpu  1000 10 300 5000 70 0 20 5 0 0\ncpu0 500 5 150 2500 35 0 10 2 0 0\ncpu1 500 5 150 2500 35 0 10 3 0 0\nintr 1 2 3\nctxt 99\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseCPUTicks([]byte("cpu  1150 10 330 5100 130 0 40 45 0 0\ncpu0 575 5 165 2550 65 0 20 22 0 0\ncpu1 575 5 165 2550 65 0 20 23 0 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := shareSince(a, b)
	want := hostShare{CPUs: 2, BusyCores: 1, IOWaitCores: 0.3, StealCores: 0.2}
	if got == nil || *got != want {
		t.Fatalf("share = %+v, want %+v", got, want)
	}
	if s := shareSince(b, b); s != nil {
		t.Errorf("no time passed, share = %+v, want none", s)
	}
	for _, bad := range []string{"", "intr 1\n", "cpu 1 2 3\ncpu0 1 2 3\n", "cpu  1 2 3 x 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\n", "cpu  1 2 3 4 5 6 7 8\n"} {
		if _, err := parseCPUTicks([]byte(bad)); err == nil {
			t.Errorf("parseCPUTicks(%q) took it", bad)
		}
	}
	if _, err := os.Stat("/proc/stat"); err == nil {
		if _, ok := readCPUTicks(); !ok {
			t.Error("this machine has /proc/stat, and readCPUTicks did not read it")
		}
	}
}
