package pricing

import "math"

// emsrA is Belobaba's EMSR-a (1987), the heuristic seed 004 cites for
// Alg. 11 (Sec. 7.4.3, ref. [10]): the protection of classes 1..j against
// class j+1 is the sum over k <= j of Littlewood's level of class k against
// fare f_{j+1}.
func emsrA(classes []ClassDemand) []float64 {
	levels := make([]float64, len(classes)-1)
	for j := range levels {
		lower := classes[j+1].Fare
		for _, c := range classes[:j+1] {
			levels[j] += littlewood(c, lower)
		}
	}
	return levels
}

// emsrB is Belobaba's EMSR-b (1989): classes 1..j are pooled into one with
// mean sum(mu), standard deviation sqrt(sum(sigma^2)) (independent demands)
// and fare sum(f mu) / sum(mu), and Littlewood's rule protects the pool
// against class j+1. If the pooled mean is zero the plain average of the
// fares stands in for the weighted one. A level is never below the one
// before it, so the limits stay nested even where the heuristic itself
// would dip.
func emsrB(classes []ClassDemand) []float64 {
	levels := make([]float64, len(classes)-1)
	var mean, variance, revenue, fares float64
	for j := range levels {
		c := classes[j]
		mean += c.Mean
		variance += c.SD * c.SD
		revenue += c.Fare * c.Mean
		fares += c.Fare
		avg := fares / float64(j+1)
		if mean > 0 {
			avg = revenue / mean
		}
		y := littlewood(ClassDemand{Fare: avg, Mean: mean, SD: math.Sqrt(variance)}, classes[j+1].Fare)
		if j > 0 {
			y = math.Max(y, levels[j-1])
		}
		levels[j] = y
	}
	return levels
}
