package api

import (
	"net/http"
	"strings"
	"testing"

	"slotfare"
)

// TestEveryKindHasAClientStatus: no error kind a store or the service can
// raise is answered 500 but Other, the one kind that means a server fault.
func TestEveryKindHasAClientStatus(t *testing.T) {
	for k := slotfare.Kind(0); !strings.HasPrefix(k.String(), "kind("); k++ {
		name := k.String()
		if k == slotfare.Other {
			continue
		}
		if st := statusOf(k); st == http.StatusInternalServerError {
			t.Errorf("kind %q (%d) is answered 500", name, k)
		}
	}
	if st := statusOf(slotfare.Fenced); st != http.StatusServiceUnavailable {
		t.Errorf("fenced is answered %d, want 503", st)
	}
}
