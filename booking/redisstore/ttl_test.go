package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/idem"
	"slotfare/booking/records"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
	"slotfare/ledger"
)

var t0 = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

// TestWriteMarkers: a write that changes bookings keeps its marker in its
// first booking's record hash, as long as the record, so its retry answers
// applied at any time and no marker key is left to expire; a write of
// postings alone keeps a marker key with Redis's TTL of a day, and once that
// has expired its retry is checked again and refused, never applied twice.
func TestWriteMarkers(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Start(t)
	s := redisstore.NewRecords(rdb, "ttl")
	l, err := ledger.New(ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref := ledger.BookingRef{ID: "bk1", Customer: "alice", Resource: "R", Currency: "GRD"}
	c, err := l.Charge(ref, decimal.RequireFromString("10"), t0)
	if err != nil {
		t.Fatal(err)
	}
	r := booking.Record{Booking: booking.Booking{ID: "bk1", AccountID: "alice", ResourceID: "R", Status: booking.Committed,
		Start: t0.Add(time.Hour), End: t0.Add(2 * time.Hour), Nodes: 1, CreatedAt: t0, UpdatedAt: t0}}
	w := records.Write{Resource: "R", WriteID: "w1", Changes: []records.Change{{Record: r}}, Postings: []ledger.Posting{c}}
	if err := s.Apply(ctx, w); err != nil {
		t.Fatal(err)
	}
	hold := booking.Record{Booking: r.Booking}
	hold.Booking.ID, hold.Booking.Status = "bk2", booking.Held
	if err := s.Apply(ctx, records.Write{Resource: "R", WriteID: "w2", Changes: []records.Change{{Record: hold}}, NoWait: true}); err != nil {
		t.Fatal(err)
	}
	if markers, err := rdb.Keys(ctx, "ttl:{R}:w:*").Result(); err != nil || len(markers) != 0 {
		t.Fatalf("marker keys %v (%v) of writes that change bookings, want none", markers, err)
	}
	for bk, wid := range map[string]string{"bk1": "w1", "bk2": "w2"} {
		if ok, err := rdb.HExists(ctx, "ttl:{R}:bk:"+bk, "ttl:{R}:w:"+wid).Result(); err != nil || !ok {
			t.Fatalf("%s's record holds no marker of %s: %v", bk, wid, err)
		}
	}
	if err := s.Apply(ctx, w); err != nil {
		t.Fatalf("a retry of a write that changed a booking: %v", err)
	}

	// A write of postings alone: a goodwill credit to alice.
	p, err := l.Compensation("goodwill-1", ledger.BookingRef{Customer: "alice", Resource: "R", Currency: "GRD"}, decimal.RequireFromString("3"), t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	wp := records.Write{Resource: "R", WriteID: "w3", Postings: []ledger.Posting{p}}
	if err := s.Apply(ctx, wp); err != nil {
		t.Fatal(err)
	}
	ttl, err := rdb.PTTL(ctx, "ttl:{R}:w:w3").Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl <= 23*time.Hour || ttl > 24*time.Hour {
		t.Fatalf("the marker of a write of postings expires in %s, want a day", ttl)
	}
	if err := s.Apply(ctx, wp); err != nil {
		t.Fatalf("a retry while its marker lives: %v", err)
	}
	// The day passes for w3's marker.
	if err := rdb.PExpire(ctx, "ttl:{R}:w:w3", time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := rdb.Exists(ctx, "ttl:{R}:w:w3").Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Redis kept an expired write marker")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := s.Apply(ctx, wp); slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("a retry after its marker expired: %v, want a Conflict", err)
	}
	st, ps, ok, err := s.Booking(ctx, "bk1")
	if err != nil || !ok || st.Version != 1 || len(ps) != 1 {
		t.Fatalf("bk1 after its retries: %+v, %d postings, %v, %v", st, len(ps), ok, err)
	}
}

// TestKeysExpire: an Idempotency-Key carries Redis's TTL at every state,
// the claim's while pending and Finish's once done, so keys never outlive
// what the service asked for; an abandoned claim is gone at once.
func TestKeysExpire(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Start(t)
	k := redisstore.NewKeys(rdb, "ttl")
	key := "ttl:{acct:alice}:idem:k1"
	pttl := func() time.Duration {
		t.Helper()
		d, err := rdb.PTTL(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	now := time.Now()
	if c, err := k.Claim(ctx, "alice", "k1", "fp", 30*time.Second, now); err != nil || c.State != idem.Claimed {
		t.Fatalf("claim: %+v %v", c, err)
	}
	if d := pttl(); d <= 29*time.Second || d > 30*time.Second {
		t.Fatalf("a pending claim expires in %s, want 30s", d)
	}
	if err := k.Finish(ctx, "alice", "k1", "fp", "bk1", 24*time.Hour, now); err != nil {
		t.Fatal(err)
	}
	if d := pttl(); d <= 23*time.Hour || d > 24*time.Hour {
		t.Fatalf("a done key expires in %s, want a day", d)
	}
	if c, err := k.Claim(ctx, "alice", "k2", "fp", 30*time.Second, now); err != nil || c.State != idem.Claimed {
		t.Fatalf("claim k2: %+v %v", c, err)
	}
	if err := k.Abandon(ctx, "alice", "k2", "fp"); err != nil {
		t.Fatal(err)
	}
	if n, err := rdb.Exists(ctx, "ttl:{acct:alice}:idem:k2").Result(); err != nil || n != 0 {
		t.Fatalf("an abandoned claim: exists %d, %v", n, err)
	}
}
