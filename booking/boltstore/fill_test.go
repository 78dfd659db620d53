package boltstore

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"slotfare/booking"
)

// TestAppendedPagesFilled: the event log, appended to in order, keeps its
// leaf pages well over half full (at bbolt's default fill a split leaves them half
// empty, and every group commit writes twice the pages), and so do the
// bookings, whose ids grow with time.
func TestAppendedPagesFilled(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1.8e9, 0).UTC()
	ev := bytes.Repeat([]byte("x"), 700)
	for i := range 400 {
		r := booking.Record{Booking: booking.Booking{ID: fmt.Sprintf("bk%08d", i), AccountID: "a", Status: booking.Committed,
			ResourceID: "R", Start: at, End: at.Add(time.Hour), Nodes: 1, CreatedAt: at, UpdatedAt: at}}
		if err := s.Write(context.Background(), booking.Batch{Bookings: []booking.Record{r}, Events: [][]byte{ev, ev}}); err != nil {
			t.Fatal(err)
		}
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		for _, b := range []struct {
			name []byte
			min  float64
		}{{bucketEvents, 0.6}, {bucketBookings, 0.6}} {
			st := tx.Bucket(b.name).Stats()
			if fill := float64(st.LeafInuse) / float64(st.LeafAlloc); fill < b.min {
				t.Errorf("%s: leaf pages %.0f%% full (%d of %d bytes), want at least %.0f%%", b.name, 100*fill, st.LeafInuse, st.LeafAlloc, 100*b.min)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
