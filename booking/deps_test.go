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
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	forbidden := []string{"slotfare/pricing", "slotfare/overbook", "slotfare/forecast", "slotfare/calendar",
		"slotfare/booking/service", "gonum.org/"}
	for _, pkg := range []string{"slotfare/booking", "slotfare/booking/boltstore", "slotfare/booking/logconvert", "slotfare/booking/memstore", "slotfare/booking/embedded"} {
		forbidden := forbidden
		if pkg == "slotfare/booking/embedded" {
			forbidden = slices.DeleteFunc(slices.Clone(forbidden), func(f string) bool { return f == "slotfare/calendar" })
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
}
