package inventory_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"slotfare"
	"slotfare/booking/internal/inventorytest"
	"slotfare/booking/inventory"
	"slotfare/booking/records"
	"slotfare/calendar"
)

func TestMemoryContract(t *testing.T) {
	inventorytest.Run(t, func(t *testing.T) inventory.Port { return inventory.NewMemory() })
}

// TestMemoryPublish runs Publish's contract on the in-process inventory
// writing to the records' log in memory (the embedded store's logs, bbolt
// among them, in booking/embedded).
func TestMemoryPublish(t *testing.T) {
	inventorytest.RunPublish(t, func(t *testing.T) (inventory.Port, inventorytest.Log) {
		return inventory.NewMemory(), records.NewMemory()
	})
}

// TestMemoryKnowsNoOrphans: kept apart from any records, Memory finds no
// orphan among what it holds; a resource it does not have is NotFound.
func TestMemoryKnowsNoOrphans(t *testing.T) {
	m := inventory.NewMemory()
	ctx := context.Background()
	if err := m.Ensure(ctx, "R", 1, 2); err != nil {
		t.Fatal(err)
	}
	if err := m.Admit(ctx, "R", "b1", 1, inventory.Terms{Start: 100, End: 200, Nodes: 1}); err != nil {
		t.Fatal(err)
	}
	if got, err := m.ReleaseOrphans(ctx, "R"); err != nil || len(got) != 0 {
		t.Fatalf("orphans: %v, %v", got, err)
	}
	if _, found, err := m.Get(ctx, "R", "b1"); err != nil || !found {
		t.Fatalf("b1 after ReleaseOrphans: %v %v", found, err)
	}
	if _, err := m.ReleaseOrphans(ctx, "S"); slotfare.KindOf(err) != slotfare.NotFound {
		t.Fatalf("an unknown resource: %v", err)
	}
}

// TestMemoryProfileInto: ProfileInto answers Profile's steps, into the
// buffer given on the tree and anew on a calendar that cannot write into
// one (the free list), and refuses what Profile refuses.
func TestMemoryProfileInto(t *testing.T) {
	ctx := context.Background()
	freeList := func(capacity int) (calendar.Calendar, error) { return calendar.NewFreeList(capacity) }
	for _, m := range []*inventory.Memory{inventory.NewMemory(), inventory.NewMemoryOn(freeList)} {
		if err := m.Ensure(ctx, "R", 2, 4); err != nil {
			t.Fatal(err)
		}
		for i, tm := range []inventory.Terms{{Start: 100, End: 200, Nodes: 1}, {Start: 150, End: 300, Nodes: 3}} {
			if err := m.Admit(ctx, "R", fmt.Sprint("b", i), 2, tm); err != nil {
				t.Fatal(err)
			}
		}
		buf := make([]calendar.Step, 1, 16)
		for g := range 2 {
			want, err := m.Profile(ctx, "R", g, 50, 400)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.ProfileInto(ctx, buf, "R", g, 50, 400)
			if err != nil || !slices.Equal(got, want) || len(want) != 5 {
				t.Fatalf("group %d: ProfileInto %v (%v), Profile %v (5 steps)", g, got, err, want)
			}
		}
		if _, err := m.ProfileInto(ctx, buf, "R", 2, 50, 400); slotfare.KindOf(err) != slotfare.Invalid {
			t.Errorf("group 2 of 2: %v", err)
		}
		if _, err := m.ProfileInto(ctx, buf, "S", 0, 50, 400); slotfare.KindOf(err) != slotfare.NotFound {
			t.Errorf("an unknown resource: %v", err)
		}
	}
}
