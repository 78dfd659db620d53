package redisstore_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare/booking"
	"slotfare/booking/inventory"
	"slotfare/booking/records"
	"slotfare/booking/redisstore"
)

// onServers runs f on the server, or on every master of a cluster.
func onServers(t *testing.T, rdb redis.UniversalClient, f func(context.Context, *redis.Client) error) {
	t.Helper()
	if err := redisstore.OnEachServer(context.Background(), rdb, f); err != nil {
		t.Fatal(err)
	}
}

// flushFunctions deletes every function library on the server, or on every
// master of a cluster, as a new server or a FUNCTION FLUSH leaves it.
func flushFunctions(t *testing.T, rdb redis.UniversalClient) {
	t.Helper()
	onServers(t, rdb, func(ctx context.Context, c *redis.Client) error { return c.FunctionFlush(ctx).Err() })
}

// librariesOn lists the function libraries of the server, or of every
// master of a cluster.
func librariesOn(t *testing.T, rdb redis.UniversalClient) []string {
	t.Helper()
	var mu sync.Mutex
	var names []string
	onServers(t, rdb, func(ctx context.Context, c *redis.Client) error {
		libs, err := c.FunctionList(ctx, redis.FunctionListQuery{}).Result()
		mu.Lock()
		defer mu.Unlock()
		for _, l := range libs {
			names = append(names, l.Name)
		}
		return err
	})
	return names
}

// TestLibraryLoadedWhereMissing: the inventory's operations, the guarded
// steps and the write of records are functions of slotfare's library; a
// server that lacks it (flushed here, as a new server or a new master
// would) is given it by the first call that finds it missing, alone or in
// a pipeline, and the call then does what it was sent to do, once.
func TestLibraryLoadedWhereMissing(t *testing.T) {
	onEachDeployment(t, libraryLoadedWhereMissing)
}

func libraryLoadedWhereMissing(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	inv, recs := laidOut(t, rdb, "lib", 1, 3)
	now := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	claim := records.HoldClaim{Resource: "R", Account: "alice", BookingID: "b1", Expires: now.Add(10 * time.Minute),
		NodeSeconds: 7200, MaxHolds: 5, MaxNodeSeconds: 1 << 40, Now: now}
	libs := librariesOn(t, rdb)
	if len(libs) == 0 || !strings.HasPrefix(libs[0], "slotfare_") {
		t.Fatalf("libraries after laying R out: %v", libs)
	}

	// A guarded step (one server: in the pipeline of its index; a cluster:
	// alone, then its index).
	flushFunctions(t, rdb)
	held := guardedRec("b1", booking.Held)
	w := records.Write{Resource: "R", WriteID: "w1", Changes: []records.Change{{Record: held}}}
	if ok, _, err := recs.AdmitApply(ctx, "R", "b1", 1, inventory.Terms{Start: 100, End: 200, Nodes: 2}, w, claim); err != nil || !ok {
		t.Fatalf("a hold on a server without the library: %v, %v", ok, err)
	}
	if st, found, err := recs.Get(ctx, "b1"); err != nil || !found || st.Version != 1 {
		t.Fatalf("b1 after its hold: %+v %v %v", st, found, err)
	}
	if mine, _, err := recs.OfAccount(ctx, "alice", "", 10); err != nil || len(mine) != 1 {
		t.Fatalf("alice's bookings after b1's hold: %+v, %v", mine, err)
	}

	// An inventory operation.
	flushFunctions(t, rdb)
	if ok, err := inv.Fits(ctx, "R", 0, 100, 200, 2); err != nil || ok {
		t.Fatalf("2 more nodes where b1 holds 2 of 3: fits %v, %v", ok, err)
	}
	if ok, err := inv.Fits(ctx, "R", 0, 100, 200, 1); err != nil || !ok {
		t.Fatalf("1 more node where b1 holds 2 of 3: fits %v, %v", ok, err)
	}

	// A write of records alone.
	flushFunctions(t, rdb)
	cancelled := held
	cancelled.Booking.Status = booking.Cancelled
	if err := recs.Apply(ctx, records.Write{Resource: "R", WriteID: "w2", Changes: []records.Change{{Record: cancelled, Replaces: 1}}}); err != nil {
		t.Fatalf("a write on a server without the library: %v", err)
	}
	if st, found, err := recs.Get(ctx, "b1"); err != nil || !found || st.Version != 2 || st.Record.Booking.Status != booking.Cancelled {
		t.Fatalf("b1 after its cancellation: %+v %v %v", st, found, err)
	}
	if live, err := recs.Live(ctx, "R"); err != nil || len(live) != 0 {
		t.Fatalf("live after b1's cancellation: %d, %v", len(live), err)
	}

	// Loaded once per server, under one name.
	libs = librariesOn(t, rdb)
	for _, l := range libs {
		if l != libs[0] {
			t.Fatalf("libraries after the calls: %v", libs)
		}
	}
	if _, cluster := rdb.(*redis.ClusterClient); (cluster && len(libs) != 3) || (!cluster && len(libs) != 1) {
		t.Fatalf("libraries after the calls: %v", libs)
	}
}
