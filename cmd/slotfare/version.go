package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"slotfare"
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
// module version and the VCS stamps go build records, so a binary says
// which commit it was built from without -ldflags; a build without stamps
// falls back to slotfare.Commit, set at build time, or says it has none.
func versionLine() string { return versionText(slotfare.ThisBuild()) }

func versionOf(bi *debug.BuildInfo) string { return versionText(slotfare.BuildOf(bi)) }

func versionText(b slotfare.Build) string {
	commit := "commit unknown (built without VCS stamps)"
	if b.Revision != "" {
		commit = "commit " + b.Revision
		if b.Time != "" {
			commit += " (" + b.Time
			if b.Modified {
				commit += ", modified"
			}
			commit += ")"
		}
	}
	s := fmt.Sprintf("slotfare %s %s", b.Version, commit)
	if b.GoVersion != "" {
		s += " " + b.GoVersion
	}
	return s
}
