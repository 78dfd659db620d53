package redisstore_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"slotfare/booking/internal/recordstest"
	"slotfare/booking/records"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
)

// TestRecordsContract runs the booking-record contract on a real
// redis-server.
func TestRecordsContract(t *testing.T) {
	rdb := redistest.Start(t)
	var n atomic.Int64
	recordstest.Run(t, func(t *testing.T) records.Port {
		return redisstore.NewRecords(rdb, fmt.Sprintf("t%d", n.Add(1)))
	})
}
