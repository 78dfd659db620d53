package pricing

import (
	"math"
	"strconv"

	"slotfare"
)

// Booking limits (seed 004, Sec. 7.4-7.5.5). Fares here are float64, not
// decimal: booking limits depend only on fare ratios through a normal
// quantile, so a float64's 1e-16 relative error is nothing next to the
// forecast's. Money that is charged stays decimal elsewhere in pricing; the
// caller passes a fare class's price for one unit (e.g. tau * bcost for a
// node-slot, Eq. 7.12) as InexactFloat64.

// ClassDemand is one fare class as booking control sees it for one slot or
// rate period: the fare it pays and its demand forecast, taken as normal with
// Mean and SD (the assumption of Belobaba's EMSR heuristics; SD = 0 is a
// demand known exactly).
type ClassDemand struct {
	Fare float64
	Mean float64
	SD   float64
}

// CDF is F(x) = P(D <= x) of the class's normal demand at a whole number of
// units x, as Alg. 10 reads it (seed 004, Sec. 7.4.2). With SD = 0 it is a
// step at Mean.
func (d ClassDemand) CDF(x int) float64 {
	if d.SD == 0 {
		if float64(x) >= d.Mean {
			return 1
		}
		return 0
	}
	return 0.5 * math.Erfc(-(float64(x)-d.Mean)/(d.SD*math.Sqrt2))
}

// LimitMethod names how nested booking limits are computed.
type LimitMethod string

const (
	// EMSRa is Belobaba's EMSR-a: each higher class protects its own
	// Littlewood level against the class below, and the levels add up.
	EMSRa LimitMethod = "emsr-a"
	// EMSRb is Belobaba's EMSR-b: the classes above are pooled into one with
	// their total demand and demand-weighted average fare.
	EMSRb LimitMethod = "emsr-b"
	// ThesisEMSR is seed 004's Alg. 11 for exactly three classes, as printed.
	ThesisEMSR LimitMethod = "thesis"
	// EMSRbMR is EMSR-b on marginal-revenue-transformed fares (Fiig et al.
	// 2010, AllocateMR); Allocate runs it with no sell-up.
	EMSRbMR LimitMethod = "emsr-b-mr"
	// BidPrice closes every class whose fare is below the slot's bid price
	// from the (slot x class) LP (SlotBidPrice, BidPriceAllocation).
	BidPrice LimitMethod = "bid-price"
)

// LimitMethodNames lists the methods ParseLimitMethod reads, for messages.
const LimitMethodNames = "emsr-a, emsr-b, emsr-b-mr, bid-price or thesis"

// ParseLimitMethod reads a method by its name: "emsr-a", "emsr-b",
// "emsr-b-mr", "bid-price" or "thesis".
func ParseLimitMethod(s string) (LimitMethod, error) {
	switch m := LimitMethod(s); m {
	case EMSRa, EMSRb, ThesisEMSR, EMSRbMR, BidPrice:
		return m, nil
	}
	return "", slotfare.Errorf("pricing.ParseLimitMethod", "method",
		"unknown method %q (want %s)", s, LimitMethodNames)
}

// Allocation is how one slot's capacity is shared among fare classes, the
// highest class first (seed 004, Sec. 7.4.1, Fig. 7.2).
type Allocation struct {
	// ProtectionLevels[j] is the number of units held back for classes
	// 1..j+1 from class j+2 and below: n-1 values, unrounded, never negative
	// and non-decreasing. They may exceed the capacity (then the classes
	// below get nothing).
	ProtectionLevels []float64
	// BookingLimits[j] is b_{j+1}, the most units class j+1 and the classes
	// below it together may hold: b_1 is the capacity (or the overbooking
	// limit), b_1 >= b_2 >= ... >= b_n >= 0.
	BookingLimits []int
}

