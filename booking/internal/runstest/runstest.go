// Package runstest is the contract suite of booking/runs' Store port,
// run on every implementation (Memory in booking/runs,
// booking/boltstore/runsbolt, booking/redisstore.Runs on a server and on a
// Cluster) by their own tests.
package runstest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking/runs"
)

// Open opens a store for a test, and a function that opens it again over
// what the first wrote (another process, or a replica of the same Redis).
type Open func(t *testing.T) (st runs.Store, reopen func() runs.Store)

// Contract runs Store's contract on the stores open opens: idempotent
// appends by run id, conflicts, bounded reads newest first per resource
// and profile, transfers (store), and the Limits kept in an append's step
// (limits).
func Contract(t *testing.T, open Open) {
	t.Run("store", func(t *testing.T) { storeContract(t, open) })
	t.Run("limits", func(t *testing.T) { limitsContract(t, open) })
}

func storeContract(t *testing.T, open func(t *testing.T) (runs.Store, func() runs.Store)) {
	ctx := context.Background()
	st, reopen := open(t)
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	run := func(id, profile, res string, finished time.Duration, runtime time.Duration) runs.Run {
		return runs.Run{ID: id, Profile: profile, ResourceID: res, Runtime: runtime, FinishedAt: t0.Add(finished), AccountID: "alice", RecordedAt: t0}
	}
	// Five blast runs on RAL, out of order, one with a transfer; one namd
	// run on RAL; one blast run on CERN.
	in := []runs.Run{
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
		got, created, err := st.Append(ctx, r, runs.Limits{})
		if err != nil || !created || got.ID != r.ID || !got.FinishedAt.Equal(r.FinishedAt.Truncate(time.Millisecond)) {
			t.Fatalf("append %s on %s: %+v %v %v", r.ID, r.ResourceID, got, created, err)
		}
	}
	// A retry returns the stored run, not a second one; another run under
	// the same id is a conflict naming run_id.
	again := in[1]
	again.RecordedAt, again.AccountID, again.FinishedAt = t0.Add(time.Minute), "bob", in[1].FinishedAt.Add(time.Second)
	got, created, err := st.Append(ctx, again, runs.Limits{})
	if err != nil || created || got.AccountID != "alice" || !got.RecordedAt.Equal(t0) || !got.FinishedAt.Equal(in[1].FinishedAt) {
		t.Fatalf("retry: %+v %v %v", got, created, err)
	}
	other := in[1]
	other.Runtime += time.Second
	if _, _, err := st.Append(ctx, other, runs.Limits{}); slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "run_id" {
		t.Fatalf("another run under the same id: %v", err)
	}
	for _, tc := range []struct {
		mod   func(*runs.Run)
		field string
	}{
		{func(r *runs.Run) { r.ID = "" }, "run_id"},
		{func(r *runs.Run) { r.Profile = "" }, "profile"},
		{func(r *runs.Run) { r.Profile = "a b" }, "profile"},
		{func(r *runs.Run) { r.Runtime = 0 }, "runtime_seconds"},
		{func(r *runs.Run) { r.Transfer = -time.Second }, "transfer_seconds"},
		{func(r *runs.Run) { r.Bytes = -1 }, "bytes_transferred"},
		{func(r *runs.Run) { r.FinishedAt = time.Time{} }, "finished_at"},
	} {
		r := run("bad", "blast", "RAL", time.Hour, time.Second)
		tc.mod(&r)
		if _, _, err := st.Append(ctx, r, runs.Limits{}); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tc.field {
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
		if err != nil || IDs(rs) != tc.want {
			t.Errorf("recent %s %s %d: %q %v, want %q", tc.res, tc.profile, tc.n, IDs(rs), err, tc.want)
		}
	}
	rs, err := st.Recent(ctx, "RAL", "blast", 10)
	if err != nil || rs[3].Transfer != 20*time.Second || rs[3].Bytes != 2000 || rs[4].Runtime != 100*time.Second || rs[4].AccountID != "alice" {
		t.Fatalf("recent's runs: %+v %v", rs, err)
	}
	if tr, err := st.Transfers(ctx, "RAL", 10); err != nil || IDs(tr) != "n1 r2 " || float64(tr[0].Bytes)/tr[0].Transfer.Seconds() != 500 {
		t.Errorf("transfers: %q %v", IDs(tr), err)
	}
	if tr, err := st.Transfers(ctx, "RAL", 1); err != nil || IDs(tr) != "n1 " {
		t.Errorf("transfers bounded: %q %v", IDs(tr), err)
	}
	if tr, err := st.Transfers(ctx, "CERN", 10); err != nil || len(tr) != 0 {
		t.Errorf("CERN's transfers: %q %v", IDs(tr), err)
	}

	// Concurrent appends of one new id: one is recorded.
	var wg sync.WaitGroup
	var mu sync.Mutex
	createdN := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, c, err := st.Append(ctx, run("race", "blast", "RAL", 7*time.Hour, time.Minute), runs.Limits{})
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
	if rs, err := st.Recent(ctx, "RAL", "blast", 10); err != nil || createdN != 1 || IDs(rs) != "race r5 r4 r3 r2 r1 " {
		t.Fatalf("race: created %d, %q %v", createdN, IDs(rs), err)
	}
}

// IDs lists runs' ids, newest first as the stores answer.
func IDs(rs []runs.Run) string {
	s := ""
	for _, r := range rs {
		s += r.ID + " "
	}
	return s
}

// limitsContract keeps runs.Limits on a store, time driven through the runs'
// recorded_at: an account's runs on a resource past PerHour in an hour are
// refused with when to retry, a retry is answered first, other accounts
// and resources count apart; an account keeps its Kept latest finished;
// runs past MaxAge are refused, and deleted by the next write, at most
// runs.PruneBatch a write; and what is kept survives a reopen.
func limitsContract(t *testing.T, open Open) {
	ctx := context.Background()
	st, reopen := open(t)
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	run := func(id, account, res string, finished, recorded time.Duration) runs.Run {
		return runs.Run{ID: id, Profile: "blast", ResourceID: res, Runtime: time.Minute, FinishedAt: t0.Add(finished), AccountID: account,
			RecordedAt: t0.Add(recorded)}
	}
	add := func(r runs.Run, lim runs.Limits) {
		t.Helper()
		if _, created, err := st.Append(ctx, r, lim); err != nil || !created {
			t.Fatalf("append %s by %s on %s: %v %v", r.ID, r.AccountID, r.ResourceID, created, err)
		}
	}
	refused := func(r runs.Run, lim runs.Limits, posted int, retry time.Duration) {
		t.Helper()
		_, _, err := st.Append(ctx, r, lim)
		var qe *runs.QuotaError
		if slotfare.KindOf(err) != slotfare.LimitExceeded || slotfare.FieldOf(err) != "runs.max_per_hour" || !errors.As(err, &qe) ||
			qe.Posted != posted || qe.Limit != lim.PerHour || qe.RetryAfter != retry || qe.ResourceID != r.ResourceID || qe.AccountID != r.AccountID {
			t.Fatalf("append %s past the rate: %v (%+v), want %d posted, retry in %v", r.ID, err, qe, posted, retry)
		}
	}
	recent := func(res string, want string) {
		t.Helper()
		if rs, err := st.Recent(ctx, res, "blast", 100); err != nil || IDs(rs) != want {
			t.Fatalf("recent on %s: %q %v, want %q", res, IDs(rs), err, want)
		}
	}

	// Three runs an hour for alice on RAL.
	rate := runs.Limits{PerHour: 3}
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
	kept := runs.Limits{Kept: 3}
	add(run("b1", "bob", "K", 0, 0), kept)
	for i := 1; i <= 5; i++ {
		add(run(fmt.Sprint("k", i), "alice", "K", time.Duration(i)*time.Hour, 6*time.Hour), kept)
	}
	recent("K", "k5 k4 k3 b1 ")
	add(run("k0", "alice", "K", 0, 6*time.Hour), kept) // finished first: not kept
	recent("K", "k5 k4 k3 b1 ")

	// Runs count for a day after they finish. Forty older ones, two with
	// transfers, are deleted over two writes.
	age := runs.Limits{MaxAge: 24 * time.Hour}
	now := 10 * 24 * time.Hour
	for i := 0; i < 40; i++ {
		r := run(fmt.Sprintf("o%02d", i), "alice", "A", now-48*time.Hour+time.Duration(i)*time.Minute, 0)
		if i%35 == 0 {
			r.Transfer, r.Bytes = time.Second, 100
		}
		add(r, runs.Limits{})
	}
	add(run("y", "bob", "A", now-23*time.Hour, now-23*time.Hour), runs.Limits{})
	if _, _, err := st.Append(ctx, run("late", "bob", "A", now-25*time.Hour, now), age); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "finished_at" {
		t.Fatalf("a run past its age: %v", err)
	}
	add(run("n1", "bob", "A", now, now), age)
	if rs, err := st.Recent(ctx, "A", "blast", 100); err != nil || len(rs) != 40-runs.PruneBatch+2 || rs[2].ID != "o39" || rs[len(rs)-1].ID != fmt.Sprintf("o%02d", runs.PruneBatch) {
		t.Fatalf("after one write past the age: %q %v", IDs(rs), err)
	}
	if tr, err := st.Transfers(ctx, "A", 10); err != nil || IDs(tr) != "o35 " {
		t.Fatalf("transfers after one write: %q %v", IDs(tr), err)
	}
	add(run("n2", "bob", "A", now, now), age)
	recent("A", "n2 n1 y ")
	if tr, err := st.Transfers(ctx, "A", 10); err != nil || len(tr) != 0 {
		t.Fatalf("transfers past the age: %q %v", IDs(tr), err)
	}

	// What the limits count is kept with the runs.
	st = reopen()
	refused(run("a6", "alice", "RAL", 0, time.Hour+time.Minute), rate, 3, 9*time.Minute)
	add(run("k6", "alice", "K", 6*time.Hour, 6*time.Hour), kept)
	recent("K", "k6 k5 k4 b1 ")
}
