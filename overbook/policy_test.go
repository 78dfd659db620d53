package overbook

import (
	"fmt"
	"math"
	"testing"

	"github.com/shopspring/decimal"

	"slotfare"
)

// walkRisk is Alg. 12 of seed 004 line by line: start at C, step while the
// revenue change of Eq. 7.3 is positive, up to the ceiling.
func walkRisk(c int, q, p, d float64, a DemandCDF) int {
	ir := func(ob int) float64 {
		av := 0.0
		if a != nil {
			av = a(ob)
		}
		return (1 - av) * (p - d*showsAbove(ob+1, c, q))
	}
	ob := c
	for ir(ob) > 0 && ob < LimitCeiling(c) {
		ob++
	}
	return ob
}

// walkServiceLevel is Alg. 13 with the errata's reading: step while the next
// limit still meets the threshold, up to the ceiling.
func walkServiceLevel(c int, q, threshold float64) int {
	ob := c
	for serviceLevel(ob+1, c, q) <= threshold && ob < LimitCeiling(c) {
		ob++
	}
	return ob
}

// poissonCDF is a demand distribution A for the risk policy.
func poissonCDF(mean float64) DemandCDF {
	return func(x int) float64 {
		if x < 0 {
			return 0
		}
		term, sum := math.Exp(-mean), 0.0
		for k := 0; k <= x; k++ {
			sum += term
			term *= mean / float64(k+1)
		}
		return math.Min(1, sum)
	}
}

// atMost is the demand CDF of a demand that is exactly max.
func atMost(max int) DemandCDF {
	return func(x int) float64 {
		if x >= max {
			return 1
		}
		return 0
	}
}

func TestSearchMatchesAlgorithmWalk(t *testing.T) {
	demands := map[string]DemandCDF{
		"A=0":        nil,
		"poisson60":  poissonCDF(60),
		"at most 55": atMost(55),
	}
	for _, c := range []int{1, 7, 50, 300} {
		for _, q := range []float64{MinShowRate, 0.6, 0.77, 0.95, 1} {
			for _, d := range []float64{101, 150, 400} {
				for name, a := range demands {
					got, err := RiskLimit(c, q, decimal.NewFromInt(100), decimal.NewFromFloat(d), a)
					if err != nil {
						t.Fatal(err)
					}
					if want := walkRisk(c, q, 100, d, a); got != want {
						t.Errorf("risk C=%d q=%v cost=%v %s: %d, Alg. 12 walk %d", c, q, d, name, got, want)
					}
				}
			}
			for _, sl := range []float64{0.5, 0.05, 0.01, 0.001, 1e-6} {
				got, err := ServiceLevelLimit(c, q, sl)
				if err != nil {
					t.Fatal(err)
				}
				if want := walkServiceLevel(c, q, sl); got != want {
					t.Errorf("service level C=%d q=%v SL=%v: %d, Alg. 13 walk %d", c, q, sl, got, want)
				}
			}
		}
	}
}

func TestRiskDemandStopsAtMaximumDemand(t *testing.T) {
	// Demand never exceeds 55, so selling past 55 gains nothing (A(55) = 1):
	// Alg. 12 stops at 55 although A = 0 would go to 90 (Table 7.4).
	got, err := RiskLimit(50, 0.6, decimal.NewFromInt(100), decimal.NewFromInt(125), atMost(55))
	if err != nil || got != 55 {
		t.Fatalf("RiskLimit = %d, %v; want 55", got, err)
	}
}

func TestProbabilityLimitExactFloor(t *testing.T) {
	tests := []struct {
		c    int
		q    float64
		want int
	}{
		{55, 0.55, 100}, // float64: 55/0.55 = 99.99999999999999
		{100, 0.8, 125}, // the example of Sec. 7.5.1
		{50, 0.6, 83},
		{7, 0.7, 10},
		{29, 0.58, 50},
		{14, 0.56, 25}, // float64: 14/0.56 = 24.999999999999996
		{5000, 0.95, 5263},
		{1, 1, 1},
		{3, 0.5, 6},
	}
	for _, tt := range tests {
		got, err := ProbabilityLimit(tt.c, tt.q)
		if err != nil || got != tt.want {
			t.Errorf("ProbabilityLimit(%d, %v) = %d, %v; want %d", tt.c, tt.q, got, err, tt.want)
		}
	}
}

