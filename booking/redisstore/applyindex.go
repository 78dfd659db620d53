package redisstore

import (
	"context"
	"sort"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/records"
)

// acctIndex is what one write indexes under one account.
type acctIndex struct {
	members  []string
	postings []any // id, posting, ...
	keys     []string
	finish   []any // fingerprint, booking id, ttl in ms, ...
}

// writeIndex is what an applied write indexes where it is read from: each
// booking's resource under its id's tag, and per account (accountIndex)
// its bookings, postings and finished Idempotency-Keys.
type writeIndex struct {
	w      records.Write
	accts  []string // sorted
	byAcct map[string]*acctIndex
}

// indexOf is w's index; encoded are w's postings as writeArgs encoded them.
// finishKey says that the index finishes the Idempotency-Key of w's new
// hold (AdmitApply on a cluster, which claimed it first).
func (s *Records) indexOf(w records.Write, encoded [][]byte, finishKey bool) *writeIndex {
	x := &writeIndex{w: w, byAcct: map[string]*acctIndex{}}
	of := func(a string) *acctIndex {
		ai := x.byAcct[a]
		if ai == nil {
			ai = &acctIndex{}
			x.byAcct[a] = ai
			x.accts = append(x.accts, a)
		}
		return ai
	}
	for _, c := range w.Changes {
		b := c.Record.Booking
		ai := of(b.AccountID)
		ai.members = append(ai.members, records.ListKey(c.Record))
		if r := c.Record; finishKey && c.Replaces == 0 && r.IdemKey != "" {
			k := of(r.Account)
			k.keys = append(k.keys, s.acct(r.Account)+"idem:"+r.IdemKey)
			k.finish = append(k.finish, r.Fingerprint, b.ID, w.KeyTTL.Milliseconds())
		}
	}
	for i, p := range w.Postings {
		ai := of(p.Customer)
		ai.postings = append(ai.postings, p.ID, encoded[i])
	}
	sort.Strings(x.accts)
	return x
}

// accountArgs are accountIndex's keys and arguments for account a.
func (s *Records) accountArgs(x *writeIndex, a string) ([]string, []any) {
	ai := x.byAcct[a]
	base := s.acct(a)
	keys := append([]string{base + "bk", base + "posted", base + "postings"}, ai.keys...)
	args := make([]any, 0, 2+len(ai.members)+len(ai.postings)+len(ai.finish))
	args = append(args, len(ai.members))
	for _, m := range ai.members {
		args = append(args, m)
	}
	args = append(args, len(ai.postings)/2)
	args = append(args, ai.postings...)
	args = append(args, ai.finish...)
	return keys, args
}

// writeMark is where a write's marker is stored (apply.lua): key, and
// field of it when the key is the first booking's record hash.
type writeMark struct{ key, field string }

// markOf is where w's marker is stored once w is applied.
func (s *Records) markOf(w records.Write) writeMark {
	m := s.res(w.Resource) + "w:" + w.WriteID
	if len(w.Changes) == 0 {
		return writeMark{key: m}
	}
	return writeMark{key: s.recKey(w.Resource, w.Changes[0].Record.Booking.ID), field: m}
}

// indexTail appends to a write's step (keys, args) its index under its
// first account (apply.lua's applyIndex; one server only): the bookings'
// pointers and that account's index, run by the step once it has applied
// the write. It answers the accounts left to index.
func (s *Records) indexTail(x *writeIndex, keys []string, args []any) ([]string, []any, []string) {
	if len(x.accts) == 0 {
		return keys, args, nil
	}
	ik := len(keys)
	for _, c := range x.w.Changes {
		keys = append(keys, s.bkRes(c.Record.Booking.ID))
	}
	akeys, aargs := s.accountArgs(x, x.accts[0])
	keys = append(keys, akeys...)
	args = append(append(args, ik, len(x.w.Changes), x.w.Resource), aargs...)
	return keys, args, x.accts[1:]
}

// queue queues the index of x under accts in p: unconditionally, with the
// bookings' pointers, when marker is nil (a cluster), else only if the
// write's marker is stored when Redis runs it (accountAfterScript; one
// server, whose step indexed the first account and the pointers itself).
func (s *Records) queue(ctx context.Context, p redis.Pipeliner, script scriptFunc, x *writeIndex, accts []string, marker *writeMark) {
	if marker == nil {
		for _, c := range x.w.Changes {
			p.Set(ctx, s.bkRes(c.Record.Booking.ID), x.w.Resource, 0)
		}
	}
	for _, a := range accts {
		ai := x.byAcct[a]
		if marker == nil && len(ai.postings) == 0 && len(ai.keys) == 0 {
			zs := make([]redis.Z, len(ai.members))
			for j, m := range ai.members {
				zs[j] = redis.Z{Member: m}
			}
			p.ZAdd(ctx, s.acct(a)+"bk", zs...)
			continue
		}
		keys, args := s.accountArgs(x, a)
		if marker == nil {
			script(accountScript, keys, args...)
			continue
		}
		script(accountAfterScript, append([]string{marker.key}, keys...), append([]any{marker.field}, args...)...)
	}
}

// applied reports whether a write's step answered that the write is stored
// (apply.lua's OK or DONE).
func applied(out []string) bool {
	return len(out) == 1 && (out[0] == "OK" || out[0] == "DONE")
}

// applyThenIndex runs a write's step (fn with keys and args from
// writeArgs, with the postings it encoded) and, if it stored w, indexes w
// where it is read from; it answers the step's answer. On one server the
// step indexes the write under its first account itself (indexTail), and
// any other account's index follows in the same pipeline, guarded by the
// marker (accountAfterScript): one round trip. On a cluster, where the
// account's slot may be on another master, the index is a second round
// trip once the step has answered. Either way every part is idempotent, so
// a retry of the whole finishes what a failure left.
func (s *Records) applyThenIndex(ctx context.Context, op slotfare.Op, w records.Write, encoded [][]byte, finishKey bool, fn libFunc, keys []string, args []any) ([]string, error) {
	x := s.indexOf(w, encoded, finishKey)
	if !s.oneServer() {
		out, err := fn.Run(ctx, s.rdb, keys, args...).StringSlice()
		if err != nil {
			return nil, unavailable(op, err)
		}
		if applied(out) {
			if err := pipelined(ctx, s.rdb, func(p redis.Pipeliner, sc scriptFunc) { s.queue(ctx, p, sc, x, x.accts, nil) }); err != nil {
				return nil, unavailable(op, err)
			}
		}
		return out, nil
	}
	marker := s.markOf(w)
	keys, args, rest := s.indexTail(x, keys, args)
	var step *redis.Cmd
	if err := pipelined(ctx, s.rdb, func(p redis.Pipeliner, sc scriptFunc) {
		step = fn.queue(ctx, p, keys, args...)
		s.queue(ctx, p, sc, x, rest, &marker)
	}); err != nil {
		return nil, unavailable(op, err)
	}
	out, err := step.StringSlice()
	if err != nil {
		return nil, unavailable(op, err)
	}
	return out, nil
}
