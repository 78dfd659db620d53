package embedded

import (
	"context"
	"errors"

	"slotfare"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/booking/records"
)

// Inventory is the process's inventory of every resource, beside the
// records it is laid out from: it starts empty, and a resource laid out
// for the first time (Ensure) holds at once every booking the records
// list as holding capacity on it. So a process that stopped in the middle
// of a guarded step (admitted, not stored; moved, not stored) finds its
// inventory equal to its records again on start.
type Inventory struct {
	*inventory.Memory
	recs *Records
}

// Ensure implements inventory.Port: a resource made holds its live
// bookings (their records' terms, on as many of its groups as they
// occupy), even beyond nodes where its capacity was lowered under them.
func (v *Inventory) Ensure(ctx context.Context, res string, groups, nodes int) error {
	return v.EnsureHolding(ctx, res, groups, nodes, func() ([]inventory.Held, error) {
		live, err := v.recs.Live(ctx, res)
		if err != nil {
			return nil, err
		}
		hs := make([]inventory.Held, 0, len(live))
		for _, st := range live { // Live lists only bookings that hold capacity
			b := st.Record.Booking
			hs = append(hs, inventory.Held{ID: b.ID, Groups: max(st.Record.Groups, 1),
				Terms: inventory.Terms{Start: b.Start.Unix(), End: b.End.Unix(), Nodes: b.Nodes}})
		}
		return hs, nil
	})
}

// ReleaseOrphans implements inventory.Port: the bookings held on res that
// the records store as no longer holding capacity are released. There are
// none as the service runs: it releases a booking here, in memory, where a
// release cannot fail, right after storing its change, and a restart lays
// the inventory out from the records (Ensure). A booking held with no
// record yet is a hold on its way to the disk (AdmitApply), not an orphan:
// it stays. A booking that stopped holding never holds again, so those
// found idle are released after the records are read, under no lock of
// theirs.
func (v *Inventory) ReleaseOrphans(ctx context.Context, res string) ([]string, error) {
	held, err := v.Held(ctx, res)
	if err != nil {
		return nil, err
	}
	idle := v.recs.idle(held)
	for _, id := range idle {
		if err := v.Release(ctx, res, id); err != nil {
			return nil, err
		}
	}
	return idle, nil
}

// idle are those of ids stored as holding no capacity, in their order.
func (s *Records) idle(ids []string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []string
	for _, id := range ids {
		if st, ok := s.recs[id]; ok && !st.Record.Booking.Status.Holding() {
			out = append(out, id)
		}
	}
	return out
}

// The guarded steps below are records.Port writes made one with the
// inventory's step they rest on. One process owns the data, so a step is
// atomic when no other request sees it half done and a failure leaves
// nothing behind. A hold's claim and admission are taken before its write
// and given back if the write fails: meanwhile they count, so a
// concurrent hold may be refused for room a failed write gives back, but
// nothing is ever sold twice, and no lock is held while the store syncs
// (holds share its group commits). A crash between the two is repaired on
// start (Ensure).

// AdmitApply claims the hold's place in its account's hold limits (c),
// admits booking id (groups, t) on resource res and applies w, with the
// hold's Idempotency-Key if it carries one (records.HeldKey): all, or none
// with ok false and the claims that stand in the way, or with the key's
// answer (records.KeyDone, ErrKeyPending, ErrKeyMismatch), the
// inventory's refusal (NoCapacity, a Conflict for an id held with other
// terms) or the write's (records.ErrMoved, ErrPosted). A write already
// applied is ok. The key lives with the records: claimed first (others
// find it pending), it is done once the write is acknowledged (Apply
// records the booking's key) and given back if the step stores nothing;
// a restart knows it from the stored booking alone.
func (s *Records) AdmitApply(ctx context.Context, res, id string, groups int, t inventory.Terms, w records.Write, c records.HoldClaim) (bool, []records.Held, error) {
	const op slotfare.Op = "embedded.Records.AdmitApply"
	if err := s.guardedWrite(op, res, w); err != nil {
		return false, nil, err
	}
	if err := inventory.CheckAdmit(res, id, groups, t); err != nil {
		return false, nil, err
	}
	if c.Resource != res || c.BookingID != id {
		return false, nil, slotfare.E(op, slotfare.Invalid, slotfare.Field("claim"), "the claim is not of this hold")
	}
	rec, keyed, err := records.HeldKey(op, w)
	if err != nil {
		return false, nil, err
	}
	if keyed {
		cl, err := s.keys.Claim(ctx, rec.Account, rec.IdemKey, rec.Fingerprint, records.KeyPendingTTL, c.Now)
		if err == nil {
			err = records.KeyAnswer(op, cl, id)
		}
		if err != nil {
			return false, nil, err
		}
	}
	ok, counted, err := s.admitApply(ctx, res, id, groups, t, w, c)
	if keyed && (err != nil || !ok) {
		// A key done already (the step sent again) stays done.
		err = also(err, s.keys.Abandon(context.WithoutCancel(ctx), rec.Account, rec.IdemKey, rec.Fingerprint))
	}
	return ok, counted, err
}

