package coreserve

import (
	"context"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking/redisstore/redistest"
)

// TestStoreContract runs Store's contract on Memory, on Bolt (with a
// reopen of the file) and on a real redis-server and Redis Cluster (a new
// Redis over it): versions, conditional writes, the due index and its claims.
func TestStoreContract(t *testing.T) {
	dir := t.TempDir()
	stores := map[string]func(t *testing.T) (Store, func() Store){
		"memory": func(t *testing.T) (Store, func() Store) {
			m := NewMemory()
			return m, func() Store { return m }
		},
		"redis": func(t *testing.T) (Store, func() Store) {
			c := redistest.Start(t)
			return NewRedis(c, "sf"), func() Store { return NewRedis(c, "sf") }
		},
		"redis cluster": func(t *testing.T) (Store, func() Store) {
			c := redistest.StartCluster(t)
			return NewRedis(c, "sf"), func() Store { return NewRedis(c, "sf") }
		},
		"bolt": func(t *testing.T) (Store, func() Store) {
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
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, reopen := open(t)
			now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
			a := Record{ID: "co_a", AccountID: "alice", Status: Held, Policy: "earliest", CreatedAt: now, UpdatedAt: now,
				Parts: []PartRef{{BookingID: "bk_1", ResourceID: "RAL"}}, DueAt: now.Add(10 * time.Minute)}
			b := Record{ID: "co_b", AccountID: "bob", Status: Held, Policy: "cheapest", CreatedAt: now.Add(time.Second), UpdatedAt: now,
				DueAt: now.Add(5 * time.Minute)}
			for _, r := range []Record{a, b} {
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
			a.Status, a.DueAt = Committing, now.Add(30*time.Second)
			if v, err := st.Put(ctx, a, 1); err != nil || v != 2 {
				t.Fatalf("update: %d %v", v, err)
			}
			b.Status, b.DueAt = Cancelled, time.Time{}
			if _, err := st.Put(ctx, b, 1); err != nil {
				t.Fatal(err)
			}
			a.Status = Committed
			if _, err := st.Put(ctx, a, 1); slotfare.KindOf(err) != slotfare.Conflict {
				t.Fatalf("a write over a stale version: %v, want Conflict", err)
			}
			st = reopen()
			got, found, err := st.Get(ctx, "co_a")
			if err != nil || !found || got.Version != 2 || got.Status != Committing || got.Parts[0].BookingID != "bk_1" ||
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
			got.Status, got.DueAt = Committed, time.Time{}
			if _, err := st.Put(ctx, got, got.Version); err != nil {
				t.Fatal(err)
			}
			if ids := dueIDs(now.Add(time.Hour), 10); len(ids) != 0 {
				t.Fatalf("due after settling: %v", ids)
			}
			// More due than the limit: the limit, then the rest.
			for i, id := range []string{"co_c", "co_d", "co_e"} {
				r := Record{ID: id, AccountID: "alice", Status: Held, CreatedAt: now, UpdatedAt: now, DueAt: now.Add(time.Duration(i) * time.Second)}
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
		})
	}
}
