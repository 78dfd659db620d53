package forecast

import (
	"slotfare"
)

// SellUpCount is what the demand records counted of one fare class: its
// requests refused because it was closed, and of them those that booked a
// higher class instead, by the class bought.
type SellUpCount struct {
	Class         string
	RefusedClosed float64
	BoughtUp      map[string]float64
}

// SellUp is the estimated sell-up of one fare class: the probability that
// a request refused because the class was closed buys a higher class
// instead (the sell-up probability of Fiig, Isler, Hopperstad and
// Belobaba 2010, Sec. 3, that EMSRb-MR's marginal revenues take), and its
// split by the class bought. Refused and BoughtUp are the counts behind it.
type SellUp struct {
	Class       string
	Probability float64
	To          map[string]float64 // by class bought, in the counts' shares (empty before any buy-up)
	Refused     float64
	BoughtUp    float64
}

// EstimateSellUp estimates each class's sell-up probability from its
// counts: (bought up + w prior) / (refused closed + w), so that a class
// seldom closed keeps the prior (a provider's configured probability, or 0)
// and one closed often follows what its users did. w is the prior's
// weight in refusals (0: the counts alone; a class never refused then has
// probability 0). Errors are Invalid naming "prior", "weight" or
// "counts[i]".
func EstimateSellUp(counts []SellUpCount, prior, w float64) (map[string]SellUp, error) {
	const op slotfare.Op = "forecast.EstimateSellUp"
	if !(prior >= 0 && prior <= 1) {
		return nil, slotfare.Errorf(op, "prior", "a probability must be in [0, 1], got %v", prior)
	}
	if !(w >= 0) || w > 1e12 {
		return nil, slotfare.Errorf(op, "weight", "must be a non-negative number, got %v", w)
	}
	out := make(map[string]SellUp, len(counts))
	for i, c := range counts {
		bought := 0.0
		for _, n := range c.BoughtUp {
			if !(n >= 0) {
				return nil, slotfare.Errorf(op, "counts", "counts[%d] bought up %v", i, n)
			}
			bought += n
		}
		if !(c.RefusedClosed >= 0) || bought > c.RefusedClosed {
			return nil, slotfare.Errorf(op, "counts", "counts[%d] (%s): %v bought up of %v refused closed", i, c.Class, bought, c.RefusedClosed)
		}
		s := SellUp{Class: c.Class, Refused: c.RefusedClosed, BoughtUp: bought, To: map[string]float64{}}
		if d := c.RefusedClosed + w; d > 0 {
			s.Probability = (bought + w*prior) / d
			for to, n := range c.BoughtUp {
				if bought > 0 {
					// The prior's share goes where the counts went.
					s.To[to] = s.Probability * n / bought
				}
			}
		}
		out[c.Class] = s
	}
	return out, nil
}
