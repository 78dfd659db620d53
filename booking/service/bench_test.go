package service_test

import (
	"sync/atomic"
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/service"
)

// stores are the durable stores the benchmarks run against.
var stores = []struct {
	name string
	open func(dir string) (booking.Store, error)
}{
	{"bbolt", func(dir string) (booking.Store, error) { return boltstore.Open(dir, boltstore.Options{}) }},
}

// BenchmarkHoldCommit is one offer-less hold + commit through the service
// with each real store (durable, group-committed), from 64 concurrent
// goroutines on one large resource.
func BenchmarkHoldCommit(b *testing.B) {
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) { benchHoldCommit(b, s.open) })
	}
}

func benchHoldCommit(b *testing.B, open func(string) (booking.Store, error)) {
	st, err := open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	svc, err := service.Open(crashConfig(), st, service.Options{Now: func() time.Time { return t0 }})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	var n atomic.Int64
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			start := t0.Add(time.Duration(1+i%5000) * time.Minute)
			bk, _, err := svc.Hold(bg, alice, booking.HoldRequest{ResourceID: "BIG", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "budget"}, booking.Idempotency{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := svc.Commit(bg, alice, bk.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "flows/s")
}

// BenchmarkOfferHoldCommit adds the offer query (priced, signed) in front.
func BenchmarkOfferHoldCommit(b *testing.B) {
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) { benchOfferHoldCommit(b, s.open) })
	}
}

func benchOfferHoldCommit(b *testing.B, open func(string) (booking.Store, error)) {
	st, err := open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	svc, err := service.Open(crashConfig(), st, service.Options{Now: func() time.Time { return t0 }})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	var n atomic.Int64
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		d, nodes := int64(3600), 1
		for pb.Next() {
			i := n.Add(1)
			start := t0.Add(time.Duration(1+i%5000) * time.Minute)
			offs, err := svc.Offers(bg, alice, booking.OfferQuery{ResourceID: "BIG", EarliestStart: start, LatestEnd: start.Add(3 * time.Hour),
				DurationSeconds: &d, Nodes: &nodes, FareClass: "budget"})
			if err != nil || len(offs) == 0 {
				b.Fatal(err, len(offs))
			}
			bk, _, err := svc.Hold(bg, alice, booking.HoldRequest{OfferID: offs[0].OfferID}, booking.Idempotency{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := svc.Commit(bg, alice, bk.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "flows/s")
}

// BenchmarkTickIdle is one Tick over 20,000 live bookings none of which is
// due: the cost serve pays every second between events.
func BenchmarkTickIdle(b *testing.B) {
	st, err := boltstore.Open(b.TempDir(), boltstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	svc, err := service.Open(crashConfig(), st, service.Options{Now: func() time.Time { return t0 }})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	for i := range 20000 {
		start := t0.Add(time.Duration(60+i%5000) * time.Minute)
		bk, _, err := svc.Hold(bg, alice, booking.HoldRequest{ResourceID: "BIG", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "budget"}, booking.Idempotency{})
		if err != nil {
			b.Fatal(err)
		}
		if i%2 == 0 {
			if _, err := svc.Commit(bg, alice, bk.ID); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if err := svc.Tick(t0.Add(time.Second)); err != nil {
			b.Fatal(err)
		}
	}
}
