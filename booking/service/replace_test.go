package service_test

import (
	"testing"

	"slotfare/booking/boltstore"
	"slotfare/booking/embedded"
	"slotfare/booking/internal/replacetest"
	"slotfare/booking/inventory"
	"slotfare/booking/records"
	"slotfare/booking/service"
)

// TestInProcessReplaceContract runs the contract of a change of a
// booking's terms in one step on the in-process inventory (its resource
// locked across the write), beside records in memory and the embedded
// records on a real bbolt file (one Update transaction).
func TestInProcessReplaceContract(t *testing.T) {
	ports := func(recs records.Port) replacetest.Ports {
		inv := inventory.NewMemory()
		return replacetest.Ports{Inventory: inv, Records: recs, Replace: service.InProcessReplace(inv, recs)}
	}
	t.Run("memory", func(t *testing.T) {
		replacetest.Run(t, func(t *testing.T) replacetest.Ports { return ports(records.NewMemory()) })
	})
	t.Run("bbolt", func(t *testing.T) {
		replacetest.Run(t, func(t *testing.T) replacetest.Ports {
			st, err := boltstore.Open(t.TempDir(), boltstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = st.Close() })
			p, _, err := embedded.Open(bg, st, embedded.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return ports(p.Records)
		})
	})
}
