package coreserve

import (
	"context"
	"sort"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare/booking/redisstore"
)

// Redis is a Store on the Redis that replicas share: redisstore's
// CoReservations, which spreads the records over a few hash slots, each
// with its due index, and writes a record and its place in the index in
// one function call. Durability is Redis's: serve asks for appendonly yes
// and appendfsync always.
type Redis struct {
	c *redisstore.CoReservations
}

var _ Store = (*Redis)(nil)

// NewRedis returns a Redis store on c with keys under prefix. Close leaves
// c open: it is the caller's.
func NewRedis(c redis.UniversalClient, prefix string) *Redis {
	return &Redis{c: redisstore.NewCoReservations(c, prefix, legacyDue)}
}

// legacyDue says when a record written before the due index is due: at
// once while unsettled (it has no due time).
func legacyDue(data []byte) (int64, bool, error) {
	rec, err := decodeRecord(data, 0)
	if err != nil {
		return 0, false, err
	}
	return dueMillis(rec.DueAt), !rec.Status.Settled(), nil
}

// Get implements Store.
func (r *Redis) Get(ctx context.Context, id string) (Record, bool, error) {
	s, found, err := r.c.Get(ctx, id)
	if !found || err != nil {
		return Record{}, false, err
	}
	rec, err := decodeRecord(s.Data, s.Version)
	return rec, err == nil, err
}

// Put implements Store.
func (r *Redis) Put(ctx context.Context, rec Record, replaces int64) (int64, error) {
	data, err := encodeRecord(rec)
	if err != nil {
		return 0, err
	}
	due := int64(-1)
	if !rec.Status.Settled() {
		due = dueMillis(rec.DueAt)
	}
	cur, written, err := r.c.Put(ctx, rec.ID, data, replaces, due)
	switch {
	case err != nil:
		return 0, err
	case !written:
		return 0, versionConflict(rec.ID, cur, replaces)
	}
	return cur, nil
}

// Due implements Store.
func (r *Redis) Due(ctx context.Context, now time.Time, limit int, claimUntil time.Time) ([]Record, error) {
	stored, err := r.c.Due(ctx, now.UnixMilli(), limit, dueMillis(claimUntil))
	if err != nil {
		return nil, err
	}
	out := make([]Record, 0, len(stored))
	for _, s := range stored {
		rec, err := decodeRecord(s.Data, s.Version)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	sort.Slice(out, func(i, j int) bool {
		return dueEntry{dueMillis(out[i].DueAt), out[i].ID}.before(dueEntry{dueMillis(out[j].DueAt), out[j].ID})
	})
	return out, nil
}

// Close implements Store; the client stays open.
func (r *Redis) Close() error { return nil }
