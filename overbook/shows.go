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
// It sums probabilities on the side of c away from the mean, where every
// term is positive and the terms fall off fast: above the mean,
// sum_{k>c} (k - c) P(k) directly; below it, through
// E[(B - c)^+] = nq - c + E[(c - B)^+]. A closed form as a difference of two
// tails would cancel away up to log10(c) digits in the far tail.
func expectedDenied(n, c int, q float64) float64 {
	switch {
	case n <= c:
		return 0
	case q == 1:
		return float64(n - c)
	}
	mean := float64(n) * q
	if float64(c) >= mean {
		return excessAbove(n, c, q)
	}
	return mean - float64(c) + shortfallBelow(n, c, q)
}

// tailEpsilon is where a sum stops: once a bound on everything still to add
// is below this share of the sum, further terms cannot change a float64.
const tailEpsilon = 1e-17

// excessAbove is sum_{k=c+1}^{n} (k - c) P(B(n) = k) for c >= nq, so that the
// terms, after the first, only shrink. Each P(k+1) comes from P(k) by the
// ratio r = (n-k)/(k+1) * q/(1-q); since r falls as k grows, the rest of the
// sum is at most P(k) * sum_{m>=1} (d+m) r^m with d = k - c.
func excessAbove(n, c int, q float64) float64 {
	odds := q / (1 - q)
	p := math.Exp(distuv.Binomial{N: float64(n), P: q}.LogProb(float64(c + 1)))
	sum := 0.0
	for k := c + 1; k <= n && p > 0; k++ {
		d := float64(k - c)
		sum += d * p
		r := float64(n-k) / float64(k+1) * odds
		if r < 1 && p*(d*r/(1-r)+r/((1-r)*(1-r))) <= tailEpsilon*sum {
			break
		}
		p *= r
	}
	return sum
}

// shortfallBelow is sum_{k=0}^{c-1} (c - k) P(B(n) = k) for c < nq, walked
// down from c-1 by the ratio P(k-1)/P(k) = k/(n-k+1) * (1-q)/q, with the
// same bound on the rest as excessAbove.
func shortfallBelow(n, c int, q float64) float64 {
	if c <= 0 {
		return 0
	}
	odds := (1 - q) / q
	p := math.Exp(distuv.Binomial{N: float64(n), P: q}.LogProb(float64(c - 1)))
	sum := 0.0
	for k := c - 1; k >= 0 && p > 0; k-- {
		d := float64(c - k)
		sum += d * p
		r := float64(k) / float64(n-k+1) * odds
		if r < 1 && p*(d*r/(1-r)+r/((1-r)*(1-r))) <= tailEpsilon*sum {
			break
		}
		p *= r
	}
	return sum
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
