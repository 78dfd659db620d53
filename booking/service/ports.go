package service

import (
	"context"
	"fmt"

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
	if _, ok := p.Records.(guardedWriter); !ok {
		return slotfare.E(op, slotfare.Invalid, slotfare.Field("ports.records"), fmt.Sprintf(
			"the records port (%T) must keep the inventory and take a hold, a commit and a change of terms in one step each (AdmitApply, WithinApply, ReplaceApply)", p.Records))
	}
	return nil
}

// guardedWriter is a records port that keeps the inventory too (Redis: a
// resource's records and its layout in one hash slot; embedded: the
// process's inventory beside its records): an admission and the write that
// stores the hold, the check of a booking against the limits in force and
// the write that commits it, or a booking's move to new terms and the
// write that records them, are then one atomic step, with no moment where
// one is done and not the other. Each indexes its write as Apply does. A
// resource's layout is under the resource's id (layOut). Every records
// port the service runs on is one (Ports.check).
type guardedWriter interface {
	// AdmitApply claims the hold's Idempotency-Key if w carries one
	// (records.HeldKey) and its place in its account's hold limits (c),
	// admits booking id (groups, t) on layout res, applies w and finishes
	// the key: all, or none with ok false and the holds in the way, or
	// with the refusal (the key's: records.KeyDone, ErrKeyPending,
	// ErrKeyMismatch; NoCapacity, or w's Conflict).
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
// applied is nil and moves nothing again.
type replacer interface {
	ReplaceApply(ctx context.Context, res, id string, t inventory.Terms, w records.Write) error
}