func TestHigherDeniedCostNeverRaisesRiskLimit(t *testing.T) {
	for _, c := range []int{5, 50, 500} {
		for _, q := range []float64{MinShowRate, 0.7, 0.9, 0.99} {
			prev := math.MaxInt
			for d := 101; d <= 2000; d += 19 {
				ob, err := RiskLimit(c, q, decimal.NewFromInt(100), decimal.NewFromInt(int64(d)), nil)
				if err != nil {
					t.Fatal(err)
				}
				if ob > prev {
					t.Errorf("C=%d q=%v: cost %d gives %d, a lower cost gave %d", c, q, d, ob, prev)
				}
				if ob < c {
					t.Errorf("C=%d q=%v cost=%d: limit %d below capacity", c, q, d, ob)
				}
				prev = ob
			}
		}
	}
}

func TestStricterServiceLevelNeverRaisesLimit(t *testing.T) {
	for _, c := range []int{5, 50, 500} {
		for _, q := range []float64{MinShowRate, 0.7, 0.9, 0.99} {
			prev := math.MaxInt
			for sl := 0.5; sl > 1e-9; sl /= 1.7 {
				ob, err := ServiceLevelLimit(c, q, sl)
				if err != nil {
					t.Fatal(err)
				}
				if ob > prev || ob < c {
					t.Errorf("C=%d q=%v SL=%g: limit %d (looser level gave %d)", c, q, sl, ob, prev)
				}
				if s := serviceLevel(ob, c, q); s > sl {
					t.Errorf("C=%d q=%v: s(%d) = %g passes %g", c, q, ob, s, sl)
				}
				if s := serviceLevel(ob+1, c, q); s <= sl && ob < LimitCeiling(c) {
					t.Errorf("C=%d q=%v: s(%d) = %g still meets %g", c, q, ob+1, s, sl)
				}
				prev = ob
			}
		}
	}
}

func TestServiceLevelGrowsWithBookings(t *testing.T) {
	for _, q := range []float64{0.2, 0.6, 0.95} {
		prev := 0.0
		for n := 0; n <= 400; n++ {
			s := serviceLevel(n, 50, q)
			if s < prev-1e-15 {
				t.Fatalf("q=%v: s(%d) = %g < s(%d) = %g", q, n, s, n-1, prev)
			}
			prev = s
		}
	}
}

func TestExpectedNetRevenueAtCapacityIsExact(t *testing.T) {
	// Selling exactly C denies nobody, so ENR = p C q with no float in it.
	got, err := ExpectedNetRevenue(50, 50, 0.55, decimal.RequireFromString("100.10"), decimal.NewFromInt(150))
	if err != nil {
		t.Fatal(err)
	}
	if want := decimal.RequireFromString("2752.75"); !got.Equal(want) {
		t.Errorf("ENR = %s, want %s", got, want)
	}
	s, err := ServiceLevelOf(60, 50, 1)
	if err != nil || math.Abs(s-10.0/60) > 1e-15 {
		t.Errorf("ServiceLevelOf(60, 50, 1) = %v, %v; want 1/6", s, err)
	}
	e, err := ExpectedDenied(51, 50, 0.9)
	if err != nil || relErr(e, math.Pow(0.9, 51)) > 1e-12 {
		t.Errorf("ExpectedDenied(51, 50, 0.9) = %v, %v; want 0.9^51", e, err)
	}
}

func TestLimitNone(t *testing.T) {
	got, err := Limit(None, Params{Capacity: 40, ShowRate: 0.9, Price: decimal.NewFromInt(2), DeniedCost: decimal.NewFromInt(5)})
	if err != nil || got.Limit != 40 || got.ServiceLevel != 0 || !got.ExpectedNetRevenue.Equal(decimal.NewFromInt(72)) {
		t.Errorf("Limit(None) = %+v, %v", got, err)
	}
}

func TestWeightedPrice(t *testing.T) {
	// (10*300 + 30*200 + 60*100) / 100 = 150.
	got, err := WeightedPrice(
		[]decimal.Decimal{decimal.NewFromInt(300), decimal.NewFromInt(200), decimal.NewFromInt(100)},
		[]float64{10, 30, 60})
	if err != nil || !got.Equal(decimal.NewFromInt(150)) {
		t.Errorf("WeightedPrice = %s, %v; want 150", got, err)
	}
	got, err = WeightedPrice([]decimal.Decimal{decimal.RequireFromString("3.38"), decimal.RequireFromString("2.25")}, []float64{0, 2.5})
	if err != nil || !got.Equal(decimal.RequireFromString("2.25")) {
		t.Errorf("a class with no demand weighs nothing: %s, %v", got, err)
	}
}

