package coreserve

import (
	"context"
	"hash/fnv"
	"log/slog"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
)

// redisShards is how many hash slots the records are spread over: each
// shard's records and its due index share a hash tag, {co.N}, so that a
// record and its place in the index are written by one script, on a Redis
// Cluster too, and a tick reads redisShards sorted sets, however many
// records are held.
const redisShards = 8

// Redis is a Store on Redis, for replicas that share their state there:
// each record is a hash {v: version, r: JSON} under
// prefix:co:{co.N}:r:id, N the id's shard, and each unsettled record's id
// is in its shard's due index, prefix:co:{co.N}:due, a sorted set scored by
// when it is due (dueMillis); both are written by one script that compares
// the version first. Records written before the shards existed
// (prefix:co:{id}, the unsettled ones listed in prefix:co:unsettled) are
// read where they are, and the unsettled ones moved into their shard by the
// first Due (once a process) or the first Put that meets one. Durability is
// Redis's: serve asks for appendonly yes and appendfsync always.
type Redis struct {
	c      redis.UniversalClient
	prefix string
	log    *slog.Logger
	// adopted is set once the records written before the shards existed
	// are in them.
	adopted atomic.Bool
	// turn is the shard the next Due starts from.
	turn atomic.Uint32
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

func (r *Redis) shard(n uint32) string {
	return r.prefix + ":co:{co." + strconv.FormatUint(uint64(n), 10) + "}:"
}

func (r *Redis) shardOf(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	return r.shard(h.Sum32() % redisShards)
}

func (r *Redis) key(id string) string    { return r.shardOf(id) + "r:" + id }
func (r *Redis) dueKey(id string) string { return r.shardOf(id) + "due" }

// putScript writes the record KEYS[1] if its version is ARGV[1] (absent:
// 0) and files ARGV[5] in the due index KEYS[2] at ARGV[4] ("": out of
// it). A retry of a write that was applied (go-redis retries on a timeout)
// finds its own record and answers ok again.
var putScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v') or '0'
if v ~= ARGV[1] then
  if v == ARGV[2] and redis.call('HGET', KEYS[1], 'r') == ARGV[3] then return 'ok' end
  return v
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'r', ARGV[3])
if ARGV[4] == '' then redis.call('ZREM', KEYS[2], ARGV[5]) else redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5]) end
return 'ok'
`)

// dueScript answers up to ARGV[2] ids of the due index KEYS[1] scored at
// most ARGV[1], each with its record's version and JSON (the records are
// under KEYS[2] followed by the id), and claims them: scores them ARGV[3].
var dueScript = redis.NewScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  local rec = redis.call('HMGET', KEYS[2] .. id, 'v', 'r')
  if rec[1] and rec[2] then
    redis.call('ZADD', KEYS[1], ARGV[3], id)
    table.insert(out, id) table.insert(out, rec[1]) table.insert(out, rec[2])
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return out
`)

// Get implements Store.
func (r *Redis) Get(ctx context.Context, id string) (Record, bool, error) {
	rec, found, err := r.get(ctx, r.key(id))
	if found || err != nil {
		return rec, found, err
	}
	return r.get(ctx, r.legacyKey(id))
}

func (r *Redis) get(ctx context.Context, key string) (Record, bool, error) {
	vals, err := r.c.HMGet(ctx, key, "v", "r").Result()
	if err != nil {
		return Record{}, false, slotfare.E("coreserve.Get", slotfare.Unavailable, err)
	}
	vs, ok1 := vals[0].(string)
	rs, ok2 := vals[1].(string)
	if !ok1 || !ok2 {
		return Record{}, false, nil
	}
	return decodeStoredRedis(vs, rs)
}

func decodeStoredRedis(vs, rs string) (Record, bool, error) {
	v, err := strconv.ParseInt(vs, 10, 64)
	if err != nil {
		return Record{}, false, slotfare.E("coreserve.Get", slotfare.Other, "a stored co-reservation has no version", err)
	}
	rec, err := decodeRecord([]byte(rs), v)
	return rec, err == nil, err
}

