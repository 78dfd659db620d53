package main

import (
	"testing"
	"time"
)

// TestParseRedisUsage: CPU is user plus system time; commands count every
// command's calls, scripts those of EVAL and EVALSHA.
func TestParseRedisUsage(t *testing.T) {
	info := "# CPU\r\nused_cpu_sys:1.500000\r\nused_cpu_user:2.250000\r\nused_cpu_sys_children:9.0\r\n\r\n" +
		"# Commandstats\r\ncmdstat_evalsha:calls=10,usec=900,usec_per_call=90.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_hget:calls=25,usec=50,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_eval:calls=2,usec=10,usec_per_call=5.00,rejected_calls=0,failed_calls=0\r\n"
	u, err := parseRedisUsage(info)
	if err != nil {
		t.Fatal(err)
	}
	if u.cpu != 3750*time.Millisecond || u.calls != 37 || u.scripts != 12 {
		t.Fatalf("usage %+v, want 3.75s, 37 calls, 12 scripts", u)
	}
	if _, err := parseRedisUsage("cmdstat_get:calls=x,usec=1\r\n"); err == nil {
		t.Fatal("a count that is not a number was read")
	}
}
