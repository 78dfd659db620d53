package control

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking/config"
	"slotfare/pricing"
)

// Fares learnt from the price response (limits.fares). A class's users
// answer the tau they are quoted: the demand records count, per class and
// tau, the requests quoted and the bookings sold (booking.DemandCounts'
// Quoted and Sold). From them booking control fits each class's
// acceptance curve (pricing.FitPriceResponse, the provider's configured
// taus the prior's median), and sets each period's fares where expected
// revenue is highest with the capacity's shadow price taken into account
// (pricing.OptimalFares: price-based revenue management, Talluri and van
// Ryzin, "The Theory and Practice of Revenue Management", Sec. 5.2). The
// uncensored demand a period's fares answer is every request of the class
// there, booked or not.

const (
	// FareMinQuotes is how many quoted requests every class needs before
	// booking control moves fares away from the configured taus: until
	// then the configured fares, which differ by period, are the price
	// points the response is first measured at.
	FareMinQuotes = 30
	// fareDemandInstances is how many ended instances of a period the
	// demand its fares answer is averaged over.
	fareDemandInstances = 14
)

// fareResponsePriorSD is the prior's spread: a median within a factor of
// about 1.65 of the configured taus, a slope between about 1 and 7.
var fareResponsePriorSD = pricing.ResponsePriorSD{LnMedian: 0.5, Slope: 1.5}

// fareResponsePriorSlope is the prior's slope: with it the
// revenue-maximising tau sits about a quarter below the median.
const fareResponsePriorSlope = 4

// configuredFares are the classes' configured taus for period, by rank,
// moved into the fare bounds when the resource has them.
func (c *Control) configuredFares(period string) ([]decimal.Decimal, error) {
	out := make([]decimal.Decimal, len(c.classes))
	for i, cl := range c.classes {
		tau, ok := cl.TauFor(period)
		if !ok {
			return nil, slotfare.E(slotfare.Op("control.Control"), slotfare.Other, "class "+cl.Name+" has no tau for "+period)
		}
		if b := c.rc.Limits.Fares; b != nil {
			tau = decimal.Min(decimal.Max(tau, b.MinTau), b.MaxTau)
		}
		out[i] = tau
	}
	return out, nil
}

// periodFares are the taus, by rank, the classes sell at in period: the
// configured ones, or with fare bounds, for the classes whose response is
// learnt (responses[i].Median > 0), the optimal ones for those responses
// against the period's demand and the capacity the other classes leave
// (capacity is the overbooking limit: a booking holds its nodes until it
// is cancelled, so a cancellation frees nothing for the demand that came
// meanwhile).
func (c *Control) periodFares(period string, responses []pricing.PriceResponse, capacity float64, now time.Time, kind dayKind) ([]decimal.Decimal, error) {
	conf, err := c.configuredFares(period)
	if err != nil || c.rc.Limits.Fares == nil || responses == nil {
		return conf, err
	}
	demand := c.periodDemand(period, now, kind)
	var learnt []int
	var classes []pricing.FareDemand
	for i, r := range responses {
		if r.Median > 0 {
			learnt = append(learnt, i)
			classes = append(classes, pricing.FareDemand{Demand: demand[i], Response: r})
		} else {
			capacity -= demand[i] // held at its configured fare, all of it may come
		}
	}
	if len(learnt) == 0 {
		return conf, nil
	}
	grid := c.rc.Limits.Fares.Grid()
	fg := make([]float64, len(grid))
	for i, g := range grid {
		fg[i] = g.InexactFloat64()
	}
	taus, _, err := pricing.OptimalFares(classes, max(capacity, 0), fg)
	if err != nil {
		return nil, slotfare.E(slotfare.Op("control.Control"), slotfare.Other, err)
	}
	out := slices.Clone(conf)
	for k, i := range learnt {
		out[i] = grid[min(sort.SearchFloat64s(fg, taus[k]-1e-9), len(grid)-1)]
	}
	return c.strictlyNested(out), nil
}

