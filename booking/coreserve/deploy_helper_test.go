package coreserve

import (
	"context"
	"testing"

	"slotfare/booking"
	"slotfare/booking/embedded"
	"slotfare/booking/service"
)

// embeddedOn are the ports of a process alone on st, as deploy.Embedded
// wires them (which this package's tests cannot import: deploy reaches
// redisstore, which imports coreserve); the service closes st when it
// closes.
func embeddedOn(t testing.TB, st booking.Store) service.Ports {
	t.Helper()
	p, _, err := embedded.Open(context.Background(), st, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return service.Ports{Inventory: p.Inventory, Records: p.Records, Idem: p.Idem, Lease: p.Lease,
		Catalog: p.Catalog, Keys: p.APIKeys, Close: st.Close}
}
