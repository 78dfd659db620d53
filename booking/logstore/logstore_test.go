package logstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/booking"
	"slotfare/ledger"
)

func rec(id string, st booking.Status) booking.Record {
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	return booking.Record{Booking: booking.Booking{ID: id, AccountID: "alice", Status: st, ResourceID: "RAL",
		Start: t0, End: t0.Add(time.Hour), Nodes: 2, FareClass: "budget",
		Price:     booking.Price{Base: decimal.RequireFromString("3.50"), DelayPremium: decimal.Zero, Total: decimal.RequireFromString("3.50"), Currency: "GRD"},
		CreatedAt: t0, UpdatedAt: t0}, Account: "alice", IdemKey: "k-" + id, Fingerprint: "f", Groups: 3}
}

func TestWriteReopenLoad(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := ledger.New(ledger.Options{})
	ref := ledger.BookingRef{ID: "b1", Customer: "alice", Resource: "RAL", Currency: "GRD"}
	p, err := l.Charge(ref, decimal.RequireFromString("3.50"), time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{rec("b1", booking.Held)}, Secret: []byte("s3cret")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{rec("b1", booking.Committed)}, Postings: []ledger.Posting{p},
		Resources: []booking.ResourceRecord{{Config: booking.ResourceConfig{ID: "X", Nodes: 3, BaseCost: decimal.New(1, 0), Currency: "GRD"}, Queue: []byte(`{}`)}}}); err != nil {
		t.Fatal(err)
	}
	// Concurrent writers share transactions; every one must be stored.
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{rec(fmt.Sprintf("c%02d", i), booking.Held)}}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{rec("late", booking.Held)}}); err == nil {
		t.Fatal("write after close succeeded")
	}
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Bookings) != 51 || string(st.Secret) != "s3cret" || len(st.Postings) != 1 || len(st.Resources) != 1 {
		t.Fatalf("loaded %d bookings, %d postings, %d resources, secret %q", len(st.Bookings), len(st.Postings), len(st.Resources), st.Secret)
	}
	if b := st.Bookings[0]; b.Booking.ID != "b1" || b.Booking.Status != booking.Committed || b.IdemKey != "k-b1" || b.Groups != 3 ||
		!b.Booking.Price.Total.Equal(decimal.RequireFromString("3.5")) {
		t.Fatalf("b1 = %+v", b)
	}
	if st.Postings[0].ID != "b1/charge" || st.Resources[0].Config.ID != "X" || string(st.Resources[0].Queue) != `{}` {
		t.Fatalf("posting %+v resource %+v", st.Postings[0], st.Resources[0])
	}
	// The loaded postings replay into a fresh ledger.
	l2, _ := ledger.New(ledger.Options{})
	for _, p := range st.Postings {
		pend, err := l2.Prepare(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := pend.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if l2.Len() != 1 {
		t.Fatal("replay lost the charge")
	}
}

func TestCanceledContext(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{rec("x", booking.Held)}}); err == nil {
		t.Fatal("write with a cancelled context succeeded")
	}
	st, _ := s.Load(context.Background())
	if len(st.Bookings) != 0 {
		t.Fatal("cancelled write stored")
	}
}

// TestNoWaitOrder: a NoWait batch is durable once a later Write returns.
func TestNoWaitOrder(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 100 {
		if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{rec(fmt.Sprintf("n%03d", i), booking.Held)}, NoWait: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{rec("n050", booking.Committed)}}); err != nil {
		t.Fatal(err)
	}
	// Read while open, without Close: the waited write implies the others.
	st, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Bookings) != 100 {
		t.Fatalf("%d stored", len(st.Bookings))
	}
	for _, r := range st.Bookings {
		if want := booking.Held; r.Booking.ID == "n050" {
			if r.Booking.Status != booking.Committed {
				t.Fatalf("n050 is %s: the later write was overtaken", r.Booking.Status)
			}
		} else if r.Booking.Status != want {
			t.Fatal(r.Booking.Status)
		}
	}
	s.Close()
}

// TestTornTail: a batch torn by a crash (a partial last line) is cut off on
// open; everything before it loads and later writes append after it.
func TestTornTail(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{rec("a", booking.Held)}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"b":[{"booking":{"booking_id":"torn"`)
	f.Close()
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{rec("b", booking.Held)}}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if len(st.Bookings) != 2 || st.Bookings[0].Booking.ID != "a" || st.Bookings[1].Booking.ID != "b" {
		t.Fatalf("%+v", st.Bookings)
	}
}
