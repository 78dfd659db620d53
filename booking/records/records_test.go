package records_test

import (
	"fmt"
	"testing"
	"time"

	"slotfare/booking"

	"slotfare/booking/internal/recordstest"
	"slotfare/booking/records"
)

func TestMemoryContract(t *testing.T) {
	recordstest.Run(t, func(t *testing.T) records.Port { return records.NewMemory() })
}

// TestListKeyForm: the key is created_at + 2^40 s zero-padded to 20 digits,
// a bar and the id, so that keys sort as (created_at, id) do.
func TestListKeyForm(t *testing.T) {
	for _, c := range []struct {
		at   time.Time
		id   string
		want string
	}{
		{time.Unix(0, 0), "a", "00000001099511627776|a"},
		{time.Unix(1795000000, 999), "bk_1", fmt.Sprintf("%020d|bk_1", int64(1795000000)+1<<40)},
		{time.Unix(-1<<40, 0), "x", "00000000000000000000|x"},
	} {
		got := records.ListKey(booking.Record{Booking: booking.Booking{CreatedAt: c.at, ID: c.id}})
		if got != c.want {
			t.Fatalf("ListKey(%v, %s) = %q, want %q", c.at, c.id, got, c.want)
		}
	}
}
