package redisstore_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"

	"slotfare/booking"
	"slotfare/booking/inventory"
	"slotfare/booking/records"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
	"slotfare/ledger"
)

// BenchmarkInventoryAdmitRelease: an admission and its release on the
// Redis inventory, from parallel clients spread over 10 resources of 3
// nested groups (the demo's shape), each holding 50 bookings; 16 clients
// per P.
func BenchmarkInventoryAdmitRelease(b *testing.B) {
	rdb := redistest.Start(b)
	inv := redisstore.NewInventory(rdb, "bench")
	ctx := context.Background()
	for r := range 10 {
		res := fmt.Sprintf("R%d", r)
		if err := inv.Ensure(ctx, res, 3, 1000); err != nil {
			b.Fatal(err)
		}
		for i := range 50 {
			t := inventory.Terms{Start: int64(i * 3600), End: int64(i*3600 + 7200), Nodes: 4}
			if err := inv.Admit(ctx, res, fmt.Sprintf("base%d", i), 1+i%3, t); err != nil {
				b.Fatal(err)
			}
		}
	}
	var n atomic.Int64
	b.SetParallelism(16) // many clients, as replicas behind a balancer are
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			res := fmt.Sprintf("R%d", i%10)
			id := fmt.Sprintf("b%d", i)
			t := inventory.Terms{Start: i % 100 * 1800, End: i%100*1800 + 3600, Nodes: 2}
			if err := inv.Admit(ctx, res, id, 3, t); err != nil {
				b.Fatal(err)
			}
			if err := inv.Release(ctx, res, id); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// flowBench is what a flow of bench api asks of Redis besides its
// Idempotency-Key, on its own redis-server: 4 resources of 8 groups and 2
// accounts (bench api's shape), each account holding 8 holds on each
// resource meanwhile. flow(i) offers, holds and commits the i-th booking
// (with offer false, it holds and commits); redisCPU is Redis's CPU time,
// user and system, in µs (INFO cpu), which the scheduling of the machine's
// other work blurs less than a wall-clock time would.
type flowBench struct {
	rdb      *redis.Client
	flow     func(i int64, offer bool) error
	redisCPU func() float64
}

func newFlowBench(b *testing.B) flowBench {
	rdb := redistest.Start(b)
	ctx := context.Background()
	recs := redisstore.NewRecords(rdb, "bench")
	inv := redisstore.NewInventory(rdb, "bench")
	const resources = 4
	for r := range resources {
		if err := inv.Ensure(ctx, fmt.Sprintf("R%d", r), 8, 1_000_000); err != nil {
			b.Fatal(err)
		}
	}
	l, err := ledger.New(ledger.Options{})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	rec := func(id, acct, res string, start time.Time) booking.Record {
		return booking.Record{Booking: booking.Booking{ID: id, AccountID: acct, ResourceID: res, Status: booking.Held,
			Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "premium",
			Price:     booking.Price{Base: decimal.RequireFromString("203.04"), DelayPremium: decimal.Zero, Total: decimal.RequireFromString("203.04"), Currency: "GRD"},
			CreatedAt: t0, UpdatedAt: t0}, Groups: 1}
	}
	hold := func(id, acct, res string, start time.Time) error {
		r := rec(id, acct, res, start)
		terms := inventory.Terms{Start: start.Unix(), End: start.Add(time.Hour).Unix(), Nodes: 1}
		claim := records.HoldClaim{Resource: res, Account: acct, BookingID: id, Expires: t0.Add(10 * time.Minute),
			NodeSeconds: 3600, MaxHolds: 100, MaxNodeSeconds: 1 << 40, Now: t0}
		w := records.Write{Resource: res, WriteID: "h" + id, Changes: []records.Change{{Record: r}}}
		if ok, _, err := recs.AdmitApply(ctx, res, id, 1, terms, w, claim); err != nil || !ok {
			return fmt.Errorf("hold %s: %v %v", id, ok, err)
		}
		return nil
	}
	// Holds in flight: 64 clients over 2 accounts and 4 resources hold
	// about 8 each at any moment, which each new hold's claim counts.
	for r := range resources {
		for _, acct := range []string{"alice", "bob"} {
			for i := range 8 {
				if err := hold(fmt.Sprintf("s%d%s%d", r, acct, i), acct, fmt.Sprintf("R%d", r), t0.Add(time.Duration(3000+i)*time.Hour)); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	var mu sync.Mutex // the ledger decides one charge at a time
	flow := func(i int64, offer bool) error {
		res, acct, id := fmt.Sprintf("R%d", i%resources), []string{"alice", "bob"}[i%2], fmt.Sprintf("b%d", i)
		start := t0.Add(time.Duration(i%2000) * time.Hour)
		if offer {
			if _, err := inv.Profile(ctx, res, 0, start.Unix(), start.Add(time.Hour).Unix()); err != nil {
				return err
			}
		}
		if err := hold(id, acct, res, start); err != nil {
			return err
		}
		r := rec(id, acct, res, start)
		mu.Lock()
		charge, err := l.Charge(ledger.BookingRef{ID: id, Customer: acct, Resource: res, Currency: "GRD"}, r.Booking.Price.Total, t0)
		mu.Unlock()
		if err != nil {
			return err
		}
		r.Booking.Status = booking.Committed
		commit := records.Write{Resource: res, WriteID: "c" + id, Changes: []records.Change{{Record: r, Replaces: 1}}, Postings: []ledger.Posting{charge}}
		if within, err := recs.WithinApply(ctx, res, id, commit); err != nil || !within {
			return fmt.Errorf("commit %s: %v %v", id, within, err)
		}
		return nil
	}
	redisCPU := func() float64 {
		s, err := rdb.Info(ctx, "cpu").Result()
		if err != nil {
			b.Fatal(err)
		}
		u, err := redisstore.ParseUsage(s)
		if err != nil {
			b.Fatal(err)
		}
		return float64(u.CPU.Microseconds())
	}
	return flowBench{rdb: rdb, flow: flow, redisCPU: redisCPU}
}

// BenchmarkGuardedHoldCommit: a hold's guarded step (claim, admission,
// write and index) and its commit's (check, write with a charge, index)
// from 16 parallel clients per P (newFlowBench's shape). Besides ns/op it
// reports redis-cpu-us/op, the CPU Redis spent per hold and commit, which
// the client's CPU does not blur.
func BenchmarkGuardedHoldCommit(b *testing.B) {
	fb := newFlowBench(b)
	var n atomic.Int64
	b.SetParallelism(16)
	before := fb.redisCPU()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := fb.flow(n.Add(1), false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.StopTimer()
	b.ReportMetric((fb.redisCPU()-before)/float64(b.N), "redis-cpu-us/op")
}

// BenchmarkRedisFlow: a flow's offer profile, hold and commit, one after
// another from one client (newFlowBench's shape). It stops its
// redis-server with SHUTDOWN when done, so that a redis-server run under
// valgrind's callgrind (docs/benchmarks.md) writes its counts: Redis's
// instructions per flow, which no other work on the machine changes.
func BenchmarkRedisFlow(b *testing.B) {
	fb := newFlowBench(b)
	before := fb.redisCPU()
	b.ResetTimer()
	for i := range b.N {
		if err := fb.flow(int64(i+1), true); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric((fb.redisCPU()-before)/float64(b.N), "redis-cpu-us/op")
	// SHUTDOWN answers by closing the connection (go-redis then retries,
	// and finds no server): what says it worked is that nothing answers.
	ctx := context.Background()
	fb.rdb.Shutdown(ctx)
	if err := fb.rdb.Ping(ctx).Err(); err == nil {
		b.Fatal("redis-server still answers after SHUTDOWN")
	}
}
