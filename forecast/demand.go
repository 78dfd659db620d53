package forecast

import (
	"fmt"
	"math"
	"sort"
	"time"

	"slotfare"
)

// DemandKey names one demand series: a fare class on a resource in one rate
// period (every instance of, say, RAL's weekday peak).
type DemandKey struct {
	Resource string
	Class    string
	Period   string
}

// DemandObservation is the demand seen for one instance of a rate period (one
// Monday's peak, say): the nodes the class booked for it by the time it
// started. Closed says the class closed before the instance started (its
// booking limit was reached), so Demand is only a lower bound: the true
// demand was at least that. Refused is the demand the class turned away
// while closed, as the demand records counted it (the requests refused
// because the class was closed): with it the censored part is seen, and the
// observation is Demand + Refused, uncensored. A closed instance without
// refusals counted stays censored and is unconstrained by EM.
type DemandObservation struct {
	Key      DemandKey
	Instance time.Time // the start of the period instance
	Demand   float64   // nodes booked (node counts, or bookings for one-node demand)
	Refused  float64   // nodes refused because the class was closed
	Closed   bool
}

// seen is the observation's demand and whether it is still censored.
func (o DemandObservation) seen() (float64, bool) {
	if o.Closed && o.Refused > 0 {
		return o.Demand + o.Refused, false
	}
	return o.Demand, o.Closed
}

// DemandConfig tunes ForecastDemand.
type DemandConfig struct {
	// Family is the distribution assumed for demand; the zero value is Normal.
	Family Family
	// Alpha is the smoothing constant in (0, 1]: the weight of the newest
	// observation. Zero means DefaultDemandAlpha.
	Alpha float64
}

// DefaultDemandAlpha weighs the newest period instance at 20%: about the last
// ten instances (two weeks of weekdays) carry the forecast.
const DefaultDemandAlpha = 0.2

// DemandForecast is the forecast demand of one series for its next instance:
// a normal N(Mean, SD^2) or a Poisson with mean Mean (SD = sqrt(Mean)). EMSR
// takes Mean and SD; Alg. 10 takes CDF.
type DemandForecast struct {
	Key          DemandKey
	Family       Family
	Mean, SD     float64
	Observations int // instances used
	Censored     int // of which the class was closed
	// Corrected says the censored observations were unconstrained (EM);
	// LowerBound says there were censored observations but too few
	// uncensored ones to correct them, so Mean is biased low.
	Corrected, LowerBound bool
}

// CDF is P(demand <= x) under the forecast: F_i(x) of seed 004 Sec. 7.4.2.
func (f DemandForecast) CDF(x float64) float64 {
	if f.Family == Poisson {
		return poissonCDF(x, f.Mean)
	}
	if f.SD <= 0 {
		if x >= f.Mean {
			return 1
		}
		return 0
	}
	return stdNormalCDF((x - f.Mean) / f.SD)
}

// ForecastDemand estimates, for every series in history, the distribution of
// its demand in the next period instance (seed 004 Sec. 7.3: the forecasting
// module that feeds booking optimisation). Only instances that started by now
// count (later ones are still taking bookings). Per series, in instance
// order:
//
//  1. an instance where the class closed and the demand records counted
//     what it refused is seen whole: its bookings plus its refusals
//     (DemandObservation.Refused); the closed observations left are
//     unconstrained by EM (see censored.go), when the series has enough
//     uncensored observations to identify the fit;
//  2. simple exponential smoothing of the mean and of the squared deviation
//     from it: with d the deviation of an observation from the current mean
//     m, m += Alpha d and v = (1 - Alpha)(v + Alpha d^2) (the exponentially
//     weighted variance; for an unconstrained observation d^2 is its
//     conditional expectation). The smoother starts from the mean and
//     variance of the first ceil(1/Alpha) observations, so the start-up
//     value weighs no more than the smoothing would give it.
//
// A Poisson series smooths the mean only. Errors are slotfare.Invalid naming
// the field ("alpha", "history[3].demand").
func ForecastDemand(history []DemandObservation, now time.Time, cfg DemandConfig) (map[DemandKey]DemandForecast, error) {
	const op slotfare.Op = "forecast.ForecastDemand"
	alpha := cfg.Alpha
	if alpha == 0 {
		alpha = DefaultDemandAlpha
	}
	if !(alpha > 0 && alpha <= 1) {
		return nil, slotfare.Errorf(op, "alpha", "smoothing constant %v is outside (0, 1]", cfg.Alpha)
	}
	if cfg.Family != Normal && cfg.Family != Poisson {
		return nil, slotfare.Errorf(op, "family", "unknown demand family %v", cfg.Family)
	}
	series := map[DemandKey][]int{}
	for i, o := range history {
		if math.IsNaN(o.Demand) || math.IsInf(o.Demand, 0) || o.Demand < 0 {
			return nil, slotfare.Errorf(op, fmt.Sprintf("history[%d].demand", i), "demand %v is not a non-negative number", o.Demand)
		}
		if math.IsNaN(o.Refused) || math.IsInf(o.Refused, 0) || o.Refused < 0 {
			return nil, slotfare.Errorf(op, fmt.Sprintf("history[%d].refused", i), "refused demand %v is not a non-negative number", o.Refused)
		}
		if o.Instance.After(now) {
			continue
		}
		series[o.Key] = append(series[o.Key], i)
	}
	out := make(map[DemandKey]DemandForecast, len(series))
	for key, idx := range series {
		sort.SliceStable(idx, func(a, b int) bool { return history[idx[a]].Instance.Before(history[idx[b]].Instance) })
		values := make([]float64, len(idx))
		closed := make([]bool, len(idx))
		f := DemandForecast{Key: key, Family: cfg.Family, Observations: len(idx)}
		for j, i := range idx {
			values[j], closed[j] = history[i].seen()
			if closed[j] {
				f.Censored++
			}
		}
		moments := make([]demandMoments, len(values))
		for j, x := range values {
			moments[j] = demandMoments{x, x * x}
		}
		if f.Censored > 0 {
			var fixed []demandMoments
			var ok bool
			if cfg.Family == Poisson {
				_, fixed, ok = unconstrainPoisson(values, closed)
			} else {
				_, _, fixed, ok = unconstrainNormal(values, closed)
			}
			if ok {
				moments, f.Corrected = fixed, true
			} else {
				f.LowerBound = true
			}
		}
		mean, variance := smoothDemand(moments, alpha)
		f.Mean = mean
		if cfg.Family == Poisson {
			f.SD = math.Sqrt(math.Max(mean, 0))
		} else {
			f.SD = math.Sqrt(math.Max(variance, 0))
		}
		out[key] = f
	}
	return out, nil
}

// smoothDemand runs simple exponential smoothing of the mean and of the
// squared deviation over a series of (possibly unconstrained) moments.
func smoothDemand(moments []demandMoments, alpha float64) (mean, variance float64) {
	warm := int(math.Ceil(1 / alpha))
	if warm > len(moments) {
		warm = len(moments)
	}
	var s1, s2 float64
	for _, m := range moments[:warm] {
		s1 += m.first
		s2 += m.second
	}
	mean = s1 / float64(warm)
	variance = s2/float64(warm) - mean*mean
	for _, m := range moments[warm:] {
		// E[(D - mean)^2] for this observation, then the EW update.
		devSq := m.second - 2*mean*m.first + mean*mean
		mean += alpha * (m.first - mean)
		variance = (1 - alpha) * (variance + alpha*devSq)
	}
	return mean, math.Max(variance, 0)
}
