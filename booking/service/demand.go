package service

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
)

// demandKept is how far back, from a flush, the demand records of a
// resource are kept: booking control forecasts from the last 60 instances
// of a period (12 weeks of a weekday period), and the records port forgets
// instances older than that, so a resource's records stay bounded.
const demandKept = 90 * 24 * time.Hour

// demandOutcome is what became of a request for a fare class.
type demandOutcome int

const (
	demandOffered demandOutcome = iota
	demandBooked
	demandBoughtUp
	demandRefusedClosed
	demandRefusedFull
	// demandQuoted and demandSold count only the price response: a
	// query quoted a fare in its class, a hold made at the fare quoted.
	demandQuoted
	demandSold
)

// demandKey is a record's booking.DemandKey as countDemand keys the
// unstored records: the same records add up (the key's instance is to the
// second, its day a UTC midnight, its class the index of the class's name
// in the resource's demandClasses), without writing or hashing a string
// per instance of every offer.
type demandKey struct {
	instance, day int64 // unix seconds
	class         int
}

// countDemand counts one request of class's outcome over [start, end) on
// nodes nodes (to: the class bought, for a buy-up) in this replica's
// unstored demand records: one per period instance it touches, with the
// node-seconds inside it, on the day of now. A quote or a sale (the price
// response) counts only with its fare tau, once, in the first instance.
// Stored by flushDemand. The caller holds r.mu.
func (r *resource) countDemand(class string, outcome demandOutcome, to, tau string, nodes int, start, end, now time.Time) {
	if r.ctl == nil || nodes < 1 || class == "" {
		return
	}
	day := now.UTC().Truncate(24 * time.Hour)
	ci := r.demandClass(class)
	r.instances = r.ctl.AppendInstances(r.instances[:0], start, end)
	for n, in := range r.instances {
		if outcome >= demandQuoted && (n > 0 || tau == "") {
			break
		}
		lo, hi := max(in.Start.Unix(), start.Unix()), min(in.End.Unix(), end.Unix())
		if hi <= lo {
			continue
		}
		k := demandKey{in.Start.Unix(), day.Unix(), ci}
		rec := r.demand[k]
		if rec == nil {
			rec = &booking.DemandRecord{Resource: r.id, Class: class, Period: in.Period, Instance: in.Start.UTC(), Day: day}
			if r.demand == nil {
				r.demand = map[demandKey]*booking.DemandRecord{}
			}
			r.demand[k] = rec
		}
		countOutcome(&rec.Counts, outcome, to, tau, int64(nodes)*(hi-lo))
	}
}

// demandClass is the index of class in r.demandClasses, added there the
// first time it is counted: the few names a resource ever sells, kept for
// its life so that unstored records keyed before a flush failed still
// name theirs. The caller holds r.mu.
func (r *resource) demandClass(class string) int {
	for i, c := range r.demandClasses {
		if c == class {
			return i
		}
	}
	r.demandClasses = append(r.demandClasses, class)
	return len(r.demandClasses) - 1
}

// countOutcome adds one request of outcome over nodeSeconds to c in place
// (booking.DemandCounts.Add of its single count, without a new record or
// maps per count).
func countOutcome(c *booking.DemandCounts, outcome demandOutcome, to, tau string, nodeSeconds int64) {
	var t *booking.DemandTally
	switch outcome {
	case demandOffered:
		t = &c.Offered
	case demandBooked:
		t = &c.Booked
	case demandRefusedClosed:
		t = &c.RefusedClosed
	case demandRefusedFull:
		t = &c.RefusedFull
	case demandBoughtUp:
		c.BoughtUp = addTally(c.BoughtUp, to, nodeSeconds)
		return
	case demandQuoted:
		c.Quoted = addTally(c.Quoted, tau, nodeSeconds)
		return
	case demandSold:
		c.Sold = addTally(c.Sold, tau, nodeSeconds)
		return
	}
	t.Requests++
	t.NodeSeconds += nodeSeconds
}

// addTally is m with one request of nodeSeconds added under key (m made
// when nil).
func addTally(m map[string]booking.DemandTally, key string, nodeSeconds int64) map[string]booking.DemandTally {
	if m == nil {
		m = map[string]booking.DemandTally{}
	}
	t := m[key]
	m[key] = booking.DemandTally{Requests: t.Requests + 1, NodeSeconds: t.NodeSeconds + nodeSeconds}
	return m
}

