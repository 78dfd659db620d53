package service

import (
	"context"

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

// guardedWriter is a records port that keeps the inventory too, a
// resource's records and its layout in one hash slot (redisstore.Records):
// an admission and the write that stores the hold, or the check of a
// booking against the limits in force and the write that commits it, are
// then one atomic step, a round trip less each, with no moment where one is
// done and not the other. Each indexes its write as Apply does. The
// service uses it on shared ports, whose layout of a resource
// is under the resource's id (layOutShared).
type guardedWriter interface {
	// AdmitApply claims the hold's place in its account's hold limits
	// (c), admits booking id (groups, t) on layout res and applies w: all,
	// or none with ok false and the holds in the way, or with the refusal
	// (NoCapacity, or w's Conflict).
	AdmitApply(ctx context.Context, res, id string, groups int, t inventory.Terms, w records.Write, c records.HoldClaim) (ok bool, counted []records.Held, err error)
	// WithinApply applies w if booking id is within the capacities in
	// force on layout res; within is false and nothing is written if not.
	WithinApply(ctx context.Context, res, id string, w records.Write) (within bool, err error)
}
