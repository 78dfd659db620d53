package inventory_test

import (
	"context"
	"testing"

	"slotfare"
	"slotfare/booking/internal/inventorytest"
	"slotfare/booking/inventory"
	"slotfare/booking/records"
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