func TestBadInput(t *testing.T) {
	p100, p150 := decimal.NewFromInt(100), decimal.NewFromInt(150)
	tests := []struct {
		name  string
		call  func() error
		field string
	}{
		{"capacity 0", func() error { _, err := ProbabilityLimit(0, 0.5); return err }, "capacity"},
		{"capacity negative", func() error { _, err := RiskLimit(-3, 0.5, p100, p150, nil); return err }, "capacity"},
		{"q 0", func() error { _, err := ProbabilityLimit(10, 0); return err }, "show_rate"},
		{"q above 1", func() error { _, err := ServiceLevelLimit(10, 1.01, 0.01); return err }, "show_rate"},
		{"q NaN", func() error { _, err := RiskLimit(10, math.NaN(), p100, p150, nil); return err }, "show_rate"},
		{"q tiny", func() error { _, err := ProbabilityLimit(5000, 1e-6); return err }, "show_rate"},
		{"q below the floor", func() error { _, err := ProbabilityLimit(10, 0.49); return err }, "show_rate"},
		{"capacity too large", func() error { _, err := ProbabilityLimit(MaxCapacity+1, 0.9); return err }, "capacity"},
		{"q tiny risk", func() error { _, err := RiskLimit(5000, 1e-6, p100, p150, nil); return err }, "show_rate"},
		{"q tiny SL", func() error { _, err := ServiceLevelLimit(5000, 1e-6, 0.5); return err }, "show_rate"},
		{"price 0", func() error { _, err := RiskLimit(10, 0.5, decimal.Zero, p150, nil); return err }, "price"},
		{"price negative", func() error { _, err := ExpectedNetRevenue(12, 10, 0.5, p100.Neg(), p150); return err }, "price"},
		{"cost = price", func() error { _, err := RiskLimit(10, 0.5, p100, p100, nil); return err }, "denied_cost"},
		{"cost < price", func() error { _, err := RiskLimit(10, 0.5, p150, p100, nil); return err }, "denied_cost"},
		{"cost negative", func() error { _, err := ExpectedNetRevenue(12, 10, 0.5, p100, p150.Neg()); return err }, "denied_cost"},
		{"SL 0", func() error { _, err := ServiceLevelLimit(10, 0.5, 0); return err }, "service_level"},
		{"SL 1", func() error { _, err := ServiceLevelLimit(10, 0.5, 1); return err }, "service_level"},
		{"SL above one half", func() error { _, err := ServiceLevelLimit(10, 0.5, 0.5000001); return err }, "service_level"},
		{"SL NaN", func() error { _, err := ServiceLevelLimit(10, 0.5, math.NaN()); return err }, "service_level"},
		{"demand not a probability", func() error {
			_, err := RiskLimit(10, 0.5, p100, p150, func(int) float64 { return 1.5 })
			return err
		}, "demand"},
		{"limit negative", func() error { _, err := ServiceLevelOf(-1, 10, 0.5); return err }, "limit"},
		{"unknown policy", func() error { _, err := Limit("greedy", Params{Capacity: 10, ShowRate: 0.5}); return err }, "policy"},
		{"prices empty", func() error { _, err := WeightedPrice(nil, nil); return err }, "prices"},
		{"means length", func() error { _, err := WeightedPrice([]decimal.Decimal{p100}, []float64{1, 2}); return err }, "means"},
		{"means zero", func() error { _, err := WeightedPrice([]decimal.Decimal{p100}, []float64{0}); return err }, "means"},
		{"means negative", func() error { _, err := WeightedPrice([]decimal.Decimal{p100}, []float64{-1}); return err }, "means"},
		{"weighted price 0", func() error { _, err := WeightedPrice([]decimal.Decimal{decimal.Zero}, []float64{1}); return err }, "prices"},
	}
	for _, tt := range tests {
		err := tt.call()
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
			t.Errorf("%s: %v (kind %v, field %q), want invalid %q", tt.name, err, slotfare.KindOf(err), slotfare.FieldOf(err), tt.field)
		}
	}
}

func TestParsePolicy(t *testing.T) {
	for _, s := range []string{"none", "probability", "risk", "service-level"} {
		if p, err := ParsePolicy(s); err != nil || string(p) != s {
			t.Errorf("ParsePolicy(%q) = %q, %v", s, p, err)
		}
	}
	for _, s := range []string{"", "Risk", "service_level"} {
		if _, err := ParsePolicy(s); slotfare.FieldOf(err) != "policy" {
			t.Errorf("ParsePolicy(%q): %v", s, err)
		}
	}
}

