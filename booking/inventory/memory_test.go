package inventory_test

import (
	"testing"

	"slotfare/booking/internal/inventorytest"
	"slotfare/booking/inventory"
)

func TestMemoryContract(t *testing.T) {
	inventorytest.Run(t, func(t *testing.T) inventory.Port { return inventory.NewMemory() })
}
