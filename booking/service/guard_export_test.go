package service

import (
	"context"

	"slotfare/booking/inventory"
)

// BookingsKept is how many bookings the service keeps in memory.
func (s *Service) BookingsKept() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.bookings)
}

// PauseAfterLease makes f run where the service, holding a resource's
// ticker lease, is about to read that resource's history to lay its limits
// out: a test pauses the holder there.
func (s *Service) PauseAfterLease(f func(resource string)) { s.leaseTaken = f }

// InventoryHeld is booking id as the service's inventory holds it on
// resource res.
func (s *Service) InventoryHeld(ctx context.Context, res, id string) (inventory.Held, bool, error) {
	return s.inv.Get(ctx, res, id)
}
