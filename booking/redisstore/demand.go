package redisstore

import (
	"context"
	_ "embed"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/records"
)

//go:embed demand.lua
var demandLua string

var demandCountFunc = library.fn("demandcount")

// demandIdentity are the fields of a record's hash that name it; the others
// are its counters (booking.DemandCounts.Fields).
var demandIdentity = []string{"resource", "class", "period", "instance", "day"}

// CountDemand implements records.DemandPort: one call of the library's
// demandcount, on the resource's slot: every record a hash of counters
// (HINCRBY), indexed by instance in a sorted set, and the write's marker
// set in the same step, so that go-redis's retry of a write that was
// applied adds nothing.
func (s *Records) CountDemand(ctx context.Context, w booking.DemandWrite) (int64, error) {
	const op slotfare.Op = "redisstore.Records.CountDemand"
	if err := records.CheckDemand(w); err != nil {
		return 0, err
	}
	base := s.res(w.Resource) + "demand:"
	forget := ""
	if !w.Forget.IsZero() {
		forget = strconv.FormatInt(w.Forget.Unix(), 10)
	}
	args := make([]any, 0, 3+len(w.Records)*16)
	args = append(args, base, forget, len(w.Records))
	for _, r := range w.Records {
		inst := strconv.FormatInt(r.Instance.Unix(), 10)
		day := r.Day.UTC().Format(time.DateOnly)
		fields := r.Counts.Fields()
		args = append(args, inst+"|"+r.Class+"|"+day, inst, r.Resource, r.Class, r.Period, day, len(fields))
		for name, n := range fields {
			args = append(args, name, n)
		}
	}
	keys := []string{base + "index", base + "w:" + w.ID, s.observedKey(w.Resource)}
	v, err := demandCountFunc.Run(ctx, s.rdb, keys, args...).Int64()
	if err != nil {
		return 0, unavailable(op, err)
	}
	return v, nil
}

// observedKey is the version of resource's observations (records.Port's
// Observed), in its slot.
func (s *Records) observedKey(resource string) string { return s.res(resource) + "observed" }

// Observed implements records.Port.
func (s *Records) Observed(ctx context.Context, resource string) (int64, error) {
	v, err := s.rdb.Get(ctx, s.observedKey(resource)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, unavailable(slotfare.Op("redisstore.Records.Observed"), err)
	}
	return v, nil
}

// Demand implements records.DemandPort: the index read from since on,
// then every record's hash in one pipeline.
func (s *Records) Demand(ctx context.Context, resource string, since time.Time) ([]booking.DemandRecord, error) {
	const op slotfare.Op = "redisstore.Records.Demand"
	base := s.res(resource) + "demand:"
	members, err := s.rdb.ZRangeByScore(ctx, base+"index", &redis.ZRangeBy{Min: strconv.FormatInt(since.Unix(), 10), Max: "+inf"}).Result()
	if err != nil {
		return nil, unavailable(op, err)
	}
	cmds := make([]*redis.MapStringStringCmd, len(members))
	if len(members) > 0 {
		if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, m := range members {
				cmds[i] = p.HGetAll(ctx, base+m)
			}
			return nil
		}); err != nil {
			return nil, unavailable(op, err)
		}
	}
	out := make([]booking.DemandRecord, 0, len(members))
	for _, c := range cmds {
		h := c.Val()
		if len(h) == 0 {
			continue // forgotten between the two reads
		}
		r, err := demandRecordOf(h)
		if err != nil {
			return nil, slotfare.E(op, slotfare.Other, "a stored demand record does not decode", err)
		}
		if !r.Instance.Before(since) {
			out = append(out, r)
		}
	}
	return booking.SortDemand(out), nil
}

// demandRecordOf reads a record's hash.
func demandRecordOf(h map[string]string) (booking.DemandRecord, error) {
	inst, err := strconv.ParseInt(h["instance"], 10, 64)
	if err != nil {
		return booking.DemandRecord{}, err
	}
	day, err := time.Parse(time.DateOnly, h["day"])
	if err != nil {
		return booking.DemandRecord{}, err
	}
	r := booking.DemandRecord{Resource: h["resource"], Class: h["class"], Period: h["period"], Instance: time.Unix(inst, 0).UTC(), Day: day}
	for _, f := range demandIdentity {
		delete(h, f)
	}
	r.Counts, err = booking.DemandCountsOf(h)
	return r, err
}
