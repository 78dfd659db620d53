package logstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"slotfare/booking"
	"slotfare/booking/internal/storetest"
)

func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(dir string) (booking.Store, error) { return Open(dir) })
}

// TestTornTail: a batch torn by a crash (a partial last line) is cut off on
// open; everything before it loads and later writes append after it.
func TestTornTail(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{storetest.Record("a", booking.Held)}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"b":[{"booking":{"booking_id":"torn"`)
	f.Close()
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{storetest.Record("b", booking.Held)}}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if len(st.Bookings) != 2 || st.Bookings[0].Booking.ID != "a" || st.Bookings[1].Booking.ID != "b" {
		t.Fatalf("%+v", st.Bookings)
	}
}
