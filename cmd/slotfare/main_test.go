package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunUsage(t *testing.T) {
	tests := []struct {
		args   []string
		status int
		stderr string
	}{
		{nil, 2, "usage: slotfare"},
		{[]string{"no-such-command"}, 2, `unknown command "no-such-command"`},
		{[]string{"version", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"version", "extra"}, 2, "unexpected argument extra"},
		{[]string{"version", "-h"}, 0, "Usage of slotfare version"},
		{[]string{"--help"}, 0, "commands:"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if got := run(tt.args, &out, &errb); got != tt.status {
			t.Errorf("run(%q) = %d, want %d; stderr %s", tt.args, got, tt.status, errb.String())
		}
		if !strings.Contains(errb.String(), tt.stderr) {
			t.Errorf("run(%q) stderr = %q, want it to contain %q", tt.args, errb.String(), tt.stderr)
		}
	}
}

func TestRunVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if got := run([]string{"version"}, &out, &errb); got != 0 || !strings.HasPrefix(out.String(), "slotfare ") {
		t.Fatalf("status %d out %q err %q", got, out.String(), errb.String())
	}
}
