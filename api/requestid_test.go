package api

import (
	"regexp"
	"testing"
)

// TestRequestIDs: every answer carries an X-Request-ID of 32 hex digits,
// a new one per request, and the client's own when it sent one.
func TestRequestIDs(t *testing.T) {
	e, _ := newTestServer(t)
	hexID := regexp.MustCompile(`^[0-9a-f]{32}$`)
	seen := map[string]bool{}
	for range 1000 {
		rec := call{"GET", "/healthz", "", "", nil}.run(e)
		id := rec.Header().Get("X-Request-ID")
		if !hexID.MatchString(id) || seen[id] {
			t.Fatalf("request id %q: not 32 hex digits, or seen before", id)
		}
		seen[id] = true
	}
	rec := call{"GET", "/healthz", "", "", []string{"X-Request-ID", "client-7"}}.run(e)
	if got := rec.Header().Get("X-Request-ID"); got != "client-7" {
		t.Fatalf("the client's X-Request-ID came back as %q", got)
	}
}
