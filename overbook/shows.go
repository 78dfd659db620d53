package overbook

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// The number of bookings that show up at the service time is binomial: each
// of n bookings shows independently with the show rate q (seed 004,
// Sec. 7.5.2, Eq. 7.2 and Sec. 7.5.3, Eq. 7.6). The helpers below are the
// two quantities every policy needs, computed so that they stay accurate in
// the far upper tail for capacities in the thousands.

// showsAbove returns P(B(n) > c), the chance that more than c of n bookings
// show. It asks for the no-show count instead (more than c shows is at most
// n-c-1 no-shows), whose CDF is computed directly; 1 - CDF(shows) would lose
// every digit of a tail below about 1e-16.
func showsAbove(n, c int, q float64) float64 {
	switch {
	case n <= c:
		return 0
	case c < 0 || q == 1:
		return 1
	}
	p := distuv.Binomial{N: float64(n), P: 1 - q}.CDF(float64(n - c - 1))
	return clamp01(p)
}

// expectedDenied returns E[(B(n) - c)^+], the expected number of bookings
// that show beyond the capacity c when n were sold (the numerator of Eq. 7.5
// and the denied part of Eq. 7.9 with the (k - C) factor of the errata in
// seeds/README.md).
//
// Instead of summing (k - c) P(B = k) over k > c, it uses
// E[B 1{B > c}] = n q P(B(n-1) >= c), so that
// E[(B(n) - c)^+] = n q P(B(n-1) > c-1) - c P(B(n) > c):
// two tail probabilities, O(1) work whatever n is.
func expectedDenied(n, c int, q float64) float64 {
	switch {
	case n <= c:
		return 0
	case q == 1:
		return float64(n - c)
	}
	e := float64(n)*q*showsAbove(n-1, c-1, q) - float64(c)*showsAbove(n, c, q)
	return math.Max(0, e)
}

// serviceLevel is s(n) of Eq. 7.5/7.8: expected denied bookings over
// expected shows. Zero bookings deny nobody.
func serviceLevel(n, c int, q float64) float64 {
	if n <= 0 {
		return 0
	}
	return expectedDenied(n, c, q) / (float64(n) * q)
}

func clamp01(p float64) float64 {
	return math.Min(1, math.Max(0, p))
}
