package redisstore_test

import (
	"context"
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/records"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
)

// TestClaimsReadRecordsWithoutStatus: a record hash keeps the booking's
// status apart ('s') for the hold-limit claims to read; one stored by an
// earlier slotfare has only its record, which the claim then decodes: held
// still counts, committed no longer does.
func TestClaimsReadRecordsWithoutStatus(t *testing.T) {
	rdb := redistest.Start(t)
	ctx := context.Background()
	recs := redisstore.NewRecords(rdb, "cl")
	now := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	claim := func(id string) records.HoldClaim {
		return records.HoldClaim{Resource: "R", Account: "alice", BookingID: id, Expires: now.Add(10 * time.Minute),
			NodeSeconds: 7200, MaxHolds: 1, MaxNodeSeconds: 1 << 40, Now: now}
	}
	if ok, _, err := recs.ClaimHold(ctx, claim("h1")); err != nil || !ok {
		t.Fatalf("h1's claim: %v %v", ok, err)
	}
	held := guardedRec("h1", booking.Held)
	if err := recs.Apply(ctx, records.Write{Resource: "R", WriteID: "w1", Changes: []records.Change{{Record: held}}}); err != nil {
		t.Fatal(err)
	}
	if s, err := rdb.HGet(ctx, "cl:{R}:bk:h1", "s").Result(); err != nil || s != "held" {
		t.Fatalf("h1's status apart: %q, %v", s, err)
	}
	// As an earlier slotfare stored it.
	if err := rdb.HDel(ctx, "cl:{R}:bk:h1", "s").Err(); err != nil {
		t.Fatal(err)
	}
	if ok, counted, err := recs.ClaimHold(ctx, claim("h2")); err != nil || ok || len(counted) != 1 || counted[0].BookingID != "h1" {
		t.Fatalf("a hold stored held without its status apart: ok %v, counted %+v, %v", ok, counted, err)
	}
	committed := held
	committed.Booking.Status = booking.Committed
	if err := recs.Apply(ctx, records.Write{Resource: "R", WriteID: "w2", Changes: []records.Change{{Record: committed, Replaces: 1}}}); err != nil {
		t.Fatal(err)
	}
	if err := rdb.HDel(ctx, "cl:{R}:bk:h1", "s").Err(); err != nil {
		t.Fatal(err)
	}
	if ok, counted, err := recs.ClaimHold(ctx, claim("h2")); err != nil || !ok {
		t.Fatalf("a hold stored committed without its status apart still counts: ok %v, counted %+v, %v", ok, counted, err)
	}
}
