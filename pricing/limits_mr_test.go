package pricing

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"slotfare"
)

// The fully undifferentiated example of Fiig, Isler, Hopperstad and
// Belobaba (2010), "Optimization of mixed fare structures: theory and
// applications", Tables 1 and 2, as RevPy's EMSRb-MR example notebook
// prints it (github.com/flix-tech/RevPy, examples/EMSRb-MR_example.ipynb):
// Q 31.2, 42.1, 56.9, 76.8; TR 37440, 42100, 45520, 46080; adjusted fares
// 1200, 427.522936, 231.081081, 28.140704; classes 5 and 6 inefficient
// (NaN); on capacity 100, EMSR-b limits 100, 80, 65, 46, 20, 0 and EMSRb-MR
// limits 100, 65, 48, 16 (RevPy rounds protection levels to the nearest
// unit, limit = 100 - level; Allocate rounds protection up, so the levels
// are compared rounded to the nearest, and the limits must be those or one
// lower).
func TestEMSRbMRPublishedExample(t *testing.T) {
	cs := classes([]float64{1200, 1000, 800, 600, 400, 200},
		[]float64{31.2, 10.9, 14.8, 19.9, 26.9, 36.3},
		[]float64{11.2, 6.6, 7.7, 8.9, 10.4, 12})
	tr, err := TransformFares(cs, make([]float64, 6))
	if err != nil {
		t.Fatal(err)
	}
	wantQ := []float64{31.2, 42.1, 56.9, 76.8}
	wantTR := []float64{37440, 42100, 45520, 46080}
	wantMR := []float64{1200, 427.522936, 231.081081, 28.140704}
	for k := range 6 {
		if k >= 4 {
			if tr.Efficient[k] || !math.IsNaN(tr.AdjustedFare[k]) {
				t.Errorf("class %d: efficient %v, MR %v, want inefficient, NaN", k+1, tr.Efficient[k], tr.AdjustedFare[k])
			}
			continue
		}
		if !tr.Efficient[k] || !near(tr.Q[k], wantQ[k], 1e-9) || !near(tr.TR[k], wantTR[k], 1e-7) ||
			!near(tr.AdjustedFare[k], wantMR[k], 5e-7) {
			t.Errorf("class %d: Q %v TR %v MR %.6f efficient %v, want %v %v %.6f", k+1,
				tr.Q[k], tr.TR[k], tr.AdjustedFare[k], tr.Efficient[k], wantQ[k], wantTR[k], wantMR[k])
		}
	}
	for _, tt := range []struct {
		name   string
		alloc  func() (Allocation, error)
		levels []float64 // rounded to the nearest unit
	}{
		{"emsr-b", func() (Allocation, error) { return Allocate(EMSRb, 100, cs) }, []float64{20, 35, 54, 80, 100}},
		{"emsr-b-mr", func() (Allocation, error) { return AllocateMR(100, cs, nil) }, []float64{35, 52, 84, 100, 100}},
	} {
		a, err := tt.alloc()
		if err != nil {
			t.Fatal(err)
		}
		for j, y := range a.ProtectionLevels {
			if math.Round(y) != tt.levels[j] && !(tt.levels[j] == 100 && y >= 100) {
				t.Errorf("%s: y_%d = %v, rounds to %v, want %v", tt.name, j+1, y, math.Round(y), tt.levels[j])
			}
			if want := 100 - int(tt.levels[j]); a.BookingLimits[j+1] != want && a.BookingLimits[j+1] != want-1 {
				t.Errorf("%s: b_%d = %d, want %d (or one lower, protection rounded up)", tt.name, j+2, a.BookingLimits[j+1], want)
			}
		}
	}
}

