package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/coreserve"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/internal/coreservetest"
	"slotfare/booking/memstore"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
	"slotfare/booking/service"
)

// TestCoReservationsContract runs booking/coreserve's Store contract on a
// real redis-server and on a three-master Redis Cluster (a new
// CoReservations over it, as another replica).
func TestCoReservationsContract(t *testing.T) {
	for name, start := range map[string]func(testing.TB) redis.UniversalClient{
		"server":  func(t testing.TB) redis.UniversalClient { return redistest.Start(t) },
		"cluster": func(t testing.TB) redis.UniversalClient { return redistest.StartCluster(t) },
	} {
		t.Run(name, func(t *testing.T) {
			coreservetest.Contract(t, func(t *testing.T) (coreserve.Store, func() coreserve.Store) {
				c := start(t)
				return redisstore.NewCoReservations(c, "sf"), func() coreserve.Store { return redisstore.NewCoReservations(c, "sf") }
			})
		})
	}
}

// coClock is a settable clock shared by the service and the brokers.
type coClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *coClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *coClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// commandsProcessed is the server's count of the commands it has run
// (INFO stats), the INFO that reads it included.
func commandsProcessed(t *testing.T, c *redis.Client) int64 {
	t.Helper()
	info, err := c.Info(context.Background(), "stats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "total_commands_processed:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no total_commands_processed in %q", info)
	return 0
}

// heldCoReservations reserves n one-part co-reservations of one node for
// an hour through br, spread over accounts and resources so that no
// account reaches a hold limit; it returns their ids.
func heldCoReservations(t *testing.T, br *coreserve.Broker, day time.Time, n, from int) []string {
	t.Helper()
	resources := []string{"RAL", "Imperial", "CERN", "Bologna"}
	ids := make([]string, 0, n)
	for i := from; i < from+n; i++ {
		p := booking.Principal{AccountID: fmt.Sprintf("u%02d", i%20), Role: booking.RoleUser, VO: "1"}
		res := resources[(i/20)%len(resources)]
		v, err := br.Reserve(context.Background(), p, coreserve.Request{Policy: coreserve.Earliest, Parts: []coreserve.Part{
			{ResourceID: res, Nodes: 1, EarliestStart: day, LatestEnd: day.AddDate(0, 0, 7), Duration: time.Hour}}})
		if err != nil {
			t.Fatalf("co-reservation %d on %s: %v", i, res, err)
		}
		ids = append(ids, v.ID)
	}
	return ids
}

// TestCoReservationsIdleTicksReadOnlyWhatIsDue holds 1,000 co-reservations on a real
// redis-server shared by three brokers (three replicas), each ticking
// (Recover) once a simulated second: while no hold is due, Redis runs fewer
// than 500 commands a second for all three together; once the first ten
// holds' time is over, the next tick expires those ten co-reservations, and
// only those.
func TestCoReservationsIdleTicksReadOnlyWhatIsDue(t *testing.T) {
	const (
		replicas  = 3
		early     = 10
		held      = 1000
		idleTicks = 10
		bound     = 500 // commands a second, all replicas together
	)
	ctx := context.Background()
	rdb := redistest.Start(t)
	clk := &coClock{t: time.Now().UTC().Truncate(time.Second)}
	day := clk.t.Truncate(24*time.Hour).AddDate(0, 0, 14)
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.Open(cfg, deploytest.Embedded(t, memstore.New()), service.Options{Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	var brokers []*coreserve.Broker
	for range replicas {
		brokers = append(brokers, coreserve.New(svc, redisstore.NewCoReservations(rdb, "sf"), coreserve.Options{Now: clk.now}))
	}
	firstHeldAt := clk.now()
	first := heldCoReservations(t, brokers[0], day, early, 0)
	clk.add(5 * time.Minute)
	rest := heldCoReservations(t, brokers[1], day, held-early, early)
	tick := func() int {
		n := 0
		for i, br := range brokers {
			m, err := br.Recover(ctx)
			if err != nil {
				t.Fatalf("replica %d's tick: %v", i, err)
			}
			n += m
		}
		return n
	}

	before := commandsProcessed(t, rdb)
	for range idleTicks {
		clk.add(time.Second)
		if n := tick(); n != 0 {
			t.Fatalf("an idle tick changed %d co-reservations", n)
		}
	}
	perSecond := float64(commandsProcessed(t, rdb)-before-1) / idleTicks
	t.Logf("%d held co-reservations, %d replicas ticking: %.0f Redis commands a second", held, replicas, perSecond)
	if perSecond >= bound {
		t.Fatalf("idle ticks ran %.0f Redis commands a second, want fewer than %d", perSecond, bound)
	}

	// The first holds' time is over (the demo's resources hold for 600 s).
	clk.t = firstHeldAt.Add(600 * time.Second)
	if n := tick(); n != early {
		t.Fatalf("the tick after the first holds lapsed settled %d co-reservations, want %d", n, early)
	}
	st := redisstore.NewCoReservations(rdb, "sf")
	for _, id := range first {
		if rec, found, err := st.Get(ctx, id); err != nil || !found || rec.Status != coreserve.Expired {
			t.Fatalf("co-reservation %s after its hold lapsed: %v %v %s", id, err, found, rec.Status)
		}
	}
	for _, id := range rest[:50] {
		if rec, found, err := st.Get(ctx, id); err != nil || !found || rec.Status != coreserve.Held {
			t.Fatalf("co-reservation %s, not due: %v %v %s", id, err, found, rec.Status)
		}
	}
}

// TestCoReservationsAdoptRecordsWrittenBeforeShards: records a Redis store wrote
// before the due index (prefix:co:{id}, the unsettled ones listed in
// prefix:co:unsettled) are read where they are; an unsettled one is due at
// once at the first tick and moved into its shard, and one written over
// before that tick is moved by the write.
func TestCoReservationsAdoptRecordsWrittenBeforeShards(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Start(t)
	unsettled, settled, data := coreservetest.LegacyRecords(t)
	second := unsettled
	second.ID = "co_old2"
	secondData, err := coreserve.EncodeRecord(second)
	if err != nil {
		t.Fatal(err)
	}
	for id, d := range map[string][]byte{"co_old": data[0], "co_done": data[1], "co_old2": secondData} {
		if err := rdb.HSet(ctx, "sf:co:{"+id+"}", "v", 3, "r", d).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := rdb.SAdd(ctx, "sf:co:unsettled", "co_old", "co_old2").Err(); err != nil {
		t.Fatal(err)
	}
	st := redisstore.NewCoReservations(rdb, "sf")
	if rec, found, err := st.Get(ctx, settled.ID); err != nil || !found || rec.Version != 3 || rec.Status != coreserve.Committed {
		t.Fatalf("a settled record of the old layout: %v %v %+v", err, found, rec)
	}
	second.Status = coreserve.Committed
	if v, err := st.Put(ctx, second, 3); err != nil || v != 4 {
		t.Fatalf("a write over an unsettled record of the old layout: %d %v", v, err)
	}
	recs, err := st.Due(ctx, unsettled.UpdatedAt, 10, unsettled.UpdatedAt.Add(time.Minute))
	if err != nil || len(recs) != 1 || recs[0].ID != "co_old" || recs[0].Version != 3 {
		t.Fatalf("due at the first tick: %v %+v, want co_old at version 3", err, recs)
	}
	if n, err := rdb.Exists(ctx, "sf:co:{co_old}", "sf:co:{co_old2}", "sf:co:unsettled").Result(); err != nil || n != 0 {
		t.Fatalf("%d keys of the old layout left for unsettled records (%v)", n, err)
	}
	for id, want := range map[string]int64{"co_old": 3, "co_old2": 4} {
		if rec, found, err := st.Get(ctx, id); err != nil || !found || rec.Version != want {
			t.Fatalf("%s after the move: %v %v %+v", id, err, found, rec)
		}
	}
}
