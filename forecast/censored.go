package forecast

import "math"

// Unconstraining censored demand. When a fare class closes (its booking
// limit is reached) before a period instance starts, the bookings it took are
// only a lower bound of its demand: requests that came after closing were
// never seen. Smoothing those numbers as they are biases the forecast low,
// which lowers the protection levels, which closes the class earlier: the
// spiral down. slotfare corrects it with the expectation-maximisation (EM)
// method for right-censored samples (Dempster, Laird and Rubin 1977; the
// "EM" unconstraining method of the revenue-management literature, e.g.
// Salch 1997, compared by Weatherford and Poelt 2002): fit the demand
// distribution to all observations of a (resource, class, period) series,
// treating a closed observation x as "demand >= x"; then replace each closed
// observation by its conditional moments E[D | D >= x] and E[D^2 | D >= x]
// under the fit. The smoother runs on those moments. The forecasting module
// of seed 004 Sec. 7.3 (Fig. 7.1, step 6) leaves the method open.

// demandMoments are an observation's first and second moments once
// unconstrained: x and x^2 for an uncensored one.
type demandMoments struct{ first, second float64 }

// emMaxIterations bounds the EM loop; each iteration does not lower the
// likelihood, and it stops earlier when the parameters settle.
const emMaxIterations = 1000

// unconstrainNormal fits N(mu, sigma^2) to values, where censored[i] means
// values[i] is a lower bound, by EM, and returns the fit and every
// observation's conditional moments. ok is false when the fit is not
// identified: fewer than two uncensored observations, or uncensored ones that
// are all equal (the likelihood is then unbounded as sigma shrinks).
func unconstrainNormal(values []float64, censored []bool) (mu, sigma float64, moments []demandMoments, ok bool) {
	var n, sum, sumSq float64
	for i, x := range values {
		if !censored[i] {
			n++
			sum += x
			sumSq += x * x
		}
	}
	if n < 2 {
		return 0, 0, nil, false
	}
	mu = sum / n
	variance := sumSq/n - mu*mu
	if variance <= 1e-12*math.Max(1, mu*mu) {
		return 0, 0, nil, false
	}
	sigma = math.Sqrt(variance)
	moments = make([]demandMoments, len(values))
	for iter := 0; iter < emMaxIterations; iter++ {
		var s1, s2 float64
		for i, x := range values {
			m := demandMoments{x, x * x}
			if censored[i] {
				h := stdNormalHazard((x - mu) / sigma)
				m.first = mu + sigma*h
				m.second = mu*mu + sigma*sigma + sigma*(x+mu)*h
			}
			moments[i] = m
			s1 += m.first
			s2 += m.second
		}
		total := float64(len(values))
		newMu := s1 / total
		newVar := s2/total - newMu*newMu
		if newVar <= 0 || math.IsNaN(newVar) || math.IsInf(newMu, 0) {
			return 0, 0, nil, false
		}
		newSigma := math.Sqrt(newVar)
		settled := math.Abs(newMu-mu)+math.Abs(newSigma-sigma) < 1e-10*(1+math.Abs(newMu)+newSigma)
		mu, sigma = newMu, newSigma
		if settled {
			break
		}
	}
	// Moments under the final fit.
	for i, x := range values {
		if censored[i] {
			h := stdNormalHazard((x - mu) / sigma)
			moments[i] = demandMoments{mu + sigma*h, mu*mu + sigma*sigma + sigma*(x+mu)*h}
		}
	}
	return mu, sigma, moments, true
}

// unconstrainPoisson is unconstrainNormal for Poisson demand: a closed
// observation x means N >= x, with E[N | N >= x] = lambda P(N >= x-1) /
// P(N >= x). Closed values are rounded to whole numbers of bookings; only
// first moments matter (a Poisson's variance is its mean). ok is false
// without an uncensored observation.
func unconstrainPoisson(values []float64, censored []bool) (lambda float64, moments []demandMoments, ok bool) {
	var n, sum float64
	for i, x := range values {
		if !censored[i] {
			n++
		}
		sum += x
	}
	if n < 1 {
		return 0, nil, false
	}
	lambda = sum / float64(len(values))
	moments = make([]demandMoments, len(values))
	expect := func(x float64) float64 {
		k := int(math.Round(x))
		if k <= 0 || lambda <= 0 {
			return math.Max(x, lambda)
		}
		return lambda * math.Exp(poissonLogUpper(k-1, lambda)-poissonLogUpper(k, lambda))
	}
	for iter := 0; iter < emMaxIterations; iter++ {
		s := 0.0
		for i, x := range values {
			m := demandMoments{first: x}
			if censored[i] {
				m.first = expect(x)
			}
			m.second = m.first * m.first
			moments[i] = m
			s += m.first
		}
		newLambda := s / float64(len(values))
		if math.IsNaN(newLambda) || math.IsInf(newLambda, 0) {
			return 0, nil, false
		}
		settled := math.Abs(newLambda-lambda) < 1e-10*(1+newLambda)
		lambda = newLambda
		if settled {
			break
		}
	}
	for i, x := range values {
		if censored[i] {
			f := expect(x)
			moments[i] = demandMoments{f, f * f}
		}
	}
	return lambda, moments, true
}
