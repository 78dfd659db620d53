// Package coreservetest is the contract suite of booking/coreserve's
// Store port, run on every implementation (Memory in booking/coreserve,
// booking/boltstore/coreservebolt, booking/redisstore.CoReservations on a
// server and on a Cluster) by their own tests.
package coreservetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking/coreserve"
)

// Open opens a store for a test, and a function that opens it again over
// what the first wrote (another process, or a replica of the same Redis).
type Open func(t *testing.T) (st coreserve.Store, reopen func() coreserve.Store)

// Contract runs the Store's contract on the store open opens: versions,
// conditional writes (a retry of the last is no conflict), the due index
// and its claims, all outliving a reopen.
func Contract(t *testing.T, open Open) {
	ctx := context.Background()
	st, reopen := open(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	a := coreserve.Record{ID: "co_a", AccountID: "alice", Status: coreserve.Held, Policy: "earliest", CreatedAt: now, UpdatedAt: now,
		Parts: []coreserve.PartRef{{BookingID: "bk_1", ResourceID: "RAL"}}, DueAt: now.Add(10 * time.Minute)}
	b := coreserve.Record{ID: "co_b", AccountID: "bob", Status: coreserve.Held, Policy: "cheapest", CreatedAt: now.Add(time.Second), UpdatedAt: now,
		DueAt: now.Add(5 * time.Minute)}
	for _, r := range []coreserve.Record{a, b} {
		if v, err := st.Put(ctx, r, 0); err != nil || v != 1 {
			t.Fatalf("create %s: %d %v", r.ID, v, err)
		}
	}
	if v, err := st.Put(ctx, a, 0); err != nil || v != 1 {
		t.Fatalf("a create again, as a retry whose answer was lost: %d %v, want 1", v, err)
	}
	other := a
	other.AccountID = "mallory"
	if _, err := st.Put(ctx, other, 0); slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("a second create: %v, want Conflict", err)
	}
	dueIDs := func(at time.Time, limit int) []string {
		t.Helper()
		recs, err := st.Due(ctx, at, limit, at.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range recs {
			ids = append(ids, r.ID)
		}
		return ids
	}
	if ids := dueIDs(now.Add(5*time.Minute-time.Millisecond), 10); len(ids) != 0 {
		t.Fatalf("due before either is: %v", ids)
	}
	a.Status, a.DueAt = coreserve.Committing, now.Add(30*time.Second)
	if v, err := st.Put(ctx, a, 1); err != nil || v != 2 {
		t.Fatalf("update: %d %v", v, err)
	}
	b.Status, b.DueAt = coreserve.Cancelled, time.Time{}
	if _, err := st.Put(ctx, b, 1); err != nil {
		t.Fatal(err)
	}
	a.Status = coreserve.Committed
	if _, err := st.Put(ctx, a, 1); slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("a write over a stale version: %v, want Conflict", err)
	}
	st = reopen()
	got, found, err := st.Get(ctx, "co_a")
	if err != nil || !found || got.Version != 2 || got.Status != coreserve.Committing || got.Parts[0].BookingID != "bk_1" ||
		!got.CreatedAt.Equal(now) || !got.DueAt.Equal(now.Add(30*time.Second)) {
		t.Fatalf("get: %v %v %+v", err, found, got)
	}
	if _, found, err := st.Get(ctx, "co_x"); err != nil || found {
		t.Fatalf("unknown id: %v %v", found, err)
	}
	// b is settled, a filed again under its new due time.
	if ids := dueIDs(now.Add(29*time.Second), 10); len(ids) != 0 {
		t.Fatalf("due before a's new time: %v", ids)
	}
	if ids := dueIDs(now.Add(10*time.Minute), 10); len(ids) != 1 || ids[0] != "co_a" {
		t.Fatalf("due: %v, want co_a", ids)
	}
	// Claimed until a minute later: passed by until then.
	if ids := dueIDs(now.Add(10*time.Minute+59*time.Second), 10); len(ids) != 0 {
		t.Fatalf("due while claimed: %v", ids)
	}
	if ids := dueIDs(now.Add(11*time.Minute), 10); len(ids) != 1 {
		t.Fatalf("due once the claim lapsed: %v, want co_a", ids)
	}
	got.Status, got.DueAt = coreserve.Committed, time.Time{}
	if _, err := st.Put(ctx, got, got.Version); err != nil {
		t.Fatal(err)
	}
	if ids := dueIDs(now.Add(time.Hour), 10); len(ids) != 0 {
		t.Fatalf("due after settling: %v", ids)
	}
	// More due than the limit: the limit, then the rest.
	for i, id := range []string{"co_c", "co_d", "co_e"} {
		r := coreserve.Record{ID: id, AccountID: "alice", Status: coreserve.Held, CreatedAt: now, UpdatedAt: now, DueAt: now.Add(time.Duration(i) * time.Second)}
		if _, err := st.Put(ctx, r, 0); err != nil {
			t.Fatal(err)
		}
	}
	if ids := dueIDs(now.Add(time.Minute), 2); len(ids) != 2 {
		t.Fatalf("due with a limit of 2: %v", ids)
	}
	if ids := dueIDs(now.Add(time.Minute), 2); len(ids) != 1 {
		t.Fatalf("due after the first two were claimed: %v, want one", ids)
	}
}

// LegacyRecords are an unsettled and a settled co-reservation as stores
// wrote them before the due index (no due time), and their encodings.
func LegacyRecords(t *testing.T) (unsettled, settled coreserve.Record, data [2][]byte) {
	t.Helper()
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	unsettled = coreserve.Record{ID: "co_old", AccountID: "alice", Status: coreserve.Committing, Policy: "earliest", CreatedAt: at, UpdatedAt: at,
		Parts: []coreserve.PartRef{{BookingID: "bk_1", ResourceID: "RAL"}}}
	settled = coreserve.Record{ID: "co_done", AccountID: "alice", Status: coreserve.Committed, Policy: "earliest", CreatedAt: at, UpdatedAt: at}
	for i, r := range []coreserve.Record{unsettled, settled} {
		d, err := coreserve.EncodeRecord(r)
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
