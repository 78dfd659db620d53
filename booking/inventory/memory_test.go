package inventory_test

import (
	"testing"

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
