package redisstore_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"slotfare/booking/internal/inventorytest"
	"slotfare/booking/inventory"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
)

// TestInventoryContract runs the inventory contract on a real redis-server:
// every decision equal to the in-process tree's.
func TestInventoryContract(t *testing.T) {
	rdb := redistest.Start(t)
	var n atomic.Int64
	inventorytest.Run(t, func(t *testing.T) inventory.Port {
		// One server, a fresh key prefix per case.
		return redisstore.NewInventory(rdb, fmt.Sprintf("t%d", n.Add(1)))
	})
}