// Allocate computes the nested booking limits of one slot or rate period
// for capacity units. The booking service calls it for each resource and
// period with the classes' fares and forecast demand; with overbooking it
// calls AllocateOverbooked instead.
//
// Protection levels turn into limits as b_{j+1} = C - ceil(y_j), clamped to
// [0, C]: protection is rounded up. That is the discrete form of
// Littlewood's rule (protect the smallest whole y with P(D > y) <= the fare
// ratio) and what Alg. 10 returns for a continuous F, so EMSR and the
// thesis's method round alike. A level within 1e-9 of a whole number counts
// as that number, so float noise never takes a unit away.
func Allocate(method LimitMethod, capacity int, classes []ClassDemand) (Allocation, error) {
	const op slotfare.Op = "pricing.Allocate"
	if capacity <= 0 {
		return Allocation{}, slotfare.Errorf(op, "capacity", "must be positive, got %d", capacity)
	}
	if err := checkClasses(op, classes); err != nil {
		return Allocation{}, err
	}
	switch method {
	case EMSRa:
		return nested(capacity, emsrA(classes)), nil
	case EMSRb:
		return nested(capacity, emsrB(classes)), nil
	case ThesisEMSR:
		if len(classes) != 3 {
			return Allocation{}, slotfare.Errorf(op, "classes",
				"method thesis (Alg. 11) takes exactly three classes, got %d", len(classes))
		}
		return thesisAllocation(capacity, classes), nil
	case EMSRbMR:
		return AllocateMR(capacity, classes, nil)
	case BidPrice:
		return BidPriceAllocation(capacity, classes), nil
	}
	_, err := ParseLimitMethod(string(method))
	return Allocation{}, err
}

// AllocateOverbooked is capacity allocation with overbooking (seed 004,
// Sec. 7.5.5, Alg. 14): the nested limits are computed on the virtual
// capacity C+ = max(C, ob) (line 2), so b_1 is the overbooking limit and the
// extra units go to the lower classes first. overbookLimit comes from the
// overbook package (Alg. 14, line 1); every policy there returns ob >= C, so
// a smaller one is rejected as a mistake rather than silently raised.
func AllocateOverbooked(method LimitMethod, capacity, overbookLimit int, classes []ClassDemand) (Allocation, error) {
	const op slotfare.Op = "pricing.AllocateOverbooked"
	if capacity <= 0 {
		return Allocation{}, slotfare.Errorf(op, "capacity", "must be positive, got %d", capacity)
	}
	if overbookLimit < capacity {
		return Allocation{}, slotfare.Errorf(op, "overbook_limit",
			"must be at least the capacity %d, got %d", capacity, overbookLimit)
	}
	return Allocate(method, overbookLimit, classes)
}

func checkClasses(op slotfare.Op, classes []ClassDemand) error {
	if len(classes) == 0 {
		return slotfare.Errorf(op, "classes", "at least one fare class is needed")
	}
	for i, c := range classes {
		field := func(name string) string { return "classes[" + strconv.Itoa(i) + "]." + name }
		switch {
		case !finite(c.Fare) || c.Fare <= 0:
			return slotfare.Errorf(op, field("fare"), "must be positive, got %v", c.Fare)
		case i > 0 && c.Fare >= classes[i-1].Fare:
			return slotfare.Errorf(op, field("fare"),
				"must be below the fare before it (fares strictly decreasing, highest class first), got %v after %v", c.Fare, classes[i-1].Fare)
		case !finite(c.Mean) || c.Mean < 0:
			return slotfare.Errorf(op, field("mean"), "must be finite and >= 0, got %v", c.Mean)
		case !finite(c.SD) || c.SD < 0:
			return slotfare.Errorf(op, field("sd"), "must be finite and >= 0, got %v", c.SD)
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// nested turns protection levels into the allocation: b_1 = C and
// b_{j+1} = C - ceil(y_j), clamped to [0, C].
func nested(capacity int, levels []float64) Allocation {
	limits := make([]int, len(levels)+1)
	limits[0] = capacity
	for j, y := range levels {
		limits[j+1] = capacity - protectedUnits(y, capacity)
	}
	return Allocation{ProtectionLevels: levels, BookingLimits: limits}
}

// protectedUnits rounds a protection level up to whole units, at most C.
func protectedUnits(y float64, capacity int) int {
	u := math.Ceil(y - 1e-9)
	if u <= 0 {
		return 0
	}
	if u >= float64(capacity) {
		return capacity
	}
	return int(u)
}
