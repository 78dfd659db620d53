package forecast

import (
	"fmt"
	"math"
)

// Family is the shape assumed for demand: normal (mean and standard
// deviation both estimated; what EMSR-a/b take) or Poisson (the variance is
// the mean; suits small counts of one-node bookings, as in the thesis's
// Bag-of-Tasks evaluation, seed 004 Sec. 7.7.1).
type Family int

// The demand families.
const (
	Normal Family = iota
	Poisson
)

func (f Family) String() string {
	switch f {
	case Normal:
		return "normal"
	case Poisson:
		return "poisson"
	}
	return fmt.Sprintf("family(%d)", int(f))
}

// ParseFamily reads "normal" or "poisson".
func ParseFamily(s string) (Family, error) {
	switch s {
	case "normal":
		return Normal, nil
	case "poisson":
		return Poisson, nil
	}
	return 0, fmt.Errorf("%q is not a demand family: want normal or poisson", s)
}

// stdNormalPDF is the standard normal density.
func stdNormalPDF(z float64) float64 { return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }

// stdNormalCDF is P(Z <= z).
func stdNormalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// stdNormalHazard is the inverse Mills ratio phi(z) / (1 - Phi(z)): how far
// above its threshold the mean of a normal truncated below at z lies, in
// standard deviations. Far in the upper tail the quotient of two underflowing
// numbers is replaced by the continued fraction of Mills' ratio,
// 1/R(z) = z + 1/(z + 2/(z + 3/(z + ...))).
func stdNormalHazard(z float64) float64 {
	if z < 5 {
		return stdNormalPDF(z) / (0.5 * math.Erfc(z/math.Sqrt2))
	}
	r := 0.0
	for k := 80; k >= 1; k-- {
		r = float64(k) / (z + r)
	}
	return z + r
}

// poissonLogUpper is log P(N >= x) for N ~ Poisson(lambda), lambda > 0,
// accurate far into the upper tail (summed in log space there, not as
// 1 - CDF).
func poissonLogUpper(x int, lambda float64) float64 {
	if x <= 0 {
		return 0
	}
	if lambda > 1e4 {
		// Far beyond any node count; the continuity-corrected normal is exact enough.
		z := (float64(x) - 0.5 - lambda) / math.Sqrt(lambda)
		return math.Log(0.5 * math.Erfc(z/math.Sqrt2))
	}
	logTerm := func(k int) float64 {
		lg, _ := math.Lgamma(float64(k + 1))
		return float64(k)*math.Log(lambda) - lambda - lg
	}
	if float64(x) <= lambda {
		lower := 0.0
		for k := 0; k < x; k++ {
			lower += math.Exp(logTerm(k))
		}
		return math.Log1p(-math.Min(lower, 1))
	}
	// Terms fall from k = x on (k >= lambda): sum them relative to the first.
	first := logTerm(x)
	sum, term := 1.0, 1.0
	for k := x + 1; k < x+100000; k++ {
		term *= lambda / float64(k)
		sum += term
		if term < 1e-17*sum {
			break
		}
	}
	return first + math.Log(sum)
}

// poissonCDF is P(N <= x).
func poissonCDF(x, lambda float64) float64 {
	if x < 0 {
		return 0
	}
	if lambda <= 0 {
		return 1
	}
	if x > lambda+100*math.Sqrt(lambda)+1000 {
		return 1
	}
	k := int(math.Floor(x))
	return -math.Expm1(poissonLogUpper(k+1, lambda))
}
