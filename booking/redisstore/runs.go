package redisstore

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/runs"
)

//go:embed runs.lua
var runsLua string

var (
	runAppendFunc = library.fn("runappend")
	runNewestFunc = library.fn("runnewest")
)

// Runs is booking/runs' Store on the Redis replicas share: the runs as
// JSON, and the limits (booking/runs says what they are) kept in the
// append's own step. A resource's runs live in one hash
// slot, its id the hash tag: prefix:runs:{resource}:runs, a hash of run id
// -> JSON; sorted sets of run ids scored by finished_at in unix ms (ties
// in id order, as Redis keeps them): :p:profile per profile, :t for the
// runs that moved data, :f for every run (the age limit) and :a:account
// for each account's (the runs it keeps); and :h:account, each account's
// recordings of the quota's window, scored by when; :ix says how far the
// runs recorded before :f and :a were kept are entered in them (runappend
// enters a page a call until it says done). The limits are
// counted per account on a resource so that they and the write are one
// function call in one slot, on a Cluster too. That call looks for the run
// id first, so the retries go-redis makes on a timeout record nothing
// twice. Under an age limit the call also sets the resource's keys to
// expire MaxAge and an hour after it: a resource no one writes to any more
// loses its runs as they pass their age. Durability is Redis's: serve asks
// for appendonly yes and appendfsync always.
type Runs struct {
	rdb    redis.UniversalClient
	prefix string
}

var _ runs.Store = (*Runs)(nil)

// NewRuns returns the runs on rdb under prefix. Close leaves rdb open: it
// is the caller's.
func NewRuns(rdb redis.UniversalClient, prefix string) *Runs { return &Runs{rdb: rdb, prefix: prefix} }

func (s *Runs) base(resourceID string) string { return s.prefix + ":runs:{" + resourceID + "}" }

// runAppend is one run to record and the limits its step keeps: times in
// unix ms; PerWindow recordings of the account on the resource in Window
// (0: any number), Kept runs of the account on the resource (0: all),
// none finished before Cutoff (0: no age limit), at most PruneBatch of
// those deleted a step; and the resource's keys gone after Idle ms
// without a write (0: kept), when every run in them is past its age.
type runAppend struct {
	ResourceID, ID, Profile, AccountID string
	Data                               []byte
	Finished, Recorded                 int64
	Transfer                           bool
	PerWindow                          int
	Window                             int64
	Kept                               int
	Cutoff                             int64
	PruneBatch                         int
	Idle                               int64
}

// runAppended is what an appendRun did: Created, or the id was there (Stored
// is its record), or Refused by the quota with Posted recordings in the
// window, the Earliest at that time (unix ms).
type runAppended struct {
	Created  bool
	Stored   []byte
	Refused  bool
	Posted   int
	Earliest int64
}

// appendRun records a.Data under its resource and id unless the id is
// there, keeping the limits, in one call of runappend (a retry finds its
// run).
func (s *Runs) appendRun(ctx context.Context, a runAppend) (runAppended, error) {
	const op slotfare.Op = "redisstore.Runs.Append"
	transfer, cutoff := "0", ""
	if a.Transfer {
		transfer = "1"
	}
	if a.Cutoff != 0 {
		cutoff = strconv.FormatInt(a.Cutoff, 10)
	}
	b := s.base(a.ResourceID)
	keys := []string{b + ":runs", b + ":p:" + a.Profile, b + ":t", b + ":f", b + ":a:" + a.AccountID, b + ":h:" + a.AccountID, b + ":ix"}
	res, err := runAppendFunc.Run(ctx, s.rdb, keys, a.ID, a.Data, a.Finished, transfer, a.Recorded,
		a.PerWindow, a.Kept, cutoff, b, a.Window, a.PruneBatch, a.Idle).Slice()
	if err != nil {
		return runAppended{}, unavailable(op, err)
	}
	bad := slotfare.E(op, slotfare.Other, fmt.Sprintf("unexpected answer %v from runappend", res))
	switch {
	case len(res) == 3:
		n, _ := res[1].(int64)
		at, err := strconv.ParseInt(fmt.Sprint(res[2]), 10, 64)
		if err != nil {
			return runAppended{}, bad
		}
		return runAppended{Refused: true, Posted: int(n), Earliest: at}, nil
	case len(res) == 2:
		created, _ := res[0].(int64)
		js, ok := res[1].(string)
		if !ok {
			return runAppended{}, bad
		}
		return runAppended{Created: created == 1, Stored: []byte(js)}, nil
	}
	return runAppended{}, bad
}

