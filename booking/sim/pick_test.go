package sim

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/booking"
)

// TestPickFollowsTheCountersBuyUp: a user takes the counter's buy-up
// offers (marked RequestedFareClass) only when its willingness to pay
// covers their price, else refuses; without one it walks away (closed).
// An offer in another class the counter did not mark as a buy-up (a user
// of a class the resource does not sell, sold its cheapest) is an
// ordinary take, not a buy-up.
func TestPickFollowsTheCountersBuyUp(t *testing.T) {
	at := DefaultStart
	offer := func(class, requested string, total int64) booking.Offer {
		return booking.Offer{Start: at, End: at.Add(time.Hour), Nodes: 2, FareClass: class, RequestedFareClass: requested,
			Price: booking.Price{Total: decimal.NewFromInt(total)}}
	}
	base := decimal.NewFromInt(1) // per node-second: 7,200 for the offer at tau 1
	rich, poor := affordable(3, base), affordable(1.5, base)
	for _, tt := range []struct {
		name   string
		offer  booking.Offer
		afford func(booking.Offer) bool
		want   outcome
	}{
		{"buy-up affordable", offer("business", "budget", 14400), rich, tookUp},
		{"buy-up too dear", offer("business", "budget", 14400), poor, refused},
		{"buy-up, no willingness to pay", offer("business", "budget", 14400), nil, closed},
		{"class asked", offer("budget", "", 7200), nil, took},
		{"unmarked other class", offer("business", "", 7200), nil, took},
	} {
		_, got := pick([]booking.Offer{tt.offer}, 3600, 2, 300, tt.afford)
		if got != tt.want {
			t.Errorf("%s: outcome %d, want %d", tt.name, got, tt.want)
		}
	}
}
