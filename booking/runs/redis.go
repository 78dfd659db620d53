package runs

import (
	"context"
	"encoding/json"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/redisstore"
)

// Redis is a Store on Redis, for replicas that share their state there:
// the runs as JSON on redisstore.Runs, whose layout keeps a resource's
// runs and its accounts' counts in one hash slot, so that an Append and
// its Limits are one call of a function of slotfare's library. That call
// looks for the run id first, so the retries go-redis makes on a timeout
// record nothing twice. Under an age limit the call also sets the
// resource's keys to expire MaxAge and an hour after it: a resource no one
// writes to any more loses its runs as they pass their age. Durability is Redis's: serve asks for appendonly
// yes and appendfsync always.
type Redis struct{ s *redisstore.Runs }

var _ Store = (*Redis)(nil)

// NewRedis returns a Redis store on c with keys under prefix. Close leaves
// c open: it is the caller's.
func NewRedis(c redis.UniversalClient, prefix string) *Redis {
	return &Redis{s: redisstore.NewRuns(c, prefix)}
}

// Append implements Store.
func (r *Redis) Append(ctx context.Context, run Run, lim Limits) (Run, bool, error) {
	const op slotfare.Op = "runs.Append"
	run, err := checkAppend(run, lim)
	if err != nil {
		return Run{}, false, err
	}
	data, err := json.Marshal(run)
	if err != nil {
		return Run{}, false, slotfare.E(op, slotfare.Other, err)
	}
	a := redisstore.RunAppend{ResourceID: run.ResourceID, ID: run.ID, Profile: run.Profile, AccountID: run.AccountID, Data: data,
		Finished: run.FinishedAt.UnixMilli(), Recorded: run.RecordedAt.UnixMilli(), Transfer: run.hasTransfer(),
		PerWindow: lim.PerHour, Window: QuotaWindow.Milliseconds(), Kept: lim.Kept, PruneBatch: PruneBatch}
	if c := lim.cutoff(run.RecordedAt); !c.IsZero() {
		// A resource written no more for MaxAge holds only runs past it,
		// give or take a run's finish a minute ahead and the replicas'
		// clocks against Redis's: its keys go an hour later.
		a.Cutoff, a.Idle = c.UnixMilli(), (lim.MaxAge + time.Hour).Milliseconds()
	}
	res, err := r.s.Append(ctx, a)
	switch {
	case err != nil:
		return Run{}, false, err
	case res.Refused:
		return Run{}, false, quotaErr(run, lim, res.Posted, time.UnixMilli(res.Earliest))
	case res.Created:
		return run, true, nil
	}
	stored, err := decodeRun(res.Stored)
	if err != nil {
		return Run{}, false, slotfare.E(op, slotfare.Other, "a stored run does not decode", err)
	}
	if !same(stored, run) {
		return Run{}, false, idConflict(run)
	}
	return stored, false, nil
}

// Recent implements Store.
func (r *Redis) Recent(ctx context.Context, resourceID, profile string, n int) ([]Run, error) {
	return decodeRuns(r.s.NewestOfProfile(ctx, resourceID, profile, n))
}

// Transfers implements Store.
func (r *Redis) Transfers(ctx context.Context, resourceID string, n int) ([]Run, error) {
	return decodeRuns(r.s.NewestTransfers(ctx, resourceID, n))
}

func decodeRuns(vals [][]byte, err error) ([]Run, error) {
	if err != nil {
		return nil, err
	}
	out := make([]Run, 0, len(vals))
	for _, v := range vals {
		run, err := decodeRun(v)
		if err != nil {
			return nil, slotfare.E(slotfare.Op("runs.Recent"), slotfare.Other, "a stored run does not decode", err)
		}
		out = append(out, run)
	}
	return out, nil
}

// Close implements Store; the client stays open.
func (r *Redis) Close() error { return nil }
