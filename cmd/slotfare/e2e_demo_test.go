package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestDemoSaysSoAndItsKeysCanBeRevoked: serve without --config warns that
// it runs the demo; a demo key revoked over the API is refused at once and
// after a restart on the same data, while the other demo keys still work.
func TestDemoSaysSoAndItsKeysCanBeRevoked(t *testing.T) {
	t.Parallel() // waits on real tickers and child processes, not on the CPU
	data := t.TempDir()
	s := startServer(t, data)
	if !strings.Contains(s.stderr.String(), "THIS IS THE DEMO") {
		t.Errorf("serve without --config did not warn that it runs the demo:\n%s", s.stderr)
	}
	do(t, s.base, "GET", "/v1/bookings", "demo-bob", nil).want(t, 200)
	do(t, s.base, "DELETE", "/v1/keys/demo-bob", keyProvider, nil).want(t, 204)
	do(t, s.base, "GET", "/v1/bookings", "demo-bob", nil).want(t, 401)
	s.stop()

	s = startServer(t, data)
	do(t, s.base, "GET", "/v1/bookings", "demo-bob", nil).want(t, 401)
	do(t, s.base, "GET", "/v1/bookings", keyAlice, nil).want(t, 200)
}

// TestServeEmptyPrintsOneProviderKeyOnce: serve --demo=false starts with
// no resources and no demo key, makes a provider key and prints it on the
// first start only; the key configures the service and survives a restart.
func TestServeEmptyPrintsOneProviderKeyOnce(t *testing.T) {
	t.Parallel() // waits on real tickers and child processes, not on the CPU
	data := t.TempDir()
	s := startServer(t, data, "--demo=false")
	key := regexp.MustCompile(`sfk_[A-Za-z0-9_-]+`).FindString(s.stdout.String())
	if key == "" {
		t.Fatalf("serve --demo=false printed no provider key:\n%s", s.stdout)
	}
	do(t, s.base, "GET", "/v1/bookings", keyAlice, nil).want(t, 401)
	var list struct {
		Resources []any `json:"resources"`
	}
	do(t, s.base, "GET", "/v1/resources", key, nil).want(t, 200).json(t, &list)
	if len(list.Resources) != 0 {
		t.Errorf("serve --demo=false started with %d resources, want none", len(list.Resources))
	}
	s.stop()

	s = startServer(t, data, "--demo=false")
	if strings.Contains(s.stdout.String(), "sfk_") {
		t.Errorf("the second start printed a key again:\n%s", s.stdout)
	}
	do(t, s.base, "GET", "/v1/resources", key, nil).want(t, 200)
}
