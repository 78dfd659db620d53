package redisstore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/internal/inventorytest"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
)

// TestInventoryContract runs the inventory contract on a real redis-server:
// every decision equal to the in-process tree's, and every step function
// left canonical (stepsCanonical).
func TestInventoryContract(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: redistest.NewServer(t).Addr})
	t.Cleanup(func() { _ = rdb.Close() })
	var n atomic.Int64
	inventorytest.Run(t, func(t *testing.T) inventory.Port {
		// One server, a fresh key prefix per case.
		prefix := fmt.Sprintf("t%d", n.Add(1))
		t.Cleanup(func() { stepsCanonical(t, rdb, prefix) })
		return redisstore.NewInventory(rdb, prefix)
	})
}

// TestInventoryPublish runs Publish's contract on a real redis-server: the
// event added to the resource's stream, which Records reads, in the step
// that changes the layout.
func TestInventoryPublish(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: redistest.NewServer(t).Addr})
	t.Cleanup(func() { _ = rdb.Close() })
	var n atomic.Int64
	inventorytest.RunPublish(t, func(t *testing.T) (inventory.Port, inventorytest.Log) {
		prefix := fmt.Sprintf("t%d", n.Add(1))
		t.Cleanup(func() { stepsCanonical(t, rdb, prefix) })
		return redisstore.NewInventory(rdb, prefix), redisstore.NewRecords(rdb, prefix)
	})
}

