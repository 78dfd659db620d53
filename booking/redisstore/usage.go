package redisstore

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Usage is what one Redis server has done since it started (or since
// CONFIG RESETSTAT, for the calls), from INFO cpu and commandstats: its CPU,
// user and system, and each command's calls, those that scripts made
// included, by lower-case name ("evalsha", "hget", "config|resetstat").
// Benchmarks and tests read it before and after a piece of work, so that
// Redis's share is counted by Redis itself.
type Usage struct {
	CPU   time.Duration
	Calls map[string]int64
}

// ParseUsage reads an INFO answer that holds the cpu and commandstats
// sections (either may be missing: its figures are then zero).
func ParseUsage(info string) (Usage, error) {
	u := Usage{Calls: map[string]int64{}}
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		name, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch {
		case name == "used_cpu_user" || name == "used_cpu_sys":
			s, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return u, fmt.Errorf("redis usage: %s: %w", line, err)
			}
			u.CPU += time.Duration(s * float64(time.Second))
		case strings.HasPrefix(name, "cmdstat_"):
			calls, _, _ := strings.Cut(strings.TrimPrefix(val, "calls="), ",")
			n, err := strconv.ParseInt(calls, 10, 64)
			if err != nil {
				return u, fmt.Errorf("redis usage: %s: %w", line, err)
			}
			u.Calls[strings.ToLower(strings.TrimPrefix(name, "cmdstat_"))] += n
		}
	}
	return u, nil
}

// AllCalls is every command's calls.
func (u Usage) AllCalls() int64 {
	var n int64
	for _, c := range u.Calls {
		n += c
	}
	return n
}

// ScriptCalls are the calls of scripts (EVAL, EVALSHA, FCALL and their
// read-only forms).
func (u Usage) ScriptCalls() int64 {
	var n int64
	for _, name := range []string{"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro"} {
		n += u.Calls[name]
	}
	return n
}
