package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare/booking"
	"slotfare/booking/inventory"
	"slotfare/booking/records"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
	"slotfare/ledger"
)

// commandCalls is how many times each command ran on rdb's server since
// its last CONFIG RESETSTAT (scripts' commands included).
func commandCalls(t *testing.T, rdb *redis.Client) map[string]int64 {
	t.Helper()
	s, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	u, err := redisstore.ParseUsage(s)
	if err != nil {
		t.Fatal(err)
	}
	return u.Calls
}

// TestChangesRewriteOnlyWhatMoves: on one server a change of a stored
// booking that keeps its list key and stays live (a commit) writes its
// record, its due time and its postings, and not again what its hold's
// step indexed with the record: no history member, live-set entry, pointer
// or account member. What it skips is still found: by id, on the account,
// in the live set and the history. A change that leaves the live set (a
// cancellation) still leaves it.
func TestChangesRewriteOnlyWhatMoves(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Start(t)
	_, recs := laidOut(t, rdb, "rw", 1, 3)
	now := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	held := guardedRec("b1", booking.Held)
	claim := records.HoldClaim{Resource: "R", Account: "alice", BookingID: "b1", Expires: now.Add(10 * time.Minute),
		NodeSeconds: 7200, MaxHolds: 5, MaxNodeSeconds: 1 << 40, Now: now}
	hold := records.Write{Resource: "R", WriteID: "h1", Changes: []records.Change{{Record: held}}}
	if ok, _, err := recs.AdmitApply(ctx, "R", "b1", 1, inventory.Terms{Start: 100, End: 200, Nodes: 2}, hold, claim); err != nil || !ok {
		t.Fatalf("hold: %v %v", ok, err)
	}
	l, err := ledger.New(ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	charge, err := l.Charge(ledger.BookingRef{ID: "b1", Customer: "alice", Resource: "R", Currency: "GRD"}, held.Booking.Price.Total, now)
	if err != nil {
		t.Fatal(err)
	}
	committed := guardedRec("b1", booking.Committed)
	commit := records.Write{Resource: "R", WriteID: "c1", Changes: []records.Change{{Record: committed, Replaces: 1}}, Postings: []ledger.Posting{charge}}
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if within, err := recs.WithinApply(ctx, "R", "b1", commit); err != nil || !within {
		t.Fatalf("commit: %v %v", within, err)
	}
	calls := commandCalls(t, rdb)
	// SADD: the charge's id on the resource and on the account; ZADD: the
	// due time and the change log, whose size is read once every so many
	// changes (ZCARD), not on every write. Before, the commit also set the
	// pointer (SET), the live set (SADD) and the history and the account's
	// list (ZADD) again.
	if calls["set"] != 0 || calls["sadd"] != 2 || calls["zadd"] != 2 || calls["srem"] != 0 || calls["zcard"] != 0 {
		t.Errorf("the commit ran SET %d, SADD %d, ZADD %d, SREM %d, ZCARD %d times; want 0, 2, 2, 0, 0",
			calls["set"], calls["sadd"], calls["zadd"], calls["srem"], calls["zcard"])
	}
	if got, found, err := recs.Get(ctx, "b1"); err != nil || !found || got.Version != 2 || got.Record.Booking.Status != booking.Committed {
		t.Fatalf("Get after the commit: %+v %v %v", got, found, err)
	}
	page, _, err := recs.OfAccount(ctx, "alice", "", 10)
	if err != nil || len(page) != 1 || page[0].Record.Booking.Status != booking.Committed {
		t.Fatalf("the account's bookings after the commit: %+v %v", page, err)
	}
	hist, _, err := recs.History(ctx, "R", "", 10)
	if err != nil || len(hist) != 1 || hist[0].Version != 2 {
		t.Fatalf("the resource's history after the commit: %+v %v", hist, err)
	}
	if live, err := recs.Live(ctx, "R"); err != nil || len(live) != 1 || live[0].Version != 2 {
		t.Fatalf("the live bookings after the commit: %+v %v", live, err)
	}

	cancelled := guardedRec("b1", booking.Cancelled)
	if err := recs.Apply(ctx, records.Write{Resource: "R", WriteID: "x1", Changes: []records.Change{{Record: cancelled, Replaces: 2}}}); err != nil {
		t.Fatal(err)
	}
	if live, err := recs.Live(ctx, "R"); err != nil || len(live) != 0 {
		t.Fatalf("a cancelled booking is still live: %+v %v", live, err)
	}
	if got, found, err := recs.Get(ctx, "b1"); err != nil || !found || got.Record.Booking.Status != booking.Cancelled {
		t.Fatalf("Get after the cancellation: %+v %v %v", got, found, err)
	}
}
