package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"slotfare"
	"slotfare/booking/sim"
)

// checkSimMemory refuses, before any of them starts, runs that would need
// more memory at once than the machine has free (sim.NeedBytes, workers
// at a time): better exit 2 naming what to change than be killed hours in.
// Where the free memory cannot be read, nothing is checked.
func checkSimMemory(specs []sim.RunSpec, workers int) error {
	free, ok := freeMemory()
	if !ok {
		return nil
	}
	return fitsMemory(specs, workers, free)
}

// fitsMemory is checkSimMemory with free bytes free.
func fitsMemory(specs []sim.RunSpec, workers int, free int64) error {
	need, err := sim.NeedBytes(specs, workers)
	if err != nil {
		return err
	}
	if need <= free {
		return nil
	}
	one, err := sim.NeedBytes(specs, 1)
	if err != nil {
		return err
	}
	if workers > 1 && one <= free {
		return slotfare.Errorf("", "--workers", "%d runs at once would need about %s, more than the %s free here; one at a time needs %s",
			min(workers, len(specs)), gib(need), gib(free), gib(one))
	}
	return slotfare.Errorf("", "--days", "a run would need about %s, more than the %s free here: simulate fewer days, a lower --load or --loads, or --scale 1",
		gib(one), gib(free))
}

func gib(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }

// freeMemory is what the process may still take: the kernel's estimate of
// available memory (/proc/meminfo), or less where its control group's
// limit leaves less.
func freeMemory() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	free := int64(-1)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, false
			}
			free = kb << 10
		}
	}
	if free < 0 {
		return 0, false
	}
	if limit, ok := cgroupValue("/sys/fs/cgroup/memory.max"); ok {
		used, _ := cgroupValue("/sys/fs/cgroup/memory.current")
		free = min(free, limit-used)
	}
	return free, true
}

// cgroupValue reads a control group's number; "max" (no limit) is not one.
func cgroupValue(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return v, err == nil
}
