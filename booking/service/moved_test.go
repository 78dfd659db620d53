package service

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking/inventory"
	"slotfare/ledger"
)

// TestGoneMeanwhileIsMoved: the inventory's NotFound for a booking a change
// read as holding (another replica released it since) is decided again as
// a moved booking, through the wrapping a change adds; other errors are not.
func TestGoneMeanwhileIsMoved(t *testing.T) {
	gone := inventory.ErrUnknownBooking("inventory.Within", "R", "bk_1")
	err := slotfare.E(slotfare.Op("service.Commit"), goneMeanwhile("service.Commit", "bk_1", gone))
	if !moved(err) || slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("%v: kind %v, moved %v", err, slotfare.KindOf(err), moved(err))
	}
	for _, other := range []error{
		slotfare.E(slotfare.Op("inventory.Within"), slotfare.Unavailable, fmt.Errorf("down")),
		slotfare.E(slotfare.Op("inventory.Replace"), slotfare.NoCapacity, "full"),
	} {
		if got := goneMeanwhile("service.Commit", "bk_1", other); got != other || moved(got) {
			t.Fatalf("%v became %v", other, got)
		}
	}
}

// TestBookingOrderReplays: an account's postings listed with a refund
// ahead of its charge (two replicas indexed them the other way round) do
// not replay; put in each booking's order, they do, and every posting is
// kept.
func TestBookingOrderReplays(t *testing.T) {
	l, err := ledger.New(ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	var all []ledger.Posting
	post := func(ps ...ledger.Posting) {
		t.Helper()
		if _, err := l.Append(ps...); err != nil {
			t.Fatal(err)
		}
		all = append(all, ps...)
	}
	for _, id := range []string{"bk_1", "bk_2"} {
		c, err := l.Charge(ledger.BookingRef{ID: id, Customer: "alice", Resource: "R", Currency: "EUR"}, decimal.RequireFromString("10.00"), at)
		if err != nil {
			t.Fatal(err)
		}
		post(c)
	}
	st, err := l.Cancellation("bk_1", decimal.RequireFromString("0.2"), at.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	post(st.Postings...)
	// As a second replica may have listed them: bk_1's settlement first.
	listed := append(append([]ledger.Posting{}, st.Postings...), all[0], all[1])
	replays := func(ps []ledger.Posting) error {
		fresh, err := ledger.New(ledger.Options{})
		if err != nil {
			return err
		}
		return fresh.Replay(context.Background(), ps)
	}
	if err := replays(listed); err == nil {
		t.Fatal("a refund ahead of its charge replayed: the test shows nothing")
	}
	s := &Service{}
	ordered, err := s.bookingOrder(context.Background(), listed)
	if err != nil {
		t.Fatal(err)
	}
	if err := replays(ordered); err != nil {
		t.Fatalf("in booking order: %v", err)
	}
	if len(ordered) != len(listed) || ordered[0].Kind != ledger.KindCharge || ordered[0].BookingID != "bk_1" {
		t.Fatalf("ordered %+v", ordered)
	}
}
