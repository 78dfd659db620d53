package slotfare

import "runtime/debug"

// Commit is the commit a binary was built from when the build has no VCS
// stamps (a build outside a checkout, in a git worktree, or with
// -buildvcs=false): set it with
// go build -ldflags "-X slotfare.Commit=$(git rev-parse HEAD)".
var Commit string

// Build says which build runs: the module version, the commit and its time,
// whether the tree had local changes, and the Go release.
type Build struct {
	Version   string // module version, "(devel)" for a build from a checkout
	Revision  string // commit, "" when unknown
	Time      string // commit time (RFC 3339), "" when unknown
	Modified  bool   // built from a tree with uncommitted changes
	GoVersion string
}

// ThisBuild reads the running binary's build information.
func ThisBuild() Build {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Build{Version: "(devel)", Revision: Commit}
	}
	return BuildOf(bi)
}

// BuildOf reads bi's stamps; the VCS stamps win over Commit, which only
// fills a build that has none.
func BuildOf(bi *debug.BuildInfo) Build {
	b := Build{Version: bi.Main.Version, GoVersion: bi.GoVersion, Revision: Commit}
	if b.Version == "" {
		b.Version = "(devel)"
	}
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			b.Revision = kv.Value
		case "vcs.time":
			b.Time = kv.Value
		case "vcs.modified":
			b.Modified = kv.Value == "true"
		}
	}
	return b
}
