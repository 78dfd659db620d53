package coreserve

import (
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	bolt "go.etcd.io/bbolt"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/memstore"
	"slotfare/booking/redisstore/redistest"
	"slotfare/booking/service"
)

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
func heldCoReservations(t *testing.T, br *Broker, day time.Time, n, from int) []string {
	t.Helper()
	resources := []string{"RAL", "Imperial", "CERN", "Bologna"}
	ids := make([]string, 0, n)
	for i := from; i < from+n; i++ {
		p := booking.Principal{AccountID: fmt.Sprintf("u%02d", i%20), Role: booking.RoleUser, VO: "1"}
		res := resources[(i/20)%len(resources)]
		v, err := br.Reserve(context.Background(), p, Request{Policy: Earliest, Parts: []Part{
			part(res, 1, day, day.AddDate(0, 0, 7), time.Hour)}})
		if err != nil {
			t.Fatalf("co-reservation %d on %s: %v", i, res, err)
		}
		ids = append(ids, v.ID)
	}
	return ids
}

// TestIdleTicksReadOnlyWhatIsDue holds 1,000 co-reservations on a real
// redis-server shared by three brokers (three replicas), each ticking
// (Recover) once a simulated second: while no hold is due, Redis runs fewer
// than 500 commands a second for all three together; once the first ten
// holds' time is over, the next tick expires those ten co-reservations, and
// only those.
func TestIdleTicksReadOnlyWhatIsDue(t *testing.T) {
	const (
		replicas  = 3
		early     = 10
		held      = 1000
		idleTicks = 10
		bound     = 500 // commands a second, all replicas together
	)
	ctx := context.Background()
	rdb := redistest.Start(t)
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	day := clk.t.Truncate(24*time.Hour).AddDate(0, 0, 14)
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.Open(cfg, memstore.New(), service.Options{Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	var brokers []*Broker
	for range replicas {
		brokers = append(brokers, New(svc, NewRedis(rdb, "sf"), Options{Now: clk.now}))
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
	st := NewRedis(rdb, "sf")
	for _, id := range first {
		if rec, found, err := st.Get(ctx, id); err != nil || !found || rec.Status != Expired {
			t.Fatalf("co-reservation %s after its hold lapsed: %v %v %s", id, err, found, rec.Status)
		}
	}
	for _, id := range rest[:50] {
		if rec, found, err := st.Get(ctx, id); err != nil || !found || rec.Status != Held {
			t.Fatalf("co-reservation %s, not due: %v %v %s", id, err, found, rec.Status)
		}
	}
}

// legacyRecords are an unsettled and a settled co-reservation as stores
// wrote them before the due index: no due time.
func legacyRecords(t *testing.T) (unsettled, settled Record, data [2][]byte) {
	t.Helper()
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	unsettled = Record{ID: "co_old", AccountID: "alice", Status: Committing, Policy: "earliest", CreatedAt: at, UpdatedAt: at,
		Parts: []PartRef{{BookingID: "bk_1", ResourceID: "RAL"}}}
	settled = Record{ID: "co_done", AccountID: "alice", Status: Committed, Policy: "earliest", CreatedAt: at, UpdatedAt: at}
	for i, r := range []Record{unsettled, settled} {
		d, err := encodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(d), "due_at") {
			t.Fatalf("a record without a due time is written with one: %s", d)
		}
		data[i] = d
	}
	return unsettled, settled, data
}

// TestRedisAdoptsRecordsWrittenBeforeShards: records a Redis store wrote
// before the due index (prefix:co:{id}, the unsettled ones listed in
// prefix:co:unsettled) are read where they are; an unsettled one is due at
// once at the first tick and moved into its shard, and one written over
// before that tick is moved by the write.
func TestRedisAdoptsRecordsWrittenBeforeShards(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Start(t)
	unsettled, settled, data := legacyRecords(t)
	second := unsettled
	second.ID = "co_old2"
	secondData, err := encodeRecord(second)
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
	st := NewRedis(rdb, "sf")
	if rec, found, err := st.Get(ctx, settled.ID); err != nil || !found || rec.Version != 3 || rec.Status != Committed {
		t.Fatalf("a settled record of the old layout: %v %v %+v", err, found, rec)
	}
	second.Status = Committed
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

// TestBoltFilesRecordsWrittenBeforeTheIndex: a file written before the
// due index has its unsettled records filed when it is opened, due at once.
func TestBoltFilesRecordsWrittenBeforeTheIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	unsettled, settled, data := legacyRecords(t)
	db, err := bolt.Open(filepath.Join(dir, BoltFileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucket(boltBucket)
		if err != nil {
			return err
		}
		for i, id := range []string{unsettled.ID, settled.ID} {
			val := binary.BigEndian.AppendUint64(nil, 2)
			if err := bk.Put([]byte(id), append(val, data[i]...)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := OpenBolt(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, err := st.Due(ctx, unsettled.UpdatedAt, 10, unsettled.UpdatedAt.Add(time.Minute))
	if err != nil || len(recs) != 1 || recs[0].ID != unsettled.ID || recs[0].Version != 2 {
		t.Fatalf("due after the open: %v %+v, want %s", err, recs, unsettled.ID)
	}
}
