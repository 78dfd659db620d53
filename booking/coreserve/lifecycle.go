package coreserve

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"slotfare"
	"slotfare/booking"
)

// lapsed reports whether a part can no longer be committed at now: it is
// neither held nor committed, or its hold's time is over or its start has
// passed (the service expires such a hold at commit, and its ticker soon).
func lapsed(bk booking.Booking, now time.Time) (bool, string) {
	switch bk.Status {
	case booking.Committed:
		return false, ""
	case booking.Held:
		if bk.HoldExpiresAt != nil && !now.Before(*bk.HoldExpiresAt) {
			return true, "its hold expired at " + bk.HoldExpiresAt.UTC().Format(time.RFC3339)
		}
		if now.After(bk.Start) {
			return true, "its start has passed"
		}
		return false, ""
	}
	return true, "it is " + string(bk.Status)
}

// firstLapsed is the first part that cannot be committed at now (-1: none).
func firstLapsed(bks []booking.Booking, now time.Time) (int, string) {
	for i, bk := range bks {
		if bad, why := lapsed(bk, now); bad {
			return i, why
		}
	}
	return -1, ""
}

// view is rec with its parts as read.
func view(rec Record, bks []booking.Booking) View { return View{Record: rec, Bookings: bks} }

// Get returns one of the caller's co-reservations with its parts as they
// are now. Reading settles what is due (Recover's rules, for this record):
// a held one whose part lapsed is expired whole, its other parts released;
// a commit or cancel left unfinished longer than RecoverAfter is finished.
func (b *Broker) Get(ctx context.Context, p booking.Principal, id string) (View, error) {
	const op slotfare.Op = "coreserve.Get"
	rec, err := b.load(ctx, op, p, id)
	if err != nil {
		return View{}, err
	}
	if !rec.Status.Settled() {
		// Waits for this process's work on the record (a commit, Recover
		// settling it), so what is read is never half way through it.
		unlock, _ := b.lock(id, false)
		rec, err = b.settle(ctx, op, id, false, false)
		unlock()
		if err != nil {
			return View{}, err
		}
	}
	bks, err := b.parts(ctx, op, rec)
	if err != nil {
		return View{}, err
	}
	return view(rec, bks), nil
}

// Commit commits every part (seed 003 Sec. 3.3 step 6a), or none: when a
// part's hold has lapsed the co-reservation is expired, the other holds are
// released, and the answer is a Conflict naming parts[i]. The record is
// stored "committing" before the first part is committed, so a broker that
// dies half way is finished by Recover (forward while every hold stands,
// else back). Parts are committed soonest-expiring first. Committing a
// committed co-reservation returns it unchanged.
func (b *Broker) Commit(ctx context.Context, p booking.Principal, id string) (View, error) {
	const op slotfare.Op = "coreserve.Commit"
	unlock, _ := b.lock(id, false)
	defer unlock()
	rec, err := b.load(ctx, op, p, id)
	if err != nil {
		return View{}, err
	}
	switch rec.Status {
	case Committed:
		bks, err := b.parts(ctx, op, rec)
		if err != nil {
			return View{}, err
		}
		return view(rec, bks), nil
	case Held, Committing:
	default:
		return View{}, slotfare.E(op, slotfare.Conflict, fmt.Sprintf("the co-reservation is %s; it can no longer be committed", rec.Status))
	}
	bks, err := b.parts(ctx, op, rec)
	if err != nil {
		return View{}, err
	}
	if rec.Status == Held {
		if i, why := firstLapsed(bks, b.o.Now()); i >= 0 {
			return b.abandon(ctx, op, rec, bks, Expired, i, why)
		}
		if err := b.put(ctx, &rec, Committing, bks); err != nil {
			return View{}, slotfare.E(op, err)
		}
	}
	return b.finishCommit(ctx, op, rec, bks)
}

