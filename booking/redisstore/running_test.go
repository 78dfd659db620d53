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

// TestRunningOfAnEarlierLayout: a resource stored by a slotfare that kept
// no running set (its keys deleted here, one record without its status
// apart, one active booking missing from the due set) is counted from its
// live set on the first call, and the set then follows writes: the record
// without a status leaves it when it completes.
func TestRunningOfAnEarlierLayout(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Start(t)
	recs := redisstore.NewRecords(rdb, "old")
	t0 := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	mk := func(id string, st booking.Status, nodes int, end time.Time) booking.Record {
		r := guardedRec(id, st)
		r.Booking.Nodes, r.Booking.Start, r.Booking.End = nodes, t0, end
		return r
	}
	for _, r := range []booking.Record{mk("a", booking.Active, 2, t0.Add(2*time.Hour)), mk("b", booking.Active, 3, t0.Add(time.Hour)),
		mk("c", booking.Committed, 5, t0.Add(time.Hour)), mk("d", booking.Active, 7, t0.Add(time.Hour))} {
		if err := recs.Apply(ctx, records.Write{Resource: "R", WriteID: "w" + r.Booking.ID, Changes: []records.Change{{Record: r}}}); err != nil {
			t.Fatal(err)
		}
	}
	base := "old:{R}:"
	if err := rdb.Del(ctx, base+"run", base+"runn", base+"runmade").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.HDel(ctx, base+"bk:b", "s").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ZRem(ctx, base+"due", "d").Err(); err != nil {
		t.Fatal(err)
	}
	want := func(what string, at time.Time, n int) {
		t.Helper()
		got, err := recs.Running(ctx, "R", at)
		if err != nil || got != n {
			t.Fatalf("%s: %d nodes running, %v; want %d", what, got, err, n)
		}
	}
	// d, out of the due set, counts until its next write.
	want("made from the live set", t0.Add(30*time.Minute), 12)
	want("made from the live set", t0.Add(90*time.Minute), 9)
	done := mk("b", booking.Completed, 3, t0.Add(time.Hour))
	if err := recs.Apply(ctx, records.Write{Resource: "R", WriteID: "done", Changes: []records.Change{{Record: done, Replaces: 1}}}); err != nil {
		t.Fatal(err)
	}
	want("b completed", t0.Add(30*time.Minute), 9)
	done = mk("d", booking.Completed, 7, t0.Add(time.Hour))
	if err := recs.Apply(ctx, records.Write{Resource: "R", WriteID: "done-d", Changes: []records.Change{{Record: done, Replaces: 1}}}); err != nil {
		t.Fatal(err)
	}
	want("d completed", t0.Add(90*time.Minute), 2)
}
