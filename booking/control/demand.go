package control

import (
	"time"

	"slotfare/booking"
	"slotfare/forecast"
)

// Instance is one period instance as booking control cuts the rate
// calendar (its forecast's unit): a piece of one rate period within one
// local day.
type Instance struct {
	Period     string
	Start, End time.Time
}

// Instances are the period instances overlapping [from, to), in order: the
// keys a demand record of a request over that interval is counted under.
// The caller bounds the interval (a request's window is within the
// book-ahead horizon).
func (c *Control) Instances(from, to time.Time) []Instance {
	return c.AppendInstances(nil, from, to)
}

// AppendInstances appends Instances(from, to) to dst: a caller counting
// every offer query's demand reuses one list.
func (c *Control) AppendInstances(dst []Instance, from, to time.Time) []Instance {
	if !to.After(from) || (c.hasOrigin && from.Sub(c.origin).Abs() > controlMaxAhead) {
		return dst
	}
	i, j := c.overlapping(from, to)
	for _, in := range c.inst[i:j] {
		dst = append(dst, Instance{Period: in.Period, Start: in.Start, End: in.End})
	}
	return dst
}

// SetDemand replaces the demand records booking control forecasts from
// with recs (every replica's, as the records port keeps them): the
// refusals of a class while it was closed are the censored part of its
// demand, seen (forecast.DemandObservation.Refused), and the buy-ups give
// its sell-up (SellUp). Records of a class the resource does not sell are
// left out.
func (c *Control) SetDemand(recs []booking.DemandRecord) {
	c.recorded = map[int64][]booking.DemandCounts{}
	c.historyVersion++
	c.AddDemand(recs)
}

// AddDemand adds recs to the demand records booking control knows (a
// replica's own counts, once stored).
func (c *Control) AddDemand(recs []booking.DemandRecord) {
	if c.recorded == nil {
		c.recorded = map[int64][]booking.DemandCounts{}
	}
	for _, r := range recs {
		idx, ok := c.rank[r.Class]
		if !ok || r.Instance.IsZero() || r.Day.IsZero() || r.Instance.Sub(r.Day).Abs() > controlMaxAhead {
			continue
		}
		c.noteTime(r.Instance) // demand is counted from that instance on
		key := r.Instance.UnixNano()
		counts := c.recorded[key]
		if counts == nil {
			counts = make([]booking.DemandCounts, len(c.classes))
			c.recorded[key] = counts
		}
		counts[idx] = counts[idx].Add(r.Counts)
		if r.Counts.RefusedClosed.NodeSeconds > 0 && !r.Instance.After(c.lastNow) {
			c.dirty = true // an ended instance's demand changed
			c.historyVersion++
		}
	}
}

// SellUpPriorWeight is the weight, in refused requests, of a class's
// configured sell-up probability (limits.sell_up) against what its users
// did: q = (bought up + k q_0) / (refused closed + k). With k = 20 a few
// refusals nudge it, a few hundred decide it.
const SellUpPriorWeight = 20

// SellUpEstimates estimates each class's sell-up probability from the
// demand records booking control knows (forecast.EstimateSellUp over
// every instance kept: requests refused because the class was closed, and
// of them those that bought a higher class), the configured probability
// (limits.sell_up, 0 for a class left out) its prior of weight weight
// refusals. Keyed by class name; every class of the resource is there.
// Errors are EstimateSellUp's (Invalid naming "prior" or "weight").
func (c *Control) SellUpEstimates(weight float64) (map[string]forecast.SellUp, error) {
	counts := make([]forecast.SellUpCount, len(c.classes))
	for i, fc := range c.classes {
		counts[i] = forecast.SellUpCount{Class: fc.Name, BoughtUp: map[string]float64{}}
	}
	for _, byClass := range c.recorded {
		for i, dc := range byClass {
			counts[i].RefusedClosed += float64(dc.RefusedClosed.Requests)
			for to, t := range dc.BoughtUp {
				counts[i].BoughtUp[to] += float64(t.Requests)
			}
		}
	}
	out := make(map[string]forecast.SellUp, len(counts))
	for i := range counts {
		// A buy-up counted without its refusal (a flush cut between the
		// two) is not more than the refusals.
		bought := 0.0
		for _, n := range counts[i].BoughtUp {
			bought += n
		}
		counts[i].RefusedClosed = max(counts[i].RefusedClosed, bought)
		est, err := forecast.EstimateSellUp(counts[i:i+1], c.rc.Limits.SellUp[counts[i].Class], weight)
		if err != nil {
			return nil, err
		}
		out[counts[i].Class] = est[counts[i].Class]
	}
	return out, nil
}

// Seasonality is the weekly pattern of a class's demand in a period (the
// forecast's WeekdayIndex as of the last Recompute, by time.Weekday in the
// resource's zone): the forecast for an instance on day d is the period's
// times index[d]. All ones before any history.
func (c *Control) Seasonality(class, period string) [7]float64 {
	if idx, ok := c.weekday[forecast.DemandKey{Resource: c.rc.ID, Class: class, Period: period}]; ok {
		return idx
	}
	return [7]float64{1, 1, 1, 1, 1, 1, 1}
}

// refusedAt is the node-seconds a class refused while closed in the
// instance starting at key, as the demand records counted.
func (c *Control) refusedAt(key int64, class int) float64 {
	if counts := c.recorded[key]; counts != nil {
		return float64(counts[class].RefusedClosed.NodeSeconds)
	}
	return 0
}
