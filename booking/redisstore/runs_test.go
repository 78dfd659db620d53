package redisstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare/booking/internal/runstest"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
	"slotfare/booking/runs"
)

// TestRunsContract runs runs.Store's contract on a real redis-server (a
// second Runs over the same server, as another replica) and on a
// three-master Redis Cluster, where every script's keys are in one slot.
func TestRunsContract(t *testing.T) {
	for name, start := range map[string]func(testing.TB) redis.UniversalClient{
		"server":  func(t testing.TB) redis.UniversalClient { return redistest.Start(t) },
		"cluster": func(t testing.TB) redis.UniversalClient { return redistest.StartCluster(t) },
	} {
		t.Run(name, func(t *testing.T) {
			runstest.Contract(t, func(t *testing.T) (runs.Store, func() runs.Store) {
				c := start(t)
				return redisstore.NewRuns(c, "sf"), func() runs.Store { return redisstore.NewRuns(c, "sf") }
			})
		})
	}
}

// BenchmarkRunsPredict: runstest.BenchPredict on a redis-server.
func BenchmarkRunsPredict(b *testing.B) {
	runstest.BenchPredict(b, redisstore.NewRuns(redistest.Start(b), "sf"))
}

// TestRunsIndexOlderRuns: runs recorded on Redis before the indexes of
// every run and of each account (the hash and the profile's index only)
// are entered in them a page a write, so that they count toward Kept and
// age out like new ones: after a few writes, 300 of them are gone.
func TestRunsIndexOlderRuns(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t)
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for i := 0; i < 300; i++ {
		r := runs.Run{ID: fmt.Sprintf("old%03d", i), Profile: "blast", ResourceID: "RAL", Runtime: time.Minute,
			FinishedAt: t0.Add(time.Duration(i-300) * time.Minute), AccountID: "alice"}
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.HSet(ctx, "sf:runs:{RAL}:runs", r.ID, data).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.ZAdd(ctx, "sf:runs:{RAL}:p:blast", redis.Z{Score: float64(r.FinishedAt.UnixMilli()), Member: r.ID}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	st := redisstore.NewRuns(c, "sf")
	for i := 1; i <= 5; i++ {
		r := runs.Run{ID: fmt.Sprint("new", i), Profile: "blast", ResourceID: "RAL", Runtime: time.Minute, FinishedAt: t0.Add(time.Duration(i) * time.Minute),
			AccountID: "alice", RecordedAt: t0.Add(time.Hour)}
		if _, created, err := st.Append(ctx, r, runs.Limits{Kept: 2}); err != nil || !created {
			t.Fatalf("append %d: %v %v", i, created, err)
		}
	}
	if rs, err := st.Recent(ctx, "RAL", "blast", 1000); err != nil || runstest.IDs(rs) != "new5 new4 " {
		t.Fatalf("recent: %d runs, %.40q %v", len(rs), runstest.IDs(rs), err)
	}
}

// TestRunsExpireWhenIdle: under an age limit, every key an append
// writes expires the age and an hour later, so that a resource no one
// writes to any more loses its runs once they are past their age; without
// one they stay.
func TestRunsExpireWhenIdle(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t)
	st := redisstore.NewRuns(c, "sf")
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	r := runs.Run{ID: "r1", Profile: "blast", ResourceID: "RAL", Runtime: time.Minute, Transfer: time.Second, Bytes: 10, FinishedAt: t0,
		AccountID: "alice", RecordedAt: t0}
	if _, _, err := st.Append(ctx, r, runs.Limits{MaxAge: 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	r.ResourceID = "CERN"
	if _, _, err := st.Append(ctx, r, runs.Limits{}); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"runs", "p:blast", "t", "f", "a:alice", "ix"} {
		ttl, err := c.PTTL(ctx, "sf:runs:{RAL}:"+suffix).Result()
		if err != nil || ttl <= 24*time.Hour || ttl > 25*time.Hour {
			t.Errorf("RAL's %s expires in %v (%v), want 24-25 h", suffix, ttl, err)
		}
		if ttl, err := c.PTTL(ctx, "sf:runs:{CERN}:"+suffix).Result(); err != nil || ttl != -1 {
			t.Errorf("CERN's %s: ttl %v (%v), want none", suffix, ttl, err)
		}
	}
}
