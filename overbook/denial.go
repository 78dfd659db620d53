package overbook

import (
	"cmp"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
)

// DenialStrategy names how the bookings to deny are picked when more nodes
// show up at a service time than the resource has (seed 004, Sec. 7.6.3).
type DenialStrategy string

const (
	// Lottery denies bookings drawn at random (Alg. 15), from a seed so that
	// a draw can be replayed.
	Lottery DenialStrategy = "lottery"
	// DCF, Denied Cost First, denies the bookings with the lowest denied cost
	// first, whatever their class (Alg. 16).
	DCF DenialStrategy = "dcf"
	// LCDCF, Lower Class Denied Cost First, denies the lowest class first and,
	// within a class, the lowest denied cost first (Alg. 17).
	LCDCF DenialStrategy = "lc-dcf"
)

// ParseDenialStrategy reads a strategy by its name: "lottery", "dcf" or
// "lc-dcf".
func ParseDenialStrategy(s string) (DenialStrategy, error) {
	switch d := DenialStrategy(s); d {
	case Lottery, DCF, LCDCF:
		return d, nil
	}
	return "", slotfare.Errorf("overbook.ParseDenialStrategy", "denial",
		"unknown denial strategy %q (want lottery, dcf or lc-dcf)", s)
}

// Show is a booking that turned up at the service time and wants its nodes.
type Show struct {
	ID        string
	ClassRank int // 1 is the highest class
	Nodes     int // > 0; a booking is served whole or denied whole
	// DeniedCost is the compensation owed if this booking is denied, worked
	// out by the caller from the booking's price and its class's tau_ds
	// (Sec. 7.6.3, Eq. 7.11 with tau_ds).
	DeniedCost decimal.Decimal
	// BookedAt orders ties: among equals, the later booking is denied first.
	BookedAt time.Time
}

// DeniedBooking is one booking the strategy denied and what it is owed.
type DeniedBooking struct {
	ID           string
	ClassRank    int
	Nodes        int
	Compensation decimal.Decimal
}

// DenialOptions tune Deny.
type DenialOptions struct {
	// Seed drives the lottery; the same seed and shows give the same draw.
	Seed uint64
	// Reinstate gives back nodes a large last denial freed beyond the need:
	// see Deny. False follows the thesis's pseudo-code to the letter.
	Reinstate bool
}

// Denial is the outcome of resolving an overbooked service time.
type Denial struct {
	Strategy DenialStrategy
	// Excess is overbookedCN of Alg. 15-17: nodes shown beyond the capacity.
	Excess int
	// Denied are the denied bookings in the order they were picked.
	Denied []DeniedBooking
	// DeniedNodes is the nodes the denied bookings held (>= Excess).
	DeniedNodes int
	// IdleNodes is DeniedNodes - Excess: nodes freed beyond the need, which
	// stay empty at the service time.
	IdleNodes int
	// Compensation is the total owed to the denied bookings.
	Compensation decimal.Decimal
}

// Deny picks the bookings to deny when the shows at one service time need
// more than capacity nodes (seed 004, Sec. 7.6.3, Alg. 15-17). capacity is
// what is free for these shows: the resource's nodes less those held by
// reservations already running. Nobody is denied when the shows fit.
//
// Each strategy orders the shows, then denies whole bookings from the head
// of that order (Alg. 16 and 17, line 6; Alg. 15 draws the next one by lot
// instead, line 5) while the denied nodes are still fewer than the excess
// (the loop test denyCN < overbookedCN, Alg. 16/17 line 5, Alg. 15 line 4,
// with denyCN growing by the booking's whole node count, line 9 / line 8).
// Orders and their ties (among equals the later booking is denied first,
// which rewards booking early; the ID makes every order total):
//   - DCF: denied cost ascending; then lower class (larger rank) first; then
//     later BookedAt first; then ID ascending.
//   - LC-DCF: lower class (larger rank) first; then denied cost ascending;
//     then later BookedAt first; then ID ascending.
//   - Lottery: the shows are first put in a canonical order (BookedAt, then
//     ID, ascending) so that the caller's list order does not matter; each
//     draw then picks one remaining booking uniformly with a PCG generator
//     seeded by opt.Seed.
//
// Because bookings are denied whole, the last one may free more nodes than
// were missing (a 16-node booking denied to make room for 2). The thesis's
// loop stops there and the surplus idles; the result reports it as
// IdleNodes. With opt.Reinstate, the bookings denied before the last one are
// then walked back from the most recently denied, and each that fits in the
// surplus is served after all: the excess is still covered, fewer users are
// bumped and less compensation is owed. The last denied booking is never
// reinstated (it is what closed the gap). The default (false) is the
// pseudo-code to the letter.
func Deny(strategy DenialStrategy, capacity int, shows []Show, opt DenialOptions) (Denial, error) {
	const op slotfare.Op = "overbook.Deny"
	if _, err := ParseDenialStrategy(string(strategy)); err != nil {
		return Denial{}, err
	}
	if capacity <= 0 {
		return Denial{}, slotfare.Errorf(op, "capacity", "must be positive, got %d", capacity)
	}
	total, err := checkShows(op, shows)
	if err != nil {
		return Denial{}, err
	}
	out := Denial{Strategy: strategy, Compensation: decimal.Zero}
	if total <= capacity {
		return out, nil
	}
	out.Excess = total - capacity

	order := slices.Clone(shows)
	var picked []Show
	switch strategy {
	case DCF:
		slices.SortFunc(order, byDeniedCost)
		picked = takeHead(order, out.Excess)
	case LCDCF:
		slices.SortFunc(order, byClassThenDeniedCost)
		picked = takeHead(order, out.Excess)
	case Lottery:
		slices.SortFunc(order, byBookingTime)
		picked = draw(order, out.Excess, opt.Seed)
	}
	denied := 0
	for _, s := range picked {
		denied += s.Nodes
	}
	if opt.Reinstate {
		picked, denied = reinstate(picked, denied, out.Excess)
	}
	out.DeniedNodes = denied
	out.IdleNodes = denied - out.Excess
	out.Denied = make([]DeniedBooking, len(picked))
	for i, s := range picked {
		out.Denied[i] = DeniedBooking{ID: s.ID, ClassRank: s.ClassRank, Nodes: s.Nodes, Compensation: s.DeniedCost}
		out.Compensation = out.Compensation.Add(s.DeniedCost)
	}
	return out, nil
}

