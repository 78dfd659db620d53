// Package storetest is the contract every booking.Store must keep, run by
// each store's own tests against real files: what a Write acknowledged is
// there after Close and reopen, concurrent writes are all kept, a cancelled
// write stores nothing, and a NoWait batch is ordered before a later write.
package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/booking"
	"slotfare/ledger"
)

// Opener opens (creating if needed) a store in directory dir.
type Opener func(dir string) (booking.Store, error)

// Run checks the contract on the store open makes.
func Run(t *testing.T, open Opener) {
	t.Run("WriteReopenLoad", func(t *testing.T) { writeReopenLoad(t, open) })
	t.Run("CanceledContext", func(t *testing.T) { canceledContext(t, open) })
	t.Run("NoWaitOrder", func(t *testing.T) { noWaitOrder(t, open) })
	t.Run("RefusalsInOrder", func(t *testing.T) { refusalsInOrder(t, open) })
	t.Run("DemandAddsUp", func(t *testing.T) { demandAddsUp(t, open) })
	t.Run("KeysLatestByName", func(t *testing.T) { keysLatestByName(t, open) })
	t.Run("RetiredResource", func(t *testing.T) { retiredResource(t, open) })
}

// keysLatestByName: API key records survive Close and reopen, the latest
// record of each name only (a revocation replaces the key's record).
func keysLatestByName(t *testing.T, open Opener) {
	dir := t.TempDir()
	ctx := context.Background() // a test suite's call: no request's
	s, err := open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	k := func(name string, revoked bool) booking.KeyRecord {
		r := booking.KeyRecord{Name: name, KeySHA256: booking.HashKey(name), Role: booking.RoleUser, AccountID: "acct-" + name, VO: "1", CreatedAt: t0}
		if revoked {
			at := t0.Add(time.Hour)
			r.RevokedAt = &at
		}
		return r
	}
	for _, b := range []booking.Batch{
		{Keys: []booking.KeyRecord{k("a", false), k("b", false)}},
		{Keys: []booking.KeyRecord{k("a", true)}, Bookings: []booking.Record{Record("b1", booking.Held)}},
		{Keys: []booking.KeyRecord{k("c", false)}, NoWait: true},
	} {
		if err := s.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]booking.KeyRecord{}
	for _, r := range st.Keys {
		if _, dup := got[r.Name]; dup {
			t.Errorf("key %q loaded twice", r.Name)
		}
		got[r.Name] = r
	}
	if len(got) != 3 || got["a"].RevokedAt == nil || !got["a"].RevokedAt.Equal(t0.Add(time.Hour)) || got["b"].RevokedAt != nil ||
		got["c"].KeySHA256 != booking.HashKey("c") || got["c"].Role != booking.RoleUser || got["c"].VO != "1" || !got["c"].CreatedAt.Equal(t0) {
		t.Errorf("loaded keys %+v", st.Keys)
	}
}

// retiredResource: a resource record's retirement survives Close and
// reopen, and a later record of the id (a PUT) replaces it.
func retiredResource(t *testing.T, open Opener) {
	dir := t.TempDir()
	ctx := context.Background() // a test suite's call: no request's
	s, err := open(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	rc := func(id string, retired *time.Time) booking.ResourceRecord {
		return ResourceRecord(id, retired)
	}
	for _, b := range []booking.Batch{
		{Resources: []booking.ResourceRecord{rc("X", nil), rc("Y", nil)}},
		{Resources: []booking.ResourceRecord{rc("X", &at), rc("Y", &at)}},
		{Resources: []booking.ResourceRecord{rc("Y", nil)}},
	} {
		if err := s.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*time.Time{}
	for _, r := range st.Resources {
		got[r.ID] = r.RetiredAt
		if want := ResourceRecord(r.ID, nil).Config; string(r.Config) != string(want) {
			t.Errorf("resource %s: config %s, want it as written: %s", r.ID, r.Config, want)
		}
	}
	if len(st.Resources) != 2 || got["X"] == nil || !got["X"].Equal(at) || got["Y"] != nil {
		t.Errorf("loaded resources %+v", st.Resources)
	}
}

// refusalsInOrder: refusals survive Close and reopen, every one, in the
// order written, alongside the other records of their batches.
func refusalsInOrder(t *testing.T, open Opener) {
	dir := t.TempDir()
	ctx := context.Background() // a test suite's call: no request's
	s, err := open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	var want []booking.RefusalRecord
	for i := range 5 {
		r := booking.RefusalRecord{Resource: "RAL", Class: fmt.Sprintf("c%d", i), Start: t0.Add(time.Duration(i) * time.Hour),
			End: t0.Add(time.Duration(i+1) * time.Hour), At: t0.Add(-time.Minute)}
		want = append(want, r)
		b := booking.Batch{Refusals: []booking.RefusalRecord{r}, NoWait: i%2 == 0}
		if i == 3 {
			b.Bookings = []booking.Record{Record("b1", booking.Held)}
		}
		if err := s.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Refusals) != len(want) || len(st.Bookings) != 1 {
		t.Fatalf("loaded %d refusals and %d bookings, want %d and 1", len(st.Refusals), len(st.Bookings), len(want))
	}
	for i, r := range st.Refusals {
		w := want[i]
		if r.Resource != w.Resource || r.Class != w.Class || !r.Start.Equal(w.Start) || !r.End.Equal(w.End) || !r.At.Equal(w.At) {
			t.Errorf("refusal %d = %+v, want %+v", i, r, w)
		}
	}
}

// Record is a booking record with every field the stores must keep.
func Record(id string, st booking.Status) booking.Record {
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	return booking.Record{Booking: booking.Booking{ID: id, AccountID: "alice", Status: st, ResourceID: "RAL",
		Start: t0, End: t0.Add(time.Hour), Nodes: 2, FareClass: "budget",
		Price:     booking.Price{Base: decimal.RequireFromString("3.50"), DelayPremium: decimal.Zero, Total: decimal.RequireFromString("3.50"), Currency: "GRD"},
		CreatedAt: t0, UpdatedAt: t0}, Account: "alice", IdemKey: "k-" + id, Fingerprint: "f", Groups: 3}
}

// ResourceRecord is a resource's record as the service stores it: its
// configuration is opaque JSON to a store, which must give it back byte for
// byte and key the record by its id.
func ResourceRecord(id string, retired *time.Time) booking.ResourceRecord {
	return booking.ResourceRecord{ID: id, Config: json.RawMessage(`{"id":"` + id + `","nodes":3,"base_cost":"1","currency":"GRD"}`), RetiredAt: retired}
}

// writeReopenLoad: writes (concurrent ones too) survive Close and reopen, and
// the loaded postings replay into a fresh ledger.
func writeReopenLoad(t *testing.T, open Opener) {
	dir := t.TempDir()
	ctx := context.Background() // a test suite's call: no request's
	s, err := open(dir)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := ledger.New(ledger.Options{})
	ref := ledger.BookingRef{ID: "b1", Customer: "alice", Resource: "RAL", Currency: "GRD"}
	p, err := l.Charge(ref, decimal.RequireFromString("3.50"), time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{Record("b1", booking.Held)}, Secret: []byte("s3cret")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{Record("b1", booking.Committed)}, Postings: []ledger.Posting{p},
		Resources: []booking.ResourceRecord{{ID: "X", Config: ResourceRecord("X", nil).Config, Queue: []byte(`{}`)}}}); err != nil {
		t.Fatal(err)
	}
	// Concurrent writers share transactions; every one must be stored.
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{Record(fmt.Sprintf("c%02d", i), booking.Held)}}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{Record("late", booking.Held)}}); err == nil {
		t.Fatal("write after close succeeded")
	}
	s, err = open(dir)
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
	if st.Postings[0].ID != "b1/charge" || st.Resources[0].ID != "X" || string(st.Resources[0].Config) != string(ResourceRecord("X", nil).Config) || string(st.Resources[0].Queue) != `{}` {
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

// canceledContext: a write whose context is already cancelled stores nothing.
func canceledContext(t *testing.T, open Opener) {
	s, err := open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background()) // a test suite's call: no request's
	cancel()
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{Record("x", booking.Held)}}); err == nil {
		t.Fatal("write with a cancelled context succeeded")
	}
	st, _ := s.Load(context.Background()) // a test suite's call: no request's
	if len(st.Bookings) != 0 {
		t.Fatal("cancelled write stored")
	}
}

