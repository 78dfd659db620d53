package service_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/deploy/deploytest"
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
	svc, err := service.Open(crashConfig(), deploytest.Embedded(b, st), service.Options{Now: func() time.Time { return t0 }})
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
	svc, err := service.Open(crashConfig(), deploytest.Embedded(b, st), service.Options{Now: func() time.Time { return t0 }})
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
	svc, err := service.Open(crashConfig(), deploytest.Embedded(b, st), service.Options{Now: func() time.Time { return t0 }})
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

// BenchmarkReports is one dashboard report over a week of a resource that
// holds n committed bookings on bbolt (each report reads the resource's
// stored bookings once).
func BenchmarkReports(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		st, err := boltstore.Open(b.TempDir(), boltstore.Options{})
		if err != nil {
			b.Fatal(err)
		}
		svc, err := service.Open(crashConfig(), deploytest.Embedded(b, st), service.Options{Now: func() time.Time { return t0 }})
		if err != nil {
			b.Fatal(err)
		}
		fillBookings(b, svc, n)
		from, to := t0, t0.Add(7*24*time.Hour)
		reports := []struct {
			name string
			run  func() error
		}{
			{"occupancy", func() error { _, err := svc.Occupancy(bg, provider, "BIG", from, to); return err }},
			{"booking-control", func() error { _, err := svc.BookingControl(bg, provider, "BIG", from, to); return err }},
			{"revenue", func() error { _, err := svc.Revenue(bg, provider, "BIG", from, to); return err }},
			{"denials", func() error { _, err := svc.Denials(bg, provider, "BIG", from, to); return err }},
		}
		for _, r := range reports {
			b.Run(fmt.Sprintf("%s/%d", r.name, n), func(b *testing.B) {
				for b.Loop() {
					if err := r.run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		svc.Close()
	}
}

// fillBookings commits n one-hour bookings spread over a week, from 32
// goroutines (the store commits them in groups).
func fillBookings(b *testing.B, svc *service.Service, n int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				start := t0.Add(time.Duration(1+i%10000) * time.Minute)
				bk, _, err := svc.Hold(bg, alice, booking.HoldRequest{ResourceID: "BIG", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "budget"}, booking.Idempotency{})
				if err == nil {
					_, err = svc.Commit(bg, alice, bk.ID)
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
