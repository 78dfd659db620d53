package ledger_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"slotfare/ledger"
)

// BenchmarkAppend appends one charge per iteration to an in-memory ledger
// (validation, rounding, idempotency check, indexing), postings in time
// order as the service makes them.
func BenchmarkAppend(b *testing.B) {
	l := newLedger(b, ledger.Options{})
	ps := make([]ledger.Posting, b.N)
	for i := range ps {
		p, err := l.Charge(ledger.BookingRef{ID: fmt.Sprintf("bk%d", i), Customer: fmt.Sprintf("c%d", i%100), Resource: "RAL", Currency: "GRD"},
			dec("123.4567"), t0.Add(time.Duration(i)*time.Millisecond))
		if err != nil {
			b.Fatal(err)
		}
		ps[i] = p
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range ps {
		if _, err := l.Append(ps[i]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendParallel is BenchmarkAppend from GOMAXPROCS goroutines,
// each building its own charge: the HTTP handlers' pattern.
func BenchmarkAppendParallel(b *testing.B) {
	l := newLedger(b, ledger.Options{})
	var n atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			p, err := l.Charge(ledger.BookingRef{ID: "bk" + fmt.Sprint(i), Customer: "c" + fmt.Sprint(i%100), Resource: "RAL", Currency: "GRD"},
				dec("123.4567"), t0.Add(time.Duration(i)*time.Millisecond))
			if err == nil {
				_, err = l.Append(p)
			}
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// bigAccount is a ledger where customer "alice" has 10,000 postings over
// twelve months: 5,000 charges, and 1,250 bookings cancelled (refund and
// penalty postings).
func bigAccount(b *testing.B) *ledger.Ledger {
	b.Helper()
	l := newLedger(b, ledger.Options{})
	start := at("2026-01-01T00:00:00Z")
	step := 360 * 24 * time.Hour / 6667
	n := 0
	for i := 0; n < 10000; i++ {
		when := start.Add(time.Duration(i) * step)
		id := fmt.Sprintf("bk%05d", i)
		charge(b, l, ref(id), "17.35", when)
		n++
		if i%4 == 0 && n < 10000 {
			s, err := l.Cancellation(id, dec("0.1"), when.Add(time.Minute))
			if err != nil {
				b.Fatal(err)
			}
			mustAppend(b, l, s.Postings...)
			n += len(s.Postings)
		}
	}
	if page, _ := l.Entries(ledger.CustomerAccount("alice"), "", 1); !page.HasMore {
		b.Fatal("no postings")
	}
	return l
}

// BenchmarkInvoice assembles invoices for an account with 10,000 postings:
// one month (about 830 lines), and the listing of all twelve months.
func BenchmarkInvoice(b *testing.B) {
	l := bigAccount(b)
	now := at("2027-01-01T00:00:00Z")
	b.Run("month", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			page, err := l.Invoices(ledger.InvoiceQuery{Account: "alice", Period: "2026-06"}, now)
			if err != nil || len(page.Data) != 1 {
				b.Fatal(err)
			}
		}
	})
	b.Run("all-months", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			page, err := l.Invoices(ledger.InvoiceQuery{Account: "alice"}, now)
			if err != nil || len(page.Data) != 12 {
				b.Fatal(len(page.Data), err)
			}
		}
	})
}

// BenchmarkEntries reads a page of 100 entries from the middle of an
// account with 10,000 postings.
func BenchmarkEntries(b *testing.B) {
	l := bigAccount(b)
	a := ledger.CustomerAccount("alice")
	cursor := ""
	for i := 0; i < 50; i++ {
		page, _ := l.Entries(a, cursor, 100)
		cursor = page.NextCursor
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		page, err := l.Entries(a, cursor, 100)
		if err != nil || len(page.Data) != 100 {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplay replays the stored postings of 10,000 bookings of five
// customers (the simulator's streams are a few) on two resources (a
// charge each, and a no-show's settlement for every fourth), decoded as a
// store reads them, one resource's after the other's, into a new ledger
// per iteration: what the service does to read its ledger (service.Ledger;
// billing reads one resource's).
func BenchmarkReplay(b *testing.B) {
	l := newLedger(b, ledger.Options{})
	byRes := map[string][]ledger.Posting{}
	keep := func(ps ...ledger.Posting) {
		kept, err := l.Append(ps...)
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range kept {
			raw, err := ledger.EncodePosting(p)
			if err != nil {
				b.Fatal(err)
			}
			q, err := ledger.DecodePosting(raw)
			if err != nil {
				b.Fatal(err)
			}
			byRes[q.Resource] = append(byRes[q.Resource], q)
		}
	}
	for i := range 10000 {
		ref := ledger.BookingRef{ID: fmt.Sprintf("bk%d", i), Customer: fmt.Sprintf("c%d", i%5), Resource: []string{"RAL", "Bologna"}[i%2], Currency: "GRD"}
		when := t0.Add(time.Duration(i) * time.Second)
		p, err := l.Charge(ref, dec("123.45"), when)
		if err != nil {
			b.Fatal(err)
		}
		keep(p)
		if i%4 == 0 {
			st, err := l.NoShow(ref.ID, dec("0.5"), when.Add(time.Hour))
			if err != nil {
				b.Fatal(err)
			}
			keep(st.Postings...)
		}
	}
	stored := append(byRes["RAL"], byRes["Bologna"]...)
	b.ReportAllocs()
	for b.Loop() {
		r := newLedger(b, ledger.Options{})
		if err := r.Replay(context.Background(), stored); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(stored)), "ns/posting")
}
