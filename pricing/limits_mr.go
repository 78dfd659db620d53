package pricing

import (
	"math"
	"strconv"

	"slotfare"
)

// EMSR-b on marginal revenue (EMSRb-MR) follows Fiig, Isler, Hopperstad and
// Belobaba (2010), "Optimization of mixed fare structures: theory and
// applications" (Journal of Revenue and Pricing Management 9(1)): where
// fences are weak, a request whose class is closed buys another class
// instead of leaving, so class demands are not independent and EMSR-b on
// the raw fares protects too little. The paper's marginal revenue
// transformation turns the fare structure into an equivalent one with
// independent demand: each class k, as the lowest open class, is a strategy
// selling Q_k units at f_k (total revenue TR_k = f_k Q_k); the strategies
// on the efficient frontier (the concave hull of (Q, TR), increasing in
// both) get the adjusted fare MR_k = (TR_k - TR_prev) / (Q_k - Q_prev) and
// the adjusted demand Q_k - Q_prev, and EMSR-b runs on those. Table 1 of
// the paper is the fully undifferentiated case (every sell-up probability
// zero), Table 2 its EMSR-b and EMSRb-MR limits.

// SellUpDemand is Q_k, the demand when class k is the lowest open class: the
// requests of classes 1..k (the higher ones buy down to f_k, nothing fences
// them off) plus, for each class j below k, which is closed, its requests
// that buy up, a share sellUp[j] of them. sellUp[j] is the probability that
// a request for class j, finding it closed, buys a higher class (what the
// demand records count as refused closed and bought up); class 1's is never
// used. With every sellUp zero Q is the cumulative demand of the paper's
// fully undifferentiated Table 1; with every one one, every request buys
// whatever is open.
func SellUpDemand(classes []ClassDemand, sellUp []float64) []float64 {
	var up float64 // requests below k that buy up
	for j, c := range classes {
		up += sellUp[j] * c.Mean
	}
	q := make([]float64, len(classes))
	var cum float64
	for k, c := range classes {
		cum += c.Mean
		up -= sellUp[k] * c.Mean
		q[k] = cum + math.Max(0, up)
	}
	return q
}

// FareTransform is the marginal revenue transformation of one slot's
// classes.
type FareTransform struct {
	// Q[k] is the demand with class k lowest open (SellUpDemand) and TR[k]
	// = f_k Q[k] the revenue of that strategy.
	Q, TR []float64
	// Efficient[k] says whether class k's strategy is on the efficient
	// frontier; the others are never worth opening as the lowest class.
	Efficient []bool
	// AdjustedFare[k] (MR_k) and AdjustedDemand[k] are the transformed
	// class, defined where Efficient[k]; NaN elsewhere.
	AdjustedFare, AdjustedDemand []float64
}

// TransformFares computes the marginal revenue transformation (Fiig et al.
// 2010, the fare transformation and its Table 1): the efficient frontier is
// the upper concave hull of the strategies (Q_k, TR_k) from the highest
// class down, keeping only steps that add demand and revenue, so the
// adjusted fares come out positive and strictly falling. Class 1 is always
// efficient, with MR_1 = f_1 (the hull starts at the origin and no slope
// from it can exceed the highest fare).
func TransformFares(classes []ClassDemand, sellUp []float64) (FareTransform, error) {
	const op slotfare.Op = "pricing.TransformFares"
	if err := checkClasses(op, classes); err != nil {
		return FareTransform{}, err
	}
	if err := checkSellUp(op, sellUp, len(classes)); err != nil {
		return FareTransform{}, err
	}
	n := len(classes)
	t := FareTransform{Q: SellUpDemand(classes, sellUp), TR: make([]float64, n), Efficient: make([]bool, n),
		AdjustedFare: make([]float64, n), AdjustedDemand: make([]float64, n)}
	for k, c := range classes {
		t.TR[k] = c.Fare * t.Q[k]
	}
	hull := []int{0}
	for k := 1; k < n; k++ {
		top := hull[len(hull)-1]
		if t.Q[k] <= t.Q[top] || t.TR[k] <= t.TR[top] {
			continue // no more demand, or no more revenue: dominated
		}
		for len(hull) > 1 && !t.below(hull[len(hull)-2], hull[len(hull)-1], k) {
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, k)
	}
	for k := range t.AdjustedFare {
		t.AdjustedFare[k], t.AdjustedDemand[k] = math.NaN(), math.NaN()
	}
	prevQ, prevTR := 0.0, 0.0
	for i, k := range hull {
		t.Efficient[k] = true
		t.AdjustedDemand[k] = t.Q[k] - prevQ
		t.AdjustedFare[k] = classes[0].Fare
		if i > 0 || t.Q[k] > 0 {
			t.AdjustedFare[k] = (t.TR[k] - prevTR) / (t.Q[k] - prevQ)
		}
		prevQ, prevTR = t.Q[k], t.TR[k]
	}
	return t, nil
}