// finishCommit commits the parts of a record stored committing: forward
// while every part is held or committed; back (every part cancelled) once a
// part has lapsed or its resource refused the commit. A part whose commit
// fails for another reason (the store) leaves the record committing for
// Recover, and the answer is that error.
func (b *Broker) finishCommit(ctx context.Context, op slotfare.Op, rec Record, bks []booking.Booking) (View, error) {
	pr := principal(rec)
	if i, why := firstLapsed(bks, b.o.Now()); i >= 0 {
		return b.abandon(ctx, op, rec, bks, Expired, i, why)
	}
	i, status, why, err := b.prepare(ctx, pr, bks)
	switch {
	case err != nil:
		return View{}, slotfare.E(op, slotfare.Unavailable, slotfare.Field(partField(i, "")),
			fmt.Sprintf("part %d could not be prepared now; the commit will be finished or undone (co-reservation %s is committing)", i, rec.ID), err)
	case i >= 0:
		return b.abandon(ctx, op, rec, bks, status, i, why)
	}
	idx := make([]int, len(bks))
	for i := range idx {
		idx[i] = i
	}
	expiry := func(bk booking.Booking) time.Time {
		if bk.HoldExpiresAt == nil {
			return time.Time{}
		}
		return *bk.HoldExpiresAt
	}
	sort.SliceStable(idx, func(x, y int) bool { return expiry(bks[idx[x]]).Before(expiry(bks[idx[y]])) })
	for _, i := range idx {
		if bks[i].Status == booking.Committed {
			continue
		}
		bk, err := b.b.Commit(context.WithoutCancel(ctx), pr, bks[i].ID)
		if err == nil {
			bks[i] = bk
			continue
		}
		if status, refused := refusal(err); refused {
			if cur, gerr := b.b.Get(ctx, pr, bks[i].ID); gerr == nil {
				bks[i] = cur
			}
			return b.abandon(ctx, op, rec, bks, status, i, slotfare.MessageOf(err))
		}
		return View{}, slotfare.E(op, slotfare.Unavailable, slotfare.Field(partField(i, "")),
			fmt.Sprintf("part %d could not be committed now; the commit will be finished or undone (co-reservation %s is committing)", i, rec.ID), err)
	}
	if err := b.put(ctx, &rec, Committed, bks); err != nil {
		return View{}, slotfare.E(op, err)
	}
	return view(rec, bks), nil
}

// prepare asks every part not committed yet whether it could be committed
// now (Bookings.Prepare), before any is: the first that cannot (-1: none),
// the status its refusal gives the co-reservation and why. Another
// failure (the store) is err, with the part it met.
func (b *Broker) prepare(ctx context.Context, pr booking.Principal, bks []booking.Booking) (int, Status, string, error) {
	for i, bk := range bks {
		if bk.Status == booking.Committed {
			continue
		}
		_, err := b.b.Prepare(ctx, pr, bk.ID)
		if err == nil {
			continue
		}
		if status, refused := refusal(err); refused {
			return i, status, slotfare.MessageOf(err), nil
		}
		return i, "", "", err
	}
	return -1, "", "", nil
}

// refusal is the status a part's refusal to commit gives its
// co-reservation: expired when its hold lapsed (Conflict), rejected when
// its resource no longer takes it (NoCapacity); refused is false for any
// other failure.
func refusal(err error) (status Status, refused bool) {
	switch slotfare.KindOf(err) {
	case slotfare.Conflict:
		return Expired, true
	case slotfare.NoCapacity:
		return Rejected, true
	}
	return "", false
}

// abandon ends a co-reservation whose part failed: every part still held
// is released and every part committed is unwound with all it was billed
// refunded (the broker's rollback, not the user's cancellation: the user
// owes nothing for a co-reservation that is not kept), the record is
// stored with status and the failure, and the answer is a Conflict naming
// parts[failed]. A cancel that fails leaves the record unsettled for
// Recover to try again.
func (b *Broker) abandon(ctx context.Context, op slotfare.Op, rec Record, bks []booking.Booking, status Status, failed int, why string) (View, error) {
	if err := b.cancelLive(ctx, rec, bks, b.b.Unwind); err != nil {
		return View{}, slotfare.E(op, slotfare.Unavailable, "the co-reservation's parts could not all be released; it will be settled later", err)
	}
	rec.Failed = &Failure{Part: failed, Reason: why}
	if err := b.put(ctx, &rec, status, bks); err != nil {
		return View{}, slotfare.E(op, err)
	}
	return view(rec, bks), slotfare.E(op, slotfare.Conflict, slotfare.Field(partField(failed, "")),
		fmt.Sprintf("part %d cannot be committed (%s); the co-reservation is %s and none of its parts is kept%s", failed, why, status, moneyNote(bks)))
}

// cancelFunc cancels one booking: Bookings.Cancel, or Unwind.
type cancelFunc func(ctx context.Context, p booking.Principal, id string) (booking.Booking, error)

