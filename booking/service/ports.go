package service

import (
	"slotfare"
	"slotfare/booking/catalog"
	"slotfare/booking/idem"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/booking/records"
)

// Ports are where the service's decisions stick: admission (Inventory),
// booking records with their postings (Records), Idempotency-Keys (Idem),
// the per-resource ticker (Lease) and the resources' configurations with
// the offer secret (Catalog). The service decides prices and limits; the
// ports make them hold where the data lives, so that several replicas on
// one set of ports (Redis) never sell a node twice.
type Ports struct {
	Inventory inventory.Port
	Records   records.Port
	Idem      idem.Port
	Lease     lease.Port
	Catalog   catalog.Port
}

// check names the first port missing.
func (p Ports) check(op string) error {
	for _, x := range []struct {
		name string
		nil_ bool
	}{{"inventory", p.Inventory == nil}, {"records", p.Records == nil}, {"idem", p.Idem == nil},
		{"lease", p.Lease == nil}, {"catalog", p.Catalog == nil}} {
		if x.nil_ {
			return slotfare.E(op, slotfare.Invalid, slotfare.Field("ports."+x.name), "every port is required when ports are given")
		}
	}
	return nil
}
