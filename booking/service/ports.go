package service

import (
	"slotfare"
	"slotfare/booking/apikey"
	"slotfare/booking/catalog"
	"slotfare/booking/idem"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/booking/records"
)

// Ports are where the service's decisions stick: admission (Inventory),
// booking records with their postings (Records), Idempotency-Keys (Idem),
// the per-resource ticker (Lease), the resources' configurations with
// the offer secret (Catalog) and the API keys made over the API (Keys). The service decides prices and limits; the
// ports make them hold where the data lives, so that several replicas on
// one set of ports (Redis) never sell a node twice.
type Ports struct {
	Inventory inventory.Port
	// Records take a hold, a commit and a change of terms in one step
	// each with the inventory (records.Guarded).
	Records records.Guarded
	// Idem are the Idempotency-Keys that the records' hold step claims
	// (records.HeldKey): a hold refused before its step asks them whether
	// its key made a booking already.
	Idem    idem.Port
	Lease   lease.Port
	Catalog catalog.Port
	Keys    apikey.Port
	// Close, if set, closes what the ports keep open (the embedded ports'
	// store): the service calls it last when it closes.
	Close func() error
}

// check names the first port missing.
func (p Ports) check(op slotfare.Op) error {
	for _, x := range []struct {
		name string
		nil_ bool
	}{{"inventory", p.Inventory == nil}, {"records", p.Records == nil}, {"idem", p.Idem == nil},
		{"lease", p.Lease == nil}, {"catalog", p.Catalog == nil}, {"keys", p.Keys == nil}} {
		if x.nil_ {
			return slotfare.E(op, slotfare.Invalid, slotfare.Field("ports."+x.name), "every port is required")
		}
	}
	return nil
}
