package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// readmeBlock returns the fenced code block of ../../README.md between
// "<!-- NAME:begin -->" and "<!-- NAME:end -->", without its fences.
func readmeBlock(t *testing.T, name string) string {
	t.Helper()
	return docBlock(t, "README.md", name)
}

// docBlock is readmeBlock for any file of the repository (path relative
// to its root, such as docs/co-reservations.md).
func docBlock(t *testing.T, path, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- "+name+":begin -->")
	block, _, ok2 := strings.Cut(rest, "<!-- "+name+":end -->")
	if !ok || !ok2 {
		t.Fatalf("%s has no %s markers", path, name)
	}
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "```") || lines[len(lines)-1] != "```" {
		t.Fatalf("%s's %s block is not one fenced code block", path, name)
	}
	return strings.Join(lines[1:len(lines)-1], "\n") + "\n"
}

// fakeDate is a stand-in for date(1) put first on the walk-through's PATH:
// "+%s" answers $FAKE_NOW, so the script believes it is another day; with
// DATE_FLAVOUR=bsd it refuses GNU's -d as BSD date does and takes BSD's
// -r SECONDS, so both branches of the README's day() run.
const fakeDate = `#!/bin/sh
case " $* " in *" +%s "*) echo "$FAKE_NOW"; exit 0;; esac
if [ "$DATE_FLAVOUR" = bsd ]; then
  r=
  for a in "$@"; do
    shift
    case $a in
      -d) echo "date: illegal option -- d" >&2; exit 1;;
      -r) r=1; set -- "$@" -d; continue;;
    esac
    if [ -n "$r" ]; then a="@$a"; r=; fi
    set -- "$@" "$a"
  done
fi
exec REAL_DATE "$@"
`

// rfc3339 matches the instants in the walk-through's output, which
// depend on the day it runs.
var rfc3339 = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

// TestREADMEWalkThrough runs the README's walk-through with bash against
// the real binary (a fresh server from the e2e harness): once as if on each
// day of the week, alternating GNU and BSD date, then once more on the
// first day, so it must work when run again. Each run's output must equal
// the output the README shows, instants aside; the weekday offer must
// start on the next weekday and the weekend one on the next Saturday; and
// the run must leave no file in its working directory.
func TestREADMEWalkThrough(t *testing.T) {
	t.Parallel() // waits on real tickers and child processes, not on the CPU
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the walk-through needs %s, which is not installed (.ci/run installs jq)", tool)
		}
	}
	realDate, err := exec.LookPath("date")
	if err != nil {
		t.Fatal(err)
	}
	script := readmeBlock(t, "walkthrough")
	want := strings.Split(strings.TrimSpace(readmeBlock(t, "walkthrough-output")), "\n")
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "date"), []byte(strings.Replace(fakeDate, "REAL_DATE", realDate, 1)), 0o755); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, t.TempDir())
	now := time.Now().UTC()
	for run, day := range []int{0, 1, 2, 3, 4, 5, 6, 0} {
		flavour := []string{"gnu", "bsd"}[run%2]
		fakeNow := now.Add(time.Duration(day) * 24 * time.Hour)
		name := fmt.Sprintf("run%d-%s-%s", run+1, fakeNow.Weekday(), flavour)
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			cmd := exec.Command("bash", "-eu", "-o", "pipefail", "-c", script)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"S="+s.base, fmt.Sprintf("FAKE_NOW=%d", fakeNow.Unix()), "DATE_FLAVOUR="+flavour)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("walk-through: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
			}
			if stderr.Len() > 0 {
				t.Errorf("walk-through wrote to stderr:\n%s", stderr.String())
			}
			got := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			if len(got) != len(want) {
				t.Fatalf("%d lines of output, the README shows %d:\n%s", len(got), len(want), stdout.String())
			}
			for i := range want {
				if g, w := rfc3339.ReplaceAllString(got[i], "TIME"), rfc3339.ReplaceAllString(want[i], "TIME"); g != w {
					t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
				}
			}
			weekday, saturday := nextDay(fakeNow, func(d time.Weekday) bool { return d != time.Saturday && d != time.Sunday }),
				nextDay(fakeNow, func(d time.Weekday) bool { return d == time.Saturday })
			for i, wantStart := range map[int]time.Time{1: weekday, 2: saturday} {
				var offer struct {
					Start time.Time `json:"start"`
				}
				if err := json.Unmarshal([]byte(got[i]), &offer); err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				if !offer.Start.Equal(wantStart) {
					t.Errorf("line %d: offer starts %s, want %s (%s)", i+1, offer.Start, wantStart, wantStart.Weekday())
				}
			}
			if left, _ := os.ReadDir(work); len(left) > 0 {
				t.Errorf("the walk-through left %d files in its working directory, e.g. %s", len(left), left[0].Name())
			}
		})
	}
}

// nextDay is 09:00 UTC of the first day after now whose weekday is ok.
func nextDay(now time.Time, ok func(time.Weekday) bool) time.Time {
	d := now.AddDate(0, 0, 1)
	for !ok(d.Weekday()) {
		d = d.AddDate(0, 0, 1)
	}
	return time.Date(d.Year(), d.Month(), d.Day(), 9, 0, 0, 0, time.UTC)
}

// TestREADMEPredictedDurations runs the block of docs/co-reservations.md
// on durations predicted from recorded runs with bash against a fresh real
// server, after the co-reservation block's settings it continues, and
// compares its output with the output the page shows, instants aside.
func TestREADMEPredictedDurations(t *testing.T) {
	t.Parallel() // waits on real tickers and child processes, not on the CPU
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the README's block needs %s, which is not installed (.ci/run installs jq)", tool)
		}
	}
	script := "A='Authorization: Bearer demo-alice'; J='Content-Type: application/json'\n" +
		"D=$(date -u -d 'next tuesday' +%F 2>/dev/null || date -u -v+tue +%F)\n" + docBlock(t, "docs/co-reservations.md", "runs")
	want := strings.Split(strings.TrimSpace(docBlock(t, "docs/co-reservations.md", "runs-output")), "\n")
	s := startServer(t, t.TempDir())
	cmd := exec.Command("bash", "-eu", "-o", "pipefail", "-c", script)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "S="+s.base)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the block: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("the block wrote to stderr:\n%s", stderr.String())
	}
	got := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d lines of output, the README shows %d:\n%s", len(got), len(want), stdout.String())
	}
	for i := range want {
		if g, w := rfc3339.ReplaceAllString(got[i], "TIME"), rfc3339.ReplaceAllString(want[i], "TIME"); g != w {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}

// TestREADMEProductionConfiguration starts serve on the README's minimal
// production configuration: it is valid, its resource is served, and the
// provider key the first start prints (the file names none) works.
func TestREADMEProductionConfiguration(t *testing.T) {
	t.Parallel() // waits on a child process, not on the CPU
	dir := t.TempDir()
	path := filepath.Join(dir, "hpc.json")
	if err := os.WriteFile(path, []byte(readmeBlock(t, "prodconfig")), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, filepath.Join(dir, "data"), "--config", path)
	key := regexp.MustCompile(`sfk_[A-Za-z0-9_-]+`).FindString(s.stdout.String())
	if key == "" {
		t.Fatalf("no provider key printed on the first start:\n%s", s.stdout)
	}
	var res struct {
		Nodes    int    `json:"nodes"`
		Currency string `json:"currency"`
	}
	do(t, s.base, "GET", "/v1/resources/hpc1", key, nil).want(t, 200).json(t, &res)
	if res.Nodes != 128 || res.Currency != "EUR" {
		t.Errorf("hpc1 as served: %+v", res)
	}
}
