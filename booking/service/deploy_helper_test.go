package service_test

import (
	"context"
	"testing"

	"slotfare/booking"
	"slotfare/booking/deploy"
	"slotfare/booking/embedded"
	"slotfare/booking/service"
)

// embeddedOn are the ports of a process alone on st, as serve wires them
// without Redis; the service closes st when it closes.
func embeddedOn(t testing.TB, st booking.Store) service.Ports {
	t.Helper()
	p, err := deploy.Embedded(context.Background(), st, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
