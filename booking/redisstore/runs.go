package redisstore

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"slotfare"
)

//go:embed runs.lua
var runsLua string

var (
	runAppendFunc = library.fn("runappend")
	runNewestFunc = library.fn("runnewest")
)

// Runs keeps the recorded runs of booking/runs (which encodes them and
// says what the limits are) on Redis. A resource's runs live in one hash
// slot, its id the hash tag: prefix:runs:{resource}:runs, a hash of run id
// -> JSON; sorted sets of run ids scored by finished_at in unix ms (ties
// in id order, as Redis keeps them): :p:profile per profile, :t for the
// runs that moved data, :f for every run (the age limit) and :a:account
// for each account's (the runs it keeps); and :h:account, each account's
// recordings of the quota's window, scored by when; :ix says how far the
// runs recorded before :f and :a were kept are entered in them (runappend
// enters a page a call until it says done). The limits are
// counted per account on a resource so that they and the write are one
// function call in one slot, on a Cluster too.
type Runs struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewRuns returns the runs on rdb under prefix.
func NewRuns(rdb redis.UniversalClient, prefix string) *Runs { return &Runs{rdb: rdb, prefix: prefix} }

func (s *Runs) base(resourceID string) string { return s.prefix + ":runs:{" + resourceID + "}" }

// RunAppend is one run to record and the limits its step keeps: times in
// unix ms; PerWindow recordings of the account on the resource in Window
// (0: any number), Kept runs of the account on the resource (0: all),
// none finished before Cutoff (0: no age limit), at most PruneBatch of
// those deleted a step; and the resource's keys gone after Idle ms
// without a write (0: kept), when every run in them is past its age.
type RunAppend struct {
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

// RunAppended is what an Append did: Created, or the id was there (Stored
// is its record), or Refused by the quota with Posted recordings in the
// window, the Earliest at that time (unix ms).
type RunAppended struct {
	Created  bool
	Stored   []byte
	Refused  bool
	Posted   int
	Earliest int64
}

// Append records a.Data under its resource and id unless the id is there,
// keeping the limits, in one call of runappend (a retry finds its run).
func (s *Runs) Append(ctx context.Context, a RunAppend) (RunAppended, error) {
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
		return RunAppended{}, unavailable(op, err)
	}
	bad := slotfare.E(op, slotfare.Other, fmt.Sprintf("unexpected answer %v from runappend", res))
	switch {
	case len(res) == 3:
		n, _ := res[1].(int64)
		at, err := strconv.ParseInt(fmt.Sprint(res[2]), 10, 64)
		if err != nil {
			return RunAppended{}, bad
		}
		return RunAppended{Refused: true, Posted: int(n), Earliest: at}, nil
	case len(res) == 2:
		created, _ := res[0].(int64)
		js, ok := res[1].(string)
		if !ok {
			return RunAppended{}, bad
		}
		return RunAppended{Created: created == 1, Stored: []byte(js)}, nil
	}
	return RunAppended{}, bad
}

// NewestOfProfile answers the JSON of the resource's n newest runs of
// profile, newest first (finished_at, then id).
func (s *Runs) NewestOfProfile(ctx context.Context, resourceID, profile string, n int) ([][]byte, error) {
	return s.newest(ctx, resourceID, ":p:"+profile, n)
}

// NewestTransfers answers the JSON of the resource's n newest runs that
// moved data.
func (s *Runs) NewestTransfers(ctx context.Context, resourceID string, n int) ([][]byte, error) {
	return s.newest(ctx, resourceID, ":t", n)
}

func (s *Runs) newest(ctx context.Context, resourceID, index string, n int) ([][]byte, error) {
	const op slotfare.Op = "redisstore.Runs.Recent"
	if n < 1 {
		return nil, nil
	}
	b := s.base(resourceID)
	vals, err := runNewestFunc.Run(ctx, s.rdb, []string{b + ":runs", b + index}, n).Slice()
	if err != nil {
		return nil, unavailable(op, err)
	}
	out := make([][]byte, 0, len(vals))
	for _, v := range vals {
		js, ok := v.(string)
		if !ok {
			return nil, slotfare.E(op, slotfare.Other, "a run is indexed but not stored")
		}
		out = append(out, []byte(js))
	}
	return out, nil
}
