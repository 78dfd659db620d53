package booking_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestStoresImportTheCoreOnly holds the rule of DESIGN.md ("Package
// booking, split along its seams"): the core and the stores that keep its
// records depend on neither pricing, overbook, forecast nor calendar (and
// so not on gonum), nor on the service. A store that pulled them in would
// mean a record carries a decision's types again. The embedded ports keep
// the inventory in process beside the records (its guarded steps admit
// there), so they may reach calendar through booking/inventory, and
// nothing else of the list.
func TestStoresImportTheCoreOnly(t *testing.T) {
	forbidden := []string{"slotfare/pricing", "slotfare/overbook", "slotfare/forecast", "slotfare/calendar",
		"slotfare/booking/service", "gonum.org/"}
	for _, pkg := range []string{"slotfare/booking", "slotfare/booking/boltstore", "slotfare/booking/logconvert", "slotfare/booking/memstore", "slotfare/booking/embedded"} {
		forbidden := forbidden
		if pkg == "slotfare/booking/embedded" {
			forbidden = slices.DeleteFunc(slices.Clone(forbidden), func(f string) bool { return f == "slotfare/calendar" })
		}
		noneOf(t, pkg, forbidden)
	}
}

// TestDomainImportsNoAdapter holds one adapter package per dependency:
// the packages that decide (the service, and the runs, co-reservations
// and webhooks beside it) own their ports and memory implementations, and
// depend on neither go-redis nor bbolt nor the adapters that wrap them
// (booking/redisstore, booking/boltstore and its sub-packages,
// booking/embedded); the adapters import them, not the reverse. And each
// adapter reaches its own dependency only.
func TestDomainImportsNoAdapter(t *testing.T) {
	adapters := []string{"github.com/redis/go-redis/", "go.etcd.io/bbolt", "slotfare/booking/redisstore",
		"slotfare/booking/boltstore", "slotfare/booking/embedded"}
	for _, pkg := range []string{"slotfare/booking/service", "slotfare/booking/runs", "slotfare/booking/coreserve", "slotfare/booking/webhooks"} {
		noneOf(t, pkg, adapters)
	}
	noneOf(t, "slotfare/booking/redisstore", []string{"go.etcd.io/bbolt", "slotfare/booking/boltstore"})
	for _, pkg := range []string{"slotfare/booking/boltstore", "slotfare/booking/boltstore/runsbolt", "slotfare/booking/boltstore/coreservebolt"} {
		noneOf(t, pkg, []string{"github.com/redis/go-redis/", "slotfare/booking/redisstore"})
	}
}

// noneOf fails t for each package pkg depends on (go list -deps) that is
// one of forbidden or below one: a path, or a prefix ending in "/".
func noneOf(t *testing.T, pkg string, forbidden []string) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out, err := exec.Command(goTool, "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 2 || deps[len(deps)-1] != pkg {
		t.Fatalf("go list -deps %s listed %q", pkg, deps)
	}
	for _, d := range deps {
		for _, f := range forbidden {
			if d == f || strings.HasPrefix(d, f+"/") || (strings.HasSuffix(f, "/") && strings.HasPrefix(d, f)) {
				t.Errorf("%s depends on %s", pkg, d)
			}
		}
	}
}