func checkShows(op slotfare.Op, shows []Show) (total int, err error) {
	seen := make(map[string]bool, len(shows))
	for i, s := range shows {
		field := func(name string) string { return "shows[" + strconv.Itoa(i) + "]." + name }
		switch {
		case s.ID == "":
			return 0, slotfare.Errorf(op, field("id"), "must not be empty")
		case seen[s.ID]:
			return 0, slotfare.Errorf(op, field("id"), "duplicate booking id %q", s.ID)
		case s.ClassRank < 1:
			return 0, slotfare.Errorf(op, field("class_rank"), "must be at least 1, got %d", s.ClassRank)
		case s.Nodes <= 0:
			return 0, slotfare.Errorf(op, field("nodes"), "must be positive, got %d", s.Nodes)
		case s.Nodes > MaxLimit:
			return 0, slotfare.Errorf(op, field("nodes"), "must be at most %d, got %d", MaxLimit, s.Nodes)
		case s.DeniedCost.IsNegative():
			return 0, slotfare.Errorf(op, field("denied_cost"), "must not be negative, got %s", s.DeniedCost)
		}
		seen[s.ID] = true
		total += s.Nodes
		if total > MaxLimit {
			return 0, slotfare.Errorf(op, "shows", "more than %d nodes in total", MaxLimit)
		}
	}
	return total, nil
}

// takeHead denies from the head of an ordered list until need nodes are
// freed (Alg. 16/17, lines 5-9).
func takeHead(order []Show, need int) []Show {
	freed := 0
	for i, s := range order {
		if freed >= need {
			return order[:i]
		}
		freed += s.Nodes
	}
	return order
}

// draw is Alg. 15's loop: draw a booking by lot, deny it, repeat until need
// nodes are freed. The bounded draw is done here from the generator's raw
// 64-bit output (Lemire's multiply-and-reject), so a seed's outcome depends
// only on PCG's specified output, not on a library's sampling method.
func draw(order []Show, need int, seed uint64) []Show {
	src := rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)
	left := slices.Clone(order)
	var picked []Show
	for freed := 0; freed < need && len(left) > 0; {
		i := int(uniform(src, uint64(len(left))))
		s := left[i]
		left = slices.Delete(left, i, i+1)
		picked = append(picked, s)
		freed += s.Nodes
	}
	return picked
}

// uniform returns an unbiased integer in [0, n), n > 0.
func uniform(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		threshold := -n % n
		for lo < threshold {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// reinstate serves again, from the most recently denied backwards, every
// denied booking but the last that fits in the nodes freed beyond need.
func reinstate(picked []Show, denied, need int) ([]Show, int) {
	if len(picked) < 2 {
		return picked, denied
	}
	keep := make([]bool, len(picked))
	keep[len(picked)-1] = true
	for i := len(picked) - 2; i >= 0; i-- {
		if denied-picked[i].Nodes >= need {
			denied -= picked[i].Nodes
		} else {
			keep[i] = true
		}
	}
	var out []Show
	for i, s := range picked {
		if keep[i] {
			out = append(out, s)
		}
	}
	return out, denied
}

func byDeniedCost(a, b Show) int {
	if c := a.DeniedCost.Cmp(b.DeniedCost); c != 0 {
		return c
	}
	return cmp.Or(cmp.Compare(b.ClassRank, a.ClassRank), laterFirst(a, b))
}

func byClassThenDeniedCost(a, b Show) int {
	if c := cmp.Compare(b.ClassRank, a.ClassRank); c != 0 {
		return c
	}
	return cmp.Or(a.DeniedCost.Cmp(b.DeniedCost), laterFirst(a, b))
}

// laterFirst is the shared tail of the tie-break: the later booking first,
// then the smaller ID.
func laterFirst(a, b Show) int {
	return cmp.Or(b.BookedAt.Compare(a.BookedAt), cmp.Compare(a.ID, b.ID))
}

func byBookingTime(a, b Show) int {
	return cmp.Or(a.BookedAt.Compare(b.BookedAt), cmp.Compare(a.ID, b.ID))
}