// admitApply is AdmitApply's claim, admission and write.
func (s *Records) admitApply(ctx context.Context, res, id string, groups int, t inventory.Terms, w records.Write, c records.HoldClaim) (bool, []records.Held, error) {
	ok, counted, err := s.ClaimHold(ctx, c)
	if err != nil || !ok {
		return false, counted, err
	}
	// An admission already made is a retry's: the first step stands, and
	// a failure of this one gives nothing of it back.
	_, retry, err := s.inv.Get(ctx, res, id)
	if err == nil {
		if err = s.inv.Admit(ctx, res, id, groups, t); err == nil {
			if err = s.Apply(ctx, w); err != nil && !retry {
				err = also(err, s.inv.Release(context.WithoutCancel(ctx), res, id))
			}
		}
	}
	if err != nil {
		if !retry {
			// Given back even when the request was cancelled meanwhile.
			err = also(err, s.UnclaimHold(context.WithoutCancel(ctx), c.Resource, c.Account, id))
		}
		return false, nil, err
	}
	return true, nil, nil
}

// WithinApply applies w if booking id is within the capacities in force
// on every group it occupies on resource res: within is false, and nothing
// written, where a capacity was lowered below what it holds. NotFound when
// res does not hold id; a write already applied is within and nil. The
// check is the step's moment: limits lowered while the write is on its
// way to the disk find the booking committed, as if lowered after.
func (s *Records) WithinApply(ctx context.Context, res, id string, w records.Write) (bool, error) {
	const op slotfare.Op = "embedded.Records.WithinApply"
	if err := s.guardedWrite(op, res, w); err != nil {
		return false, err
	}
	if s.hasApplied(w.WriteID) {
		return true, nil
	}
	within, err := s.inv.Within(ctx, res, id)
	if err != nil || !within {
		return false, err
	}
	return true, s.Apply(ctx, w)
}

// ReplaceApply moves booking id to terms t on every group it occupies on
// resource res and applies w, in one step: the new terms need room only
// where they hold more nodes than the old (inventory.Port's Replace). All,
// or nothing with the inventory's refusal (NoCapacity; NotFound when res
// does not hold id) or the write's (records.ErrMoved, ErrPosted). A write
// already applied is nil and moves nothing again. The resource stays
// locked across the write, so that nothing takes the room the move frees
// before it is stored (a change of terms is rare beside holds).
func (s *Records) ReplaceApply(ctx context.Context, res, id string, t inventory.Terms, w records.Write) error {
	const op slotfare.Op = "embedded.Records.ReplaceApply"
	if err := s.guardedWrite(op, res, w); err != nil {
		return err
	}
	if err := inventory.CheckReplace(res, id, t); err != nil {
		return err
	}
	if s.hasApplied(w.WriteID) {
		return nil
	}
	return s.inv.ReplaceThen(ctx, res, id, t, func() error { return s.Apply(ctx, w) })
}

// guardedWrite checks w as a request's step on resource res.
func (s *Records) guardedWrite(op slotfare.Op, res string, w records.Write) error {
	if err := records.Check(w); err != nil {
		return err
	}
	if w.Resource != res {
		return slotfare.E(op, slotfare.Invalid, slotfare.Field("resource"), "the write is of resource "+w.Resource+", the step of "+res)
	}
	if w.Fence != (lease.Fence{}) {
		return slotfare.E(op, slotfare.Invalid, slotfare.Field("fence"), "a guarded step is a request's and carries no lease fence")
	}
	return nil
}

// hasApplied reports whether write id was applied lately.
func (s *Records) hasApplied(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applied.has(id)
}

// also is err, joined with undo's error if the undo failed.
func also(err, undo error) error {
	if undo != nil {
		return errors.Join(err, undo)
	}
	return err
}
