package boltstore

import (
	"testing"

	"slotfare/booking"
	"slotfare/booking/internal/storetest"
)

func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(dir string) (booking.Store, error) { return Open(dir, Options{}) })
}
