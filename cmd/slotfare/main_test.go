package main

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

// TestRunUsage checks where usage goes: help that was asked for (help,
// -h, --help, after a command or a group) on stdout with exit 0; usage
// shown because of a mistake on stderr with exit 2.
func TestRunUsage(t *testing.T) {
	tests := []struct {
		args           []string
		status         int
		stdout, stderr string
	}{
		{nil, 2, "", "usage: slotfare"},
		{[]string{"no-such-command"}, 2, "", `unknown command "no-such-command"`},
		{[]string{"version", "extra"}, 2, "", "unexpected argument extra"},
		{[]string{"help"}, 0, "commands:", ""},
		{[]string{"--help"}, 0, "commands:", ""},
		{[]string{"-h"}, 0, "bench calendar", ""},
		{[]string{"version", "-h"}, 0, "usage: slotfare version [flags]", ""},
		{[]string{"overbook", "--help"}, 0, "--show-rate Q", ""},
		{[]string{"bench", "-h"}, 0, "usage: slotfare bench <command>", ""},
		{[]string{"bench", "help"}, 0, "bench api", ""},
		{[]string{"bench"}, 2, "", "bench calendar"},
		{[]string{"bench", "nothing"}, 2, "", `unknown command "bench nothing"`},
		{[]string{"store"}, 2, "", "store check"},
		{[]string{"bench", "calendar", "-h"}, 0, "--trace FILE", ""},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if got := run(tt.args, &out, &errb); got != tt.status {
			t.Errorf("run(%q) = %d, want %d; stderr %s", tt.args, got, tt.status, errb.String())
		}
		if !strings.Contains(out.String(), tt.stdout) || (tt.stdout == "" && out.Len() > 0) {
			t.Errorf("run(%q) stdout = %q, want it to contain %q", tt.args, out.String(), tt.stdout)
		}
		if !strings.Contains(errb.String(), tt.stderr) || (tt.stderr == "" && errb.Len() > 0) {
			t.Errorf("run(%q) stderr = %q, want it to contain %q", tt.args, errb.String(), tt.stderr)
		}
	}
}

// TestFlagErrors checks that a flag error names the flag once, in the
// form the user types it, and that every missing or invalid flag of one
// command line is reported in one run.
func TestFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"version", "--bogus"}, []string{"--bogus: not a flag of slotfare version"}},
		{[]string{"delay-price", "--scenario"}, []string{"--scenario: needs a value"}},
		{[]string{"bench", "api", "--clients", "many"}, []string{`--clients: invalid value "many"`}},
		{[]string{"overbook"}, []string{"5 flags need fixing", "--policy: is required", "--capacity: is required",
			"--price: is required", "--denied-cost: is required", "--show-rate: is required"}},
		{[]string{"overbook", "--policy", "greedy", "--capacity", "x", "--price", "-", "--denied-cost", "1", "--show-rate", "most"},
			[]string{"4 flags need fixing", `--policy: unknown policy "greedy"`, `--capacity: want a whole number, got "x"`,
				`--price: want a decimal amount, got "-"`, `--show-rate: want a number, got "most"`}},
		{[]string{"limits", "--method", "emsr-b", "--fares", "3,2", "--means", "1,x"},
			[]string{"3 flags need fixing", "--capacity: is required", "--sds: is required", `--means: value 2: want a number, got "x"`}},
		{[]string{"bench", "calendar", "--mode", "elastic", "--repeat", "0", "--impl", "tree,heap"},
			[]string{"4 flags need fixing", "--trace: is required", "--mode: want rigid or suggest", "--repeat: want 1 to 1000", `--impl: unknown implementation "heap"`}},
		{[]string{"serve", "--store", "tape", "--addr", "nowhere", "--data", ""},
			[]string{"3 flags need fixing", `--store: must be bbolt, not "tape"`, "--addr: must be host:port", "--data: must name a directory"}},
		{[]string{"store", "check", "--store", "tape"}, []string{"2 flags need fixing", "--data: is required", "--store: must be bbolt"}},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if got := run(tt.args, &out, &errb); got != 2 || out.Len() > 0 {
			t.Errorf("run(%q) = %d, stdout %q; want 2 and nothing", tt.args, got, out.String())
		}
		msg := errb.String()
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("run(%q) stderr %q lacks %q", tt.args, msg, w)
			}
		}
		// Each flag named once per problem: "--x: ...", never "x: --x: ...".
		for _, w := range tt.want {
			if flag, _, ok := strings.Cut(w, ":"); ok && strings.HasPrefix(flag, "--") {
				if n := strings.Count(msg, flag+":"); n != 1 || strings.Contains(msg, strings.TrimPrefix(flag, "--")+": "+flag) {
					t.Errorf("run(%q) names %s %d times: %q", tt.args, flag, n, msg)
				}
			}
		}
		if strings.Contains(msg, "flag provided") || strings.Contains(msg, "Usage of") {
			t.Errorf("run(%q) printed the flag package's message: %q", tt.args, msg)
		}
	}
}

func TestRunVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-version"} {
		var out, errb bytes.Buffer
		if got := run([]string{arg}, &out, &errb); got != 0 || !strings.HasPrefix(out.String(), "slotfare ") {
			t.Fatalf("%s: status %d out %q err %q", arg, got, out.String(), errb.String())
		}
	}
}

// TestVersionOf prints the module version and the commit from the VCS
// stamps, and says when there are none.
func TestVersionOf(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "slotfare", Version: "v0.0.0-20261124142940-a92969e0c09e+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "a92969e0c09ed18248761a91c1c722d8ca4abfd5"},
			{Key: "vcs.time", Value: "2026-11-24T14:29:40Z"}, {Key: "vcs.modified", Value: "true"}}}
	want := "slotfare v0.0.0-20261124142940-a92969e0c09e+dirty commit a92969e0c09ed18248761a91c1c722d8ca4abfd5 (2026-11-24T14:29:40Z, modified) go1.26.8"
	if got := versionOf(bi); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	bi.Settings[3].Value = "false"
	if got := versionOf(bi); !strings.HasSuffix(got, "(2026-11-24T14:29:40Z) go1.26.8") {
		t.Errorf("clean tree: %s", got)
	}
	bi.Main.Version, bi.Settings = "", nil
	if got := versionOf(bi); got != "slotfare (devel) commit unknown (built without VCS stamps) go1.26.8" {
		t.Errorf("no stamps: %s", got)
	}
}
