package main

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/inventory"
	"slotfare/booking/redisstore"
	"slotfare/calendar"
)

// portCalendar replays a trace through an inventory port, one resource of
// one group, as if it were a calendar: `bench calendar --impl redis`
// compares the Redis inventory's decisions and speed with the tree's. The
// capacity stays what it was made with (the replay never changes it).
type portCalendar struct {
	p        inventory.Port
	res      string
	capacity int
	// live mirrors the ids held, so that Add and Delete keep the
	// calendar's duplicate and unknown-id answers in one round trip.
	live map[string]calendar.Reservation
}

var _ calendar.Calendar = (*portCalendar)(nil)

var bg = context.Background() // a bench's calls: no request's

// newRedisBenchCalendar makes a fresh resource on the Redis at url; done
// drops its keys.
func newRedisBenchCalendar(url string, run, capacity int) (c *portCalendar, done func() error, err error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, nil, badFlag("redis", "%v", err)
	}
	rdb := redis.NewClient(opt)
	inv := redisstore.NewInventory(rdb, fmt.Sprintf("bench%d", run))
	if err := inv.Ensure(bg, "trace", 1, capacity); err != nil {
		_ = rdb.Close() // the error that matters is Ensure's
		return nil, nil, err
	}
	done = func() error {
		err := inv.Drop(bg, "trace")
		if cerr := rdb.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return &portCalendar{p: inv, res: "trace", capacity: capacity, live: map[string]calendar.Reservation{}}, done, nil
}

func (c *portCalendar) Fits(start, end int64, nodes int) (bool, error) {
	if nodes > c.capacity {
		return false, slotfare.Errorf("bench redis", "nodes", "nodes %d exceed the capacity %d", nodes, c.capacity)
	}
	return c.p.Fits(bg, c.res, 0, start, end, nodes)
}

func (c *portCalendar) Add(r calendar.Reservation) error {
	if _, dup := c.live[r.ID]; dup {
		return slotfare.E(slotfare.Op("bench redis"), slotfare.Conflict, "reservation "+r.ID+" already exists")
	}
	if err := c.p.Admit(bg, c.res, r.ID, 1, inventory.Terms{Start: r.Start, End: r.End, Nodes: r.Nodes}); err != nil {
		return err
	}
	c.live[r.ID] = r
	return nil
}

func (c *portCalendar) Delete(id string) (calendar.Reservation, error) {
	r, held := c.live[id]
	if !held {
		return calendar.Reservation{}, slotfare.E(slotfare.Op("bench redis"), slotfare.NotFound, "no reservation "+id)
	}
	if err := c.p.Release(bg, c.res, id); err != nil {
		return calendar.Reservation{}, err
	}
	delete(c.live, id)
	return r, nil
}

func (c *portCalendar) Replace(id string, r calendar.Reservation) error {
	if r.ID != id {
		return slotfare.Errorf("bench redis", "id", "the inventory keeps a booking's id")
	}
	if err := c.p.Replace(bg, c.res, id, inventory.Terms{Start: r.Start, End: r.End, Nodes: r.Nodes}); err != nil {
		return err
	}
	c.live[id] = r
	return nil
}

func (c *portCalendar) Get(id string) (calendar.Reservation, bool) {
	r, ok := c.live[id]
	return r, ok
}

func (c *portCalendar) Len() int { return len(c.live) }

func (c *portCalendar) NextFree(from, limit, duration int64, nodes int) (int64, bool, error) {
	return c.p.NextFree(bg, c.res, 0, from, limit, duration, nodes)
}

func (c *portCalendar) Profile(from, to int64) ([]calendar.Step, error) {
	return c.p.Profile(bg, c.res, 0, from, to)
}

func (c *portCalendar) SetCapacity(from, to int64, nodes int) error {
	return slotfare.E(slotfare.Op("bench redis"), slotfare.Invalid, "the trace replay keeps its capacity")
}

func (c *portCalendar) Capacity(int64) int { return c.capacity }

func (c *portCalendar) MaxCapacity() int { return c.capacity }