func ExampleLimit() {
	r, _ := Limit(Risk, Params{
		Capacity: 50, ShowRate: 0.8,
		Price: decimal.NewFromInt(100), DeniedCost: decimal.NewFromInt(150),
	})
	fmt.Println(r.Limit, r.ExpectedNetRevenue.StringFixed(1), fmt.Sprintf("%.4f", r.ServiceLevel))
	// Output: 64 4824.3 0.0385
}

// TestLimitsStayWithinWhatThePolicyJustifies is issue 9 #8: a service level
// of 0.999999 made the limit 2,222,222 on a 2-node resource. Inputs outside
// the policies' meaning are refused, and whatever a policy computes from the
// rest is never more than the capacity over the lowest plausible show rate.
func TestLimitsStayWithinWhatThePolicyJustifies(t *testing.T) {
	p100 := decimal.NewFromInt(100)
	for _, tt := range []struct {
		name  string
		p     Params
		pol   Policy
		field string
	}{
		{"service level near 1", Params{Capacity: 2, ShowRate: 0.9, Price: p100, DeniedCost: p100, ServiceLevel: 0.999999}, ServiceLevel, "service_level"},
		{"service level above one half", Params{Capacity: 2, ShowRate: 0.9, Price: p100, DeniedCost: p100, ServiceLevel: 0.51}, ServiceLevel, "service_level"},
		{"show rate below the floor", Params{Capacity: 2, ShowRate: 0.3, Price: p100, DeniedCost: p100}, Probability, "show_rate"},
		{"show rate below the floor, risk", Params{Capacity: 2, ShowRate: 0.49, Price: p100, DeniedCost: decimal.NewFromInt(150)}, Risk, "show_rate"},
		{"capacity above the maximum", Params{Capacity: MaxCapacity + 1, ShowRate: 0.9, Price: p100, DeniedCost: p100}, None, "capacity"},
	} {
		if r, err := Limit(tt.pol, tt.p); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
			t.Errorf("%s: limit %d, %v; want invalid %s", tt.name, r.Limit, err, tt.field)
		}
	}
	barelyAbove := decimal.RequireFromString("100.000001")
	for _, c := range []int{1, 2, 7, 50, 1000} {
		ceiling := int(float64(c) / MinShowRate)
		if got := LimitCeiling(c); got != ceiling {
			t.Errorf("LimitCeiling(%d) = %d, want %d", c, got, ceiling)
		}
		for _, q := range []float64{MinShowRate, 0.6, 0.9, 1} {
			for _, tc := range []struct {
				pol Policy
				p   Params
			}{
				{ServiceLevel, Params{Capacity: c, ShowRate: q, Price: p100, DeniedCost: p100, ServiceLevel: MaxServiceLevel}},
				{Risk, Params{Capacity: c, ShowRate: q, Price: p100, DeniedCost: barelyAbove}},
				{Probability, Params{Capacity: c, ShowRate: q, Price: p100, DeniedCost: p100}},
			} {
				r, err := Limit(tc.pol, tc.p)
				if err != nil {
					t.Fatalf("%s C=%d q=%v: %v", tc.pol, c, q, err)
				}
				if r.Limit < c || r.Limit > ceiling {
					t.Errorf("%s C=%d q=%v: limit %d outside [%d, %d]", tc.pol, c, q, r.Limit, c, ceiling)
				}
			}
		}
	}
	// At the floor both loose policies are held at the ceiling; without it
	// they would sell about four (service level 1/2) and over two (risk with
	// cost_ds ~ p) times the capacity.
	for _, pol := range []Policy{ServiceLevel, Risk} {
		r, err := Limit(pol, Params{Capacity: 50, ShowRate: MinShowRate, Price: p100, DeniedCost: barelyAbove, ServiceLevel: MaxServiceLevel})
		if err != nil || r.Limit != 100 {
			t.Errorf("%s at the floor: %d, %v; want the ceiling 100", pol, r.Limit, err)
		}
	}
	// Money of any magnitude is compared as a ratio, never overflowing a
	// float: a denied cost 1e300 times the price sells exactly the capacity.
	r, err := Limit(Risk, Params{Capacity: 50, ShowRate: 0.9, Price: decimal.RequireFromString("1e-30"), DeniedCost: decimal.RequireFromString("1e270")})
	if err != nil || r.Limit != 50 {
		t.Errorf("risk with a huge cost ratio: %d, %v; want 50", r.Limit, err)
	}
}
