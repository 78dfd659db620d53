package forecast

import (
	"math"
	"time"
)

// WeekdayPrior is the weight, in instances, of "no weekly pattern" (an
// index of 1) against a weekday's own observations: a weekday seen twice
// moves halfway to its observed index, one seen twenty times almost all
// the way.
const WeekdayPrior = 2

// WeekdayIndex is the weekly seasonality of every series in history: for
// each weekday (time.Weekday, in loc), the mean demand of the instances
// starting on it over the mean of all the series' instances, shrunk
// towards 1 by WeekdayPrior instances. A forecast for an instance on day w
// is the series' forecast times index[w] (mean and standard deviation
// alike: demand scaled by the day's level). Observations are counted as
// ForecastDemand counts them (bookings plus counted refusals), censored
// ones at their lower bound; instances after now are left out, as is a
// series with no demand (all ones).
func WeekdayIndex(history []DemandObservation, loc *time.Location, now time.Time) map[DemandKey][7]float64 {
	type acc struct {
		sum   [7]float64
		n     [7]int
		total float64
		count int
	}
	accs := map[DemandKey]*acc{}
	for _, o := range history {
		if o.Instance.After(now) {
			continue
		}
		x, _ := o.seen()
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			continue
		}
		a := accs[o.Key]
		if a == nil {
			a = &acc{}
			accs[o.Key] = a
		}
		d := o.Instance.In(loc).Weekday()
		a.sum[d] += x
		a.n[d]++
		a.total += x
		a.count++
	}
	out := make(map[DemandKey][7]float64, len(accs))
	for key, a := range accs {
		var idx [7]float64
		mean := a.total / float64(a.count)
		for d := range idx {
			idx[d] = 1
			if mean > 0 && a.n[d] > 0 {
				observed := a.sum[d] / float64(a.n[d]) / mean
				idx[d] = (float64(a.n[d])*observed + WeekdayPrior) / (float64(a.n[d]) + WeekdayPrior)
			}
		}
		out[key] = idx
	}
	return out
}
