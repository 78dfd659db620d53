package service_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/apikey"
	"slotfare/booking/catalog"
	"slotfare/booking/config"
	"slotfare/booking/lease"
	"slotfare/booking/service"
	"slotfare/overbook"
)

// TestHoldOnAGivenUpRequestHoldsNothing: a hold whose request's context is
// done before its admission takes no capacity: the context reaches the
// inventory, which refuses it, and the whole capacity stays for the next
// hold.
func TestHoldOnAGivenUpRequestHoldsNothing(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rc := resourceConfig("C", 7, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
		rs := newReplicas(t, 1, testConfig(rc), ports)
		rs.tickAll(t0)
		start := t0.Add(2 * time.Hour)
		req := booking.HoldRequest{ResourceID: "C", Start: start, End: start.Add(time.Hour), Nodes: 7, FareClass: "premium"}
		gone, cancel := context.WithCancel(bg)
		cancel()
		if b, _, err := rs.svcs[0].Hold(gone, alice, req, booking.Idempotency{}); err == nil {
			t.Fatalf("a hold on a cancelled request was taken: %s", b.ID)
		} else if !errors.Is(err, context.Canceled) {
			t.Fatalf("refused with %v, want the request's cancellation", err)
		}
		if _, _, err := rs.svcs[0].Hold(bg, bob, req, booking.Idempotency{}); err != nil {
			t.Fatalf("the whole capacity after a given-up hold: %v", err)
		}
	})
}

// blockingCatalog is a catalog whose Version, once armed, waits for its
// caller's context to be done: a store that stopped answering.
type blockingCatalog struct {
	catalog.Port
	mu      sync.Mutex
	entered chan struct{} // closed on the first call once armed; nil: unarmed
}

func (c *blockingCatalog) arm() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entered = make(chan struct{})
	return c.entered
}

func (c *blockingCatalog) Version(ctx context.Context) (int64, error) {
	c.mu.Lock()
	entered := c.entered
	c.entered = nil
	c.mu.Unlock()
	if entered == nil {
		return c.Port.Version(ctx)
	}
	close(entered)
	<-ctx.Done()
	return 0, ctx.Err()
}

// TestCloseEndsATickWaitingOnTheStore: Close cancels the context a tick
// runs under, so a tick waiting on a store that does not answer returns,
// and Close (which waits for the tick) returns with it.
func TestCloseEndsATickWaitingOnTheStore(t *testing.T) {
	cat := &blockingCatalog{Port: catalog.NewMemory()}
	inv, recs, keys := inProcess(t)
	ports := &service.Ports{Inventory: inv, Records: recs, Idem: keys,
		Lease: lease.NewMemory(), Catalog: cat, Keys: apikey.NewMemory()}
	svc, err := service.Open(testConfig(), *ports, service.Options{Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	entered := cat.arm()
	ticked := make(chan error, 1)
	go func() { ticked <- svc.Tick(t0) }()
	<-entered
	closed := make(chan error, 1)
	go func() { closed <- svc.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("close: %v", err)
		}
	case <-time.After(30 * time.Second): // a deadline for the failure only
		t.Fatal("Close still waits for a tick blocked on the store")
	}
	if err := <-ticked; !errors.Is(err, context.Canceled) {
		t.Fatalf("the tick returned %v, want its context's cancellation", err)
	}
}
