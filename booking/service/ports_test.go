package service_test

import (
	"testing"

	"slotfare"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/memstore"
	"slotfare/booking/service"
)

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