// quoteOf is the fare key of a price: base over the base cost of the
// node-seconds, to the nearest fare step, or "" when booking control
// does not set r's fares (nothing is learnt from quotes then). A user
// answers an offer's whole price, whatever periods it spans, so its
// mean tau is what the response is measured against.
func (r *resource) quoteOf(base decimal.Decimal, nodes int, start, end time.Time) string {
	ns := decimal.NewFromInt(int64(nodes) * (end.Unix() - start.Unix()))
	if r.rc.Limits.Fares == nil || !ns.IsPositive() || !r.rc.BaseCost.IsPositive() {
		return ""
	}
	step := config.FareStep
	return base.Div(r.rc.BaseCost.Mul(ns)).Div(step).Round(0).Mul(step).StringFixed(2)
}

// flushDemand stores the demand this replica counted on r since the last
// flush, in one write to the records port (Tick calls it every second, not
// every query: a resource's offer queries cost a map update each), and
// tells booking control once it is stored. On failure the counts stay for
// the next flush. The write forgets instances older than demandKept.
func (s *Service) flushDemand(ctx context.Context, r *resource, now time.Time) error {
	r.mu.Lock()
	pending := r.demand
	r.demand = nil
	r.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	w := booking.DemandWrite{Resource: r.id, ID: s.writeID(), Forget: now.Add(-demandKept), Records: make([]booking.DemandRecord, 0, len(pending))}
	for _, rec := range pending {
		w.Records = append(w.Records, *rec)
	}
	v, err := s.records.CountDemand(ctx, w)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		for k, rec := range pending {
			// Added into fresh maps even with nothing counted since:
			// countDemand adds to a record's maps in place, and w's copies
			// of them went to the port.
			var since booking.DemandCounts
			if old := r.demand[k]; old != nil {
				since = old.Counts
			}
			rec.Counts = rec.Counts.Add(since)
			if r.demand == nil {
				r.demand = map[demandKey]*booking.DemandRecord{}
			}
			r.demand[k] = rec
		}
		return slotfare.E(slotfare.Op("service.flushDemand"), slotfare.Unavailable, err)
	}
	if r.ctl != nil {
		r.ctl.AddDemand(w.Records)
	}
	r.wrote(v)
	return nil
}

// storedDemand reads resource's demand records every replica stored, of
// the instances demandKept back from now, as booking control's book of
// them (for the lease holder's replay and refresh, and the start).
func (s *Service) storedDemand(ctx context.Context, resource string, now time.Time) (booking.DemandBook, error) {
	recs, err := s.records.Demand(ctx, resource, now.Add(-demandKept))
	if err != nil {
		return booking.DemandBook{}, err
	}
	book := booking.DemandBook{}
	book.Count(booking.DemandWrite{Resource: resource, Records: recs})
	return book, nil
}

// SellUp is booking control's estimate, per fare class of resource id, of
// the share of requests refused because the class was closed that bought
// a higher class instead (control.Control.SellUpEstimates over the demand
// records this replica's control knows: every replica's on the ticker
// lease's holder), the configured limits.sell_up its prior of weight
// weight refusals. Errors: NotFound for an unknown resource, Invalid
// naming "weight".
func (s *Service) SellUp(id string, weight float64) (map[string]SellUpEstimate, error) {
	r := s.resource(id)
	if r == nil {
		return nil, slotfare.E(slotfare.Op("service.SellUp"), slotfare.NotFound, slotfare.Field("resource_id"), "no resource "+id)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	su, err := r.ctl.SellUpEstimates(weight)
	if err != nil {
		return nil, err
	}
	out := make(map[string]SellUpEstimate, len(su))
	for k, v := range su {
		out[k] = SellUpEstimate{Probability: v.Probability, To: v.To, Refused: v.Refused, BoughtUp: v.BoughtUp}
	}
	return out, nil
}

// SellUpEstimate is one class's estimated sell-up (forecast.SellUp).
type SellUpEstimate struct {
	Probability float64
	To          map[string]float64
	Refused     float64
	BoughtUp    float64
}
