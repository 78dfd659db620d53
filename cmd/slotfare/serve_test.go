package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeBadFlags(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"currency":"GRD","keys":[],"resources":[],"colour":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--redis", "http://127.0.0.1:6379"}, "--redis"},
		{[]string{"serve", "--redis", ""}, "--redis"},
		{[]string{"serve", "--redis", "redis://127.0.0.1:1/2", "--redis", "redis://127.0.0.1:2"}, "only database 0"},
		{[]string{"serve", "--redis-unsafe"}, "--redis-unsafe: only means something with --redis"},
		{[]string{"serve", "--redis-file", filepath.Join(dir, "missing")}, "--redis-file: cannot be read"},
		{[]string{"serve", "--redis-file", bad, "--redis", "redis://127.0.0.1:1"}, "--redis-file: give --redis or --redis-file, not both"},
		{[]string{"serve", "--redis-prefix", "x"}, "--redis-prefix: only means something with --redis"},
		{[]string{"serve", "--redis", "redis://127.0.0.1:1", "--redis-prefix", "a{b}"}, "--redis-prefix"},
		{[]string{"serve", "--addr", "nonsense"}, "--addr"},
		{[]string{"serve", "--config", filepath.Join(dir, "missing.json"), "--data", dir}, "--config"},
		{[]string{"serve", "--config", bad, "--data", dir}, "--config"},
		{[]string{"serve", "--config", ""}, "--config"},
		{[]string{"serve", "--data", ""}, "--data"},
		{[]string{"serve", "--port", "80"}, "port"},
		{[]string{"serve", "--pprof", "6060"}, "--pprof"},
		{[]string{"serve", "--store", "redis"}, "--store"},
		{[]string{"bench", "api", "--store", "tape"}, "--store"},
		{[]string{"bench", "api", "--store", "log"}, "--store: the log store is gone: run 'slotfare store convert"},
		{[]string{"bench", "api", "--url", "https://example.com"}, "--url"},
		{[]string{"bench", "api", "--url", "http://127.0.0.1:8080/v1"}, "--url"},
		{[]string{"serve", "extra"}, "unexpected argument"},
		{[]string{"bench", "api", "--clients", "0"}, "--clients"},
		{[]string{"bench", "api", "--duration", "-1s"}, "--duration"},
		{[]string{"bench", "api", "--keys", ","}, "--keys"},
		{[]string{"bench", "api", "--replicas", "3"}, "--replicas: replicas share their state on Redis"},
		{[]string{"bench", "api", "--replicas", "0", "--redis", "redis://127.0.0.1:1"}, "--replicas"},
		{[]string{"bench", "api", "--redis", "redis://127.0.0.1:1", "--url", "http://127.0.0.1:8080"}, "leave out --url"},
		{[]string{"bench", "api", "--redis-unsafe"}, "--redis-unsafe"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %s)", c.args, code, errb.String())
		}
		if !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: stderr %q does not name %q", c.args, errb.String(), c.want)
		}
	}
}

// TestBenchAPIRuns runs the load generator briefly against an in-process
// server and checks its one JSON line.
func TestBenchAPIRuns(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"bench", "api", "--clients", "4", "--duration", "1s"}, &out, &errb); code != 0 {
		t.Fatalf("bench api: exit %d: %s", code, errb.String())
	}
	var r apiBenchResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("bench api printed %q: %v", out.String(), err)
	}
	if r.Flows < 1 || r.Errors != 0 || r.SoldOut != 0 || r.FlowsPerSecond <= 0 || r.P50ms <= 0 || r.P99ms < r.P50ms || r.CPUusPerFlow <= 0 {
		t.Fatalf("bench api: %s", out.String())
	}
	if _, ok := readCPUTicks(); ok && (r.Host == nil || r.Host.CPUs < 1 || r.Host.BusyCores <= 0 || r.Host.BusyCores > float64(r.Host.CPUs)) {
		t.Fatalf("bench api: the machine's share is missing or impossible: %s", out.String())
	}
}

// TestBenchAPIMemProfile checks that --memprofile writes a profile (a
// gzipped protocol buffer, as pprof reads it) and names itself when it
// cannot.
func TestBenchAPIMemProfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mem.prof")
	var out, errb bytes.Buffer
	if code := run([]string{"bench", "api", "--clients", "2", "--duration", "300ms", "--memprofile", path}, &out, &errb); code != 0 {
		t.Fatalf("bench api --memprofile: exit %d: %s", code, errb.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 100 || data[0] != 0x1f || data[1] != 0x8b {
		t.Fatalf("--memprofile wrote %d bytes, not a gzipped profile", len(data))
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"bench", "api", "--clients", "2", "--duration", "300ms", "--memprofile", filepath.Join(dir, "missing", "mem.prof")}, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "--memprofile") {
		t.Fatalf("--memprofile in a missing dir: exit %d, stderr %q", code, errb.String())
	}
}
