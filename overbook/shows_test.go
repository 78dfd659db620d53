package overbook

import (
	"math"
	"math/big"
	"testing"

	"github.com/shopspring/decimal"
	"gonum.org/v1/gonum/stat/distuv"
)

// exactDenied computes E[(B(n) - c)^+] with rational arithmetic straight
// from the definition sum_{k>c} (k - c) C(n,k) q^k (1-q)^(n-k) (seed 004,
// Eq. 7.7 numerator), for q given as a decimal string.
func exactDenied(n, c int, q string) float64 {
	qr, _ := new(big.Rat).SetString(q)
	pr := new(big.Rat).Sub(big.NewRat(1, 1), qr)
	sum := new(big.Rat)
	for k := c + 1; k <= n; k++ {
		term := new(big.Rat).SetInt(new(big.Int).Binomial(int64(n), int64(k)))
		term.Mul(term, ratPow(qr, k))
		term.Mul(term, ratPow(pr, n-k))
		term.Mul(term, big.NewRat(int64(k-c), 1))
		sum.Add(sum, term)
	}
	f, _ := sum.Float64()
	return f
}

func ratPow(r *big.Rat, k int) *big.Rat {
	num := new(big.Int).Exp(r.Num(), big.NewInt(int64(k)), nil)
	den := new(big.Int).Exp(r.Denom(), big.NewInt(int64(k)), nil)
	return new(big.Rat).SetFrac(num, den)
}

// logPMF is log P(B(n) = k) from log-gamma, independent of gonum.
func logPMF(n, k int, q float64) float64 {
	ln, _ := math.Lgamma(float64(n + 1))
	lk, _ := math.Lgamma(float64(k + 1))
	lnk, _ := math.Lgamma(float64(n - k + 1))
	return ln - lk - lnk + float64(k)*math.Log(q) + float64(n-k)*math.Log1p(-q)
}

// logSpaceTail sums P(B(n) = k) and (k - c) P(B(n) = k) over k > c with
// every term in log space, scaled by the largest term.
func logSpaceTail(n, c int, q float64) (tail, denied float64) {
	top := math.Inf(-1)
	for k := c + 1; k <= n; k++ {
		top = math.Max(top, logPMF(n, k, q))
	}
	var s, d float64
	for k := c + 1; k <= n; k++ {
		w := math.Exp(logPMF(n, k, q) - top)
		s += w
		d += float64(k-c) * w
	}
	return s * math.Exp(top), d * math.Exp(top)
}

func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

func TestExpectedDeniedExact(t *testing.T) {
	for _, q := range []string{"0.6", "0.65", "0.7", "0.75", "0.8", "0.85", "0.9", "0.95", "0.05", "1"} {
		qf, _ := decimal.RequireFromString(q).Float64()
		for _, n := range []int{0, 1, 49, 50, 51, 52, 60, 77, 90, 120} {
			got := expectedDenied(n, 50, qf)
			want := exactDenied(n, 50, q)
			if relErr(got, want) > 1e-11 {
				t.Errorf("E[(B(%d)-50)^+] at q=%s = %.17g, exact %.17g", n, q, got, want)
			}
		}
	}
}

func TestTailsLargeCapacity(t *testing.T) {
	tests := []struct {
		n, c int
		q    float64
	}{
		{5001, 5000, 0.95},
		{5200, 5000, 0.9},  // P(B > C) ~ 1e-49: 1 - CDF reads 0 here
		{5300, 5000, 0.95}, // mean 5035, a few sd from C
		{8333, 5000, 0.6},
		{8700, 5000, 0.6},
		{20000, 5000, 0.3},
		{100000, 5000, 0.0505}, // mean 5050: the walk below c on a long binomial
	}
	for _, tt := range tests {
		tail, denied := logSpaceTail(tt.n, tt.c, tt.q)
		if got := showsAbove(tt.n, tt.c, tt.q); relErr(got, tail) > 1e-9 {
			t.Errorf("P(B(%d) > %d) at q=%v = %.17g, log-space %.17g", tt.n, tt.c, tt.q, got, tail)
		}
		if got := expectedDenied(tt.n, tt.c, tt.q); relErr(got, denied) > 1e-8 {
			t.Errorf("E[(B(%d)-%d)^+] at q=%v = %.17g, log-space %.17g", tt.n, tt.c, tt.q, got, denied)
		}
	}
	// The case the complement trick exists for: gonum's Survival of the show
	// count (1 - CDF) is pure rounding noise here, the no-show CDF is right.
	want, _ := logSpaceTail(5200, 5000, 0.9)
	lost := distuv.Binomial{N: 5200, P: 0.9}.Survival(5000)
	kept := showsAbove(5200, 5000, 0.9)
	if relErr(lost, want) < 1 || relErr(kept, want) > 1e-9 {
		t.Errorf("Survival = %g, showsAbove = %g, log-space %g", lost, kept, want)
	}
}

func TestShowsAboveEdges(t *testing.T) {
	tests := []struct {
		n, c int
		q    float64
		want float64
	}{
		{10, 10, 0.5, 0},
		{5, 10, 0.5, 0},
		{11, 10, 1, 1},
		{3, -1, 0.5, 1},
		{11, 10, 0.5, math.Pow(0.5, 11)},
	}
	for _, tt := range tests {
		if got := showsAbove(tt.n, tt.c, tt.q); relErr(got, tt.want) > 1e-12 {
			t.Errorf("showsAbove(%d, %d, %v) = %g, want %g", tt.n, tt.c, tt.q, got, tt.want)
		}
	}
	if got := expectedDenied(60, 50, 1); got != 10 {
		t.Errorf("all show: denied %v, want 10", got)
	}
	if got := serviceLevel(0, 50, 0.5); got != 0 {
		t.Errorf("service level of no bookings = %v", got)
	}
}