// noWaitOrder: a NoWait batch is durable once a later Write returns.
func noWaitOrder(t *testing.T, open Opener) {
	dir := t.TempDir()
	s, err := open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background() // a test suite's call: no request's
	for i := range 100 {
		if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{Record(fmt.Sprintf("n%03d", i), booking.Held)}, NoWait: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{Record("n050", booking.Committed)}}); err != nil {
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

// BenchmarkWrite is one booking record written durably from 64 concurrent
// writers (GOMAXPROCS x 32 goroutines on two cores): what group commit buys.
func BenchmarkWrite(b *testing.B, open Opener) {
	s, err := open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var n atomic.Int64
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.Write(context.Background(), booking.Batch{Bookings: []booking.Record{Record(fmt.Sprint(n.Add(1)), booking.Held)}}); err != nil { // a test suite's call: no request's
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}

// demandAddsUp: demand writes add to the records of the same key across
// batches and a reopen, a write's Forget drops its resource's instances
// before it (and no other resource's), and Load gives every record.
func demandAddsUp(t *testing.T, open Opener) {
	dir := t.TempDir()
	ctx := context.Background() // a test suite's call: no request's
	s, err := open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	rec := func(res, class string, h int, booked int64) booking.DemandRecord {
		return booking.DemandRecord{Resource: res, Class: class, Period: "peak", Instance: t0.Add(time.Duration(h) * time.Hour),
			Day: t0.Truncate(24 * time.Hour), Counts: booking.DemandCounts{Booked: booking.DemandTally{Requests: booked, NodeSeconds: 60 * booked},
				BoughtUp: map[string]booking.DemandTally{"gold": {Requests: 1}}}}
	}
	write := func(b booking.Batch) {
		t.Helper()
		if err := s.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	write(booking.Batch{Demand: []booking.DemandWrite{{Resource: "RAL", Records: []booking.DemandRecord{rec("RAL", "budget", 1, 2), rec("RAL", "budget", 5, 1)}}}})
	write(booking.Batch{Demand: []booking.DemandWrite{{Resource: "BO", Records: []booking.DemandRecord{rec("BO", "budget", 1, 4)}}}, NoWait: true})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	write(booking.Batch{Demand: []booking.DemandWrite{{Resource: "RAL", Records: []booking.DemandRecord{rec("RAL", "budget", 5, 3)}, Forget: t0.Add(2 * time.Hour)}}})
	st, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range st.Demand {
		got = append(got, fmt.Sprintf("%s %s +%v booked %d/%d up %d", r.Resource, r.Class, r.Instance.Sub(t0), r.Counts.Booked.Requests,
			r.Counts.Booked.NodeSeconds, r.Counts.BoughtUp["gold"].Requests))
	}
	sort.Strings(got)
	if want := "[BO budget +1h0m0s booked 4/240 up 1 RAL budget +5h0m0s booked 4/240 up 2]"; fmt.Sprint(got) != want {
		t.Fatalf("demand loaded:\n got %v\nwant %s", got, want)
	}
}
