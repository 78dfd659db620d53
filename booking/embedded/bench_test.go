package embedded_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/embedded"
	"slotfare/booking/records"
	"slotfare/ledger"
)

// BenchmarkApply is the store traffic of one booking flow (a hold written
// NoWait, then its commit with its charge, waited for) from 64 parallel
// writers on the bbolt store, each on its own booking:
//   - ports: through Records.Apply (checks, reservations, indexes);
//   - store: the same two batches written to the store directly, as the
//     service writes them today, to compare with.
//
// Run: go test -run '^$' -bench Apply -benchtime 3s ./booking/embedded/
func BenchmarkApply(b *testing.B) {
	b.Run("ports", func(b *testing.B) { benchFlows(b, true) })
	b.Run("store", func(b *testing.B) { benchFlows(b, false) })
}

func benchFlows(b *testing.B, ports bool) {
	st, err := boltstore.Open(b.TempDir(), boltstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	p := openPorts(b, st, embedded.Options{})
	post := charge(b, "x", "alice", "R")
	var n atomic.Int64
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			id := fmt.Sprintf("bk%d", i)
			r := rec(id, fmt.Sprintf("acct%d", i%100), "R", booking.Held, t0)
			c := r
			c.Booking.Status = booking.Committed
			pc := post
			pc.ID, pc.Customer = id+"/charge", r.Booking.AccountID
			var err error
			if ports {
				err = p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "h" + id, Changes: []records.Change{{Record: r}}, NoWait: true})
				if err == nil {
					err = p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "c" + id, Changes: []records.Change{{Record: c, Replaces: 1}}, Postings: []ledger.Posting{pc}})
				}
			} else {
				err = st.Write(bg, booking.Batch{Bookings: []booking.Record{r}, NoWait: true})
				if err == nil {
					err = st.Write(bg, booking.Batch{Bookings: []booking.Record{c}, Postings: []ledger.Posting{pc}})
				}
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "flows/s")
}
