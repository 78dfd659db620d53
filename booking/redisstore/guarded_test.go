package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare/booking"
	"slotfare/booking/internal/guardedtest"
	"slotfare/booking/records"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
)

// guardedRec is booking id's record on R with status st, over one group.
func guardedRec(id string, st booking.Status) booking.Record { return guardedtest.Rec(id, st) }

// TestGuardedStepsContract runs the contract of the guarded steps (one
// function of the library each) on one redis-server and on a three-master
// Redis Cluster. A stored write is indexed by the same call, a refused one
// nowhere: on one server the index rides in the step's pipeline, guarded
// by the write's marker; on a cluster it is a second round trip.
func TestGuardedStepsContract(t *testing.T) {
	onEachDeployment(t, func(t *testing.T, rdb redis.UniversalClient) {
		var n atomic.Int64
		guardedtest.Run(t, func(t *testing.T) guardedtest.Ports {
			prefix := fmt.Sprintf("g%d", n.Add(1))
			recs := redisstore.NewRecords(rdb, prefix)
			return guardedtest.Ports{Inventory: redisstore.NewInventory(rdb, prefix), Records: recs, Guarded: recs, Idem: redisstore.NewKeys(rdb, prefix),
				Traced: func(t *testing.T, id string) bool {
					n, err := rdb.Exists(context.Background(), prefix+":{bk:"+id+"}:res").Result()
					if err != nil {
						t.Fatal(err)
					}
					return n != 0
				}}
		})
	})
}

// TestDueIndexesWhenTheTickerMustLook: a hold is due at its expiry (or
// its start, if sooner), a committed booking at its start, an active one at
// its end, and a booking that stops holding capacity leaves the index in
// the write that says so.
func TestDueIndexesWhenTheTickerMustLook(t *testing.T) {
	rdb := redistest.Start(t)
	ctx := context.Background()
	recs := redisstore.NewRecords(rdb, "d")
	held := guardedRec("h", booking.Held)
	exp := held.Booking.Start.Add(-30 * time.Minute)
	held.Booking.HoldExpiresAt = &exp
	committed := guardedRec("c", booking.Committed)
	committed.Booking.Start = held.Booking.Start.Add(time.Hour)
	active := guardedRec("a", booking.Active)
	active.Booking.End = held.Booking.Start.Add(3 * time.Hour)
	cancelled := guardedRec("x", booking.Held)
	w := records.Write{Resource: "R", WriteID: "w1", Changes: []records.Change{{Record: held}, {Record: committed}, {Record: active}, {Record: cancelled}}}
	if err := recs.Apply(ctx, w); err != nil {
		t.Fatal(err)
	}
	cancelled.Booking.Status = booking.Cancelled
	if err := recs.Apply(ctx, records.Write{Resource: "R", WriteID: "w2", Changes: []records.Change{{Record: cancelled, Replaces: 1}}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		until time.Time
		want  string
	}{
		{exp.Add(-time.Second), ""},
		{exp, "h"},
		{committed.Booking.Start, "c h"},
		{active.Booking.End, "a c h"},
	} {
		sts, err := recs.Due(ctx, "R", c.until)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, st := range sts {
			ids = append(ids, st.Record.Booking.ID)
		}
		if got := strings.Join(ids, " "); got != c.want {
			t.Fatalf("due by %s: %q, want %q", c.until, got, c.want)
		}
	}
}