// strictlyNested raises each class's fare a step above the next lower
// class's where it is not above it, as the nesting needs fares strictly
// falling by rank, then lowers those pushed past the highest fare, each a
// step below the one above.
func (c *Control) strictlyNested(fares []decimal.Decimal) []decimal.Decimal {
	b := c.rc.Limits.Fares
	for i := len(fares) - 2; i >= 0; i-- {
		if !fares[i].GreaterThan(fares[i+1]) {
			fares[i] = fares[i+1].Add(config.FareStep)
		}
	}
	for i := range fares {
		top := b.MaxTau.Sub(config.FareStep.Mul(decimal.NewFromInt(int64(i))))
		fares[i] = decimal.Max(decimal.Min(fares[i], top), b.MinTau)
	}
	return fares
}

// pricedDemand replaces, where booking control sets fares and knows a
// class's response, the class's forecast in cd (by rank) with what its
// requests would book at its fare (uncensored demand times acceptance,
// Poisson spread): the bookings the forecast saw were made at other
// fares, so the nesting would protect for demand the fare turns away.
func (c *Control) pricedDemand(period string, now time.Time, cd []pricing.ClassDemand, responses []pricing.PriceResponse) {
	if c.rc.Limits.Fares == nil || responses == nil {
		return
	}
	demand := c.periodDemand(period, now, dayWeekday)
	for i, r := range responses {
		if r.Median > 0 && i < len(cd) {
			m := demand[i] * r.Accept(cd[i].Fare)
			cd[i].Mean, cd[i].SD = m, math.Sqrt(m)
		}
	}
}

// periodDemand is each class's uncensored demand in period, by rank, in
// mean nodes: every request counted in the last ended instances of the
// period (offered, refused closed or full), node-seconds over seconds.
func (c *Control) periodDemand(period string, now time.Time, kind dayKind) []float64 {
	out := make([]float64, len(c.classes))
	secs, seen := 0.0, 0
	for k := len(c.inst) - 1; k >= 0 && seen < fareDemandInstances; k-- {
		in := c.inst[k]
		if in.Period != period || in.End.After(now) || !c.isKind(in.Start, kind) {
			continue
		}
		counts := c.recorded[in.Start.UnixNano()]
		if counts == nil {
			continue
		}
		seen++
		secs += in.End.Sub(in.Start).Seconds()
		for i, dc := range counts {
			out[i] += float64(dc.Offered.NodeSeconds + dc.RefusedClosed.NodeSeconds + dc.RefusedFull.NodeSeconds)
		}
	}
	if seen == 0 && kind != dayAny {
		return c.periodDemand(period, now, dayAny) // none of that kind yet
	}
	for i := range out {
		if secs > 0 {
			out[i] /= secs
		}
	}
	return out
}

// dayKind sorts period instances by the day they start on: demand on a
// weekend instance of a period differs from a weekday one's.
type dayKind int

const (
	dayAny dayKind = iota
	dayWeekday
	dayWeekend
)

// isKind reports whether an instance starting at t is of kind.
func (c *Control) isKind(t time.Time, kind dayKind) bool {
	if kind == dayAny {
		return true
	}
	d := t.In(c.cal.Location()).Weekday()
	return (d == time.Saturday || d == time.Sunday) == (kind == dayWeekend)
}

// fareResponses fits each class's price response, by rank, from the
// quotes and sales of every instance kept; nil when fares are not learnt
// (no fare bounds), the zero response for a class with fewer than
// FareMinQuotes quotes (it keeps its configured fares).
func (c *Control) fareResponses() ([]pricing.PriceResponse, error) {
	if c.rc.Limits.Fares == nil {
		return nil, nil
	}
	obs := c.priceObservations()
	out := make([]pricing.PriceResponse, len(c.classes))
	for i, cl := range c.classes {
		quoted := 0.0
		for _, o := range obs[i] {
			quoted += o.Offered
		}
		if quoted < FareMinQuotes {
			continue
		}
		prior := pricing.PriceResponse{Median: meanTau(cl), Slope: fareResponsePriorSlope}
		r, err := pricing.FitPriceResponse(obs[i], prior, fareResponsePriorSD)
		if err != nil {
			return nil, slotfare.E(slotfare.Op("control.Control"), slotfare.Other, err)
		}
		out[i] = r
	}
	return out, nil
}

