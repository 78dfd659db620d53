package embedded_test

import (
	"testing"

	"slotfare/booking/apikey"
	"slotfare/booking/catalog"
	"slotfare/booking/idem"
	"slotfare/booking/internal/apikeytest"
	"slotfare/booking/internal/catalogtest"
	"slotfare/booking/internal/guardedtest"
	"slotfare/booking/internal/idemtest"
	"slotfare/booking/internal/inventorytest"
	"slotfare/booking/internal/leasetest"
	"slotfare/booking/internal/recordstest"
	"slotfare/booking/internal/replacetest"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/booking/records"
)

// TestContracts runs every port's contract suite on the embedded ports,
// over each real store (memstore, and bbolt on a file in t.TempDir()).
func TestContracts(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			t.Run("Records", func(t *testing.T) {
				recordstest.Run(t, func(t *testing.T) records.Port { return fresh(t, k).Records })
			})
			t.Run("Idem", func(t *testing.T) {
				idemtest.Run(t, func(t *testing.T) idem.Port { return fresh(t, k).Idem })
			})
			t.Run("Catalog", func(t *testing.T) {
				catalogtest.Run(t, func(t *testing.T) catalog.Port { return fresh(t, k).Catalog })
			})
			t.Run("Lease", func(t *testing.T) {
				leasetest.Run(t, func(t *testing.T) lease.Port { return fresh(t, k).Lease })
			})
			t.Run("APIKeys", func(t *testing.T) {
				apikeytest.Run(t, func(t *testing.T) apikey.Port { return fresh(t, k).APIKeys })
			})
			t.Run("Inventory", func(t *testing.T) {
				inventorytest.Run(t, func(t *testing.T) inventory.Port { return fresh(t, k).Inventory })
			})
			t.Run("Publish", func(t *testing.T) {
				// The in-process inventory, whose publications' events the
				// store's log keeps (a bbolt file's, or memory's).
				inventorytest.RunPublish(t, func(t *testing.T) (inventory.Port, inventorytest.Log) {
					p := fresh(t, k)
					return p.Inventory, p.Records
				})
			})
			t.Run("Guarded", func(t *testing.T) {
				guardedtest.Run(t, func(t *testing.T) guardedtest.Ports {
					p := fresh(t, k)
					return guardedtest.Ports{Inventory: p.Inventory, Records: p.Records, Guarded: p.Records, Idem: p.Idem}
				})
			})
			t.Run("Replace", func(t *testing.T) {
				replacetest.Run(t, func(t *testing.T) replacetest.Ports {
					p := fresh(t, k)
					return replacetest.Ports{Inventory: p.Inventory, Records: p.Records, Replace: p.Records.ReplaceApply}
				})
			})
		})
	}
}
