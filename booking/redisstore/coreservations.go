package redisstore

import (
	"context"
	_ "embed"
	"hash/fnv"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/coreserve"
)

//go:embed coreservations.lua
var coReservationsLua string

var (
	coPutFunc   = library.fn("coput")
	coDueFunc   = library.fn("codue")
	coAdoptFunc = library.fn("coadopt")
)

// coShards is how many hash slots the co-reservations are spread over. A
// tick reads one due index a shard, however many are held.
const coShards = 8

// CoReservations is the co-reservation broker's Store (booking/coreserve,
// which encodes the records and says when each is due) on the Redis that
// replicas share: each record a hash {v: version, r: record} under
// prefix:co:{co.N}:r:id, N the id's shard, and each unsettled one's id in
// its shard's due index, prefix:co:{co.N}:due, a sorted set scored by when
// it is due (unix ms). A write of a record and of its place in the index
// is one function call (coput). Durability is Redis's: serve asks for
// appendonly yes and appendfsync always.
//
// Records written before the shards (prefix:co:{id}, the unsettled ones
// listed in the set prefix:co:unsettled) are read where they are; the
// unsettled ones are moved into their shard by the first Due of a process,
// or by the first Put that meets one.
type CoReservations struct {
	rdb     redis.UniversalClient
	prefix  string
	adopted atomic.Bool
	turn    atomic.Uint32 // the shard the next Due starts from
}

// coStored is one stored co-reservation record, as Redis keeps it.
type coStored struct {
	ID      string
	Version int64
	Data    []byte
}

var _ coreserve.Store = (*CoReservations)(nil)

// NewCoReservations returns the records on rdb under prefix. Close leaves
// rdb open: it is the caller's.
func NewCoReservations(rdb redis.UniversalClient, prefix string) *CoReservations {
	return &CoReservations{rdb: rdb, prefix: prefix}
}

func (c *CoReservations) shard(n uint32) string {
	return c.prefix + ":co:{co." + strconv.FormatUint(uint64(n), 10) + "}:"
}

func (c *CoReservations) shardOf(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	return c.shard(h.Sum32() % coShards)
}

func (c *CoReservations) keys(id string) []string {
	s := c.shardOf(id)
	return []string{s + "r:" + id, s + "due"}
}

func (c *CoReservations) oldKey(id string) string { return c.prefix + ":co:{" + id + "}" }
func (c *CoReservations) oldUnsettled() string    { return c.prefix + ":co:unsettled" }

// getStored reads the record id (found false: none).
func (c *CoReservations) getStored(ctx context.Context, id string) (coStored, bool, error) {
	rec, found, err := c.get(ctx, c.keys(id)[0], id)
	if found || err != nil {
		return rec, found, err
	}
	return c.get(ctx, c.oldKey(id), id)
}

func (c *CoReservations) get(ctx context.Context, key, id string) (coStored, bool, error) {
	vals, err := c.rdb.HMGet(ctx, key, "v", "r").Result()
	if err != nil {
		return coStored{}, false, unavailable("redisstore.CoReservations.Get", err)
	}
	return coRecord(id, vals[0], vals[1])
}

func coRecord(id string, v, r any) (coStored, bool, error) {
	vs, ok1 := v.(string)
	rs, ok2 := r.(string)
	if !ok1 || !ok2 {
		return coStored{}, false, nil
	}
	n, err := strconv.ParseInt(vs, 10, 64)
	if err != nil {
		return coStored{}, false, unexpected("redisstore.CoReservations.Get", []string{vs})
	}
	return coStored{ID: id, Version: n, Data: []byte(rs)}, true, nil
}

// putStored writes data as version replaces+1 of the record id if replaces is
// the version stored (0: none), filed in the due index at due (unix ms;
// negative: out of it, the record is settled). Writing again the very
// record stored at replaces+1 is written true (a retry). When written is
// false, cur is the version stored.
func (c *CoReservations) putStored(ctx context.Context, id string, data []byte, replaces, due int64) (cur int64, written bool, err error) {
	cur, written, err = c.put(ctx, id, data, replaces, due)
	if err == nil && !written && cur == 0 && replaces > 0 {
		if err = c.adopt(ctx, id); err == nil {
			cur, written, err = c.put(ctx, id, data, replaces, due)
		}
	}
	if err != nil {
		return 0, false, unavailable("redisstore.CoReservations.Put", err)
	}
	return cur, written, nil
}

func (c *CoReservations) put(ctx context.Context, id string, data []byte, replaces, due int64) (int64, bool, error) {
	score := ""
	if due >= 0 {
		score = strconv.FormatInt(due, 10)
	}
	res, err := coPutFunc.Run(ctx, c.rdb, c.keys(id), replaces, replaces+1, data, score, id).Text()
	if err != nil {
		return 0, false, err
	}
	if res == "ok" {
		return replaces + 1, true, nil
	}
	cur, err := strconv.ParseInt(res, 10, 64)
	return cur, false, err
}