// priceObservations are, by class rank and in tau order, the requests
// quoted at each tau and the bookings sold at it (never more than quoted:
// a sale counted before its quote was flushed waits for it).
func (c *Control) priceObservations() [][]pricing.PriceObservation {
	type tally struct{ quoted, sold float64 }
	by := make([]map[string]*tally, len(c.classes))
	for i := range by {
		by[i] = map[string]*tally{}
	}
	at := func(i int, tau string) *tally {
		if by[i][tau] == nil {
			by[i][tau] = &tally{}
		}
		return by[i][tau]
	}
	for _, counts := range c.recorded {
		for i, dc := range counts {
			for tau, t := range dc.Quoted {
				at(i, tau).quoted += float64(t.Requests)
			}
			for tau, t := range dc.Sold {
				at(i, tau).sold += float64(t.Requests)
			}
		}
	}
	out := make([][]pricing.PriceObservation, len(c.classes))
	for i, m := range by {
		for tau, t := range m {
			v, err := decimal.NewFromString(tau)
			if err != nil || !v.IsPositive() || t.quoted <= 0 {
				continue
			}
			out[i] = append(out[i], pricing.PriceObservation{Tau: v.InexactFloat64(), Offered: t.quoted, Taken: math.Min(t.sold, t.quoted)})
		}
		sort.Slice(out[i], func(a, b int) bool { return out[i][a].Tau < out[i][b].Tau })
	}
	return out
}

// meanTau is the mean of a class's configured taus over its periods.
func meanTau(cl pricing.FareClass) float64 {
	sum, n := 0.0, 0
	for _, t := range cl.Tau {
		sum += t.InexactFloat64()
		n++
	}
	if n == 0 {
		return 1
	}
	return sum / float64(n)
}

// PricedClasses are the resource's fare classes by rank as they sell now:
// the configured ones with each period's tau the fare booking control
// set (PeriodLimits.Fares). The result is shared: callers must not
// change it.
func (c *Control) PricedClasses() []pricing.FareClass {
	if c.priced == nil {
		return c.classes
	}
	return c.priced
}

// priceClasses lays the limits' fares onto the classes (PricedClasses);
// nil when every fare is the configured tau.
func (c *Control) priceClasses() []pricing.FareClass {
	if c.rc.Limits.Fares == nil {
		return nil
	}
	out := make([]pricing.FareClass, len(c.classes))
	for i, cl := range c.classes {
		tau := make(map[string]decimal.Decimal, len(cl.Tau))
		weekend := make(map[string]decimal.Decimal, len(cl.Tau))
		for p, t := range cl.Tau {
			tau[p] = t
			if l, ok := c.limits[p]; ok && i < len(l.Fares) {
				tau[p] = l.Fares[i]
			}
			if l, ok := c.limits[p]; ok && i < len(l.WeekendFares) {
				weekend[p] = l.WeekendFares[i]
			}
		}
		cl.Tau, cl.WeekendTau = tau, weekend
		out[i] = cl
	}
	return out
}

// FareKey is how a tau is written in the demand records' quotes and sales.
func FareKey(tau decimal.Decimal) string { return tau.StringFixed(2) }

// QuotedAt is the tau class (by rank) sells at when a request starts at t,
// as a demand record key; "" when booking control does not set fares
// (nothing is learnt from the quotes then).
func (c *Control) QuotedAt(class int, t time.Time) string {
	classes := c.PricedClasses()
	if c.rc.Limits.Fares == nil || class < 0 || class >= len(classes) {
		return ""
	}
	tau, ok := classes[class].TauAt(c.cal, c.cal.PeriodAt(t), t)
	if !ok {
		return ""
	}
	return FareKey(tau)
}
