package lease_test

import (
	"testing"

	"slotfare/booking/internal/leasetest"
	"slotfare/booking/lease"
)

func TestMemoryContract(t *testing.T) {
	leasetest.Run(t, func(t *testing.T) lease.Port { return lease.NewMemory() })
}
