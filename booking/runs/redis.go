package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
)

// Redis is a Store on Redis, for replicas that share their state there. A
// resource's runs live in one hash slot (its id is the hash tag):
// prefix:runs:{resource}:runs, a hash of run id -> JSON; and sorted sets
// of run ids scored by finished_at in milliseconds (ties in id order, as
// Redis keeps them): prefix:runs:{resource}:p:profile per profile,
// prefix:runs:{resource}:t for the runs that moved data, :f for every run
// (the age limit) and :a:account for each account's (Limits.Kept); and
// :h:account, each account's recordings of the last hour scored by when
// (Limits.PerHour). The limits are per account on a resource so that they
// and the write are one step in one slot, on a Cluster too. An Append is
// one script over these keys that looks for the run id first, so the
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

// appendScript records run ARGV[1] (JSON ARGV[2], finished ARGV[3],
// recorded ARGV[5], both in milliseconds) unless the hash has it, indexing
// it by profile, by finish, by account and, with ARGV[4] = 1, as a
// transfer. Before, it counts the account's recordings of the window
// (ARGV[10] ms) against ARGV[6] (0: no rate); after, it forgets the
// account's earliest finished runs beyond ARGV[7] (0: all kept) and up to
// ARGV[11] of the resource's finished before ARGV[8] (empty: no age limit).
// A run's other keys are named from the base ARGV[9], in the same slot. It
// returns {1, json} when it recorded the run, {0, stored json} when the id
// was there, {2, recordings, earliest} when the rate refused it.
var appendScript = redis.NewScript(`
local function forget(id)
  local js = redis.call('HGET', KEYS[1], id)
  redis.call('ZREM', KEYS[4], id)
  if not js then return end
  local run = cjson.decode(js)
  local account = run.account_id
  if type(account) ~= 'string' then account = '' end
  redis.call('HDEL', KEYS[1], id)
  redis.call('ZREM', ARGV[9] .. ':p:' .. run.profile, id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZREM', ARGV[9] .. ':a:' .. account, id)
end
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then return {0, old} end
local now, perHour, window = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[10])
if perHour > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now - window)
  local n = redis.call('ZCARD', KEYS[6])
  if n >= perHour then
    local first = redis.call('ZRANGE', KEYS[6], 0, 0, 'WITHSCORES')
    return {2, n, first[2]}
  end
  redis.call('ZADD', KEYS[6], now, ARGV[5] .. ':' .. ARGV[1])
  redis.call('PEXPIRE', KEYS[6], window)
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[5], ARGV[3], ARGV[1])
if ARGV[4] == '1' then redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1]) end
local over = redis.call('ZCARD', KEYS[5]) - tonumber(ARGV[7])
if tonumber(ARGV[7]) > 0 and over > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[5], 0, over - 1)) do forget(id) end
end
if ARGV[8] ~= '' then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[4], '-inf', '(' .. ARGV[8], 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[11]))) do
    forget(id)
  end
end
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
func (r *Redis) Append(ctx context.Context, run Run, lim Limits) (Run, bool, error) {
	const op = "runs.Append"
	run, err := checkAppend(run, lim)
	if err != nil {
		return Run{}, false, err
	}
	data, err := json.Marshal(run)
	if err != nil {
		return Run{}, false, slotfare.E(op, slotfare.Other, err)
	}
	transfer, cutoff := "0", ""
	if run.hasTransfer() {
		transfer = "1"
	}
	if c := lim.cutoff(run.RecordedAt); !c.IsZero() {
		cutoff = strconv.FormatInt(c.UnixMilli(), 10)
	}
	b := r.base(run.ResourceID)
	keys := []string{b + ":runs", b + ":p:" + run.Profile, b + ":t", b + ":f", b + ":a:" + run.AccountID, b + ":h:" + run.AccountID}
	res, err := appendScript.Run(ctx, r.c, keys, run.ID, string(data), run.FinishedAt.UnixMilli(), transfer, run.RecordedAt.UnixMilli(),
		lim.PerHour, lim.Kept, cutoff, b, QuotaWindow.Milliseconds(), PruneBatch).Slice()
	if err != nil {
		return Run{}, false, slotfare.E(op, slotfare.Unavailable, err)
	}
	return appendAnswer(run, lim, res)
}

// appendAnswer reads appendScript's answer about run.
func appendAnswer(run Run, lim Limits, res []any) (Run, bool, error) {
	const op = "runs.Append"
	if len(res) == 3 {
		n, _ := res[1].(int64)
		first, err := strconv.ParseInt(fmt.Sprint(res[2]), 10, 64)
		if err != nil {
			return Run{}, false, slotfare.E(op, slotfare.Other, fmt.Sprintf("the append script answered %v", res))
		}
		return Run{}, false, quotaErr(run, lim, int(n), time.UnixMilli(first))
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
