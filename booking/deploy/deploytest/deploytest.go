// Package deploytest opens the service's ports for tests as serve wires
// them.
package deploytest

import (
	"context"
	"testing"

	"slotfare/booking"
	"slotfare/booking/deploy"
	"slotfare/booking/embedded"
	"slotfare/booking/service"
)

// Embedded are the ports of a process alone on st, as serve wires them
// without Redis; the service closes st when it closes.
func Embedded(t testing.TB, st booking.Store) service.Ports {
	t.Helper()
	p, err := deploy.Embedded(context.Background(), st, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