// below reports whether strategy mid lies strictly above the chord from
// strategy a to strategy b (so mid stays on the concave hull): the slope
// a->mid exceeds the slope mid->b.
func (t FareTransform) below(a, mid, b int) bool {
	return (t.TR[mid]-t.TR[a])*(t.Q[b]-t.Q[mid]) > (t.TR[b]-t.TR[mid])*(t.Q[mid]-t.Q[a])
}

// AllocateMR is EMSRb-MR (Fiig et al. 2010): EMSR-b on the transformed
// classes (adjusted fares and demands, each efficient class keeping its own
// standard deviation, as the paper's example does), mapped back onto every
// class. A class off the frontier takes the limit of the next efficient
// class below it, so it opens and closes with that one (a request would buy
// the cheaper one anyway); below the last efficient class every class is
// closed (its protection is the whole capacity). sellUp holds one
// probability in [0, 1] per class (SellUpDemand); nil is all zero.
func AllocateMR(capacity int, classes []ClassDemand, sellUp []float64) (Allocation, error) {
	const op slotfare.Op = "pricing.AllocateMR"
	if capacity <= 0 {
		return Allocation{}, slotfare.Errorf(op, "capacity", "must be positive, got %d", capacity)
	}
	if sellUp == nil {
		sellUp = make([]float64, len(classes))
	}
	t, err := TransformFares(classes, sellUp)
	if err != nil {
		return Allocation{}, slotfare.E(op, err)
	}
	var eff []int
	var adjusted []ClassDemand
	for k, c := range classes {
		if t.Efficient[k] {
			eff = append(eff, k)
			adjusted = append(adjusted, ClassDemand{Fare: t.AdjustedFare[k], Mean: t.AdjustedDemand[k], SD: c.SD})
		}
	}
	effLevels := emsrB(adjusted) // effLevels[i-1] protects eff[0..i-1] from eff[i]
	levels := make([]float64, len(classes)-1)
	next := 1 // the next efficient class at or below k
	for k := 1; k < len(classes); k++ {
		for next < len(eff) && eff[next] < k {
			next++
		}
		y := float64(capacity)
		if next < len(eff) {
			y = effLevels[next-1]
		}
		if k > 1 {
			y = math.Max(y, levels[k-2])
		}
		levels[k-1] = y
	}
	return nested(capacity, levels), nil
}

// AllocateOverbookedMR is AllocateMR on the virtual capacity max(C, ob) of
// seed 004's Alg. 14 (Sec. 7.5.5), as AllocateOverbooked is for EMSR.
func AllocateOverbookedMR(capacity, overbookLimit int, classes []ClassDemand, sellUp []float64) (Allocation, error) {
	const op slotfare.Op = "pricing.AllocateOverbookedMR"
	if capacity <= 0 {
		return Allocation{}, slotfare.Errorf(op, "capacity", "must be positive, got %d", capacity)
	}
	if overbookLimit < capacity {
		return Allocation{}, slotfare.Errorf(op, "overbook_limit",
			"must be at least the capacity %d, got %d", capacity, overbookLimit)
	}
	return AllocateMR(overbookLimit, classes, sellUp)
}

// CheckSellUp validates sell-up probabilities: one per class, each in
// [0, 1]. The error names "sell_up[i]".
func CheckSellUp(sellUp []float64, classes int) error {
	return checkSellUp("pricing.CheckSellUp", sellUp, classes)
}

func checkSellUp(op slotfare.Op, sellUp []float64, classes int) error {
	if len(sellUp) != classes {
		return slotfare.Errorf(op, "sell_up", "want one probability per fare class (%d), got %d", classes, len(sellUp))
	}
	for i, p := range sellUp {
		if math.IsNaN(p) || p < 0 || p > 1 {
			return slotfare.Errorf(op, "sell_up["+strconv.Itoa(i)+"]", "must be a probability in [0, 1], got %v", p)
		}
	}
	return nil
}
