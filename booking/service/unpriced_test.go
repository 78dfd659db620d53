package service_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/overbook"
)

// TestUnpricedOffersAreInProcessOffers: at base costs from where no offer
// is billable to where every one is, UnpricedOffers answers what
// InProcessOffers answers (the same offers, or the same refusal), and
// PriceOffer prices each unpriced offer at InProcessOffers' price.
func TestUnpricedOffersAreInProcessOffers(t *testing.T) {
	unpriced := 0
	for _, base := range []string{"0.0000001", "0.00001", "0.00008", "0.0002", "0.001", "0.05"} {
		rc := resourceConfig("Z", 8, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
		rc.BaseCost = decimal.RequireFromString(base)
		h := newHarness(t, testConfig(rc))
		for _, secs := range []int64{60, 600, 7200} {
			for _, nodes := range []int{1, 8} {
				name := fmt.Sprintf("base %s, %d s, %d nodes", base, secs, nodes)
				start := t0.Add(time.Hour)
				q := booking.OfferQuery{ResourceID: "Z", EarliestStart: start, LatestEnd: start.Add(4 * time.Hour),
					DurationSeconds: &secs, Nodes: &nodes, FareClass: "premium"}
				want, werr := h.svc.InProcessOffers(bg, alice, q)
				got, gerr := h.svc.UnpricedOffers(bg, alice, q)
				if slotfare.KindOf(werr) != slotfare.KindOf(gerr) || len(got) != len(want) {
					t.Fatalf("%s: %d offers (%v), want %d (%v)", name, len(got), gerr, len(want), werr)
				}
				for i, o := range got {
					if o.Price.Currency == "" {
						unpriced++
						p, err := h.svc.PriceOffer(o)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						o.Price = p
					}
					if fmt.Sprint(o) != fmt.Sprint(want[i]) {
						t.Fatalf("%s: offer %d %+v, want %+v", name, i, o, want[i])
					}
				}
			}
		}
	}
	if unpriced == 0 {
		t.Fatal("no offer came unpriced: the comparison proves nothing")
	}
}
