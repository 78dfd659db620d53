package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"

	"slotfare/booking"
	"slotfare/booking/records"
	"slotfare/booking/redisstore"
	"slotfare/ledger"
)

// TestRepairIndexPutsBackLostPostings: a process that dies between a
// write and its indexing leaves the charge in the resource's log but not in
// the account's postings (invoices); RepairIndex puts it back, once,
// however often it runs, and goes through a log longer than one batch.
func TestRepairIndexPutsBackLostPostings(t *testing.T) {
	onEachDeployment(t, repairPutsBack)
}

func repairPutsBack(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	recs := redisstore.NewRecords(rdb, "rp")
	t0 := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	const n = 600 // more than one repair batch
	for i := range n {
		r := guardedRec(fmt.Sprintf("bk%d", i), booking.Committed)
		l, err := ledger.New(ledger.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := l.Charge(ledger.BookingRef{ID: r.Booking.ID, Customer: "alice", Resource: "R", Currency: "GRD"}, decimal.RequireFromString("10"), t0)
		if err != nil {
			t.Fatal(err)
		}
		if err := recs.Apply(ctx, records.Write{Resource: "R", WriteID: "w" + r.Booking.ID, Changes: []records.Change{{Record: r}}, Postings: []ledger.Posting{p}}); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		t.Helper()
		ps, err := recs.Postings(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		return len(ps)
	}
	if got := count(); got != n {
		t.Fatalf("%d postings indexed, want %d", got, n)
	}
	// The crash: alice's index is lost, the resource's slot keeps all.
	if err := rdb.Del(ctx, "rp:{acct:alice}:postings", "rp:{acct:alice}:posted").Err(); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != 0 {
		t.Fatalf("%d postings after the loss", got)
	}
	done, err := recs.RepairIndex(ctx, "R")
	if err != nil || done != n {
		t.Fatalf("repair went through %d postings, want %d: %v", done, n, err)
	}
	if got := count(); got != n {
		t.Fatalf("%d postings after the repair, want %d", got, n)
	}
	// Again, and after the cursor is lost: nothing twice.
	if done, err := recs.RepairIndex(ctx, "R"); err != nil || done != 0 {
		t.Fatalf("a second repair went through %d: %v", done, err)
	}
	if err := rdb.Del(ctx, "rp:{R}:logidx").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := recs.RepairIndex(ctx, "R"); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != n {
		t.Fatalf("%d postings after a repair from the start, want %d", got, n)
	}
	// An account whose id its posting's encoding escapes ("&" as \u0026)
	// is read too.
	r := guardedRec("bkX", booking.Committed)
	r.Booking.AccountID = "o'neil&co"
	l, err := ledger.New(ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Charge(ledger.BookingRef{ID: "bkX", Customer: "o'neil&co", Resource: "R", Currency: "GRD"}, decimal.RequireFromString("10"), t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := recs.Apply(ctx, records.Write{Resource: "R", WriteID: "wX", Changes: []records.Change{{Record: r}}, Postings: []ledger.Posting{p}}); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Del(ctx, "rp:{acct:o'neil&co}:postings", "rp:{acct:o'neil&co}:posted").Err(); err != nil {
		t.Fatal(err)
	}
	if done, err := recs.RepairIndex(ctx, "R"); err != nil || done != 1 {
		t.Fatalf("repair of an escaped account's posting went through %d: %v", done, err)
	}
	if ps, err := recs.Postings(ctx, "o'neil&co"); err != nil || len(ps) != 1 || ps[0].ID != "bkX/charge" {
		t.Fatalf("o'neil&co's postings after the repair: %v, %v", ps, err)
	}
}