// cancelLive cancels (by cancel) every part of rec still held or committed, puts what
// each became in bks, and joins the failures, each naming its part. A hold
// whose time is over is left to its resource's ticker, which expires it
// (the status its owner is owed: it lapsed, nobody cancelled it) within a
// tick, on whichever replica holds that resource's lease.
func (b *Broker) cancelLive(ctx context.Context, rec Record, bks []booking.Booking, cancel cancelFunc) error {
	pr := principal(rec)
	now := b.o.Now()
	var errs []error
	for i, bk := range bks {
		if bk.Status != booking.Held && bk.Status != booking.Committed {
			continue
		}
		if bk.Status == booking.Held && bk.HoldExpiresAt != nil && !now.Before(*bk.HoldExpiresAt) {
			continue
		}
		nb, err := b.cancelPart(ctx, pr, bk, cancel)
		if err != nil {
			errs = append(errs, fmt.Errorf("part %d: %w", i, err))
			continue
		}
		bks[i] = nb
	}
	return errors.Join(errs...)
}

// cancelPart cancels one part; a part that reached a settled status
// meanwhile (its hold expired) is left as it is.
func (b *Broker) cancelPart(ctx context.Context, pr booking.Principal, bk booking.Booking, cancel cancelFunc) (booking.Booking, error) {
	nb, err := cancel(context.WithoutCancel(ctx), pr, bk.ID)
	if err == nil {
		return nb, nil
	}
	cur, gerr := b.b.Get(context.WithoutCancel(ctx), pr, bk.ID)
	if gerr == nil && cur.Status != booking.Held && cur.Status != booking.Committed {
		return cur, nil
	}
	return booking.Booking{}, err
}

// Cancel cancels every part (each committed part with its class's
// penalty, seed 004 Sec. 7.6.2; holds for nothing). It is refused, changing
// nothing, once a part has started or while a commit is under way.
// Cancelling a cancelled co-reservation returns it unchanged.
func (b *Broker) Cancel(ctx context.Context, p booking.Principal, id string) (View, error) {
	const op slotfare.Op = "coreserve.Cancel"
	unlock, _ := b.lock(id, false)
	defer unlock()
	rec, err := b.load(ctx, op, p, id)
	if err != nil {
		return View{}, err
	}
	bks, err := b.parts(ctx, op, rec)
	if err != nil {
		return View{}, err
	}
	switch rec.Status {
	case Cancelled:
		return view(rec, bks), nil
	case Held, Committed, Cancelling:
	case Committing:
		return View{}, slotfare.E(op, slotfare.Conflict, "a commit of the co-reservation is under way; cancel once it is committed")
	default:
		return View{}, slotfare.E(op, slotfare.Conflict, fmt.Sprintf("the co-reservation is %s; there is nothing to cancel", rec.Status))
	}
	now := b.o.Now()
	for i, bk := range bks {
		if bk.Status == booking.Committed && !now.Before(bk.Start) {
			return View{}, slotfare.E(op, slotfare.Conflict, slotfare.Field(partField(i, "")),
				fmt.Sprintf("part %d has started; the co-reservation can no longer be cancelled", i))
		}
	}
	if rec.Status != Cancelling {
		if err := b.put(ctx, &rec, Cancelling, bks); err != nil {
			return View{}, slotfare.E(op, err)
		}
	}
	return b.finishCancel(ctx, op, rec, bks)
}

// finishCancel cancels the parts of a record stored cancelling.
func (b *Broker) finishCancel(ctx context.Context, op slotfare.Op, rec Record, bks []booking.Booking) (View, error) {
	if err := b.cancelLive(ctx, rec, bks, b.b.Cancel); err != nil {
		return View{}, slotfare.E(op, slotfare.Unavailable, "not every part could be cancelled now; the cancel will be finished", err)
	}
	if err := b.put(ctx, &rec, Cancelled, bks); err != nil {
		return View{}, slotfare.E(op, err)
	}
	return view(rec, bks), nil
}

