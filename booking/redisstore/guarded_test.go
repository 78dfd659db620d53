package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/idem"
	"slotfare/booking/internal/guardedtest"
	"slotfare/booking/inventory"
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
			return guardedtest.Ports{Inventory: redisstore.NewInventory(rdb, prefix), Records: recs, Guarded: recs,
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

// TestGuardedHoldFoldsItsKey: on one server a hold's guarded step claims
// and finishes its Idempotency-Key with the hold; the same request again
// (another booking id) names the first booking and holds nothing, another
// request with the key is a Conflict, and a key another request claimed on
// the idem port stops the step unless the write says it is its own.
func TestGuardedHoldFoldsItsKey(t *testing.T) {
	rdb := redistest.Start(t)
	ctx := context.Background()
	inv, recs, keys := redisstore.NewInventory(rdb, "k"), redisstore.NewRecords(rdb, "k"), redisstore.NewKeys(rdb, "k")
	if !recs.FoldsKeys() {
		t.Fatal("one server does not fold keys")
	}
	if err := inv.Ensure(ctx, "R", 1, 10); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	hold := func(id, key, fp string, claimed bool) error {
		r := guardedRec(id, booking.Held)
		r.Account, r.IdemKey, r.Fingerprint = "alice", key, fp
		w := records.Write{Resource: "R", WriteID: "w-" + id, Changes: []records.Change{{Record: r}}, KeyTTL: time.Hour, KeyClaimed: claimed}
		c := records.HoldClaim{Resource: "R", Account: "alice", BookingID: id, Expires: now.Add(10 * time.Minute),
			NodeSeconds: 1, MaxHolds: 100, MaxNodeSeconds: 1 << 40, Now: now}
		ok, counted, err := recs.AdmitApply(ctx, "R", id, 1, inventory.Terms{Start: 100, End: 200, Nodes: 1}, w, c)
		if err == nil && !ok {
			return fmt.Errorf("over the hold limits: %v", counted)
		}
		return err
	}
	held := func(id string) bool {
		t.Helper()
		_, found, err := inv.Get(ctx, "R", id)
		if err != nil {
			t.Fatal(err)
		}
		return found
	}
	if err := hold("b1", "k1", "fp1", false); err != nil {
		t.Fatal(err)
	}
	if c, err := keys.Claim(ctx, "alice", "k1", "fp1", time.Minute, now); err != nil || c.State != idem.Done || c.Result != "b1" {
		t.Fatalf("the key after its hold: %+v, %v", c, err)
	}
	var done *records.KeyDone
	if err := hold("b2", "k1", "fp1", false); !errors.As(err, &done) || done.Booking != "b1" || held("b2") {
		t.Fatalf("the same request again: %v (b2 held: %v)", err, held("b2"))
	}
	if err := hold("b3", "k1", "fp2", false); slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "Idempotency-Key" || held("b3") {
		t.Fatalf("another request with the key: %v", err)
	}
	// k2 claimed on the idem port by another request, still running.
	if c, err := keys.Claim(ctx, "alice", "k2", "fp1", time.Minute, now); err != nil || c.State != idem.Claimed {
		t.Fatalf("claiming k2: %+v, %v", c, err)
	}
	if err := hold("b4", "k2", "fp1", false); !errors.Is(err, records.ErrKeyPending) || held("b4") {
		t.Fatalf("a key another request holds: %v", err)
	}
	if err := hold("b5", "k2", "fp1", true); err != nil || !held("b5") {
		t.Fatalf("the key's own claimer: %v", err)
	}
	if c, err := keys.Claim(ctx, "alice", "k2", "fp1", time.Minute, now); err != nil || c.State != idem.Done || c.Result != "b5" {
		t.Fatalf("k2 after its claimer's hold: %+v, %v", c, err)
	}
	if redisstore.NewRecords(redistest.StartCluster(t), "k").FoldsKeys() {
		t.Fatal("a cluster folds keys: the key's slot may be on another master")
	}
}
