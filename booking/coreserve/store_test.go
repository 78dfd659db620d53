package coreserve

import (
	"context"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking/redisstore/redistest"
)

// TestStoreContract runs Store's contract on Memory, on Bolt (with a
// reopen of the file) and on a real redis-server (a new Redis over it): versions, conditional writes, the unsettled list.
func TestStoreContract(t *testing.T) {
	dir := t.TempDir()
	stores := map[string]func(t *testing.T) (Store, func() Store){
		"memory": func(t *testing.T) (Store, func() Store) {
			m := NewMemory()
			return m, func() Store { return m }
		},
		"redis": func(t *testing.T) (Store, func() Store) {
			c := redistest.Start(t)
			return NewRedis(c, "sf", nil), func() Store { return NewRedis(c, "sf", nil) }
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
				Parts: []PartRef{{BookingID: "bk_1", ResourceID: "RAL"}}}
			b := Record{ID: "co_b", AccountID: "bob", Status: Held, Policy: "cheapest", CreatedAt: now.Add(time.Second), UpdatedAt: now}
			for _, r := range []Record{a, b} {
				if v, err := st.Put(ctx, r, 0); err != nil || v != 1 {
					t.Fatalf("create %s: %d %v", r.ID, v, err)
				}
			}
			if _, err := st.Put(ctx, a, 0); slotfare.KindOf(err) != slotfare.Conflict {
				t.Fatalf("a second create: %v, want Conflict", err)
			}
			a.Status = Committing
			if v, err := st.Put(ctx, a, 1); err != nil || v != 2 {
				t.Fatalf("update: %d %v", v, err)
			}
			b.Status = Cancelled
			if _, err := st.Put(ctx, b, 1); err != nil {
				t.Fatal(err)
			}
			a.Status = Committed
			if _, err := st.Put(ctx, a, 1); slotfare.KindOf(err) != slotfare.Conflict {
				t.Fatalf("a write over a stale version: %v, want Conflict", err)
			}
			st = reopen()
			got, found, err := st.Get(ctx, "co_a")
			if err != nil || !found || got.Version != 2 || got.Status != Committing || got.Parts[0].BookingID != "bk_1" || !got.CreatedAt.Equal(now) {
				t.Fatalf("get: %v %v %+v", err, found, got)
			}
			if _, found, err := st.Get(ctx, "co_x"); err != nil || found {
				t.Fatalf("unknown id: %v %v", found, err)
			}
			un, err := st.Unsettled(ctx)
			if err != nil || len(un) != 1 || un[0].ID != "co_a" {
				t.Fatalf("unsettled: %v %+v", err, un)
			}
			got.Status = Committed
			if _, err := st.Put(ctx, got, got.Version); err != nil {
				t.Fatal(err)
			}
			if un, err := st.Unsettled(ctx); err != nil || len(un) != 0 {
				t.Fatalf("unsettled after settling: %v %+v", err, un)
			}
		})
	}
}