// The efficient frontier is characterised without the hull walk: every
// strategy lies on or below the piecewise-linear curve through the
// efficient ones (from the origin), the adjusted fares are positive and
// strictly falling, and the adjusted demands add up to each efficient Q.
func TestFareTransformFrontier(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 27))
	for trial := range 500 {
		n := 2 + r.IntN(7)
		cs := randomClasses(r, n)
		up := make([]float64, n)
		for k := range up {
			up[k] = r.Float64() * float64(r.IntN(2))
		}
		tr, err := TransformFares(cs, up)
		if err != nil {
			t.Fatal(err)
		}
		qs, trs := []float64{0}, []float64{0}
		prevMR, sum := math.Inf(1), 0.0
		for k := range n {
			if !tr.Efficient[k] {
				continue
			}
			mr := tr.AdjustedFare[k]
			if !(mr > 0) || mr >= prevMR {
				t.Fatalf("trial %d: MR_%d = %v after %v", trial, k+1, mr, prevMR)
			}
			sum += tr.AdjustedDemand[k]
			if !near(sum, tr.Q[k], 1e-9*(1+sum)) {
				t.Fatalf("trial %d: adjusted demands add to %v, Q_%d = %v", trial, sum, k+1, tr.Q[k])
			}
			prevMR = mr
			qs, trs = append(qs, tr.Q[k]), append(trs, tr.TR[k])
		}
		for k := range n {
			if f := frontier(qs, trs, tr.Q[k]); tr.TR[k] > f+1e-7*(1+f) {
				t.Fatalf("trial %d: class %d (Q %v, TR %v) above the frontier %v", trial, k+1, tr.Q[k], tr.TR[k], f)
			}
		}
	}
}

// frontier is the piecewise-linear curve through (qs, trs), flat after the
// last point.
func frontier(qs, trs []float64, q float64) float64 {
	for i := 1; i < len(qs); i++ {
		if q <= qs[i] {
			return trs[i-1] + (trs[i]-trs[i-1])*(q-qs[i-1])/(qs[i]-qs[i-1])
		}
	}
	return trs[len(trs)-1]
}

// With sell-up certain everyone buys whatever is open, so only the highest
// class is worth opening: every lower class is closed. A class off the
// frontier in the middle opens and closes with the next efficient one.
func TestEMSRbMRSellUp(t *testing.T) {
	cs := classes([]float64{100, 80, 60}, []float64{10, 10, 10}, []float64{3, 3, 3})
	a, err := AllocateMR(50, cs, []float64{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.BookingLimits, []int{50, 0, 0}) {
		t.Errorf("certain sell-up: limits %v, want [50 0 0]", a.BookingLimits)
	}
	// Means 10, 10, 100 and sell-up 0, 0.9, 0.3: Q = 10+9+30 = 49 (TR
	// 4900), 20+30 = 50 (TR 4000), 120 (TR 7200): class 2 earns less than
	// class 1 with its sell-up, so it is inefficient and takes class 3's
	// limit.
	cs[2].Mean = 100
	up := []float64{0, 0.9, 0.3}
	tr, err := TransformFares(cs, up)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tr.Efficient, []bool{true, false, true}) {
		t.Fatalf("efficient %v, want [true false true]", tr.Efficient)
	}
	a, err = AllocateMR(50, cs, up)
	if err != nil {
		t.Fatal(err)
	}
	if a.BookingLimits[1] != a.BookingLimits[2] {
		t.Errorf("limits %v: class 2 should take class 3's limit", a.BookingLimits)
	}
}

func TestEMSRbMRBadInput(t *testing.T) {
	good := classes([]float64{3, 2, 1}, []float64{1, 1, 1}, []float64{1, 1, 1})
	for _, tt := range []struct {
		up    []float64
		field string
	}{
		{[]float64{0, 1.5, 0}, "sell_up[1]"},
		{[]float64{-0.1, 0, 0}, "sell_up[0]"},
		{[]float64{0, 0, math.NaN()}, "sell_up[2]"},
		{[]float64{0, 0}, "sell_up"},
	} {
		_, err := AllocateMR(10, good, tt.up)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
			t.Errorf("sell-up %v: %v (field %q), want invalid %q", tt.up, err, slotfare.FieldOf(err), tt.field)
		}
	}
	if _, err := AllocateOverbookedMR(10, 9, good, nil); slotfare.FieldOf(err) != "overbook_limit" {
		t.Errorf("overbook below capacity: %v", err)
	}
	if _, err := AllocateMR(0, good, nil); slotfare.FieldOf(err) != "capacity" {
		t.Errorf("capacity 0: %v", err)
	}
}
