package service_test

import (
	"testing"

	"slotfare"
	"slotfare/booking/apikey"
	"slotfare/booking/catalog"
	"slotfare/booking/idem"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/booking/memstore"
	"slotfare/booking/records"
	"slotfare/booking/service"
)

// TestRecordsWithoutGuardedStepsAreInvalid: every deployment takes a
// hold, a commit and a change of terms in one guarded step, so ports
// whose records cannot (records.Memory beside an inventory of its own)
// are refused at Open, naming the port.
func TestRecordsWithoutGuardedStepsAreInvalid(t *testing.T) {
	ports := &service.Ports{Inventory: inventory.NewMemory(), Records: records.NewMemory(), Idem: idem.NewMemory(),
		Lease: lease.NewMemory(), Catalog: catalog.NewMemory(), Keys: apikey.NewMemory()}
	svc, err := service.Open(testConfig(), memstore.New(), service.Options{Ports: ports})
	if err == nil {
		svc.Close()
		t.Fatal("ports whose records take no guarded step were accepted")
	}
	if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "ports.records" {
		t.Fatalf("ports whose records take no guarded step: %v", err)
	}
}
