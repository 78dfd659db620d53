package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/booking"
	"slotfare/booking/inventory"
	"slotfare/booking/records"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
	"slotfare/ledger"
)

// BenchmarkZZSeq: a hold's guarded step (claim, admission,
// write and index) and its commit's (check, write with a charge, index),
// what a flow of bench api asks of Redis besides its offer and its
// Idempotency-Key, from 16 parallel clients per P over 4 resources of 8
// groups and 2 accounts (bench api's shape), each account holding 8 more on
// each resource meanwhile. Besides ns/op it reports
// redis-cpu-us/op, the CPU Redis spent per flow, which the client's CPU
// does not blur.
func BenchmarkZZSeq(b *testing.B) {
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
	var n atomic.Int64
	// Redis's CPU time, user and system, in µs (INFO cpu): what its
	// scripts and round trips cost it, which the scheduling of the
	// machine's other work blurs less than a wall-clock time would.
	redisCPU := func() float64 {
		s, err := rdb.Info(ctx, "cpu").Result()
		if err != nil {
			b.Fatal(err)
		}
		var us float64
		for _, line := range strings.Split(s, "\r\n") {
			for _, f := range []string{"used_cpu_user:", "used_cpu_sys:"} {
				if v, ok := strings.CutPrefix(line, f); ok {
					sec, err := strconv.ParseFloat(v, 64)
					if err != nil {
						b.Fatal(err)
					}
					us += sec * 1e6
				}
			}
		}
		return us
	}
	b.SetParallelism(1)
	rdb.ConfigResetStat(ctx)
	before := redisCPU()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			res, acct, id := fmt.Sprintf("R%d", i%resources), []string{"alice", "bob"}[i%2], fmt.Sprintf("b%d", i)
			start := t0.Add(time.Duration(i%2000) * time.Hour)
			if err := hold(id, acct, res, start); err != nil {
				b.Fatal(err)
			}
			r := rec(id, acct, res, start)
			charge, err := l.Charge(ledger.BookingRef{ID: id, Customer: acct, Resource: res, Currency: "GRD"}, r.Booking.Price.Total, t0)
			if err != nil {
				b.Fatal(err)
			}
			r.Booking.Status = booking.Committed
			commit := records.Write{Resource: res, WriteID: "c" + id, Changes: []records.Change{{Record: r, Replaces: 1}}, Postings: []ledger.Posting{charge}}
			if within, err := recs.WithinApply(ctx, res, id, commit); err != nil || !within {
				b.Fatalf("commit %s: %v %v", id, within, err)
			}
		}
	})
	b.StopTimer()
	b.ReportMetric((redisCPU()-before)/float64(b.N), "redis-cpu-us/op")
	if st, err := rdb.HGetAll(ctx, "zzprof").Result(); err == nil {
		b.Logf("PROF %v", st)
	}
	rdb.Del(ctx, "zzprof")
	if st, err := rdb.Info(ctx, "commandstats").Result(); err == nil {
		for _, l := range strings.Split(st, "\r\n") {
			if strings.HasPrefix(l, "cmdstat_evalsha:") {
				b.Logf("%s", l)
			}
		}
	}
}
