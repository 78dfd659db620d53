package redisstore_test

import (
	"fmt"
	"slotfare/booking/catalog"
	"slotfare/booking/internal/catalogtest"
	"sync/atomic"
	"testing"

	"slotfare/booking/idem"
	"slotfare/booking/internal/idemtest"
	"slotfare/booking/internal/inventorytest"
	"slotfare/booking/internal/leasetest"
	"slotfare/booking/internal/recordstest"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/booking/records"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
)

// TestContractsOnCluster runs every port's contract on a real three-master
// Redis Cluster: each script touches one hash slot (a resource's or an
// account's tag), so the cluster serves it as one server would.
func TestContractsOnCluster(t *testing.T) {
	rdb := redistest.StartCluster(t)
	var n atomic.Int64
	prefix := func() string { return fmt.Sprintf("c%d", n.Add(1)) }
	t.Run("Inventory", func(t *testing.T) {
		inventorytest.Run(t, func(t *testing.T) inventory.Port { return redisstore.NewInventory(rdb, prefix()) })
	})
	t.Run("Publish", func(t *testing.T) {
		inventorytest.RunPublish(t, func(t *testing.T) (inventory.Port, inventorytest.Log) {
			p := prefix()
			return redisstore.NewInventory(rdb, p), redisstore.NewRecords(rdb, p)
		})
	})
	t.Run("Leases", func(t *testing.T) {
		leasetest.Run(t, func(t *testing.T) lease.Port { return redisstore.NewLeases(rdb, prefix()) })
	})
	t.Run("Records", func(t *testing.T) {
		recordstest.Run(t, func(t *testing.T) records.Port { return redisstore.NewRecords(rdb, prefix()) })
	})
	t.Run("Catalog", func(t *testing.T) {
		catalogtest.Run(t, func(t *testing.T) catalog.Port { return redisstore.NewCatalog(rdb, prefix()) })
	})
	t.Run("Keys", func(t *testing.T) {
		idemtest.Run(t, func(t *testing.T) idem.Port { return redisstore.NewKeys(rdb, prefix()) })
	})
}
