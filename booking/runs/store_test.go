package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	bolt "go.etcd.io/bbolt"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/redisstore/redistest"
)

// TestStoreContract runs Store's contract on Memory, on Bolt (reopening its
// file), on a real redis-server (a second Redis over the same server, as
// another replica) and on a three-master Redis Cluster: idempotent appends
// by run id, conflicts, bounded reads newest first per resource and
// profile, transfers.
func TestStoreContract(t *testing.T) {
	stores := map[string]func(t *testing.T) (Store, func() Store){
		"memory": func(t *testing.T) (Store, func() Store) {
			m := NewMemory()
			return m, func() Store { return m }
		},
		"redis": func(t *testing.T) (Store, func() Store) {
			c := redistest.Start(t)
			return NewRedis(c, "sf"), func() Store { return NewRedis(c, "sf") }
		},
		// A Redis Cluster: every script's keys are in one slot.
		"cluster": func(t *testing.T) (Store, func() Store) {
			c := redistest.StartCluster(t)
			return NewRedis(c, "sf"), func() Store { return NewRedis(c, "sf") }
		},
		"bolt": func(t *testing.T) (Store, func() Store) {
			dir := t.TempDir()
			b, err := OpenBolt(dir)
			if err != nil {
				t.Fatal(err)
			}
			return b, func() Store {
				if err := b.Close(); err != nil {
					t.Fatal(err)
				}
				b2, err := OpenBolt(dir)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { b2.Close() })
				return b2
			}
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) { storeContract(t, open) })
		t.Run(name+"/limits", func(t *testing.T) { limitsContract(t, open) })
	}
}

