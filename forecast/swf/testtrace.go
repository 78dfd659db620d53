package swf

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
)

// TB is the part of testing.TB that TestTrace and SharedTraces use, so
// that this package does not link the testing package into the binary.
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// RequireTracesEnv names the environment variable that turns a missing
// trace from a skip into a failure. CI sets it (.ci/run), because CI runs
// with ../shared beside the clone and a missing trace there is a fault.
const RequireTracesEnv = "SLOTFARE_REQUIRE_TRACES"

// TracesEnv names the environment variable that gives the directory of the
// large workload traces; without it they are looked for in ../shared/traces
// beside the checkout, where CI puts them.
const TracesEnv = "SLOTFARE_TRACES"

// TestTrace returns the path of the workload trace called name (for
// example "SDSC-SP2-1998-first4961.swf") for a test or a benchmark: the
// copy under the repository's testdata/traces when it ships one, else
// ../shared/traces beside the checkout. When neither holds it the test is
// skipped, naming the trace and where it is looked for, so that a clone
// without ../shared passes; with RequireTracesEnv set it fails instead.
// Every test that reads a trace finds it here, so they all skip alike.
func TestTrace(tb TB, name string) string {
	tb.Helper()
	dirs := traceDirs(tb)
	for _, dir := range dirs {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	missing(tb, "the trace "+name, dirs)
	return ""
}

// SharedTraces returns every trace of ../shared/traces beside the
// checkout, sorted, for the tests that replay all of them; without that
// directory it skips (or fails under RequireTracesEnv) as TestTrace does.
func SharedTraces(tb TB) []string {
	tb.Helper()
	dirs := traceDirs(tb)
	shared := dirs[len(dirs)-1]
	files, err := filepath.Glob(filepath.Join(shared, "*.swf"))
	if err != nil || len(files) == 0 {
		missing(tb, "the shared traces", dirs[len(dirs)-1:])
	}
	slices.Sort(files)
	return files
}

func missing(tb TB, what string, dirs []string) {
	tb.Helper()
	if os.Getenv(RequireTracesEnv) != "" {
		tb.Fatalf("%s is in none of %q, and %s is set", what, dirs, RequireTracesEnv)
		return
	}
	tb.Skipf("needs %s, found in none of %q (set %s to a directory of the large traces; "+
		"see testdata/traces/README.md)", what, dirs, TracesEnv)
}

// traceDirs are where traces are looked for, in order: the repository's
// testdata/traces, then the directory TracesEnv names, or else
// ../shared/traces beside the repository. The
// repository is the nearest directory above the working directory (a
// package directory, under go test) that holds go.mod.
func traceDirs(tb TB) []string {
	tb.Helper()
	root, err := repoRoot()
	if err != nil {
		tb.Fatalf("locating the repository: %v", err)
	}
	large := os.Getenv(TracesEnv)
	if large == "" {
		large = filepath.Join(filepath.Dir(root), "shared", "traces")
	}
	return []string{filepath.Join(root, "testdata", "traces"), large}
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
