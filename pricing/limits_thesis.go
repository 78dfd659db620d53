package pricing

// thesisAllocation is seed 004's Alg. 11 as printed (Sec. 7.4.3), for
// classes 1, 2, 3 on capacity maxCN (or C+ of Alg. 14):
//
//	y1 = maxCN - BookingLimit(maxCN, p1, p3, F1)        (line 1)
//	y2 = maxCN - BookingLimit(maxCN, p2, p3, F2)        (line 2)
//	b3 = max(0, maxCN - y1 - y2)                        (line 3)
//	b2 = b3 + BookingLimit(maxCN - b3, p1, p2, F1)      (line 4)
//	b1 = maxCN                                          (line 5)
//
// BookingLimit is Alg. 10 with F_l = 0, as the printed calls pass only F_h.
// Its protection levels are whole units: C - b2 for class 1 and y1 + y2
// (before line 3's clamp) for classes 1-2.
func thesisAllocation(maxCN int, classes []ClassDemand) Allocation {
	c1, c2, c3 := classes[0], classes[1], classes[2]
	limit := func(capacity int, high, low ClassDemand) int {
		return bookingLimit(capacity, high.Fare, low.Fare, high.CDF, nil)
	}
	y1 := maxCN - limit(maxCN, c1, c3)
	y2 := maxCN - limit(maxCN, c2, c3)
	b3 := max(0, maxCN-y1-y2)
	b2 := b3 + limit(maxCN-b3, c1, c2)
	return Allocation{
		ProtectionLevels: []float64{float64(maxCN - b2), float64(y1 + y2)},
		BookingLimits:    []int{maxCN, b2, b3},
	}
}