// dueStored answers up to limit records filed at or before now (unix ms), and
// claims them: files them at claim. It calls one function a shard, each
// answering what is left of limit, from a shard that turns with each call
// so that a backlog in one leaves the others their turn.
func (c *CoReservations) dueStored(ctx context.Context, now int64, limit int, claim int64) ([]coStored, error) {
	const op slotfare.Op = "redisstore.CoReservations.Due"
	if !c.adopted.Load() {
		if err := c.adoptAll(ctx); err != nil {
			return nil, unavailable(op, err)
		}
		c.adopted.Store(true)
	}
	var out []coStored
	first := c.turn.Add(1)
	for i := range uint32(coShards) {
		if len(out) >= limit {
			break
		}
		s := c.shard((first + i) % coShards)
		vals, err := coDueFunc.Run(ctx, c.rdb, []string{s + "due", s + "r:"}, now, limit-len(out), claim).StringSlice()
		if err != nil {
			return nil, unavailable(op, err)
		}
		for j := 0; j+2 < len(vals); j += 3 {
			rec, _, err := coRecord(vals[j], vals[j+1], vals[j+2])
			if err != nil {
				return nil, err
			}
			out = append(out, rec)
		}
	}
	return out, nil
}

// Get implements coreserve.Store.
func (c *CoReservations) Get(ctx context.Context, id string) (coreserve.Record, bool, error) {
	s, found, err := c.getStored(ctx, id)
	if !found || err != nil {
		return coreserve.Record{}, false, err
	}
	rec, err := coreserve.DecodeRecord(s.Data, s.Version)
	return rec, err == nil, err
}

// Put implements coreserve.Store: an unsettled record is filed at its due
// time, a settled one taken out of the index.
func (c *CoReservations) Put(ctx context.Context, rec coreserve.Record, replaces int64) (int64, error) {
	data, err := coreserve.EncodeRecord(rec)
	if err != nil {
		return 0, err
	}
	due := int64(-1)
	if !rec.Status.Settled() {
		due = coreserve.DueMillis(rec.DueAt)
	}
	cur, written, err := c.putStored(ctx, rec.ID, data, replaces, due)
	switch {
	case err != nil:
		return 0, err
	case !written:
		return 0, coreserve.VersionConflict(rec.ID, cur, replaces)
	}
	return cur, nil
}

// Due implements coreserve.Store, soonest due first across the shards.
func (c *CoReservations) Due(ctx context.Context, now time.Time, limit int, claimUntil time.Time) ([]coreserve.Record, error) {
	stored, err := c.dueStored(ctx, now.UnixMilli(), limit, coreserve.DueMillis(claimUntil))
	if err != nil {
		return nil, err
	}
	out := make([]coreserve.Record, 0, len(stored))
	for _, s := range stored {
		rec, err := coreserve.DecodeRecord(s.Data, s.Version)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	sort.Slice(out, func(i, j int) bool {
		ai, aj := coreserve.DueMillis(out[i].DueAt), coreserve.DueMillis(out[j].DueAt)
		return ai < aj || ai == aj && out[i].ID < out[j].ID
	})
	return out, nil
}

// Close implements coreserve.Store; the client stays open.
func (c *CoReservations) Close() error { return nil }

// legacyDue says when a record written before the due index is due: at
// once while unsettled (it has no due time).
func legacyDue(data []byte) (int64, bool, error) {
	rec, err := coreserve.DecodeRecord(data, 0)
	if err != nil {
		return 0, false, err
	}
	return coreserve.DueMillis(rec.DueAt), !rec.Status.Settled(), nil
}

// adoptAll moves every unsettled record of the layout before the shards
// into its shard, a page at a time: the one pass over records that are not
// due, once a process, and over an empty set once they are moved.
func (c *CoReservations) adoptAll(ctx context.Context) error {
	var cursor uint64
	for {
		ids, next, err := c.rdb.SScan(ctx, c.oldUnsettled(), cursor, "", 100).Result()
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := c.adopt(ctx, id); err != nil {
				return err
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

// adopt moves the record id of the layout before the shards into its
// shard, unless it is there already or settled (a settled one stays where
// it is, read there by Get), then takes it out of the old set.
func (c *CoReservations) adopt(ctx context.Context, id string) error {
	rec, found, err := c.get(ctx, c.oldKey(id), id)
	if err != nil {
		return err
	}
	due, unsettled := int64(0), false
	if found {
		if due, unsettled, err = legacyDue(rec.Data); err != nil {
			return err
		}
	}
	if unsettled {
		if err := coAdoptFunc.Run(ctx, c.rdb, c.keys(id), rec.Version, rec.Data, due, id).Err(); err != nil {
			return err
		}
		if err := c.rdb.Del(ctx, c.oldKey(id)).Err(); err != nil {
			return err
		}
	}
	return c.rdb.SRem(ctx, c.oldUnsettled(), id).Err()
}
