package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// hostShare is what the whole machine's CPUs did during a bench run, from
// the kernel's counters (/proc/stat), in cores: busy (user, nice, system,
// interrupts), waiting for the disk with nothing else to run (iowait: on
// Redis with appendfsync always, its fsyncs), and taken by the hypervisor
// for other machines (steal). A run's figures on a shared machine mean
// little without them: a busy machine with cores idle is not CPU-bound,
// and work this machine cannot see shows as a flow costing more CPU.
type hostShare struct {
	CPUs        int     `json:"cpus"`
	BusyCores   float64 `json:"busy_cores"`
	IOWaitCores float64 `json:"iowait_cores"`
	StealCores  float64 `json:"steal_cores"`
}

// cpuTicks is the first line of /proc/stat: the machine's time in each
// state, in ticks, since boot, and how many CPUs it counts.
type cpuTicks struct {
	cpus                      int
	busy, idle, iowait, steal uint64
}

// readCPUTicks reads /proc/stat; false where there is none (not Linux).
func readCPUTicks() (cpuTicks, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTicks{}, false
	}
	t, err := parseCPUTicks(b)
	return t, err == nil
}

// parseCPUTicks reads the aggregate "cpu" line (user nice system idle
// iowait irq softirq steal ...) and counts the "cpuN" lines.
func parseCPUTicks(b []byte) (cpuTicks, error) {
	var t cpuTicks
	found := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			t.cpus++
			continue
		}
		if len(f) < 9 {
			return cpuTicks{}, fmt.Errorf("/proc/stat: the cpu line has %d fields, want at least 9", len(f))
		}
		var v [8]uint64
		for i := range v {
			n, err := strconv.ParseUint(f[i+1], 10, 64)
			if err != nil {
				return cpuTicks{}, fmt.Errorf("/proc/stat: cpu field %d: %v", i+1, err)
			}
			v[i] = n
		}
		t.busy = v[0] + v[1] + v[2] + v[5] + v[6]
		t.idle, t.iowait, t.steal = v[3], v[4], v[7]
		found = true
	}
	if !found || t.cpus == 0 {
		return cpuTicks{}, fmt.Errorf("/proc/stat has no cpu lines")
	}
	return t, nil
}

// shareSince is the machine's share between a and b, in cores; nil when
// no time passed.
func shareSince(a, b cpuTicks) *hostShare {
	d := func(x, y uint64) float64 { return float64(y - x) }
	busy, idle, iowait, steal := d(a.busy, b.busy), d(a.idle, b.idle), d(a.iowait, b.iowait), d(a.steal, b.steal)
	total := busy + idle + iowait + steal
	if total <= 0 {
		return nil
	}
	n := float64(b.cpus)
	return &hostShare{CPUs: b.cpus,
		BusyCores:   roundMs3(n * busy / total),
		IOWaitCores: roundMs3(n * iowait / total),
		StealCores:  roundMs3(n * steal / total)}
}
