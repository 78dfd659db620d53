package service_test

import (
	"testing"

	"slotfare"
	"slotfare/booking/apikey"
	"slotfare/booking/catalog"
	"slotfare/booking/deploy/deploytest"
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
	svc, err := service.Open(testConfig(), *ports, service.Options{})
	if err == nil {
		svc.Close()
		t.Fatal("ports whose records take no guarded step were accepted")
	}
	if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "ports.records" {
		t.Fatalf("ports whose records take no guarded step: %v", err)
	}
}

// TestOpenTakesEveryPortAndClosesThem: a missing port is refused at Open,
// naming it; the service closes the ports it was given once, when it
// closes, after storing what it kept in memory.
func TestOpenTakesEveryPortAndClosesThem(t *testing.T) {
	ports := deploytest.Embedded(t, memstore.New())
	noLease := ports
	noLease.Lease = nil
	if _, err := service.Open(testConfig(), noLease, service.Options{}); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "ports.lease" {
		t.Fatalf("ports without a lease: %v", err)
	}
	closed := 0
	inner := ports.Close
	ports.Close = func() error { closed++; return inner() }
	svc, err := service.Open(testConfig(), ports, service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if closed != 0 {
		t.Fatalf("Open closed the ports %d times", closed)
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	if closed != 1 {
		t.Fatalf("two Closes closed the ports %d times, want once", closed)
	}
}