// stepsCanonical checks every step function stored under prefix (a sorted
// set of "time:value" breakpoints): one breakpoint at the least time, and
// no two neighbours with one value, as the scripts keep them so that a
// window's value is two reads. Decisions would not show a breakpoint too
// many, so this looks at the data.
func stepsCanonical(t *testing.T, rdb *redis.Client, prefix string) {
	t.Helper()
	ctx := context.Background()
	it := rdb.Scan(ctx, 0, prefix+":*", 100).Iterator()
	for it.Next(ctx) {
		k := it.Val()
		if rdb.Type(ctx, k).Val() != "zset" {
			continue
		}
		ms, err := rdb.ZRange(ctx, k, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		prev := ""
		for i, m := range ms {
			tm, v, ok := strings.Cut(m, ":")
			if !ok || (i == 0 && tm != "-1125899906842624") {
				t.Errorf("%s starts with %q, not a breakpoint at the least time", k, m)
			}
			if i > 0 && v == prev {
				t.Errorf("%s: breakpoint %q repeats its neighbour's value (%d breakpoints)", k, m, len(ms))
			}
			prev = v
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestSetCapacitiesIsSetCapacityInOrder: a layout set in batches (more
// pieces than one script takes) leaves every group's free profile as the
// same pieces set one by one, and holds what was admitted before; a piece
// of a group the resource lacks changes nothing.
func TestSetCapacitiesIsSetCapacityInOrder(t *testing.T) {
	rdb := redistest.Start(t)
	ctx := context.Background()
	bulk, one := redisstore.NewInventory(rdb, "bulk"), redisstore.NewInventory(rdb, "one")
	var cs []inventory.Capacity
	for i := range 700 {
		for g := range 2 {
			cs = append(cs, inventory.Capacity{Group: g, From: int64(i * 10), To: int64(i*10 + 10 + g*5), Nodes: (i*7 + g) % 5})
		}
	}
	for _, v := range []*redisstore.Inventory{bulk, one} {
		if err := v.Ensure(ctx, "R", 2, 4); err != nil {
			t.Fatal(err)
		}
		if err := v.Admit(ctx, "R", "b1", 2, inventory.Terms{Start: 95, End: 3000, Nodes: 2}); err != nil {
			t.Fatal(err)
		}
	}
	if err := bulk.SetCapacities(ctx, "R", lease.Fence{}, cs); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if err := one.SetCapacity(ctx, "R", lease.Fence{}, c.Group, c.From, c.To, c.Nodes); err != nil {
			t.Fatal(err)
		}
	}
	for g := range 2 {
		a, err1 := bulk.Profile(ctx, "R", g, -100, 8000)
		b, err2 := one.Profile(ctx, "R", g, -100, 8000)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !slices.Equal(a, b) || len(a) < 100 {
			t.Fatalf("group %d: batched profile has %d steps, one by one %d; they differ: %v", g, len(a), len(b), a[:min(len(a), 5)])
		}
	}
	before, _ := bulk.Profile(ctx, "R", 0, -100, 8000)
	err := bulk.SetCapacities(ctx, "R", lease.Fence{}, []inventory.Capacity{{Group: 0, From: 0, To: 10, Nodes: 3}, {Group: 2, From: 0, To: 10, Nodes: 3}})
	if slotfare.FieldOf(err) != "group" {
		t.Fatalf("a piece of group 2 of 2: %v, want an error naming the group", err)
	}
	if after, _ := bulk.Profile(ctx, "R", 0, -100, 8000); !slices.Equal(before, after) {
		t.Fatal("a refused batch changed group 0")
	}
}

// TestOldLayoutRefused: a resource laid out by an earlier slotfare (a
// meta hash without this layout's mark) is refused, naming what to do,
// rather than read as if it were this layout.
func TestOldLayoutRefused(t *testing.T) {
	rdb := redistest.Start(t)
	ctx := context.Background()
	if err := rdb.HSet(ctx, "old:{R}:meta", "groups", 1).Err(); err != nil {
		t.Fatal(err)
	}
	v := redisstore.NewInventory(rdb, "old")
	err := v.Admit(ctx, "R", "b1", 1, inventory.Terms{Start: 0, End: 10, Nodes: 1})
	if err == nil || !strings.Contains(err.Error(), "laid out anew") {
		t.Fatalf("Admit on an old layout: %v", err)
	}
	if err := v.Ensure(ctx, "R", 1, 4); err == nil || !strings.Contains(err.Error(), "laid out anew") {
		t.Fatalf("Ensure on an old layout: %v", err)
	}
	if steps, err := v.Profile(ctx, "R", 0, 0, 10); err == nil || !strings.Contains(err.Error(), "laid out anew") {
		t.Fatalf("Profile on an old layout: %+v, %v", steps, err)
	}
}

// TestProfileReadsTheLayoutInForce: Profile checks the layout Redis holds,
// not the one this replica saw first: a resource dropped by another
// replica is unknown, and one laid out again with fewer groups has no
// group beyond them.
func TestProfileReadsTheLayoutInForce(t *testing.T) {
	rdb := redistest.Start(t)
	ctx := context.Background()
	mine, other := redisstore.NewInventory(rdb, "lif"), redisstore.NewInventory(rdb, "lif")
	if err := mine.Ensure(ctx, "R", 2, 3); err != nil {
		t.Fatal(err)
	}
	if steps, err := mine.Profile(ctx, "R", 1, 0, 10); err != nil || len(steps) != 1 || steps[0].Free != 3 {
		t.Fatalf("group 1 of 2: %+v, %v", steps, err)
	}
	if err := other.Drop(ctx, "R"); err != nil {
		t.Fatal(err)
	}
	if steps, err := mine.Profile(ctx, "R", 1, 0, 10); slotfare.KindOf(err) != slotfare.NotFound {
		t.Fatalf("a dropped resource: %+v, %v", steps, err)
	}
	if err := other.Ensure(ctx, "R", 1, 3); err != nil {
		t.Fatal(err)
	}
	if steps, err := mine.Profile(ctx, "R", 1, 0, 10); slotfare.KindOf(err) != slotfare.Invalid {
		t.Fatalf("group 1 of a layout with 1: %+v, %v", steps, err)
	}
}

// TestProfileRefusesBreakpointsOutOfOrder: a layout whose breakpoints do
// not follow one another (a member stored under another time than its
// own, which slotfare never writes) is refused by Profile, not read as a
// profile, also where the breakpoint before was merged with its neighbour.
func TestProfileRefusesBreakpointsOutOfOrder(t *testing.T) {
	rdb := redistest.Start(t)
	ctx := context.Background()
	v := redisstore.NewInventory(rdb, "bad")
	if err := v.Ensure(ctx, "R", 1, 3); err != nil {
		t.Fatal(err)
	}
	if steps, err := v.Profile(ctx, "R", 0, 0, 100); err != nil || len(steps) != 1 || steps[0].Free != 3 {
		t.Fatalf("a sound layout: %+v, %v", steps, err)
	}
	// 3 free from 10 (equal to the value before: merged), then a member
	// saying 40 stored at 60, after the one at 50.
	free := "bad:{R}:g0:free"
	for _, z := range []struct {
		score  float64
		member string
	}{{10, "10:3"}, {50, "50:3"}, {60, "40:2"}} {
		if err := rdb.ZAdd(ctx, free, redis.Z{Score: z.score, Member: z.member}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if steps, err := v.Profile(ctx, "R", 0, 0, 100); err == nil || slotfare.KindOf(err) != slotfare.Other {
		t.Fatalf("breakpoints out of order read as %+v, %v", steps, err)
	}
}

// TestWindowReadCutAtItsStart admits over windows whose breakpoint at the
// start is the k-th from the end back, for every k one read of the
// function might bring (window in inventory_lib.lua): the breakpoint
// before the start, which says whether the start stays one, must be read
// too. Here it must not stay: the booking ending at the start and the one
// admitted have the same size.
func TestWindowReadCutAtItsStart(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: redistest.NewServer(t).Addr})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	v := redisstore.NewInventory(rdb, "cut")
	const s, e = 100, 200
	for k := 2; k <= 12; k++ {
		res := fmt.Sprintf("R%d", k)
		if err := v.Ensure(ctx, res, 1, 10); err != nil {
			t.Fatal(err)
		}
		admit := func(id string, start, end int64, n int) {
			t.Helper()
			if err := v.Admit(ctx, res, id, 1, inventory.Terms{Start: start, End: end, Nodes: n}); err != nil {
				t.Fatal(err)
			}
		}
		admit("before", s-10, s, 2) // free 8 up to s, 10 from s
		// k-1 breakpoints in (s, e]: pairs of one node over one second,
		// and one more that ends past e when k-1 is odd.
		for j := range int64((k - 1) / 2) {
			admit(fmt.Sprintf("in%d", j), s+10*j+1, s+10*j+2, 1)
		}
		if (k-1)%2 == 1 {
			admit("across", e-5, e+10, 1)
		}
		admit("window", s, e, 2) // free 8 on both sides of s: s is no breakpoint
		got, err := v.Profile(ctx, res, 0, s-10, e)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].Start != s-10 || got[0].Free != 8 || got[0].End == s {
			t.Errorf("k=%d: profile from %d: %v, want 8 free over [%d, past %d) first", k, s-10, got, s-10, s)
		}
	}
	stepsCanonical(t, rdb, "cut")
}