// settle brings the record id to where it is due, the caller holding its
// lock: a held one whose part lapsed is expired whole; a commit or cancel
// unfinished for RecoverAfter (or at once with takeover) is finished. A
// held one a tick took from the due index (claimed) that turns out not to
// be due (its holds changed since it was filed) is filed again under when
// it is. It returns the record as stored after.
func (b *Broker) settle(ctx context.Context, op slotfare.Op, id string, takeover, claimed bool) (Record, error) {
	rec, found, err := b.st.Get(ctx, id)
	if err != nil {
		return Record{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	if !found || rec.Status.Settled() {
		return rec, nil
	}
	now := b.o.Now()
	stale := takeover || now.Sub(rec.UpdatedAt) >= b.o.RecoverAfter
	if rec.Status != Held && !stale {
		return rec, nil // another broker may be at it; a claim is tried again when it lapses
	}
	bks, err := b.parts(ctx, op, rec)
	if err != nil {
		return rec, err
	}
	var v View
	switch rec.Status {
	case Held:
		i, why := firstLapsed(bks, now)
		if i < 0 {
			if claimed {
				return b.refile(ctx, op, rec, bks, now)
			}
			return rec, nil
		}
		v, err = b.abandon(ctx, op, rec, bks, Expired, i, why)
	case Committing:
		v, err = b.finishCommit(ctx, op, rec, bks)
	case Cancelling:
		v, err = b.finishCancel(ctx, op, rec, bks)
	}
	if err != nil && slotfare.KindOf(err) != slotfare.Conflict {
		return rec, err
	}
	return v.Record, nil
}

// refile files a held record that is not due yet under when its parts
// bks lapse; the rest of it is unchanged. A write that loses to another
// leaves the other's.
func (b *Broker) refile(ctx context.Context, op slotfare.Op, rec Record, bks []booking.Booking, now time.Time) (Record, error) {
	next := rec
	next.DueAt = b.dueAt(Held, bks, now)
	if !next.DueAt.After(now) {
		return rec, nil // the claim's lapse is when it is tried again
	}
	v, err := b.st.Put(context.WithoutCancel(ctx), next, rec.Version)
	switch {
	case slotfare.KindOf(err) == slotfare.Conflict:
		return rec, nil
	case err != nil:
		return rec, slotfare.E(op, slotfare.Unavailable, err)
	}
	next.Version = v
	return next, nil
}

// Recover settles the co-reservations that are due (see settle), at most
// settleBatch of them, skipping those this process is working on: it reads
// the store's due index, not every co-reservation held, and claims what it
// reads there, so brokers on other replicas ticking meanwhile pass it by.
// The server runs it with each tick and once on start; it is what finishes
// or undoes the work of a broker that died (seed 003 Sec. 3.3 step 6c for
// the holds, the committing record for the commits). It returns how many
// records it changed and the errors it met (those records are due again
// once their claim lapses).
func (b *Broker) Recover(ctx context.Context) (int, error) {
	return b.recover(ctx, "coreserve.Recover", false)
}

// Takeover is Recover for a broker that knows no other is at work: every
// commit or cancel left unfinished is finished now, however recent. serve
// runs it once before it listens, the data directory being its alone (one
// server per directory), so a restart after a kill -9 finishes what the
// dead process began before anyone reads it. It works until nothing of the
// kind is left, a batch at a time.
func (b *Broker) Takeover(ctx context.Context) (int, error) {
	return b.recover(ctx, "coreserve.Takeover", true)
}

func (b *Broker) recover(ctx context.Context, op slotfare.Op, takeover bool) (int, error) {
	now := b.o.Now()
	until := now
	if takeover {
		// A commit or cancel is filed RecoverAfter after it was written.
		until = now.Add(max(b.o.RecoverAfter, 0))
	}
	changed := 0
	var errs []error
	for {
		recs, err := b.st.Due(ctx, until, settleBatch, until.Add(claimFor))
		if err != nil {
			return changed, errors.Join(append(errs, slotfare.E(op, slotfare.Unavailable, err))...)
		}
		n, err := b.settleAll(ctx, op, recs, takeover)
		changed += n
		if err != nil {
			errs = append(errs, err)
		}
		if !takeover || len(recs) < settleBatch {
			return changed, errors.Join(errs...)
		}
	}
}

// settleAll settles recs, claimed from the due index, and answers how many
// it changed.
func (b *Broker) settleAll(ctx context.Context, op slotfare.Op, recs []Record, takeover bool) (int, error) {
	changed := 0
	var errs []error
	for _, r := range recs {
		unlock, ok := b.lock(r.ID, true)
		if !ok {
			continue
		}
		after, err := b.settle(ctx, op, r.ID, takeover, true)
		unlock()
		if err != nil {
			b.o.Logger.Error("co-reservation not settled", "co_reservation_id", r.ID, "err", err)
			errs = append(errs, err)
			continue
		}
		if after.Version != r.Version && after.Status != Held {
			changed++
		}
	}
	return changed, errors.Join(errs...)
}
