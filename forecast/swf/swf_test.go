package swf

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	in := `; Version: 2.2
; MaxNodes: 64
; Note: prose comment: ignored
; TimeZoneString: Europe/Stockholm

1 0 10 100 4 95.5 -1 4 120 -1 1 3 1 -1 1 -1 -1 -1
2 5 -1 50 -1 -1 -1 8 60 -1 0 3 1 -1 1 -1 -1 -1
`
	l, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if l.Header.MaxProcs != 64 || l.Header.MaxNodes != 64 {
		t.Errorf("MaxProcs %d MaxNodes %d, want 64 from MaxNodes", l.Header.MaxProcs, l.Header.MaxNodes)
	}
	if l.Header.TimeZone != "Europe/Stockholm" {
		t.Errorf("TimeZone %q", l.Header.TimeZone)
	}
	if _, ok := l.Header.Fields["Note that"]; ok {
		t.Error("prose comment taken as a field")
	}
	if len(l.Jobs) != 2 {
		t.Fatalf("%d jobs", len(l.Jobs))
	}
	if j := l.Jobs[0]; j.Number != 1 || j.Run != 100 || j.AvgCPU != 95.5 || j.Nodes() != 4 {
		t.Errorf("job 1 = %+v", j)
	}
	if n := l.Jobs[1].Nodes(); n != 8 {
		t.Errorf("job 2 Nodes() = %d, want requested 8", n)
	}
}

func TestReadErrors(t *testing.T) {
	for _, in := range []string{
		"1 2 3\n",
		"1 0 10 100 4 x -1 4 120 -1 1 3 1 -1 1 -1 -1 -1\n",
		"1 0 10 100 4 NaN -1 4 120 -1 1 3 1 -1 1 -1 -1 -1\n",
	} {
		if _, err := Read(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("Read(%q) err = %v, want a line-1 error", in, err)
		}
	}
}

// TestSharedTraces reads every shared trace: the headers give the machine
// size and every record parses.
func TestSharedTraces(t *testing.T) {
	files := SharedTraces(t)
	want := map[string]struct{ procs, jobs int64 }{
		"ANL-Theta.swf":               {4392, 23387},
		"HPC2N-2002-first3171.swf":    {240, 3170},
		"NASA-iPSC-1993-3.1-cln.swf":  {128, 18239},
		"SDSC-SP2-1998-first4961.swf": {128, 4961},
		"lublin-256-synthetic.swf":    {256, 10000},
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Read(fh)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		w, ok := want[filepath.Base(f)]
		if !ok {
			continue
		}
		if l.Header.MaxProcs != w.procs || int64(len(l.Jobs)) != w.jobs {
			t.Errorf("%s: MaxProcs %d jobs %d, want %d %d", f, l.Header.MaxProcs, len(l.Jobs), w.procs, w.jobs)
		}
	}
}

// fakeTB records what TestTrace and SharedTraces ask of a test.
type fakeTB struct{ skipped, failed string }

func (*fakeTB) Helper()                             {}
func (f *fakeTB) Skipf(format string, args ...any)  { f.skipped = fmt.Sprintf(format, args...) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.failed = fmt.Sprintf(format, args...) }

// TestTestTrace finds the trace the repository ships under
// testdata/traces, and skips on a trace that is nowhere, naming it and
// where it was looked for; under RequireTracesEnv it fails instead.
func TestTestTrace(t *testing.T) {
	p := TestTrace(t, "SDSC-SP2-1998-first4961.swf")
	if want := filepath.Join("testdata", "traces", "SDSC-SP2-1998-first4961.swf"); !strings.HasSuffix(p, want) {
		t.Errorf("TestTrace = %q, want the copy under %s", p, want)
	}
	t.Setenv(RequireTracesEnv, "")
	var f fakeTB
	if p := TestTrace(&f, "no-such.swf"); p != "" || f.failed != "" ||
		!strings.Contains(f.skipped, "no-such.swf") || !strings.Contains(f.skipped, filepath.Join("shared", "traces")) {
		t.Errorf("missing trace: path %q, skipped %q, failed %q", p, f.skipped, f.failed)
	}
	t.Setenv(RequireTracesEnv, "1")
	f = fakeTB{}
	if TestTrace(&f, "no-such.swf"); f.skipped != "" || !strings.Contains(f.failed, "no-such.swf") {
		t.Errorf("missing trace with %s set: skipped %q, failed %q", RequireTracesEnv, f.skipped, f.failed)
	}
}
