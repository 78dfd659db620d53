package redisstore

import (
	"context"
	"encoding/json"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/events"
)

// The event log on Redis is one stream per resource, in the resource's
// hash slot, where apply.lua adds a write's events in the step that
// applies it; events of no resource (a webhook disabled) go to a stream of
// their own. A reader names the streams and holds a position per stream
// (events.Cursor): on a cluster each stream's ids come from its own
// master's clock, so streams are merged by id for a reader's convenience,
// but nothing is skipped when one master's clock runs ahead of another's.

// eventStream is stream's key: a resource's, or "" for events of none.
func (s *Records) eventStream(stream string) string {
	if stream == "" {
		return s.prefix + ":{events}:ev"
	}
	return resourceStream(s.prefix, stream)
}

// resourceStream is resource res's event stream under prefix, in its slot.
func resourceStream(prefix, res string) string { return slotBase(prefix, res) + "ev" }

// eventsKept is how many events a stream keeps.
func (s *Records) eventsKept() int64 {
	if n := s.keepEvents.Load(); n > 0 {
		return n
	}
	return events.DefaultKeep
}

// KeepEvents implements events.Keeper: per stream.
func (s *Records) KeepEvents(n int) { s.keepEvents.Store(int64(n)) }

// ReadEvents implements events.Reader: up to limit events of each stream
// after its position, read in one pipeline, merged.
func (s *Records) ReadEvents(ctx context.Context, streams []string, after events.Cursor, limit int) ([]events.Logged, error) {
	const op slotfare.Op = "redisstore.Records.ReadEvents"
	cmds := make([]*redis.XMessageSliceCmd, len(streams))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, st := range streams {
			from := "-"
			if pos, ok := after[st]; ok && pos != "" {
				from = "(" + pos
			}
			cmds[i] = p.XRangeN(ctx, s.eventStream(st), from, "+", int64(limit))
		}
		return nil
	})
	if err != nil && err != redis.Nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	pages := make([][]events.Logged, len(streams))
	for i, c := range cmds {
		for _, m := range c.Val() {
			raw, _ := m.Values["e"].(string)
			var e events.Event
			if err := json.Unmarshal([]byte(raw), &e); err != nil {
				return nil, slotfare.E(op, slotfare.Other, "stream "+streams[i]+" entry "+m.ID+" is not an event: "+err.Error())
			}
			pages[i] = append(pages[i], events.Logged{Stream: streams[i], Pos: m.ID, Event: e})
		}
	}
	return events.Merge(pages, limit), nil
}

// AppendEvents implements events.Appender: the events are added to
// stream in one MULTI (one key, so one slot).
func (s *Records) AppendEvents(ctx context.Context, stream string, evs []events.Event) error {
	const op slotfare.Op = "redisstore.Records.AppendEvents"
	key := s.eventStream(stream)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for _, e := range evs {
			b, err := json.Marshal(e)
			if err != nil {
				return err
			}
			p.XAdd(ctx, &redis.XAddArgs{Stream: key, MaxLen: s.eventsKept(), Approx: true, Values: []any{"e", string(b)}})
		}
		return nil
	})
	if err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	return nil
}
