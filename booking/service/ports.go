package service

import (
	"context"

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
	Records   records.Port
	Idem      idem.Port
	Lease     lease.Port
	Catalog   catalog.Port
	Keys      apikey.Port
}

// check names the first port missing.
func (p Ports) check(op slotfare.Op) error {
	for _, x := range []struct {
		name string
		nil_ bool
	}{{"inventory", p.Inventory == nil}, {"records", p.Records == nil}, {"idem", p.Idem == nil},
		{"lease", p.Lease == nil}, {"catalog", p.Catalog == nil}, {"keys", p.Keys == nil}} {
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
	replacer
}

// replacer moves booking id to terms t on every group it occupies on
// inventory layout res and applies w, in one step: the new terms need room
// only where they hold more nodes than the old (inventory.Port's Replace),
// and the move and the write happen together or not at all, refused with
// the inventory's error (NoCapacity; NotFound for a booking res does not
// hold) or the write's (records.ErrMoved, ErrPosted). A write already
// applied is nil and moves nothing again. A change of a booking's terms
// is this one step on every deployment: guarded ports do it where the
// data lives (guardedWriter), an in-process inventory with its resource
// locked across the write (inProcess).
type replacer interface {
	ReplaceApply(ctx context.Context, res, id string, t inventory.Terms, w records.Write) error
}

// inProcess is replacer on an in-process inventory beside any records
// port: the resource's calendars stay locked from the check of the new
// terms through the write, and move only once it is stored, so nothing is
// admitted in between and a refused write leaves them as they were. A
// process that dies meanwhile lays its inventory out again from the
// records on start.
type inProcess struct {
	inv     *inventory.Memory
	records records.Port
}

func (p inProcess) ReplaceApply(ctx context.Context, res, id string, t inventory.Terms, w records.Write) error {
	return p.inv.ReplaceThen(ctx, res, id, t, func() error { return p.records.Apply(ctx, w) })
}

// replacerOf is the ports' replacer: the guarded records' own step, else
// the in-process inventory's.
func replacerOf(op slotfare.Op, inv inventory.Port, recs records.Port, guard guardedWriter) (replacer, error) {
	if guard != nil {
		return guard, nil
	}
	if m, ok := inv.(*inventory.Memory); ok {
		return inProcess{inv: m, records: recs}, nil
	}
	return nil, slotfare.E(op, slotfare.Invalid, slotfare.Field("ports.records"),
		"the records port must change a booking's terms with the inventory in one step (ReplaceApply), or the inventory be in process")
}
