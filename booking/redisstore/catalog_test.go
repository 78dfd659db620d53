package redisstore_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"slotfare/booking/catalog"
	"slotfare/booking/internal/catalogtest"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
)

// TestCatalogContract runs the catalog contract on a real redis-server.
func TestCatalogContract(t *testing.T) {
	rdb := redistest.Start(t)
	var n atomic.Int64
	catalogtest.Run(t, func(t *testing.T) catalog.Port {
		return redisstore.NewCatalog(rdb, fmt.Sprintf("t%d", n.Add(1)))
	})
}
