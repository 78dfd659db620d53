package coreserve_test

import (
	"testing"

	"slotfare/booking/coreserve"
	"slotfare/booking/internal/coreservetest"
)

// TestStoreContract runs the Store's contract on Memory; the adapters run
// it in their packages (booking/boltstore/coreservebolt,
// booking/redisstore).
func TestStoreContract(t *testing.T) {
	coreservetest.Contract(t, func(t *testing.T) (coreserve.Store, func() coreserve.Store) {
		m := coreserve.NewMemory()
		return m, func() coreserve.Store { return m }
	})
}
