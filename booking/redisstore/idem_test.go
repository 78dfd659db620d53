package redisstore_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"slotfare/booking/idem"
	"slotfare/booking/internal/idemtest"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
)

// TestKeysContract runs the idempotency-key contract on a real redis-server.
func TestKeysContract(t *testing.T) {
	rdb := redistest.Start(t)
	var n atomic.Int64
	idemtest.Run(t, func(t *testing.T) idem.Port {
		return redisstore.NewKeys(rdb, fmt.Sprintf("t%d", n.Add(1)))
	})
}
