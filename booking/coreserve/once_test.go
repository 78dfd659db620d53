package coreserve

import (
	"context"
	"sync"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
)

// TestReserveOnceReplaysAndRefuses: a retry with the key and the same
// request answers the first co-reservation, holding nothing more; the key
// with another request is a Conflict naming it; another account's same key
// is its own.
func TestReserveOnceReplaysAndRefuses(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	req := Request{Parts: []Part{part("RAL", 2, r.at(9), r.at(12), time.Hour), part("Imperial", 2, r.at(9), r.at(12), time.Hour)}}
	req.Parts[1].SameStartAs = intp(0)
	key := booking.Idempotency{Key: "k1", Fingerprint: "fp-a"}
	first, replayed, err := r.br.ReserveOnce(ctx, alice, req, key)
	if err != nil || replayed {
		t.Fatalf("first: replayed %v, %v", replayed, err)
	}
	again, replayed, err := r.br.ReserveOnce(ctx, alice, req, key)
	if err != nil || !replayed || again.ID != first.ID || again.Parts[0].BookingID != first.Parts[0].BookingID {
		t.Fatalf("retry: %s (replayed %v), first %s: %v", again.ID, replayed, first.ID, err)
	}
	if n := r.liveHolds(t); n != 2 {
		t.Fatalf("%d holds after a retry, want the first's 2", n)
	}
	_, _, err = r.br.ReserveOnce(ctx, alice, req, booking.Idempotency{Key: "k1", Fingerprint: "fp-b"})
	if slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != IdempotencyField {
		t.Fatalf("the key with another request: %v", err)
	}
	bob := booking.Principal{AccountID: "bob", Role: booking.RoleUser, VO: "1"}
	other, replayed, err := r.br.ReserveOnce(ctx, bob, req, key)
	if err != nil || replayed || other.ID == first.ID {
		t.Fatalf("bob's k1: %s (replayed %v), %v", other.ID, replayed, err)
	}
	if _, _, err := r.br.ReserveOnce(ctx, alice, req, booking.Idempotency{Key: "k2"}); slotfare.KindOf(err) != slotfare.Invalid {
		t.Fatalf("a key without a fingerprint: %v", err)
	}
}

// TestReserveOnceRacing: ten requests with one key at once make one
// co-reservation; every other request's holds are cancelled, and each
// answers that one.
func TestReserveOnceRacing(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	req := Request{Parts: []Part{part("RAL", 1, r.at(9), r.at(18), time.Hour), part("CERN", 1, r.at(9), r.at(18), time.Hour)}}
	key := booking.Idempotency{Key: "race", Fingerprint: "fp"}
	const n = 10
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, _, err := r.br.ReserveOnce(ctx, alice, req, key)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = v.ID
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("one key gave co-reservations %v", ids)
		}
	}
	if h := r.liveHolds(t); h != 2 {
		t.Fatalf("%d holds left for one co-reservation of 2 parts", h)
	}
}
