package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare/booking"
	"slotfare/booking/inventory"
	"slotfare/booking/records"
)

// TestReleaseOrphans: a booking stored as no longer holding capacity whose
// inventory release never happened is released, with its nodes sold again;
// a held booking is left alone, and a second pass finds nothing.
func TestReleaseOrphans(t *testing.T) {
	onEachDeployment(t, releaseOrphans)
}

func releaseOrphans(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	inv, recs := laidOut(t, rdb, "o", 1, 3)
	now := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	terms := inventory.Terms{Start: 100, End: 200, Nodes: 1}
	for _, id := range []string{"b1", "b2", "b3"} {
		w := records.Write{Resource: "R", WriteID: "w" + id, Changes: []records.Change{{Record: guardedRec(id, booking.Held)}}}
		c := records.HoldClaim{Resource: "R", Account: "alice", BookingID: id, Expires: now.Add(10 * time.Minute),
			NodeSeconds: 100, MaxHolds: 10, MaxNodeSeconds: 1 << 40, Now: now}
		if ok, _, err := recs.AdmitApply(ctx, "R", id, 1, terms, w, c); err != nil || !ok {
			t.Fatalf("hold %s: %v %v", id, ok, err)
		}
	}
	// b2 is cancelled in the records; its release is lost.
	cancelled := guardedRec("b2", booking.Cancelled)
	if err := recs.Apply(ctx, records.Write{Resource: "R", WriteID: "c2", Changes: []records.Change{{Record: cancelled, Replaces: 1}}}); err != nil {
		t.Fatal(err)
	}
	if err := inv.Admit(ctx, "R", "b4", 1, terms); err == nil {
		t.Fatal("b4 admitted while b2's nodes are still held")
	}
	got, err := inv.ReleaseOrphans(ctx, "R")
	if err != nil || fmt.Sprint(got) != "[b2]" {
		t.Fatalf("orphans released: %v, %v; want [b2]", got, err)
	}
	for id, want := range map[string]bool{"b1": true, "b2": false, "b3": true} {
		if _, found, err := inv.Get(ctx, "R", id); err != nil || found != want {
			t.Fatalf("%s held %v after the release (%v), want %v", id, found, err, want)
		}
	}
	if err := inv.Admit(ctx, "R", "b4", 1, terms); err != nil {
		t.Fatalf("b2's node back on sale: %v", err)
	}
	// b4, admitted on the inventory alone, has no record: an orphan too.
	if got, err := inv.ReleaseOrphans(ctx, "R"); err != nil || fmt.Sprint(got) != "[b4]" {
		t.Fatalf("second pass: %v, %v; want [b4]", got, err)
	}
	if got, err := inv.ReleaseOrphans(ctx, "R"); err != nil || len(got) != 0 {
		t.Fatalf("third pass: %v, %v; want none", got, err)
	}
}
