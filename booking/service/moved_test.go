package service

import (
	"fmt"
	"testing"

	"slotfare"
	"slotfare/booking/inventory"
)

// TestGoneMeanwhileIsMoved: the inventory's NotFound for a booking a change
// read as holding (another replica released it since) is decided again as
// a moved booking, through the wrapping a change adds; other errors are not.
func TestGoneMeanwhileIsMoved(t *testing.T) {
	gone := inventory.ErrUnknownBooking("inventory.Within", "R", "bk_1")
	err := slotfare.E("booking.Commit", goneMeanwhile("booking.Commit", "bk_1", gone))
	if !moved(err) || slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("%v: kind %v, moved %v", err, slotfare.KindOf(err), moved(err))
	}
	for _, other := range []error{
		slotfare.E("inventory.Within", slotfare.Unavailable, fmt.Errorf("down")),
		slotfare.E("inventory.Replace", slotfare.NoCapacity, "full"),
	} {
		if got := goneMeanwhile("booking.Commit", "bk_1", other); got != other || moved(got) {
			t.Fatalf("%v became %v", other, got)
		}
	}
}
