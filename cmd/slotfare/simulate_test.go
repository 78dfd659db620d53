package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"slotfare"
	"slotfare/booking/sim"
	"slotfare/forecast/swf"
)

// TestSimulateBadScenario: a scenario file with a bad field is exit 2
// naming the field, as serve --config is.
func TestSimulateBadScenario(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("..", "..", "testdata", "scenarios", "two-sites.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, bytes.Replace(good, []byte(`"nodes": 8`), []byte(`"nodes": 0`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"simulate", "--scenario", bad},
		{"simulate", "--experiment", "rm,bogus"},
		{"simulate", "--scale", "0"},
		{"simulate", "--resources", "RAL,Nowhere"},
		{"simulate", "--resources", "RAL,,Bologna"},
		{"simulate", "--resources", "RAL,RAL"},
		{"simulate", "--scenario", twoSites, "--resources", "A,RAL"},
		{"simulate", "--warmup", "14"},
		{"simulate", "--warmup", "-1"},
		{"simulate", "--load", "0"},
		{"simulate", "--load", "-2"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %s)", args, code, errb.String())
		}
		if args[2] == bad && !strings.Contains(errb.String(), "config.resources[0].nodes") {
			t.Errorf("stderr %q does not name config.resources[0].nodes", errb.String())
		}
		for _, f := range []string{"--warmup", "--load"} {
			if args[1] == f && !strings.Contains(errb.String(), f) {
				t.Errorf("%v: stderr %q does not name %s", args, errb.String(), f)
			}
		}
		if args[1] == "--resources" || len(args) > 3 && args[3] == "--resources" {
			if !strings.Contains(errb.String(), "--resources") {
				t.Errorf("%v: stderr %q does not name --resources", args, errb.String())
			}
		}
	}
}

var twoSites = filepath.Join("..", "..", "testdata", "scenarios", "two-sites.json")

// TestSimulateProviderScenario: rm and overbooking run on a provider's own
// scenario, comparing the resources --resources names (or, without it,
// every resource of the scenario), and say so in summary.json.
func TestSimulateProviderScenario(t *testing.T) {
	for _, tt := range []struct {
		args     []string
		compared string
	}{
		{[]string{"--resources", "A"}, `"compared": [
    "A"
  ]`},
		{nil, `"compared": [
    "A",
    "B"
  ]`},
	} {
		dir := t.TempDir()
		var out, errb bytes.Buffer
		args := append([]string{"simulate", "--scenario", twoSites, "--experiment", "rm,overbooking", "--days", "1", "--out", dir}, tt.args...)
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{tt.compared, `"S1": {`, `"resource": "A",` + "\n" + `        "policy": "probability"`} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%v: summary.json lacks %s:\n%s", args, want, b)
			}
		}
		if !strings.Contains(out.String(), "denied gold/standard") {
			t.Errorf("%v: table without the scenario's classes:\n%s", args, out.String())
		}
	}
}

