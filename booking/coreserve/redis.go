package coreserve

import (
	"context"
	"errors"
	"log/slog"
	"strconv"

	"github.com/redis/go-redis/v9"

	"slotfare"
)

// Redis is a Store on Redis, for replicas that share their state there:
// each record is a hash {v: version, r: JSON} under prefix:co:{id} (its own
// hash slot, so a Redis Cluster spreads them), written by a script that
// compares the version first; the ids of unsettled records are a set,
// prefix:co:unsettled. The set is changed outside the record's script (it
// lives in another slot), in the order that can only leave an id too many,
// never one too few: added before a write that leaves the record unsettled,
// removed after the write that settles it. Unsettled reads each record
// again and drops the settled ids it meets. Durability is Redis's: serve
// asks for appendonly yes and appendfsync always.
type Redis struct {
	c      redis.UniversalClient
	prefix string
	log    *slog.Logger
}

var _ Store = (*Redis)(nil)

// NewRedis returns a Redis store on c with keys under prefix; log (nil:
// discarded) receives what a write could not tidy after it succeeded.
// Close leaves c open: it is the caller's.
func NewRedis(c redis.UniversalClient, prefix string, log *slog.Logger) *Redis {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Redis{c: c, prefix: prefix, log: log}
}

func (r *Redis) key(id string) string { return r.prefix + ":co:{" + id + "}" }
func (r *Redis) unsettledKey() string { return r.prefix + ":co:unsettled" }

// casScript writes the record if its version is ARGV[1] (absent: 0).
var casScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if (v or '0') ~= ARGV[1] then return v or '0' end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'r', ARGV[3])
return 'ok'
`)

// Get implements Store.
func (r *Redis) Get(ctx context.Context, id string) (Record, bool, error) {
	vals, err := r.c.HMGet(ctx, r.key(id), "v", "r").Result()
	if err != nil {
		return Record{}, false, slotfare.E("coreserve.Get", slotfare.Unavailable, err)
	}
	vs, ok1 := vals[0].(string)
	rs, ok2 := vals[1].(string)
	if !ok1 || !ok2 {
		return Record{}, false, nil
	}
	v, err := strconv.ParseInt(vs, 10, 64)
	if err != nil {
		return Record{}, false, slotfare.E("coreserve.Get", slotfare.Other, "a stored co-reservation has no version", err)
	}
	rec, err := decodeRecord([]byte(rs), v)
	return rec, err == nil, err
}

// Put implements Store.
func (r *Redis) Put(ctx context.Context, rec Record, replaces int64) (int64, error) {
	const op = "coreserve.Put"
	data, err := encodeRecord(rec)
	if err != nil {
		return 0, err
	}
	if !rec.Status.Settled() {
		if err := r.c.SAdd(ctx, r.unsettledKey(), rec.ID).Err(); err != nil {
			return 0, slotfare.E(op, slotfare.Unavailable, err)
		}
	}
	res, err := casScript.Run(ctx, r.c, []string{r.key(rec.ID)}, strconv.FormatInt(replaces, 10),
		strconv.FormatInt(replaces+1, 10), string(data)).Text()
	if err != nil {
		return 0, slotfare.E(op, slotfare.Unavailable, err)
	}
	if res != "ok" {
		cur, perr := strconv.ParseInt(res, 10, 64)
		return 0, errors.Join(versionConflict(rec.ID, cur, replaces), perr)
	}
	if rec.Status.Settled() {
		if err := r.c.SRem(ctx, r.unsettledKey(), rec.ID).Err(); err != nil {
			// The record is written; its id stays listed, which Unsettled
			// tolerates (and drops the next time it reads it).
			r.log.Warn("a settled co-reservation stays listed as unsettled", "co_reservation_id", rec.ID, "err", err)
		}
	}
	return replaces + 1, nil
}

// Unsettled implements Store.
func (r *Redis) Unsettled(ctx context.Context) ([]Record, error) {
	ids, err := r.c.SMembers(ctx, r.unsettledKey()).Result()
	if err != nil {
		return nil, slotfare.E("coreserve.Unsettled", slotfare.Unavailable, err)
	}
	var out []Record
	for _, id := range ids {
		rec, found, err := r.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		switch {
		case found && !rec.Status.Settled():
			out = append(out, rec)
		case found:
			if err := r.c.SRem(ctx, r.unsettledKey(), id).Err(); err != nil {
				return nil, slotfare.E("coreserve.Unsettled", slotfare.Unavailable, err)
			}
		}
		// Not found: a create may be between its SADD and its write.
	}
	sortRecords(out)
	return out, nil
}

// Close implements Store; the client stays open.
func (r *Redis) Close() error { return nil }