// Append implements runs.Store.
func (s *Runs) Append(ctx context.Context, run runs.Run, lim runs.Limits) (runs.Run, bool, error) {
	const op slotfare.Op = "redisstore.Runs.Append"
	run, err := runs.CheckAppend(run, lim)
	if err != nil {
		return runs.Run{}, false, err
	}
	data, err := json.Marshal(run)
	if err != nil {
		return runs.Run{}, false, slotfare.E(op, slotfare.Other, err)
	}
	a := runAppend{ResourceID: run.ResourceID, ID: run.ID, Profile: run.Profile, AccountID: run.AccountID, Data: data,
		Finished: run.FinishedAt.UnixMilli(), Recorded: run.RecordedAt.UnixMilli(), Transfer: run.HasTransfer(),
		PerWindow: lim.PerHour, Window: runs.QuotaWindow.Milliseconds(), Kept: lim.Kept, PruneBatch: runs.PruneBatch}
	if c := lim.Cutoff(run.RecordedAt); !c.IsZero() {
		// A resource written no more for MaxAge holds only runs past it,
		// give or take a run's finish a minute ahead and the replicas'
		// clocks against Redis's: its keys go an hour later.
		a.Cutoff, a.Idle = c.UnixMilli(), (lim.MaxAge + time.Hour).Milliseconds()
	}
	res, err := s.appendRun(ctx, a)
	switch {
	case err != nil:
		return runs.Run{}, false, err
	case res.Refused:
		return runs.Run{}, false, runs.OverQuota(run, lim, res.Posted, time.UnixMilli(res.Earliest))
	case res.Created:
		return run, true, nil
	}
	stored, err := runs.DecodeRun(res.Stored)
	if err != nil {
		return runs.Run{}, false, slotfare.E(op, slotfare.Other, "a stored run does not decode", err)
	}
	if err := runs.CheckRetry(stored, run); err != nil {
		return runs.Run{}, false, err
	}
	return stored, false, nil
}

// Recent implements runs.Store: the resource's n newest runs of profile,
// newest first (finished_at, then id).
func (s *Runs) Recent(ctx context.Context, resourceID, profile string, n int) ([]runs.Run, error) {
	return s.newest(ctx, resourceID, ":p:"+profile, n)
}

// Transfers implements runs.Store: the resource's n newest runs that
// moved data.
func (s *Runs) Transfers(ctx context.Context, resourceID string, n int) ([]runs.Run, error) {
	return s.newest(ctx, resourceID, ":t", n)
}

// Close implements runs.Store; the client stays open.
func (s *Runs) Close() error { return nil }

func (s *Runs) newest(ctx context.Context, resourceID, index string, n int) ([]runs.Run, error) {
	const op slotfare.Op = "redisstore.Runs.Recent"
	if n < 1 {
		return nil, nil
	}
	b := s.base(resourceID)
	vals, err := runNewestFunc.Run(ctx, s.rdb, []string{b + ":runs", b + index}, n).Slice()
	if err != nil {
		return nil, unavailable(op, err)
	}
	out := make([]runs.Run, 0, len(vals))
	for _, v := range vals {
		js, ok := v.(string)
		if !ok {
			return nil, slotfare.E(op, slotfare.Other, "a run is indexed but not stored")
		}
		run, err := runs.DecodeRun([]byte(js))
		if err != nil {
			return nil, slotfare.E(op, slotfare.Other, "a stored run does not decode", err)
		}
		out = append(out, run)
	}
	return out, nil
}
