package records

import (
	"context"

	"slotfare/booking/inventory"
)

// Guarded is a records port that keeps the inventory too (Redis: a
// resource's records and its layout in one hash slot; embedded: the
// process's inventory beside its records): an admission and the write that
// stores the hold, the check of a booking against the limits in force and
// the write that commits it, or a booking's move to new terms and the
// write that records them, are then one atomic step, with no moment where
// one is done and not the other. Each indexes its write as Apply does. A
// resource's layout is under the resource's id. The booking service runs
// on such ports only: the type says so, no check at run time.
type Guarded interface {
	Port
	// AdmitApply claims the hold's Idempotency-Key if w carries one
	// (HeldKey) and its place in its account's hold limits (c), admits
	// booking id (groups, t) on layout res, applies w and finishes the
	// key: all, or none with ok false and the holds in the way, or with
	// the refusal (the key's: KeyDone, ErrKeyPending, ErrKeyMismatch;
	// NoCapacity, or w's Conflict).
	AdmitApply(ctx context.Context, res, id string, groups int, t inventory.Terms, w Write, c HoldClaim) (ok bool, counted []Held, err error)
	// WithinApply applies w if booking id is within the capacities in
	// force on layout res; within is false and nothing is written if not.
	WithinApply(ctx context.Context, res, id string, w Write) (within bool, err error)
	// ReplaceApply moves booking id to terms t on every group it occupies
	// on layout res and applies w, in one step: the new terms need room
	// only where they hold more nodes than the old (inventory.Port's
	// Replace), and the move and the write happen together or not at all,
	// refused with the inventory's error (NoCapacity; NotFound for a
	// booking res does not hold) or the write's (ErrMoved, ErrPosted). A
	// write already applied is nil and moves nothing again.
	ReplaceApply(ctx context.Context, res, id string, t inventory.Terms, w Write) error
}
