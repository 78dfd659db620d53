package service

import (
	"fmt"
	"time"

	"slotfare"
	"slotfare/calendar"
	"slotfare/ledger"
	"slotfare/pricing"
)

// coversBidPrices refuses a hold, under bid-price control, whose fare does
// not cover the bid prices of the node-seconds it takes (its displacement
// cost, Talluri and van Ryzin Sec. 3.3.1), at the bid prices in force now:
// an offer made before they rose is refused as an offer of a class since
// closed is. Both sides are rounded to the currency's scale, as the price
// is: rounding never reverses an order, so an offer pricing.Covers let
// through passes here at the same bid prices.
func (s *Service) coversBidPrices(op slotfare.Op, plan holdPlan) error {
	r := plan.r
	r.mu.Lock()
	bid, ok := r.bidClass()
	rate, base := r.rate, r.rc.BaseCost
	r.mu.Unlock()
	if !ok {
		return nil
	}
	cost, err := pricing.PriceReservation(rate, bid, base, plan.nodes, plan.start, plan.end)
	if err != nil {
		return slotfare.E(op, err)
	}
	displaced := cost.Rounded(s.currencies.Rule(ledger.Currency(plan.price.Currency)).Scale)
	if plan.price.Base.GreaterThanOrEqual(displaced) {
		return nil
	}
	return slotfare.E(op, slotfare.Conflict, slotfare.Field("fare_class"), fmt.Sprintf(
		"fare class %q at %s %s does not cover the bid prices of what it takes (%s %s) on %s: ask for offers again",
		plan.class.Name, plan.price.Base.String(), plan.price.Currency, displaced.String(), plan.price.Currency, r.id))
}

// bidClass is booking control's bid prices as a fare class, when the
// resource is under bid-price control and has them. The caller holds r.mu.
func (r *resource) bidClass() (pricing.FareClass, bool) {
	if r.ctl == nil {
		return pricing.FareClass{}, false
	}
	return r.ctl.BidClass()
}

// coversOffer reports whether an offer in class covers the bid prices of
// what it takes (pricing.Covers); true where the resource has none.
func coversOffer(sn offerSnapshot, class pricing.FareClass, o calendar.Offer) (bool, error) {
	if sn.bid == nil {
		return true, nil
	}
	return pricing.Covers(sn.rate, class, *sn.bid, time.Unix(o.Start, 0), time.Unix(o.End, 0))
}

// coversChange refuses, under bid-price control, a change whose new time
// in class does not cover the bid prices of what it takes over [start,
// end): for an extension the time added, for a move its new terms (a
// move is sold anew in its class). Conflict naming field. The caller
// holds r.mu.
func (r *resource) coversChange(op slotfare.Op, field string, class pricing.FareClass, start, end time.Time) error {
	bid, ok := r.bidClass()
	if !ok {
		return nil
	}
	covers, err := pricing.Covers(r.rate, class, bid, start, end)
	if err != nil {
		return slotfare.E(op, err)
	}
	if covers {
		return nil
	}
	return slotfare.E(op, slotfare.Conflict, slotfare.Field(field), fmt.Sprintf(
		"fare class %q does not cover the bid prices of %s to %s on %s: the change would displace more than it pays",
		class.Name, start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339), r.id))
}