func storeContract(t *testing.T, open func(t *testing.T) (Store, func() Store)) {
	ctx := context.Background()
	st, reopen := open(t)
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	run := func(id, profile, res string, finished time.Duration, runtime time.Duration) Run {
		return Run{ID: id, Profile: profile, ResourceID: res, Runtime: runtime, FinishedAt: t0.Add(finished), AccountID: "alice", RecordedAt: t0}
	}
	// Five blast runs on RAL, out of order, one with a transfer; one namd
	// run on RAL; one blast run on CERN.
	in := []Run{
		run("r3", "blast", "RAL", 3*time.Hour, 300*time.Second),
		run("r1", "blast", "RAL", time.Hour, 100*time.Second),
		run("r5", "blast", "RAL", 5*time.Hour, 500*time.Second),
		run("r2", "blast", "RAL", 2*time.Hour, 200*time.Second),
		run("r4", "blast", "RAL", 3*time.Hour, 400*time.Second), // same finish as r3: after it by id
		run("n1", "namd", "RAL", 6*time.Hour, time.Hour),
		run("r1", "blast", "CERN", time.Hour, 50*time.Second), // run ids are per resource
	}
	in[3].Transfer, in[3].Bytes = 20*time.Second, 2000
	in[5].Transfer, in[5].Bytes = 10*time.Second, 5000
	// Sub-millisecond parts are dropped, times kept in UTC.
	in[0].FinishedAt = in[0].FinishedAt.Add(400 * time.Microsecond).In(time.FixedZone("X", 3600))
	for _, r := range in {
		got, created, err := st.Append(ctx, r, Limits{})
		if err != nil || !created || got.ID != r.ID || !got.FinishedAt.Equal(r.FinishedAt.Truncate(time.Millisecond)) {
			t.Fatalf("append %s on %s: %+v %v %v", r.ID, r.ResourceID, got, created, err)
		}
	}
	// A retry returns the stored run, not a second one; another run under
	// the same id is a conflict naming run_id.
	again := in[1]
	again.RecordedAt, again.AccountID, again.FinishedAt = t0.Add(time.Minute), "bob", in[1].FinishedAt.Add(time.Second)
	got, created, err := st.Append(ctx, again, Limits{})
	if err != nil || created || got.AccountID != "alice" || !got.RecordedAt.Equal(t0) || !got.FinishedAt.Equal(in[1].FinishedAt) {
		t.Fatalf("retry: %+v %v %v", got, created, err)
	}
	other := in[1]
	other.Runtime += time.Second
	if _, _, err := st.Append(ctx, other, Limits{}); slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "run_id" {
		t.Fatalf("another run under the same id: %v", err)
	}
	for _, tc := range []struct {
		mod   func(*Run)
		field string
	}{
		{func(r *Run) { r.ID = "" }, "run_id"},
		{func(r *Run) { r.Profile = "" }, "profile"},
		{func(r *Run) { r.Profile = "a b" }, "profile"},
		{func(r *Run) { r.Runtime = 0 }, "runtime_seconds"},
		{func(r *Run) { r.Transfer = -time.Second }, "transfer_seconds"},
		{func(r *Run) { r.Bytes = -1 }, "bytes_transferred"},
		{func(r *Run) { r.FinishedAt = time.Time{} }, "finished_at"},
	} {
		r := run("bad", "blast", "RAL", time.Hour, time.Second)
		tc.mod(&r)
		if _, _, err := st.Append(ctx, r, Limits{}); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tc.field {
			t.Errorf("invalid %s: %v", tc.field, err)
		}
	}

	st = reopen()
	for _, tc := range []struct {
		res, profile string
		n            int
		want         string
	}{
		{"RAL", "blast", 10, "r5 r4 r3 r2 r1 "},
		{"RAL", "blast", 3, "r5 r4 r3 "},
		{"RAL", "blast", 0, ""},
		{"RAL", "namd", 10, "n1 "},
		{"CERN", "blast", 10, "r1 "},
		{"CERN", "namd", 10, ""},
		{"NOPE", "blast", 10, ""},
	} {
		rs, err := st.Recent(ctx, tc.res, tc.profile, tc.n)
		if err != nil || ids(rs) != tc.want {
			t.Errorf("recent %s %s %d: %q %v, want %q", tc.res, tc.profile, tc.n, ids(rs), err, tc.want)
		}
	}
	rs, err := st.Recent(ctx, "RAL", "blast", 10)
	if err != nil || rs[3].Transfer != 20*time.Second || rs[3].Bytes != 2000 || rs[4].Runtime != 100*time.Second || rs[4].AccountID != "alice" {
		t.Fatalf("recent's runs: %+v %v", rs, err)
	}
	if tr, err := st.Transfers(ctx, "RAL", 10); err != nil || ids(tr) != "n1 r2 " || tr[0].bandwidth() != 500 {
		t.Errorf("transfers: %q %v", ids(tr), err)
	}
	if tr, err := st.Transfers(ctx, "RAL", 1); err != nil || ids(tr) != "n1 " {
		t.Errorf("transfers bounded: %q %v", ids(tr), err)
	}
	if tr, err := st.Transfers(ctx, "CERN", 10); err != nil || len(tr) != 0 {
		t.Errorf("CERN's transfers: %q %v", ids(tr), err)
	}

	// Concurrent appends of one new id: one is recorded.
	var wg sync.WaitGroup
	var mu sync.Mutex
	createdN := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, c, err := st.Append(ctx, run("race", "blast", "RAL", 7*time.Hour, time.Minute), Limits{})
			if err != nil {
				t.Error(err)
			}
			if c {
				mu.Lock()
				createdN++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if rs, err := st.Recent(ctx, "RAL", "blast", 10); err != nil || createdN != 1 || ids(rs) != "race r5 r4 r3 r2 r1 " {
		t.Fatalf("race: created %d, %q %v", createdN, ids(rs), err)
	}
}

// ids lists runs' ids, newest first as the stores answer.
func ids(rs []Run) string {
	s := ""
	for _, r := range rs {
		s += r.ID + " "
	}
	return s
}

// limitsContract keeps Limits on a store, time driven through the runs'
// recorded_at: an account's runs on a resource past PerHour in an hour are
// refused with when to retry, a retry is answered first, other accounts
// and resources count apart; an account keeps its Kept latest finished;
// runs past MaxAge are refused, and deleted by the next write, at most
// PruneBatch a write; and what is kept survives a reopen.
func limitsContract(t *testing.T, open func(t *testing.T) (Store, func() Store)) {
	ctx := context.Background()
	st, reopen := open(t)
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	run := func(id, account, res string, finished, recorded time.Duration) Run {
		return Run{ID: id, Profile: "blast", ResourceID: res, Runtime: time.Minute, FinishedAt: t0.Add(finished), AccountID: account,
			RecordedAt: t0.Add(recorded)}
	}
	add := func(r Run, lim Limits) {
		t.Helper()
		if _, created, err := st.Append(ctx, r, lim); err != nil || !created {
			t.Fatalf("append %s by %s on %s: %v %v", r.ID, r.AccountID, r.ResourceID, created, err)
		}
	}
	refused := func(r Run, lim Limits, posted int, retry time.Duration) {
		t.Helper()
		_, _, err := st.Append(ctx, r, lim)
		var qe *QuotaError
		if slotfare.KindOf(err) != slotfare.LimitExceeded || slotfare.FieldOf(err) != "runs.max_per_hour" || !errors.As(err, &qe) ||
			qe.Posted != posted || qe.Limit != lim.PerHour || qe.RetryAfter != retry || qe.ResourceID != r.ResourceID || qe.AccountID != r.AccountID {
			t.Fatalf("append %s past the rate: %v (%+v), want %d posted, retry in %v", r.ID, err, qe, posted, retry)
		}
	}
	recent := func(res string, want string) {
		t.Helper()
		if rs, err := st.Recent(ctx, res, "blast", 100); err != nil || ids(rs) != want {
			t.Fatalf("recent on %s: %q %v, want %q", res, ids(rs), err, want)
		}
	}

	// Three runs an hour for alice on RAL.
	rate := Limits{PerHour: 3}
	add(run("a1", "alice", "RAL", 0, 0), rate)
	add(run("a2", "alice", "RAL", 0, 10*time.Minute), rate)
	add(run("a3", "alice", "RAL", 0, 20*time.Minute), rate)
	refused(run("a4", "alice", "RAL", 0, 30*time.Minute), rate, 3, 30*time.Minute)
	recent("RAL", "a3 a2 a1 ")
	if got, created, err := st.Append(ctx, run("a1", "alice", "RAL", 0, 30*time.Minute), rate); err != nil || created || got.ID != "a1" {
		t.Fatalf("a retry past the rate: %+v %v %v", got, created, err)
	}
	add(run("b1", "bob", "RAL", 0, 30*time.Minute), rate)
	add(run("a1", "alice", "CERN", 0, 30*time.Minute), rate)
	add(run("a4", "alice", "RAL", 0, time.Hour), rate) // a1 left the hour
	refused(run("a5", "alice", "RAL", 0, time.Hour), rate, 3, 10*time.Minute)

	// alice keeps her three latest finished on K; bob's are his own.
	kept := Limits{Kept: 3}
	add(run("b1", "bob", "K", 0, 0), kept)
	for i := 1; i <= 5; i++ {
		add(run(fmt.Sprint("k", i), "alice", "K", time.Duration(i)*time.Hour, 6*time.Hour), kept)
	}
	recent("K", "k5 k4 k3 b1 ")
	add(run("k0", "alice", "K", 0, 6*time.Hour), kept) // finished first: not kept
	recent("K", "k5 k4 k3 b1 ")

	// Runs count for a day after they finish. Forty older ones, two with
	// transfers, are deleted over two writes.
	age := Limits{MaxAge: 24 * time.Hour}
	now := 10 * 24 * time.Hour
	for i := 0; i < 40; i++ {
		r := run(fmt.Sprintf("o%02d", i), "alice", "A", now-48*time.Hour+time.Duration(i)*time.Minute, 0)
		if i%35 == 0 {
			r.Transfer, r.Bytes = time.Second, 100
		}
		add(r, Limits{})
	}
	add(run("y", "bob", "A", now-23*time.Hour, now-23*time.Hour), Limits{})
	if _, _, err := st.Append(ctx, run("late", "bob", "A", now-25*time.Hour, now), age); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "finished_at" {
		t.Fatalf("a run past its age: %v", err)
	}
	add(run("n1", "bob", "A", now, now), age)
	if rs, err := st.Recent(ctx, "A", "blast", 100); err != nil || len(rs) != 40-PruneBatch+2 || rs[2].ID != "o39" || rs[len(rs)-1].ID != fmt.Sprintf("o%02d", PruneBatch) {
		t.Fatalf("after one write past the age: %q %v", ids(rs), err)
	}
	if tr, err := st.Transfers(ctx, "A", 10); err != nil || ids(tr) != "o35 " {
		t.Fatalf("transfers after one write: %q %v", ids(tr), err)
	}
	add(run("n2", "bob", "A", now, now), age)
	recent("A", "n2 n1 y ")
	if tr, err := st.Transfers(ctx, "A", 10); err != nil || len(tr) != 0 {
		t.Fatalf("transfers past the age: %q %v", ids(tr), err)
	}

	// What the limits count is kept with the runs.
	st = reopen()
	refused(run("a6", "alice", "RAL", 0, time.Hour+time.Minute), rate, 3, 9*time.Minute)
	add(run("k6", "alice", "K", 6*time.Hour, 6*time.Hour), kept)
	recent("K", "k6 k5 k4 b1 ")
}

// TestPredictorOverStore predicts by TCT and ETTS from runs on a store,
// reading a bounded window.
func TestPredictorOverStore(t *testing.T) {
	ctx := context.Background()
	st := NewMemory()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	p := NewPredictor(st, 3, 0)
	if _, ok, err := p.Predict(ctx, "RAL", "blast", 0, t0, t0); ok || err != nil {
		t.Fatalf("no runs: %v %v", ok, err)
	}
	// 1000 s long ago, then 100, 200, 300 s: the window of 3 sees these.
	for i, sec := range []int{1000, 100, 200, 300} {
		r := Run{ID: fmt.Sprint("r", i), Profile: "blast", ResourceID: "RAL", Runtime: time.Duration(sec) * time.Second,
			FinishedAt: t0.Add(time.Duration(i) * time.Hour)}
		if _, _, err := st.Append(ctx, r, Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	now := t0.Add(4 * time.Hour)
	pr, ok, err := p.Predict(ctx, "RAL", "blast", 0, now, now)
	// Errors: 200 predicted as 100 (100), 300 predicted as 150 (150).
	want := Prediction{Duration: 200 * time.Second, Predictor: "TCT", Runs: 3, Scored: 2, MeanAbsError: 125 * time.Second}
	if err != nil || !ok || pr != want {
		t.Fatalf("TCT: %+v %v %v, want %+v", pr, ok, err, want)
	}
	// Bytes with no transfer recorded: still TCT.
	if pr, _, _ := p.Predict(ctx, "RAL", "blast", 1e6, now, now); pr.Predictor != "TCT" {
		t.Fatalf("no bandwidth: %+v", pr)
	}
	// A namd run moved 10000 B in 10 s: 1000 B/s on RAL. blast moving 1e6 B
	// is 200 s + 1000 s.
	if _, _, err := st.Append(ctx, Run{ID: "n", Profile: "namd", ResourceID: "RAL", Runtime: time.Second, Transfer: 10 * time.Second, Bytes: 10000, FinishedAt: now.Add(-time.Minute)}, Limits{}); err != nil {
		t.Fatal(err)
	}
	pr, ok, err = p.Predict(ctx, "RAL", "blast", 1e6, now.Add(time.Hour), now)
	if err != nil || !ok || pr.Predictor != "ETTS" || pr.Duration != 1200*time.Second || pr.Runs != 3 {
		t.Fatalf("ETTS: %+v %v %v", pr, ok, err)
	}
	// Rounded up to whole seconds.
	if _, _, err := st.Append(ctx, Run{ID: "x", Profile: "x", ResourceID: "RAL", Runtime: 1500 * time.Millisecond, FinishedAt: now}, Limits{}); err != nil {
		t.Fatal(err)
	}
	if pr, _, _ := p.Predict(ctx, "RAL", "x", 0, now, now); pr.Duration != 2*time.Second {
		t.Fatalf("rounding: %+v", pr)
	}
	if _, _, err := p.Predict(ctx, "RAL", "x", -1, now, now); slotfare.FieldOf(err) != "bytes" {
		t.Fatalf("negative bytes: %v", err)
	}
	// Runs count for 90 minutes after they finish: only the 300 s run, and
	// no bandwidth but the namd run's; none a day later.
	aged := NewPredictor(st, 3, 90*time.Minute)
	if pr, ok, err := aged.Predict(ctx, "RAL", "blast", 1e6, now, now); err != nil || !ok || pr.Runs != 1 || pr.Duration != 1300*time.Second {
		t.Fatalf("past their age: %+v %v %v", pr, ok, err)
	}
	if _, ok, err := aged.Predict(ctx, "RAL", "blast", 0, now.Add(24*time.Hour), now.Add(24*time.Hour)); err != nil || ok {
		t.Fatalf("a day later: %v %v", ok, err)
	}
}

// TestBoltIndexesOlderFile: a runs.db written before the limits' indexes
// (runs, profile and transfers buckets only) is indexed as it is opened,
// so that its runs count toward Kept and age out like new ones.
func TestBoltIndexesOlderFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	db, err := bolt.Open(filepath.Join(dir, BoltFileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for i, finished := range []time.Duration{-30 * 24 * time.Hour, -2 * time.Hour, -time.Hour} {
			r := normal(Run{ID: fmt.Sprint("old", i), Profile: "blast", ResourceID: "RAL", Runtime: time.Minute, FinishedAt: t0.Add(finished), AccountID: "alice"})
			data, err := json.Marshal(r)
			if err != nil {
				return err
			}
			for _, kv := range [][2][]byte{{runsBucket, key(r.ResourceID, r.ID)}, {profileBucket, orderKey(key(r.ResourceID, r.Profile), r)}} {
				b, err := tx.CreateBucketIfNotExists(kv[0])
				if err != nil {
					return err
				}
				if err := b.Put(kv[1], data); err != nil {
					return err
				}
			}
		}
		_, err := tx.CreateBucketIfNotExists(transfersBucket)
		return err
	})
	if err != nil || db.Close() != nil {
		t.Fatal(err)
	}
	st, err := OpenBolt(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := Run{ID: "new", Profile: "blast", ResourceID: "RAL", Runtime: time.Minute, FinishedAt: t0, AccountID: "alice", RecordedAt: t0}
	if _, created, err := st.Append(ctx, r, Limits{Kept: 2, MaxAge: 7 * 24 * time.Hour}); err != nil || !created {
		t.Fatalf("append: %v %v", created, err)
	}
	if rs, err := st.Recent(ctx, "RAL", "blast", 10); err != nil || ids(rs) != "new old2 " {
		t.Fatalf("recent: %q %v", ids(rs), err)
	}
}

// TestRedisIndexesOlderRuns: runs recorded on Redis before the indexes of
// every run and of each account (the hash and the profile's index only)
// are entered in them a page a write, so that they count toward Kept and
// age out like new ones: after a few writes, 300 of them are gone.
func TestRedisIndexesOlderRuns(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t)
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for i := 0; i < 300; i++ {
		r := normal(Run{ID: fmt.Sprintf("old%03d", i), Profile: "blast", ResourceID: "RAL", Runtime: time.Minute,
			FinishedAt: t0.Add(time.Duration(i-300) * time.Minute), AccountID: "alice"})
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
	st := NewRedis(c, "sf")
	for i := 1; i <= 5; i++ {
		r := Run{ID: fmt.Sprint("new", i), Profile: "blast", ResourceID: "RAL", Runtime: time.Minute, FinishedAt: t0.Add(time.Duration(i) * time.Minute),
			AccountID: "alice", RecordedAt: t0.Add(time.Hour)}
		if _, created, err := st.Append(ctx, r, Limits{Kept: 2}); err != nil || !created {
			t.Fatalf("append %d: %v %v", i, created, err)
		}
	}
	if rs, err := st.Recent(ctx, "RAL", "blast", 1000); err != nil || ids(rs) != "new5 new4 " {
		t.Fatalf("recent: %d runs, %.40q %v", len(rs), ids(rs), err)
	}
}

// TestRedisRunsExpireWhenIdle: under an age limit, every key an append
// writes expires the age and an hour later, so that a resource no one
// writes to any more loses its runs once they are past their age; without
// one they stay.
func TestRedisRunsExpireWhenIdle(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t)
	st := NewRedis(c, "sf")
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	r := Run{ID: "r1", Profile: "blast", ResourceID: "RAL", Runtime: time.Minute, Transfer: time.Second, Bytes: 10, FinishedAt: t0,
		AccountID: "alice", RecordedAt: t0}
	if _, _, err := st.Append(ctx, r, Limits{MaxAge: 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	r.ResourceID = "CERN"
	if _, _, err := st.Append(ctx, r, Limits{}); err != nil {
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

// TestRecordCompletedKeepsAgeAndKept: a completed booking's run is kept
// and aged like a posted one, but not counted against the hour's rate
// (bookings are bounded by the resource): three completions of one
// account under a rate of one all record, two are kept; a booking that
// finished past the age records nothing and the completion goes on.
func TestRecordCompletedKeepsAgeAndKept(t *testing.T) {
	ctx := context.Background()
	st := NewMemory()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	record := RecordCompleted(st, func() time.Time { return t0 }, Limits{PerHour: 1, Kept: 2, MaxAge: 24 * time.Hour})
	for i, end := range []time.Duration{-3 * time.Hour, -2 * time.Hour, -time.Hour, -48 * time.Hour} {
		start := t0.Add(end - time.Hour)
		b := booking.Booking{ID: fmt.Sprint("b", i), AccountID: "alice", ResourceID: "RAL", Profile: "blast", Start: start, End: t0.Add(end),
			StartedAt: &start}
		if err := record(ctx, b); err != nil {
			t.Fatalf("completion %d: %v", i, err)
		}
	}
	if rs, err := st.Recent(ctx, "RAL", "blast", 10); err != nil || ids(rs) != "b2 b1 " {
		t.Fatalf("recent: %q %v", ids(rs), err)
	}
}
