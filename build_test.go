package slotfare

import (
	"runtime/debug"
	"testing"
)

// TestBuildOfFallsBackToCommit: a binary without VCS stamps reports the
// commit set at build time; stamps, where present, win over it.
func TestBuildOfFallsBackToCommit(t *testing.T) {
	old := Commit
	t.Cleanup(func() { Commit = old })
	Commit = "0ffd9bd"
	bi := &debug.BuildInfo{GoVersion: "go1.26.8"}
	if b := BuildOf(bi); b.Revision != "0ffd9bd" || b.Version != "(devel)" {
		t.Errorf("no stamps: %+v", b)
	}
	bi.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: "a92969e"}, {Key: "vcs.modified", Value: "true"}}
	if b := BuildOf(bi); b.Revision != "a92969e" || !b.Modified {
		t.Errorf("stamped: %+v", b)
	}
}
