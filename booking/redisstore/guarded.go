package redisstore

import (
	"context"
	_ "embed"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/booking/records"
)

//go:embed inventory_lib.lua
var inventoryLib string

//go:embed guarded.lua
var guardedLua string

// A resource's records ("sf:{<resource>}:bk:...") and its inventory layout
// under the resource's id ("sf:{<resource>}:meta", ...) share the hash tag,
// so one function of the library (library.go) can admit a hold and store
// it, check a booking against the limits and commit it, or move a booking
// to new terms and store them: a round trip less per hold and per commit,
// and no moment at which one is done and the other not.

// layouts is the inventory the guarded steps read their keys from, one per
// Records (made on first use): the same prefix, so the same keys as the
// Inventory port's.
func (s *Records) layouts() *Inventory {
	s.invOnce.Do(func() { s.inv = NewInventory(s.rdb, s.prefix) })
	return s.inv
}

// guarded runs one guarded operation on layout res with write w: KEYS the
// layout's, then mid (a hold's claims), then the write's; ARGV op, where
// the write's keys start, head, then the write's. finishKey says the
// write's index finishes the hold's Idempotency-Key (indexOf: a cluster's
// hold, which claimed it first). uses is how many groups
// the booking occupies, whose keys alone the step is given (0 or more
// than the layout has: all); a step that finds it occupies more answers
// KEYS before it writes (but for dropping lapsed claims), and runs again
// with all of them.
func (s *Records) guarded(ctx context.Context, op slotfare.Op, res string, w records.Write, mid []string, finishKey bool, uses int, head ...any) ([]string, error) {
	if err := records.Check(w); err != nil {
		return nil, err
	}
	if w.Resource != res {
		return nil, slotfare.E(op, slotfare.Invalid, slotfare.Field("resource"), "the write is of resource "+w.Resource+", the layout "+res+": they must share a hash slot")
	}
	if w.Fence != (lease.Fence{}) {
		// A request's step: no lease guards it, and its function checks no token.
		return nil, slotfare.E(op, slotfare.Invalid, slotfare.Field("fence"), "a guarded step is a request's and carries no lease fence")
	}
	v := s.layouts()
	g, err := v.groupsOf(ctx, op, res)
	if err != nil {
		return nil, err
	}
	if uses < 1 || uses > g {
		uses = g
	}
	wkeys, wargs, encoded, err := s.writeArgs(op, w)
	if err != nil {
		return nil, err
	}
	run := func(uses int) ([]string, error) {
		keys := append(v.keys(res, uses), mid...)
		args := make([]any, 0, 2+len(head)+len(wargs))
		args = append(args, head[0], len(keys))
		args = append(args, head[1:]...)
		args = append(args, wargs...)
		return s.applyThenIndex(ctx, op, w, encoded, finishKey, guardedFunc, append(keys, wkeys...), args)
	}
	out, err := run(uses)
	if err == nil && uses < g && len(out) == 1 && out[0] == "KEYS" {
		out, err = run(g)
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 1 {
		switch out[0] {
		case "OLDLAYOUT":
			return nil, errOldLayout(op, res)
		case "NORES":
			return nil, inventory.ErrUnknownResource(op, res)
		}
	}
	return out, nil
}

// oneServer reports whether the store is on one Redis server, where a
// script may touch keys of any slot; on a cluster each script keeps to one.
func (s *Records) oneServer() bool {
	_, single := s.rdb.(*redis.Client)
	return single
}

// AdmitApply claims the hold's place in its account's hold limits (c, as
// ClaimHold), admits booking id (groups, t) on inventory layout res and
// applies w, in one step, with the hold's Idempotency-Key if it carries
// one (records.HeldKey): all, or none with ok false and the claims that
// stand in the way, or with the key's answer (records.KeyDone,
// ErrKeyPending, ErrKeyMismatch), the inventory's refusal (NoCapacity, a
// Conflict for an id held with other terms) or the write's
// (records.ErrMoved, ErrPosted). A write already applied is ok.
//
// On one server the key is claimed and finished by the step itself. On a
// cluster the key's slot may be on another master: it is claimed there
// first, the step's index finishes it, and a step that stores nothing
// gives it back (settleKey).
func (s *Records) AdmitApply(ctx context.Context, res, id string, groups int, t inventory.Terms, w records.Write, c records.HoldClaim) (ok bool, counted []records.Held, err error) {
	const op slotfare.Op = "redisstore.Records.AdmitApply"
	if err := inventory.CheckAdmit(res, id, groups, t); err != nil {
		return false, nil, err
	}
	if err := records.CheckClaim(c); err != nil {
		return false, nil, err
	}
	if c.Resource != res || c.BookingID != id {
		return false, nil, slotfare.E(op, slotfare.Invalid, slotfare.Field("claim"), "the claim is not of this hold")
	}
	rec, keyed, err := records.HeldKey(op, w)
	if err != nil {
		return false, nil, err
	}
	if !keyed || s.oneServer() {
		return s.admitApply(ctx, op, res, id, groups, t, w, c, keyed, false)
	}
	keys := NewKeys(s.rdb, s.prefix)
	cl, err := keys.Claim(ctx, rec.Account, rec.IdemKey, rec.Fingerprint, records.KeyPendingTTL, c.Now)
	if err != nil {
		return false, nil, slotfare.E(op, err)
	}
	if err := records.KeyAnswer(op, cl, id); err != nil {
		return false, nil, err
	}
	ok, counted, err = s.admitApply(ctx, op, res, id, groups, t, w, c, false, true)
	if !ok || err != nil {
		s.settleKey(context.WithoutCancel(ctx), keys, res, id, rec, w.KeyTTL, err)
	}
	return ok, counted, err
}

// settleKey settles a cluster hold's key after a step that did not answer
// ok: a refused step stored nothing, so the key is given back; one that
// failed unanswered may have stored the hold, so the key is finished with
// it if its record is there, given back if not, and left pending (for
// records.KeyPendingTTL: a retry waits, then claims it) when the record
// cannot be read either. Its own failures leave the key pending too.
func (s *Records) settleKey(ctx context.Context, keys *Keys, res, id string, rec booking.Record, ttl time.Duration, err error) {
	if slotfare.KindOf(err) == slotfare.Unavailable {
		_, stored, rerr := s.read(ctx, "redisstore.Records.AdmitApply", res, id)
		switch {
		case rerr != nil:
			return
		case stored:
			_ = keys.Finish(ctx, rec.Account, rec.IdemKey, rec.Fingerprint, id, ttl, time.Time{}) // pending on failure, as above
			return
		}
	}
	_ = keys.Abandon(ctx, rec.Account, rec.IdemKey, rec.Fingerprint) // pending on failure, as above
}

// admitApply is AdmitApply's step: keyed says that it claims and finishes
// the hold's Idempotency-Key itself (one server), finishKey that its index
// finishes the key claimed before it (a cluster).
func (s *Records) admitApply(ctx context.Context, op slotfare.Op, res, id string, groups int, t inventory.Terms, w records.Write, c records.HoldClaim, keyed, finishKey bool) (bool, []records.Held, error) {
	mid, ik, fp, ttl := s.claimKeys(res, c.Account), 0, "", int64(0)
	if keyed {
		rec := w.Changes[0].Record
		mid = append([]string{s.acct(rec.Account) + "idem:" + rec.IdemKey}, mid...)
		ik, fp, ttl = 1, rec.Fingerprint, w.KeyTTL.Milliseconds()
	}
	out, err := s.guarded(ctx, op, res, w, mid, finishKey, groups, "admitapply", id, groups, t.Start, t.End, t.Nodes,
		c.Now.Unix(), c.Expires.Unix(), c.NodeSeconds, c.MaxHolds, c.MaxNodeSeconds, s.res(res)+"bk:", ik, fp, ttl)
	if err != nil {
		return false, nil, err
	}
	if len(out) >= 2 && out[0] == "KEY" {
		switch {
		case out[1] == "mismatch":
			return false, nil, records.ErrKeyMismatch(op)
		case out[1] == "pending":
			return false, nil, slotfare.E(op, slotfare.Conflict, records.ErrKeyPending)
		case out[1] == "done" && len(out) == 3:
			return false, nil, &records.KeyDone{Booking: out[2]}
		}
		return false, nil, unexpected(op, out)
	}
	if len(out) > 0 && out[0] == "OVER" {
		counted, err := overClaims(op, out)
		return false, counted, err
	}
	if len(out) == 1 {
		if err := refusal(op, res, id, t, out[0]); err != nil {
			return false, nil, err
		}
		if out[0] == "GROUPS" {
			return false, nil, slotfare.Errorf(op, "groups", "resource %s has fewer groups than %d", res, groups)
		}
	}
	if err := writeAnswer(op, w, out); err != nil {
		return false, nil, err
	}
	return true, nil, nil
}

// WithinApply applies w if booking id is within
// the capacities in force on every group it occupies on layout res, in one
// step: within is false, and nothing written, where a capacity was lowered
// below what it holds. NotFound when res does not hold id; a write already
// applied is within and nil.
func (s *Records) WithinApply(ctx context.Context, res, id string, w records.Write) (bool, error) {
	const op slotfare.Op = "redisstore.Records.WithinApply"
	// The booking's record says how many groups it occupies.
	uses := 0
	for _, c := range w.Changes {
		if c.Record.Booking.ID == id {
			uses = c.Record.Groups
		}
	}
	out, err := s.guarded(ctx, op, res, w, nil, false, uses, "withinapply", id)
	if err != nil {
		return false, err
	}
	if len(out) == 1 {
		switch out[0] {
		case "NOTWITHIN":
			return false, nil
		case "NOTFOUND":
			return false, inventory.ErrUnknownBooking(op, res, id)
		}
	}
	return true, writeAnswer(op, w, out)
}

// ReplaceApply moves booking id to terms t on every group it occupies on
// inventory layout res and applies w, in one step: the new terms need room
// only where they hold more nodes than the old (inventory.Port's Replace).
// All, or nothing with the inventory's refusal (NoCapacity; NotFound when
// res does not hold id) or the write's (records.ErrMoved, ErrPosted). A
// write already applied is nil and moves nothing again.
func (s *Records) ReplaceApply(ctx context.Context, res, id string, t inventory.Terms, w records.Write) error {
	const op slotfare.Op = "redisstore.Records.ReplaceApply"
	if err := inventory.CheckReplace(res, id, t); err != nil {
		return err
	}
	uses := 0
	for _, c := range w.Changes {
		if c.Record.Booking.ID == id {
			uses = c.Record.Groups
		}
	}
	out, err := s.guarded(ctx, op, res, w, nil, false, uses, "replaceapply", id, t.Start, t.End, t.Nodes)
	if err != nil {
		return err
	}
	if len(out) == 1 {
		if err := refusal(op, res, id, t, out[0]); err != nil {
			return err
		}
	}
	return writeAnswer(op, w, out)
}

// invState is what Records keeps for the guarded steps.
type invState struct {
	invOnce sync.Once
	inv     *Inventory
}
