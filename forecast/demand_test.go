package forecast

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"slotfare"
)

var demandEpoch = time.Date(2025, 1, 6, 6, 0, 0, 0, time.UTC)

var peakKey = DemandKey{Resource: "RAL", Class: "budget", Period: "peak"}

// demandSeries makes n daily instances of key with demand drawn by draw, and
// a booking limit: demand at or above limit is seen as limit, closed.
func demandSeries(key DemandKey, n int, limit float64, draw func(i int) float64) (obs []DemandObservation, truth []float64) {
	for i := 0; i < n; i++ {
		d := draw(i)
		truth = append(truth, d)
		o := DemandObservation{Key: key, Instance: demandEpoch.Add(time.Duration(i) * 24 * time.Hour), Demand: d}
		if d >= limit {
			o.Demand, o.Closed = limit, true
		}
		obs = append(obs, o)
	}
	return obs, truth
}

func demandNow(n int) time.Time { return demandEpoch.Add(time.Duration(n) * 24 * time.Hour) }

func TestForecastDemandRecoversNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 3000
	obs, _ := demandSeries(peakKey, n, math.Inf(1), func(int) float64 { return math.Max(0, 40+10*rng.NormFloat64()) })
	got, err := ForecastDemand(obs, demandNow(n), DemandConfig{Alpha: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	f := got[peakKey]
	t.Logf("N(40, 10^2): forecast N(%.2f, %.2f^2)", f.Mean, f.SD)
	// The EW mean of N(40, 10^2) with alpha 0.02 has a standard error of about
	// 10 sqrt(0.02/1.98) = 1.0; the SD's is about 0.7.
	if math.Abs(f.Mean-40) > 3 || math.Abs(f.SD-10) > 2 {
		t.Errorf("forecast N(%.2f, %.2f^2), want about N(40, 10^2)", f.Mean, f.SD)
	}
	if f.Observations != n || f.Censored != 0 || f.Corrected || f.LowerBound || f.Family != Normal {
		t.Errorf("forecast bookkeeping %+v", f)
	}
	if c := f.CDF(f.Mean); math.Abs(c-0.5) > 1e-12 {
		t.Errorf("CDF at the mean = %v", c)
	}
}

func TestForecastDemandRecoversPoisson(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 3000
	const lambda = 6.5
	obs, _ := demandSeries(peakKey, n, math.Inf(1), func(int) float64 { return float64(poissonDraw(rng, lambda)) })
	got, err := ForecastDemand(obs, demandNow(n), DemandConfig{Family: Poisson, Alpha: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	f := got[peakKey]
	if math.Abs(f.Mean-lambda) > 0.8 || math.Abs(f.SD-math.Sqrt(f.Mean)) > 1e-12 {
		t.Errorf("forecast Poisson mean %.3f sd %.3f, want mean about %v and sd sqrt(mean)", f.Mean, f.SD, lambda)
	}
	// The CDF is the Poisson's: P(N <= 6) at lambda 6.5 is 0.52652.
	f.Mean = lambda
	if c := f.CDF(6); math.Abs(c-0.526523) > 1e-5 {
		t.Errorf("Poisson CDF(6; 6.5) = %v", c)
	}
}

// poissonDraw is Knuth's multiplication method, fine for small lambda.
func poissonDraw(rng *rand.Rand, lambda float64) int {
	limit, k, p := math.Exp(-lambda), 0, 1.0
	for {
		p *= rng.Float64()
		if p <= limit {
			return k
		}
		k++
	}
}

// TestForecastDemandTracksAShift: smoothing follows a level change that a
// plain average would blur.
func TestForecastDemandTracksAShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 400
	obs, _ := demandSeries(peakKey, n, math.Inf(1), func(i int) float64 {
		if i < n/2 {
			return 20 + 2*rng.NormFloat64()
		}
		return 30 + 2*rng.NormFloat64()
	})
	got, err := ForecastDemand(obs, demandNow(n), DemandConfig{Alpha: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if f := got[peakKey]; math.Abs(f.Mean-30) > 1.5 {
		t.Errorf("after the shift the forecast mean is %.2f, want about 30 (the plain average is 25)", f.Mean)
	}
}

// TestCensoredDemandCorrection: on demand N(30, 8^2) seen through a booking
// limit of 28 (about 60% of instances closed), the EM-unconstrained forecast
// recovers the true parameters and beats the naive one that takes closed
// counts at face value.
func TestCensoredDemandCorrection(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		rng := rand.New(rand.NewPCG(seed, 30))
		const n = 4000
		obs, _ := demandSeries(peakKey, n, 28, func(int) float64 { return math.Max(0, 30+8*rng.NormFloat64()) })
		naiveObs := make([]DemandObservation, len(obs))
		for i, o := range obs {
			o.Closed = false
			naiveObs[i] = o
		}
		cfg := DemandConfig{Alpha: 0.01}
		corrected, err := ForecastDemand(obs, demandNow(n), cfg)
		if err != nil {
			t.Fatal(err)
		}
		naive, err := ForecastDemand(naiveObs, demandNow(n), cfg)
		if err != nil {
			t.Fatal(err)
		}
		c, v := corrected[peakKey], naive[peakKey]
		t.Logf("seed %d: %d of %d closed; corrected N(%.2f, %.2f^2), naive N(%.2f, %.2f^2)", seed, c.Censored, n, c.Mean, c.SD, v.Mean, v.SD)
		if !c.Corrected || c.LowerBound || c.Censored < n/4 {
			t.Fatalf("seed %d: corrected forecast bookkeeping %+v", seed, c)
		}
		if math.Abs(c.Mean-30) > 1.5 || math.Abs(c.SD-8) > 1.5 {
			t.Errorf("seed %d: corrected N(%.2f, %.2f^2), want about N(30, 8^2)", seed, c.Mean, c.SD)
		}
		if math.Abs(v.Mean-30) < 2 {
			t.Errorf("seed %d: naive mean %.2f is not biased: the test data is not censored enough", seed, v.Mean)
		}
		if math.Abs(c.Mean-30) >= math.Abs(v.Mean-30) || math.Abs(c.SD-8) >= math.Abs(v.SD-8) {
			t.Errorf("seed %d: corrected N(%.2f, %.2f) is no better than naive N(%.2f, %.2f)", seed, c.Mean, c.SD, v.Mean, v.SD)
		}
	}
}

func TestCensoredPoissonCorrection(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const n, lambda, limit = 4000, 12.0, 11.0
	obs, _ := demandSeries(peakKey, n, limit, func(int) float64 { return float64(poissonDraw(rng, lambda)) })
	naiveObs := make([]DemandObservation, len(obs))
	for i, o := range obs {
		o.Closed = false
		naiveObs[i] = o
	}
	cfg := DemandConfig{Family: Poisson, Alpha: 0.01}
	corrected, _ := ForecastDemand(obs, demandNow(n), cfg)
	naive, _ := ForecastDemand(naiveObs, demandNow(n), cfg)
	c, v := corrected[peakKey], naive[peakKey]
	t.Logf("Poisson(12) through limit 11: corrected mean %.2f, naive %.2f", c.Mean, v.Mean)
	if !c.Corrected || math.Abs(c.Mean-lambda) > 1 || math.Abs(c.Mean-lambda) >= math.Abs(v.Mean-lambda) {
		t.Errorf("Poisson: corrected mean %.2f (corrected %v), naive %.2f, true %v", c.Mean, c.Corrected, v.Mean, lambda)
	}
}

// TestUnconstrainNormalMLE checks the EM fixed point on a tiny sample against
// the censored-normal likelihood equations solved independently: at the MLE
// the score for mu is zero.
func TestUnconstrainNormalMLE(t *testing.T) {
	values := []float64{10, 12, 14, 9, 13, 15, 15, 15}
	censored := []bool{false, false, false, false, false, true, true, true}
	mu, sigma, moments, ok := unconstrainNormal(values, censored)
	if !ok {
		t.Fatal("not identified")
	}
	// d logL / d mu = sum_exact (x - mu)/sigma^2 + sum_censored hazard(z)/sigma.
	score := 0.0
	for i, x := range values {
		if censored[i] {
			score += stdNormalHazard((x-mu)/sigma) / sigma
		} else {
			score += (x - mu) / (sigma * sigma)
		}
	}
	if math.Abs(score) > 1e-6 {
		t.Errorf("score for mu at the EM fit N(%v, %v) = %v, want 0", mu, sigma, score)
	}
	if mu <= (10+12+14+9+13+15*3)/8.0 {
		t.Errorf("EM mean %v is not above the naive mean", mu)
	}
	for i, m := range moments {
		if censored[i] && m.first <= values[i] {
			t.Errorf("E[D | D >= %v] = %v", values[i], m.first)
		}
		if !censored[i] && m.first != values[i] {
			t.Errorf("exact observation %v moved to %v", values[i], m.first)
		}
	}
}

func TestForecastDemandEdges(t *testing.T) {
	day := func(i int) time.Time { return demandEpoch.Add(time.Duration(i) * 24 * time.Hour) }
	// Everything censored: no correction is possible; flagged, not invented.
	all := []DemandObservation{
		{Key: peakKey, Instance: day(0), Demand: 5, Closed: true},
		{Key: peakKey, Instance: day(1), Demand: 5, Closed: true},
	}
	got, err := ForecastDemand(all, day(5), DemandConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if f := got[peakKey]; !f.LowerBound || f.Corrected || f.Mean != 5 {
		t.Errorf("all censored: %+v", f)
	}
	// Instances after now are still open and do not count; series are separate;
	// order of the input does not matter.
	other := DemandKey{Resource: "RAL", Class: "premium", Period: "peak"}
	mixed := []DemandObservation{
		{Key: peakKey, Instance: day(2), Demand: 30},
		{Key: other, Instance: day(0), Demand: 3},
		{Key: peakKey, Instance: day(0), Demand: 10},
		{Key: peakKey, Instance: day(1), Demand: 20},
		{Key: peakKey, Instance: day(9), Demand: 1000},
	}
	got, err = ForecastDemand(mixed, day(2), DemandConfig{Alpha: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	// alpha 0.5: start from the mean and variance of the first two (15, 25),
	// then 30: d = 15, mean 22.5, variance 0.5 (25 + 0.5 x 225) = 68.75.
	if f := got[peakKey]; f.Observations != 3 || math.Abs(f.Mean-22.5) > 1e-12 || math.Abs(f.SD-math.Sqrt(68.75)) > 1e-12 {
		t.Errorf("peak: %+v, want mean 22.5, sd sqrt(68.75)", f)
	}
	if f := got[other]; f.Observations != 1 || f.Mean != 3 || f.SD != 0 {
		t.Errorf("premium: %+v", f)
	}
	if f := got[other]; f.CDF(2.9) != 0 || f.CDF(3) != 1 {
		t.Errorf("degenerate CDF: %v %v", f.CDF(2.9), f.CDF(3))
	}
	for _, tt := range []struct {
		cfg   DemandConfig
		obs   []DemandObservation
		field string
	}{
		{DemandConfig{Alpha: 1.5}, mixed, "alpha"},
		{DemandConfig{Alpha: -0.1}, mixed, "alpha"},
		{DemandConfig{Alpha: math.NaN()}, mixed, "alpha"},
		{DemandConfig{Family: Family(7)}, mixed, "family"},
		{DemandConfig{}, []DemandObservation{{Key: peakKey, Demand: -1}}, "history[0].demand"},
		{DemandConfig{}, []DemandObservation{{Key: peakKey}, {Key: peakKey, Demand: math.NaN()}}, "history[1].demand"},
		{DemandConfig{}, []DemandObservation{{Key: peakKey, Demand: math.Inf(1)}}, "history[0].demand"},
	} {
		_, err := ForecastDemand(tt.obs, day(3), tt.cfg)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
			t.Errorf("%+v: err = %v, want Invalid on %s", tt.cfg, err, tt.field)
		}
	}
	if f, err := ParseFamily("poisson"); err != nil || f != Poisson || f.String() != "poisson" {
		t.Errorf("ParseFamily(poisson) = %v, %v", f, err)
	}
	if _, err := ParseFamily("gamma"); err == nil {
		t.Error("ParseFamily(gamma) accepted")
	}
}

func TestDistributionHelpers(t *testing.T) {
	// The hazard's two branches meet at z = 5.
	below, above := stdNormalHazard(5-1e-9), stdNormalHazard(5+1e-9)
	if math.Abs(below-above) > 1e-7 {
		t.Errorf("hazard jumps at 5: %v vs %v", below, above)
	}
	// Far out it approaches z + 1/z.
	if h := stdNormalHazard(40); math.Abs(h-(40+1.0/40)) > 1e-4 {
		t.Errorf("hazard(40) = %v", h)
	}
	// P(N >= 30) for Poisson(5) is 2.8175e-14 (exact rational sum): computed in
	// the tail, not as 1 - CDF, which would round it away.
	if p := math.Exp(poissonLogUpper(30, 5)); math.Abs(p/2.81751761557792e-14-1) > 1e-9 {
		t.Errorf("P(N >= 30; 5) = %g", p)
	}
	if p := math.Exp(poissonLogUpper(3, 5)); math.Abs(p-0.875348) > 1e-6 {
		t.Errorf("P(N >= 3; 5) = %v", p)
	}
}
