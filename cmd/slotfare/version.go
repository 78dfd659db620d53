package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

func init() {
	register("version", command{
		summary: "print the build's module version and commit",
		run: func(args []string, stdout, stderr io.Writer) error {
			fs := newFlags("version", stderr)
			if err := parseFlags(fs, args); err != nil {
				return err
			}
			_, err := fmt.Fprintln(stdout, versionLine())
			return err
		},
	})
}

// versionLine is "slotfare VERSION commit REV (TIME[, modified]) GO": the
// module version and the VCS stamps go build records (vcs.revision,
// vcs.time, vcs.modified), so a binary says which commit it was built
// from without -ldflags. A build outside a checkout (or with
// -buildvcs=false, or in a git worktree, where go build does not stamp)
// has none and says so.
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "slotfare (no build information)"
	}
	return versionOf(bi)
}

func versionOf(bi *debug.BuildInfo) string {
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	s := map[string]string{}
	for _, kv := range bi.Settings {
		s[kv.Key] = kv.Value
	}
	commit := "commit unknown (built without VCS stamps)"
	if rev := s["vcs.revision"]; rev != "" {
		commit = "commit " + rev
		if t := s["vcs.time"]; t != "" {
			commit += " (" + t
			if s["vcs.modified"] == "true" {
				commit += ", modified"
			}
			commit += ")"
		}
	}
	return fmt.Sprintf("slotfare %s %s %s", version, commit, bi.GoVersion)
}
