package boltstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/events"
)

// TestEventsRetention: a store told to keep 3 events keeps the newest 3,
// in order, after 7 batches of one or two events, and after a restart;
// the events outlive Load, which does not read them.
func TestEventsRetention(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := boltstore.Open(dir, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.KeepEvents(3)
	n := 0
	for i := range 7 {
		var b booking.Batch
		for range 1 + i%2 {
			n++
			e, _ := events.New(fmt.Sprintf("e%d", n), events.PostingCreated, "accounts/a", time.Unix(int64(n), 0), n)
			raw, _ := json.Marshal(e)
			b.Events = append(b.Events, raw)
		}
		if err := s.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	check := func(s *boltstore.Store) {
		t.Helper()
		got, err := s.ReadEvents(ctx, nil, nil, 100)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, l := range got {
			ids = append(ids, l.Event.ID)
		}
		if want := fmt.Sprint([]string{fmt.Sprintf("e%d", n-2), fmt.Sprintf("e%d", n-1), fmt.Sprintf("e%d", n)}); fmt.Sprint(ids) != want {
			t.Fatalf("kept %v, want %v", ids, want)
		}
		after := events.Cursor{}.Advance(got[0])
		if rest, _ := s.ReadEvents(ctx, nil, after, 100); len(rest) != 2 || rest[0].Event.ID != got[1].Event.ID {
			t.Fatalf("after %v: %v", after, rest)
		}
	}
	check(s)
	s.Close()
	s, err = boltstore.Open(dir, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check(s)
}
