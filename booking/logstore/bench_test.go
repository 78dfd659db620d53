package logstore

import (
	"testing"

	"slotfare/booking"
	"slotfare/booking/internal/storetest"
)

func BenchmarkWrite(b *testing.B) {
	storetest.BenchmarkWrite(b, func(dir string) (booking.Store, error) { return Open(dir) })
}