// Put implements Store. A record written before the shards existed is
// moved into its shard first.
func (r *Redis) Put(ctx context.Context, rec Record, replaces int64) (int64, error) {
	data, err := encodeRecord(rec)
	if err != nil {
		return 0, err
	}
	cur, err := r.put(ctx, rec, data, replaces)
	if err == nil && cur == 0 && replaces > 0 {
		if err = r.adopt(ctx, rec.ID); err == nil {
			cur, err = r.put(ctx, rec, data, replaces)
		}
	}
	if err != nil {
		return 0, slotfare.E("coreserve.Put", slotfare.Unavailable, err)
	}
	if cur >= 0 {
		return 0, versionConflict(rec.ID, cur, replaces)
	}
	return replaces + 1, nil
}

// put runs putScript: cur is -1 when rec is written, else the version
// stored.
func (r *Redis) put(ctx context.Context, rec Record, data []byte, replaces int64) (cur int64, err error) {
	score := ""
	if !rec.Status.Settled() {
		score = strconv.FormatInt(dueMillis(rec.DueAt), 10)
	}
	res, err := putScript.Run(ctx, r.c, []string{r.key(rec.ID), r.dueKey(rec.ID)}, replaces, replaces+1, string(data), score, rec.ID).Text()
	if err != nil {
		return 0, err
	}
	if res == "ok" {
		return -1, nil
	}
	return strconv.ParseInt(res, 10, 64)
}

// Due implements Store: one script a shard, each answering what is left
// of limit, from a shard that turns with each call so that a backlog in
// one shard leaves the others their turn.
func (r *Redis) Due(ctx context.Context, now time.Time, limit int, claimUntil time.Time) ([]Record, error) {
	const op = "coreserve.Due"
	if !r.adopted.Load() {
		if err := r.adoptAll(ctx); err != nil {
			return nil, slotfare.E(op, slotfare.Unavailable, err)
		}
		r.adopted.Store(true)
	}
	var out []Record
	first := r.turn.Add(1)
	for i := range uint32(redisShards) {
		if len(out) >= limit {
			break
		}
		base := r.shard((first + i) % redisShards)
		vals, err := dueScript.Run(ctx, r.c, []string{base + "due", base + "r:"}, now.UnixMilli(), limit-len(out), dueMillis(claimUntil)).StringSlice()
		if err != nil {
			return nil, slotfare.E(op, slotfare.Unavailable, err)
		}
		for j := 0; j+2 < len(vals); j += 3 {
			rec, _, err := decodeStoredRedis(vals[j+1], vals[j+2])
			if err != nil {
				return nil, err
			}
			out = append(out, rec)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return dueEntry{dueMillis(out[i].DueAt), out[i].ID}.before(dueEntry{dueMillis(out[j].DueAt), out[j].ID})
	})
	return out, nil
}

// Close implements Store; the client stays open.
func (r *Redis) Close() error { return nil }

func (r *Redis) legacyKey(id string) string { return r.prefix + ":co:{" + id + "}" }
func (r *Redis) legacyUnsettled() string    { return r.prefix + ":co:unsettled" }

// adoptAll moves every unsettled record written before the shards existed
// into its shard, a page at a time: the one pass over records that are not
// due, once a process, and empty once they are moved.
func (r *Redis) adoptAll(ctx context.Context) error {
	var cursor uint64
	for {
		ids, next, err := r.c.SScan(ctx, r.legacyUnsettled(), cursor, "", 100).Result()
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := r.adopt(ctx, id); err != nil {
				return err
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

// adoptScript writes the record KEYS[1] at version ARGV[1] with JSON
// ARGV[2], filed in the due index KEYS[2] at ARGV[3] as ARGV[4], unless
// the record is there already.
var adoptScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'r', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
return 1
`)

// adopt moves the record id written before the shards existed into its
// shard (if it is not there yet), then removes the old one from the old
// list. A settled old record stays where it is, read there by Get.
func (r *Redis) adopt(ctx context.Context, id string) error {
	rec, found, err := r.get(ctx, r.legacyKey(id))
	if err != nil {
		return err
	}
	if found && !rec.Status.Settled() {
		data, err := encodeRecord(rec)
		if err != nil {
			return err
		}
		score := strconv.FormatInt(dueMillis(rec.DueAt), 10)
		if err := adoptScript.Run(ctx, r.c, []string{r.key(id), r.dueKey(id)}, rec.Version, string(data), score, id).Err(); err != nil {
			return err
		}
		if err := r.c.Del(ctx, r.legacyKey(id)).Err(); err != nil {
			return err
		}
	}
	return r.c.SRem(ctx, r.legacyUnsettled(), id).Err()
}