// TestSimulateDeterministic: two runs of simulate rm with one seed write
// the same summary.json, byte for byte, with the rm fields of the issue.
func TestSimulateDeterministic(t *testing.T) {
	var sums [][]byte
	for range 2 {
		dir := t.TempDir()
		var out, errb bytes.Buffer
		if code := run([]string{"simulate", "--days", "1", "--seed", "5", "--out", dir}, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		if !strings.Contains(out.String(), "Bologna") {
			t.Fatalf("no table: %s", out.String())
		}
		if errb.Len() != 0 {
			t.Fatalf("stderr is not a terminal, yet simulate wrote to it: %q", errb.String())
		}
		b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{`"rm": {`, `"S1": {`, `"S2": {`, `"revenue": {`, `"revenue_in_days": {`, `"revenue_in_window": {`, `"revenue_after_window": {`, `"occupancy": {`, `"RAL": "`} {
			if !bytes.Contains(b, []byte(f)) {
				t.Fatalf("summary.json lacks %s:\n%s", f, b)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "rm.csv")); err != nil {
			t.Fatal(err)
		}
		sums = append(sums, b)
	}
	if !bytes.Equal(sums[0], sums[1]) {
		t.Fatal("two runs with one seed wrote different summaries")
	}
}

// TestSimulateCharts: with --out, rm and overbooking write their charts
// under names fixed by the experiment and the compared resources, each a
// PNG that decodes, of a sane size, with more than a blank page in it.
func TestSimulateCharts(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"simulate", "--scenario", twoSites, "--experiment", "rm,overbooking", "--days", "1", "--resources", "A", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := []string{"overbooking_cns.png", "overbooking_denied_A.png", "overbooking_limits_A.png", "overbooking_net_A.png",
		"rm_bookings_gold.png", "rm_bookings_standard.png", "rm_revenue.png", "rm_share.png"}
	got, err := filepath.Glob(filepath.Join(dir, "*.png"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i] = filepath.Base(got[i])
	}
	if !slices.Equal(got, want) {
		t.Fatalf("charts %v, want %v", got, want)
	}
	for _, name := range want {
		checkPNG(t, filepath.Join(dir, name))
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range append(want, "rm.csv", "summary.json", "in window: S1 1.9", "--resources A") {
		if !strings.Contains(string(index), w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
}

// checkPNG fails unless file is a PNG that decodes whole, 600 to 4,000
// pixels wide and 300 to 2,000 high, with at least a hundred colours (axes,
// text and data, not a blank page).
func checkPNG(t *testing.T, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	b := img.Bounds()
	if b.Dx() < 600 || b.Dx() > 4000 || b.Dy() < 300 || b.Dy() > 2000 {
		t.Errorf("%s: %dx%d pixels", file, b.Dx(), b.Dy())
	}
	colours := map[[4]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, bl, a}] = true
		}
	}
	if len(colours) < 100 {
		t.Errorf("%s: only %d colours", file, len(colours))
	}
}

// TestSimulateCalendarAndElastic: simulate calendar and elastic on the SDSC
// SP2 trace. Calendar (seed 000 Sec. 7, Fig. 5): the exact calendars accept
// the most and wider slots accept less (internal fragmentation); runtimes
// are not asserted (they depend on the machine). Both write their CSV
// and chart, and summary.json holds their rows.
func TestSimulateCalendarAndElastic(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	trace := swf.TestTrace(t, "SDSC-SP2-1998-first4961.swf")
	if code := run([]string{"simulate", "--experiment", "calendar,elastic", "--trace", trace, "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum sim.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Calendar) != 6 || len(sum.Elastic) == 0 {
		t.Fatalf("summary has %d calendar rows and %d elastic rows", len(sum.Calendar), len(sum.Elastic))
	}
	tree, free := sum.Calendar[0], sum.Calendar[1]
	if tree.Impl != "tree" || free.Impl != "freelist" || tree.Accepted != free.Accepted {
		t.Errorf("exact calendars disagree: %+v, %+v", tree, free)
	}
	prev := tree
	for _, r := range sum.Calendar[2:] {
		if r.Impl != "slotted" || r.Accepted > prev.Accepted {
			t.Errorf("%+v accepts more than %+v: want fewer with wider slots", r, prev)
		}
		prev = r
	}
	if last := sum.Calendar[len(sum.Calendar)-1]; last.Accepted >= tree.Accepted {
		t.Errorf("slots of %d s accept %d, the tree %d: want fewer", last.SlotSeconds, last.Accepted, tree.Accepted)
	}
	for _, f := range []string{"calendar_success_runtime.png", "elastic_utilisation.png", "elastic_rejections.png"} {
		checkPNG(t, filepath.Join(dir, f))
	}
	for _, f := range []string{"calendar.csv", "elastic.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	// Without --trace, the trace built into the binary: the same rows,
	// from any working directory.
	builtin := t.TempDir()
	var outB, errbB bytes.Buffer
	if code := run([]string{"simulate", "--experiment", "elastic", "--out", builtin}, &outB, &errbB); code != 0 {
		t.Fatalf("without --trace: exit %d: %s", code, errbB.String())
	}
	b, err = os.ReadFile(filepath.Join(builtin, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sumB sim.Summary
	if err := json.Unmarshal(b, &sumB); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sumB.Elastic, sum.Elastic) {
		t.Errorf("elastic on the built-in trace differs from the shipped file's:\n%+v\n%+v", sumB.Elastic, sum.Elastic)
	}
	var errb2 bytes.Buffer
	if code := run([]string{"simulate", "--experiment", "elastic", "--trace", filepath.Join(dir, "none.swf")}, &out, &errb2); code != 2 || !strings.Contains(errb2.String(), "--trace") {
		t.Errorf("missing trace: exit %d, stderr %q: want 2 naming --trace", code, errb2.String())
	}
	// SP2's first day has no job that ran: elastic over --days 1 has
	// nothing to replay, which is reported before rm runs.
	var out3, errb3 bytes.Buffer
	if code := run([]string{"simulate", "--experiment", "rm,elastic", "--days", "1", "--trace", trace}, &out3, &errb3); code != 2 ||
		!strings.Contains(errb3.String(), "--trace") || out3.Len() != 0 {
		t.Errorf("elastic over one day: exit %d, stdout %q, stderr %q: want 2 naming --trace before rm runs", code, out3.String(), errb3.String())
	}
}

// TestSimulateProgressBar: the bar is off when the output is not a
// terminal (a buffer, a file, /dev/null), and on a terminal draws one line that it
// redraws in place (carriage returns) and clears when done.
func TestSimulateProgressBar(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, w := range []io.Writer{&bytes.Buffer{}, f, null} {
		if p := newProgressBar(w); p.on || p.track("rm", 3) != nil {
			t.Errorf("%T: the bar is on", w)
		}
	}
	var tty bytes.Buffer
	p := &progressBar{w: &tty, on: true}
	progress := p.track("rm", 2)
	progress(0, 0.5)
	progress(1, 1)
	progress(0, 1)
	p.done()
	want := "\rrm [" + strings.Repeat("=", 10) + strings.Repeat(" ", 30) + "]  25%" +
		"\rrm [" + strings.Repeat("=", 30) + strings.Repeat(" ", 10) + "]  75%" +
		"\rrm [" + strings.Repeat("=", 40) + "] 100%" + "\r\033[K"
	if tty.String() != want {
		t.Errorf("drew %q, want %q", tty.String(), want)
	}
}

// TestSimulatePolicies: simulate --scenario eu-datagrid-priced
// --experiment policies prints, per resource and load, the best fixed
// price, the bound and each RM method's revenue and opportunity, and
// writes them into summary.json (money as decimal strings, opportunity a
// number), policies.csv and a chart per resource; a bad --loads is exit 2
// naming it.
func TestSimulatePolicies(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	args := []string{"simulate", "--scenario", "eu-datagrid-priced", "--experiment", "policies", "--days", "1", "--resources", "RAL",
		"--loads", "0.5,4", "--out", dir}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"best fixed tau", "bound (x1000)", "emsr-b (x1000)", "opportunity", "RAL   0.5", "RAL     4"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Policies struct {
			Runs []struct {
				Resource  string
				Load      float64
				Days      int
				BestFixed struct{ Tau, Revenue string } `json:"best_fixed"`
				Bound     string
				Methods   map[string]struct {
					Revenue     string
					Opportunity *float64
				}
			}
		}
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Policies.Runs) != 2 {
		t.Fatalf("%d policies runs, want 2:\n%s", len(sum.Policies.Runs), b)
	}
	for _, r := range sum.Policies.Runs {
		if r.Resource != "RAL" || r.Days != 1 || r.BestFixed.Tau == "" || r.Bound == "" || len(r.Methods) != len(sim.RMMethods) {
			t.Errorf("run %+v", r)
		}
		for m, pm := range r.Methods {
			if pm.Opportunity == nil || !strings.Contains(pm.Revenue, ".") {
				t.Errorf("load %v %s: revenue %q, opportunity %v", r.Load, m, pm.Revenue, pm.Opportunity)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "policies.csv")); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, filepath.Join(dir, "policies_RAL.png"))
	for _, loads := range []string{"0", "1,x", "2,2"} {
		var out, errb bytes.Buffer
		if code := run([]string{"simulate", "--experiment", "policies", "--loads", loads}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--loads") {
			t.Errorf("--loads %s: exit %d, stderr %q: want 2 naming --loads", loads, code, errb.String())
		}
	}
}

// TestSimulateCPUProfile: SLOTFARE_SIMULATE_CPUPROFILE writes a CPU profile
// of the run (a gzipped protocol buffer, as pprof reads it); unset, none.
func TestSimulateCPUProfile(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.out")
	t.Setenv("SLOTFARE_SIMULATE_CPUPROFILE", prof)
	var out, errb bytes.Buffer
	args := []string{"simulate", "--scenario", twoSites, "--experiment", "rm", "--days", "1"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("profile of %d bytes is not gzip", len(b))
	}
	stop, err := simCPUProfile("")
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if _, err := simCPUProfile(filepath.Join(t.TempDir(), "no", "such", "dir")); slotfare.FieldOf(err) != "SLOTFARE_SIMULATE_CPUPROFILE" {
		t.Errorf("unwritable path: %v, want an error naming SLOTFARE_SIMULATE_CPUPROFILE", err)
	}
}
