package pricing

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"slotfare"
)

func classes(fares, means, sds []float64) []ClassDemand {
	out := make([]ClassDemand, len(fares))
	for i := range fares {
		out[i] = ClassDemand{Fare: fares[i], Mean: means[i], SD: sds[i]}
	}
	return out
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The EMSR-b example published with the R package RM2 (function EMSRb,
// rdocumentation.org/packages/RM2/versions/0.0/topics/EMSRb): fares 250,
// 150, 100, 50, means 50, 75, 125, 500, variances equal to the means,
// capacity 400; printed protection levels 49, 125, 257 (and 400 for the
// capacity). RM2 prints the levels rounded up, as Allocate rounds them. The
// unrounded levels were computed independently with Python's
// statistics.NormalDist.inv_cdf (EMSR-a from the same inputs alongside).
func TestEMSRPublishedExample(t *testing.T) {
	cs := classes([]float64{250, 150, 100, 50}, []float64{50, 75, 125, 500},
		[]float64{math.Sqrt(50), math.Sqrt(75), math.Sqrt(125), math.Sqrt(500)})
	tests := []struct {
		method LimitMethod
		levels []float64
		limits []int
	}{
		{EMSRb, []float64{48.20856545378708, 124.2619655010483, 256.313852075347}, []int{400, 351, 275, 143}},
		{EMSRa, []float64{48.20856545378708, 123.06122671327964, 259.68136864743326}, []int{400, 351, 276, 140}},
	}
	for _, tt := range tests {
		got, err := Allocate(tt.method, 400, cs)
		if err != nil {
			t.Fatal(err)
		}
		for j, y := range tt.levels {
			if !near(got.ProtectionLevels[j], y, 1e-6) {
				t.Errorf("%s: y_%d = %.9f, want %.9f", tt.method, j+1, got.ProtectionLevels[j], y)
			}
		}
		if !slices.Equal(got.BookingLimits, tt.limits) {
			t.Errorf("%s: limits %v, want %v", tt.method, got.BookingLimits, tt.limits)
		}
	}
}

// normalTail is P(N(mu, sd) > y) from math.Erfc: no gonum in it.
func normalTail(mu, sd, y float64) float64 {
	return 0.5 * math.Erfc((y-mu)/(sd*math.Sqrt2))
}

// solveTail finds y with fare * P(N(mu, sd) > y) = lower by bisection: the
// defining equation of a Littlewood level, solved without a quantile
// function. Negative solutions are 0, as in Allocate.
func solveTail(mu, sd, fare, lower float64) float64 {
	if sd == 0 {
		return math.Max(0, mu)
	}
	lo, hi := mu-40*sd, mu+40*sd
	for range 200 {
		mid := (lo + hi) / 2
		if fare*normalTail(mu, sd, mid) > lower {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Max(0, (lo+hi)/2)
}

func randomClasses(r *rand.Rand, n int) []ClassDemand {
	cs := make([]ClassDemand, n)
	fare := 50 + 500*r.Float64()
	for i := range cs {
		cs[i] = ClassDemand{Fare: fare, Mean: 40 * r.Float64(), SD: 15 * r.Float64()}
		if r.IntN(8) == 0 {
			cs[i].SD = 0
		}
		fare *= 0.3 + 0.69*r.Float64()
	}
	return cs
}

// The levels solve the heuristics' defining equations (Belobaba): EMSR-a's
// y_k^{j+1} with f_k P(D_k > y) = f_{j+1}, summed over k <= j; EMSR-b's
// pooled y_j with fbar_j P(D_{1..j} > y) = f_{j+1}.
func TestEMSRSolvesItsEquations(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 200 {
		cs := randomClasses(r, 2+r.IntN(5))
		a, err := Allocate(EMSRa, 100, cs)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Allocate(EMSRb, 100, cs)
		if err != nil {
			t.Fatal(err)
		}
		var mu, v, rev float64
		prevB := 0.0
		for j := range len(cs) - 1 {
			want := 0.0
			for _, c := range cs[:j+1] {
				want += solveTail(c.Mean, c.SD, c.Fare, cs[j+1].Fare)
			}
			if !near(a.ProtectionLevels[j], want, 1e-6) {
				t.Errorf("EMSR-a %+v: y_%d = %v, equation gives %v", cs, j+1, a.ProtectionLevels[j], want)
			}
			mu += cs[j].Mean
			v += cs[j].SD * cs[j].SD
			rev += cs[j].Fare * cs[j].Mean
			fbar := rev / mu
			if mu == 0 {
				fbar = 0
				for _, c := range cs[:j+1] {
					fbar += c.Fare / float64(j+1)
				}
			}
			wantB := math.Max(prevB, solveTail(mu, math.Sqrt(v), fbar, cs[j+1].Fare))
			if !near(b.ProtectionLevels[j], wantB, 1e-6) {
				t.Errorf("EMSR-b %+v: y_%d = %v, equation gives %v", cs, j+1, b.ProtectionLevels[j], wantB)
			}
			prevB = wantB
		}
	}
}

func TestTwoClassesAgree(t *testing.T) {
	// With two classes EMSR-a and EMSR-b are Littlewood's rule, and Alg. 10
	// on the normal CDF lands on the same whole-unit limit.
	r := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		cs := randomClasses(r, 2)
		capacity := 1 + r.IntN(120)
		y, err := Littlewood(cs[0], cs[1])
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []LimitMethod{EMSRa, EMSRb} {
			got, err := Allocate(m, capacity, cs)
			if err != nil {
				t.Fatal(err)
			}
			if !near(got.ProtectionLevels[0], y, 1e-12) {
				t.Fatalf("%s: level %v, Littlewood %v", m, got.ProtectionLevels[0], y)
			}
			b, err := BookingLimit(capacity, cs[0].Fare, cs[1].Fare, cs[0].CDF, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.BookingLimits[1] != b && !near(y, math.Round(y), 1e-6) {
				t.Errorf("%s %+v C=%d: b_2 = %d, Alg. 10 gives %d (y = %v)", m, cs, capacity, got.BookingLimits[1], b, y)
			}
		}
	}
}

func TestKnownDemandProtectsTheMean(t *testing.T) {
	cs := classes([]float64{300, 200, 100}, []float64{5, 7, 40}, []float64{0, 0, 0})
	for _, m := range []LimitMethod{EMSRa, EMSRb, ThesisEMSR} {
		got, err := Allocate(m, 20, cs)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.ProtectionLevels, []float64{5, 12}) || !slices.Equal(got.BookingLimits, []int{20, 15, 8}) {
			t.Errorf("%s: %+v, want levels [5 12] and limits [20 15 8]", m, got)
		}
	}
}

// walkBookingLimit is Alg. 10 of seed 004 line by line.
func walkBookingLimit(c int, ph, pl float64, fh, fl DemandCDF) int {
	b := 0
	for b < c {
		b++
		l := 0.0
		if fl != nil {
			l = fl(b - 1)
		}
		if (1-l)*(pl-(1-fh(c-b))*ph) <= 0 {
			return b - 1
		}
	}
	return b
}

func TestBookingLimitDiscrete(t *testing.T) {
	// High demand uniform on 0..4: F_h(x) = (x+1)/5. With p_l/p_h = 0.6,
	// E[IR(b)] > 0 needs F_h(10-b) > 0.4, i.e. b <= 8; at b = 9 the gain is
	// exactly 0 and Alg. 10 stops: b_l = 8, protection 2.
	uniform5 := func(x int) float64 { return math.Min(1, math.Max(0, float64(x+1)/5)) }
	got, err := BookingLimit(10, 100, 60, uniform5, nil)
	if err != nil || got != 8 {
		t.Errorf("BookingLimit = %d, %v; want 8", got, err)
	}
	// Low demand never above 5: past b = 5 there is nobody to sell to
	// (1 - F_l(5) = 0), so Alg. 10 stops at 5.
	atMost5 := func(x int) float64 {
		if x >= 5 {
			return 1
		}
		return 0
	}
	got, err = BookingLimit(10, 100, 60, uniform5, atMost5)
	if err != nil || got != 5 {
		t.Errorf("BookingLimit with F_l = %d, %v; want 5", got, err)
	}
	// Bisection against the printed walk on many inputs.
	r := rand.New(rand.NewPCG(1, 9))
	for range 400 {
		cs := randomClasses(r, 2)
		c := 1 + r.IntN(200)
		var fl DemandCDF
		if r.IntN(2) == 0 {
			fl = ClassDemand{Mean: 60 * r.Float64(), SD: 10 * r.Float64()}.CDF
		}
		got, err := BookingLimit(c, cs[0].Fare, cs[1].Fare, cs[0].CDF, fl)
		if err != nil {
			t.Fatal(err)
		}
		if want := walkBookingLimit(c, cs[0].Fare, cs[1].Fare, cs[0].CDF, fl); got != want {
			t.Errorf("C=%d %+v: %d, Alg. 10 walk %d", c, cs, got, want)
		}
	}
}

// walkThesis is Alg. 11 line by line on the printed Alg. 10.
func walkThesis(maxCN int, cs []ClassDemand) []int {
	bl := func(c int, h, l ClassDemand) int { return walkBookingLimit(c, h.Fare, l.Fare, h.CDF, nil) }
	y1 := maxCN - bl(maxCN, cs[0], cs[2])
	y2 := maxCN - bl(maxCN, cs[1], cs[2])
	b3 := max(0, maxCN-y1-y2)
	b2 := b3 + bl(maxCN-b3, cs[0], cs[1])
	return []int{maxCN, b2, b3}
}

func TestThesisAlgorithm11(t *testing.T) {
	// Table 7.6's peak taus as fares, capacity 41 (RAL). Littlewood levels
	// (computed with Python's NormalDist): class 1 vs 3 8.716, class 2 vs 3
	// 15.779, class 1 vs 2 7.121. Alg. 11: y1 = 9, y2 = 16, b3 = 41 - 25 = 16,
	// b2 = 16 + (25 - 8) = 33.
	cs := classes([]float64{3.38, 2.81, 2.25}, []float64{10, 20, 30}, []float64{3, 5, 8})
	got, err := Allocate(ThesisEMSR, 41, cs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.BookingLimits, []int{41, 33, 16}) || !slices.Equal(got.ProtectionLevels, []float64{8, 25}) {
		t.Errorf("Alg. 11: %+v, want limits [41 33 16], levels [8 25]", got)
	}
	// Protection beyond the capacity: b3 clamps at 0 (line 3) and b2 comes
	// from the two-class rule on the whole capacity.
	big := classes([]float64{3.38, 2.81, 2.25}, []float64{30, 30, 30}, []float64{3, 5, 8})
	got, err = Allocate(ThesisEMSR, 41, big)
	if err != nil {
		t.Fatal(err)
	}
	if got.BookingLimits[2] != 0 || got.ProtectionLevels[1] <= 41 {
		t.Errorf("clamped Alg. 11: %+v", got)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		cs := randomClasses(r, 3)
		c := 1 + r.IntN(150)
		got, err := Allocate(ThesisEMSR, c, cs)
		if err != nil {
			t.Fatal(err)
		}
		if want := walkThesis(c, cs); !slices.Equal(got.BookingLimits, want) {
			t.Errorf("C=%d %+v: %v, Alg. 11 walk %v", c, cs, got.BookingLimits, want)
		}
	}
}

func TestAllocationIsNested(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 1000 {
		n := 1 + r.IntN(6)
		cs := randomClasses(r, n)
		c := 1 + r.IntN(300)
		ob := c + r.IntN(60)
		for _, m := range []LimitMethod{EMSRa, EMSRb, ThesisEMSR} {
			if m == ThesisEMSR && n != 3 {
				continue
			}
			got, err := AllocateOverbooked(m, c, ob, cs)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.ProtectionLevels) != n-1 || len(got.BookingLimits) != n || got.BookingLimits[0] != ob {
				t.Fatalf("%s n=%d: %+v", m, n, got)
			}
			for j := 1; j < n; j++ {
				if got.BookingLimits[j] > got.BookingLimits[j-1] || got.BookingLimits[j] < 0 {
					t.Errorf("%s C+=%d %+v: limits %v not nested", m, ob, cs, got.BookingLimits)
				}
			}
			for j, y := range got.ProtectionLevels {
				if y < 0 || (j > 0 && y < got.ProtectionLevels[j-1]) {
					t.Errorf("%s %+v: levels %v", m, cs, got.ProtectionLevels)
				}
			}
		}
	}
}

func TestOverbookingRaisesTheLowerLimits(t *testing.T) {
	// Alg. 14: with C+ = ob every limit is computed on C+; b_1 = ob and no
	// class loses room.
	cs := classes([]float64{3.38, 2.81, 2.25}, []float64{10, 20, 30}, []float64{3, 5, 8})
	for _, m := range []LimitMethod{EMSRa, EMSRb, ThesisEMSR} {
		plain, err := Allocate(m, 41, cs)
		if err != nil {
			t.Fatal(err)
		}
		over, err := AllocateOverbooked(m, 41, 47, cs)
		if err != nil {
			t.Fatal(err)
		}
		same, err := AllocateOverbooked(m, 41, 41, cs)
		if err != nil {
			t.Fatal(err)
		}
		if over.BookingLimits[0] != 47 || !slices.Equal(same.BookingLimits, plain.BookingLimits) {
			t.Errorf("%s: overbooked %v, plain %v, ob = C %v", m, over.BookingLimits, plain.BookingLimits, same.BookingLimits)
		}
		for j := range plain.BookingLimits {
			if over.BookingLimits[j] < plain.BookingLimits[j] {
				t.Errorf("%s: b_%d fell from %d to %d with overbooking", m, j+1, plain.BookingLimits[j], over.BookingLimits[j])
			}
		}
	}
}

func TestLimitsBadInput(t *testing.T) {
	good := classes([]float64{3, 2, 1}, []float64{1, 1, 1}, []float64{1, 1, 1})
	with := func(i int, f func(*ClassDemand)) []ClassDemand {
		cs := slices.Clone(good)
		f(&cs[i])
		return cs
	}
	nan := math.NaN()
	tests := []struct {
		name  string
		call  func() error
		field string
	}{
		{"capacity 0", func() error { _, err := Allocate(EMSRb, 0, good); return err }, "capacity"},
		{"capacity negative", func() error { _, err := AllocateOverbooked(EMSRa, -1, 5, good); return err }, "capacity"},
		{"no classes", func() error { _, err := Allocate(EMSRb, 10, nil); return err }, "classes"},
		{"fare 0", func() error { _, err := Allocate(EMSRa, 10, with(0, func(c *ClassDemand) { c.Fare = 0 })); return err }, "classes[0].fare"},
		{"fare negative", func() error { _, err := Allocate(EMSRb, 10, with(2, func(c *ClassDemand) { c.Fare = -1 })); return err }, "classes[2].fare"},
		{"fares equal", func() error { _, err := Allocate(EMSRb, 10, with(1, func(c *ClassDemand) { c.Fare = 3 })); return err }, "classes[1].fare"},
		{"fares rising", func() error {
			_, err := Allocate(ThesisEMSR, 10, with(2, func(c *ClassDemand) { c.Fare = 2.5 }))
			return err
		}, "classes[2].fare"},
		{"fare NaN", func() error {
			_, err := Allocate(EMSRb, 10, with(1, func(c *ClassDemand) { c.Fare = nan }))
			return err
		}, "classes[1].fare"},
		{"mean negative", func() error { _, err := Allocate(EMSRa, 10, with(1, func(c *ClassDemand) { c.Mean = -1 })); return err }, "classes[1].mean"},
		{"mean inf", func() error {
			_, err := Allocate(EMSRa, 10, with(0, func(c *ClassDemand) { c.Mean = math.Inf(1) }))
			return err
		}, "classes[0].mean"},
		{"sd negative", func() error { _, err := Allocate(EMSRb, 10, with(2, func(c *ClassDemand) { c.SD = -0.5 })); return err }, "classes[2].sd"},
		{"sd NaN", func() error {
			_, err := Allocate(ThesisEMSR, 10, with(0, func(c *ClassDemand) { c.SD = nan }))
			return err
		}, "classes[0].sd"},
		{"unknown method", func() error { _, err := Allocate("emsr-c", 10, good); return err }, "method"},
		{"thesis two classes", func() error { _, err := Allocate(ThesisEMSR, 10, good[:2]); return err }, "classes"},
		{"thesis four classes", func() error {
			_, err := Allocate(ThesisEMSR, 10, append(slices.Clone(good), ClassDemand{Fare: 0.5}))
			return err
		}, "classes"},
		{"overbook below capacity", func() error { _, err := AllocateOverbooked(EMSRb, 10, 9, good); return err }, "overbook_limit"},
		{"littlewood fares", func() error { _, err := Littlewood(good[1], good[0]); return err }, "classes[1].fare"},
		{"alg10 capacity", func() error { _, err := BookingLimit(0, 2, 1, good[0].CDF, nil); return err }, "capacity"},
		{"alg10 low fare", func() error { _, err := BookingLimit(5, 2, 2, good[0].CDF, nil); return err }, "low_fare"},
		{"alg10 high fare", func() error { _, err := BookingLimit(5, nan, 1, good[0].CDF, nil); return err }, "high_fare"},
		{"alg10 no F_h", func() error { _, err := BookingLimit(5, 2, 1, nil, nil); return err }, "high"},
		{"alg10 bad F_l", func() error {
			_, err := BookingLimit(5, 2, 1, good[0].CDF, func(int) float64 { return -0.1 })
			return err
		}, "low"},
	}
	for _, tt := range tests {
		err := tt.call()
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
			t.Errorf("%s: %v (field %q), want invalid %q", tt.name, err, slotfare.FieldOf(err), tt.field)
		}
	}
	for _, s := range []string{"emsr-a", "emsr-b", "thesis", "emsr-b-mr", "bid-price"} {
		if m, err := ParseLimitMethod(s); err != nil || string(m) != s {
			t.Errorf("ParseLimitMethod(%q) = %q, %v", s, m, err)
		}
	}
}
