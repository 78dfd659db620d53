package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"slotfare"
)

// Redis is a Store on Redis, for replicas that share their state there. A
// resource's runs live in one hash slot (its id is the hash tag):
// prefix:runs:{resource}:runs, a hash of run id -> JSON; and two sorted
// sets of run ids scored by finished_at in milliseconds (ties in id order,
// as Redis keeps them): prefix:runs:{resource}:p:profile per profile, and
// prefix:runs:{resource}:t for the runs that moved data. An Append is one
// script over the three keys that looks for the run id first, so the
// retries go-redis makes on a timeout record nothing twice. Durability is
// Redis's: serve asks for appendonly yes and appendfsync always.
type Redis struct {
	c      redis.UniversalClient
	prefix string
}

var _ Store = (*Redis)(nil)

// NewRedis returns a Redis store on c with keys under prefix. Close leaves
// c open: it is the caller's.
func NewRedis(c redis.UniversalClient, prefix string) *Redis { return &Redis{c: c, prefix: prefix} }

func (r *Redis) base(resourceID string) string { return r.prefix + ":runs:{" + resourceID + "}" }

// appendScript records run ARGV[1] (JSON ARGV[2], score ARGV[3]) unless the
// hash has it, indexing it by profile and, with ARGV[4] = 1, as a transfer.
// It returns {1, json} when it recorded the run, {0, stored json} when the
// id was there.
var appendScript = redis.NewScript(`
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then return {0, old} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
if ARGV[4] == '1' then redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1]) end
return {1, ARGV[2]}
`)

// newestScript reads the ARGV[1] newest ids of sorted set KEYS[2] and their
// runs from hash KEYS[1], in one round trip.
var newestScript = redis.NewScript(`
local ids = redis.call('ZREVRANGE', KEYS[2], 0, tonumber(ARGV[1]) - 1)
if #ids == 0 then return {} end
return redis.call('HMGET', KEYS[1], unpack(ids))
`)

// Append implements Store.
func (r *Redis) Append(ctx context.Context, run Run) (Run, bool, error) {
	const op = "runs.Append"
	run, err := checkAppend(run)
	if err != nil {
		return Run{}, false, err
	}
	data, err := json.Marshal(run)
	if err != nil {
		return Run{}, false, slotfare.E(op, slotfare.Other, err)
	}
	transfer := "0"
	if run.hasTransfer() {
		transfer = "1"
	}
	b := r.base(run.ResourceID)
	res, err := appendScript.Run(ctx, r.c, []string{b + ":runs", b + ":p:" + run.Profile, b + ":t"},
		run.ID, string(data), strconv.FormatInt(run.FinishedAt.UnixMilli(), 10), transfer).Slice()
	if err != nil {
		return Run{}, false, slotfare.E(op, slotfare.Unavailable, err)
	}
	if len(res) != 2 {
		return Run{}, false, slotfare.E(op, slotfare.Other, fmt.Sprintf("the append script answered %v", res))
	}
	created, _ := res[0].(int64)
	js, _ := res[1].(string)
	if created == 1 {
		return run, true, nil
	}
	var stored Run
	if err := json.Unmarshal([]byte(js), &stored); err != nil {
		return Run{}, false, slotfare.E(op, slotfare.Other, "a stored run does not decode", err)
	}
	if !same(stored, run) {
		return Run{}, false, idConflict(run)
	}
	return stored, false, nil
}

// Recent implements Store.
func (r *Redis) Recent(ctx context.Context, resourceID, profile string, n int) ([]Run, error) {
	return r.newest(ctx, resourceID, ":p:"+profile, n)
}

// Transfers implements Store.
func (r *Redis) Transfers(ctx context.Context, resourceID string, n int) ([]Run, error) {
	return r.newest(ctx, resourceID, ":t", n)
}

func (r *Redis) newest(ctx context.Context, resourceID, index string, n int) ([]Run, error) {
	const op = "runs.Recent"
	if n < 1 {
		return nil, nil
	}
	b := r.base(resourceID)
	vals, err := newestScript.Run(ctx, r.c, []string{b + ":runs", b + index}, n).Slice()
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	out := make([]Run, 0, len(vals))
	for _, v := range vals {
		js, ok := v.(string)
		if !ok {
			return nil, slotfare.E(op, slotfare.Other, "a run is indexed but not stored")
		}
		run, err := decodeRun([]byte(js))
		if err != nil {
			return nil, slotfare.E(op, slotfare.Other, "a stored run does not decode", err)
		}
		out = append(out, run)
	}
	return out, nil
}

// Close implements Store; the client stays open.
func (r *Redis) Close() error { return nil }
