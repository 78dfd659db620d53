package forecast

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"slotfare"
)

// TestForecastFromRefusalsRecoversTheMean: demand N(20, 4^2) per instance
// against a class whose booking limit closes it early. Forecast from the
// bookings alone (today's input: the limit, "closed"), EM fits the few
// uncensored instances: 3 of 60 with the class closing at 12 nodes (the
// forecast is 28% low), 4 of 400 closing at 10 (43% high). With the
// refusals the demand records counted while the class was closed, the
// censored part is seen and the forecast recovers the true mean within 5%
// (the smoother's standard error is 0.4-0.5 nodes here).
func TestForecastFromRefusalsRecoversTheMean(t *testing.T) {
	for _, c := range []struct {
		n                    int
		limit                float64
		seed                 uint64
		tolerance, worseThan float64
	}{{60, 12, 27, 0.05, 0.2}, {400, 10, 2, 0.05, 0.2}} {
		rng := rand.New(rand.NewPCG(c.seed, 27))
		const mean = 20.0
		var booked, counted []DemandObservation
		for i := range c.n {
			d := math.Max(0, mean+4*rng.NormFloat64())
			o := DemandObservation{Key: peakKey, Instance: demandEpoch.Add(time.Duration(i) * 24 * time.Hour), Demand: d}
			if d > c.limit {
				o.Demand, o.Closed = c.limit, true
			}
			booked = append(booked, o)
			o.Refused = d - o.Demand // what the records counted as refused closed
			counted = append(counted, o)
		}
		cfg := DemandConfig{Alpha: 0.02}
		onlyBookings, err := ForecastDemand(booked, demandNow(c.n), cfg)
		if err != nil {
			t.Fatal(err)
		}
		withRefusals, err := ForecastDemand(counted, demandNow(c.n), cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, r := onlyBookings[peakKey], withRefusals[peakKey]
		t.Logf("%d instances, limit %.0f, true mean %.1f: bookings only %.2f (censored %d, corrected %v, lower bound %v); with refusals %.2f (censored %d)",
			c.n, c.limit, mean, b.Mean, b.Censored, b.Corrected, b.LowerBound, r.Mean, r.Censored)
		if math.Abs(r.Mean-mean) > c.tolerance*mean {
			t.Errorf("with the refusals counted: mean %.2f, want %.1f within %.0f%%", r.Mean, mean, 100*c.tolerance)
		}
		if r.Censored != 0 || math.Abs(r.SD-4) > 1 {
			t.Errorf("with the refusals counted: %d censored, SD %.2f (want 0, about 4)", r.Censored, r.SD)
		}
		if math.Abs(b.Mean-mean) <= c.worseThan*mean {
			t.Errorf("bookings only: mean %.2f within %.0f%% of %.1f: the scenario does not show the censoring", b.Mean, 100*c.worseThan, mean)
		}
	}
}

// TestForecastRefusedValidated: refused demand must be a non-negative
// number, named in the error.
func TestForecastRefusedValidated(t *testing.T) {
	obs := []DemandObservation{{Key: peakKey, Instance: demandEpoch, Demand: 1, Refused: -1, Closed: true}}
	_, err := ForecastDemand(obs, demandNow(1), DemandConfig{})
	if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "history[0].refused" {
		t.Fatalf("negative refused: %v", err)
	}
}

// TestWeekdayIndex: a series whose weekend instances see twice the
// weekday demand has weekend indexes twice the weekday ones, within 5%
// (the shrinkage to 1 of WeekdayPrior instances weighs little after 40
// weeks); a series without demand has all ones.
func TestWeekdayIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var obs []DemandObservation
	flat := DemandKey{Resource: "RAL", Class: "gold", Period: "peak"}
	for i := range 280 {
		at := demandEpoch.Add(time.Duration(i) * 24 * time.Hour)
		level := 10.0
		if wd := at.Weekday(); wd == time.Saturday || wd == time.Sunday {
			level = 20
		}
		obs = append(obs, DemandObservation{Key: peakKey, Instance: at, Demand: level + rng.NormFloat64()},
			DemandObservation{Key: flat, Instance: at})
	}
	idx := WeekdayIndex(obs, time.UTC, demandNow(280))
	got := idx[peakKey]
	for _, wd := range []time.Weekday{time.Saturday, time.Sunday} {
		for _, other := range []time.Weekday{time.Monday, time.Wednesday, time.Friday} {
			if ratio := got[wd] / got[other]; math.Abs(ratio-2) > 0.1 {
				t.Errorf("index %v / %v = %.3f, want 2", wd, other, ratio)
			}
		}
	}
	if idx[flat] != [7]float64{1, 1, 1, 1, 1, 1, 1} {
		t.Errorf("a series without demand: %v", idx[flat])
	}
}

// TestEstimateSellUp: the share of refused-closed requests that bought up,
// pulled towards the prior by its weight, split by the class bought; bad
// counts and priors are Invalid naming the field.
func TestEstimateSellUp(t *testing.T) {
	counts := []SellUpCount{
		{Class: "budget", RefusedClosed: 40, BoughtUp: map[string]float64{"economy": 10, "premium": 2}},
		{Class: "economy", RefusedClosed: 0},
	}
	got, err := EstimateSellUp(counts, 0.5, 10)
	if err != nil {
		t.Fatal(err)
	}
	b := got["budget"]
	if want := (12 + 10*0.5) / 50.0; math.Abs(b.Probability-want) > 1e-12 || math.Abs(b.To["economy"]+b.To["premium"]-want) > 1e-12 ||
		math.Abs(b.To["economy"]/b.To["premium"]-5) > 1e-9 || b.Refused != 40 || b.BoughtUp != 12 {
		t.Errorf("budget: %+v, want probability %v split 5:1", b, want)
	}
	if e := got["economy"]; e.Probability != 0.5 {
		t.Errorf("a class never refused keeps the prior: %+v", e)
	}
	if got, _ := EstimateSellUp(counts, 0.5, 0); got["budget"].Probability != 12.0/40 || got["economy"].Probability != 0 {
		t.Errorf("weight 0: %+v", got)
	}
	for _, c := range []struct {
		counts   []SellUpCount
		prior, w float64
		field    string
	}{
		{counts, 1.5, 1, "prior"}, {counts, math.NaN(), 1, "prior"}, {counts, 0.5, -1, "weight"},
		{[]SellUpCount{{Class: "budget", RefusedClosed: 1, BoughtUp: map[string]float64{"gold": 2}}}, 0, 0, "counts"},
	} {
		if _, err := EstimateSellUp(c.counts, c.prior, c.w); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != c.field {
			t.Errorf("%+v: %v, want Invalid on %s", c, err, c.field)
		}
	}
}
