package redisstore_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"slotfare/booking/internal/leasetest"
	"slotfare/booking/lease"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
)

// TestLeaseContract runs the lease contract on a real redis-server.
func TestLeaseContract(t *testing.T) {
	rdb := redistest.Start(t)
	var n atomic.Int64
	leasetest.Run(t, func(t *testing.T) lease.Port {
		return redisstore.NewLeases(rdb, fmt.Sprintf("t%d", n.Add(1)))
	})
}
