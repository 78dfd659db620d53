// Package control is booking control (seed 004 Sec. 7.3-7.5, Fig. 7.1):
// per resource and rate period, how many bookings may be sold in total
// (the overbooking limit of the resource's policy) and how they are nested
// among the fare classes (the booking limits b_1 >= b_2 >= ... >= b_n,
// with b_1 the overbooking limit). The limits are recomputed from the
// forecast as bookings, cancellations and no-shows are observed. A Control
// is built from a resource's configuration and the events a service
// reports; it does no I/O and reads no clock.
package control

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/forecast"
	"slotfare/overbook"
	"slotfare/pricing"
)

// Tuning of booking control that the configuration does not expose.
const (
	// ShowRatePrior is the weight, in bookings whose outcome is known, of
	// the configured show rate against the observed one: q = (n q_obs + k
	// q_0) / (n + k) with n the period's bookings cancelled, shown or not
	// shown. With k = 20 a few outcomes nudge q, a hundred dominate it.
	ShowRatePrior = 20
	// controlKeepInstances is how many ended instances of a period feed the
	// forecast: with smoothing constant 0.2 the older ones weigh < 1e-5.
	controlKeepInstances = 60
	// controlKeepSettled is how many settled or cancelled bookings per
	// period feed the show rate.
	controlKeepSettled = 5000
	// controlForgetAfter is how long after its end a settled booking is
	// remembered as counted (Restate): a booking's stored state changes no
	// more once it ended and the ticker completed it, so one ended before
	// that is left out as counted already, and memory holds the bookings
	// of the last days and the pending ones, not the whole history.
	controlForgetAfter = 48 * time.Hour
	// controlMaxAhead bounds how far from the control's origin an event may
	// lie, so a corrupt time cannot make it index years of instances.
	controlMaxAhead = 5 * 366 * 24 * time.Hour
	// controlChunk is how much of the rate calendar is indexed at a time.
	controlChunk = 14 * 24 * time.Hour
)

// EventKind says what happened to a booking, as booking control needs to know.
type EventKind int

// The events the service reports to a resource's Control.
const (
	// EventBooked: a booking was committed (demand for its class and period
	// instances).
	EventBooked EventKind = iota + 1
	// EventCancelled: a committed booking was cancelled at At.
	EventCancelled
	// EventShow: the booking's job came (checked in; a denied booking showed
	// too).
	EventShow
	// EventNoShow: not checked in by start + grace.
	EventNoShow
	// EventModified: the booking now runs [Start, End) on Nodes nodes.
	EventModified
	// EventRefused: the class was closed over [Start, End): admission refused
	// it, or an offer moved it up to a higher class. The demand of the
	// instances it overlaps is then only a lower bound (censored, Sec. 7.3).
	EventRefused
)

var eventNames = map[EventKind]string{EventBooked: "booked", EventCancelled: "cancelled", EventShow: "show",
	EventNoShow: "no_show", EventModified: "modified", EventRefused: "refused"}

func (k EventKind) String() string {
	if s, ok := eventNames[k]; ok {
		return s
	}
	return fmt.Sprintf("event(%d)", int(k))
}

// Event is one observation for booking control. BookingID identifies
// the booking across events (EventRefused needs none); Class is its fare
// class name; At is when it happened.
type Event struct {
	Kind       EventKind
	BookingID  string
	Class      string
	Nodes      int
	Start, End time.Time
	At         time.Time
}

// PeriodLimits are the limits of one rate period of a resource, the same for
// every instance of the period.
type PeriodLimits struct {
	Period string `json:"period"`
	// Capacity is the physical nodes C.
	Capacity int `json:"capacity"`
	// OverbookingLimit is ob >= C of the resource's policy (= C for none).
	OverbookingLimit int `json:"overbooking_limit"`
	// ShowRate is the q the overbooking limit was computed with.
	ShowRate float64 `json:"show_rate"`
	// ProtectionLevels[j] is what is protected for classes 1..j+1 together
	// from the classes below (n-1 values, nested, unrounded).
	ProtectionLevels []float64 `json:"protection_levels"`
	// BookingLimits[j] is b_{j+1}: the most nodes class j+1 and the classes
	// below it may hold together at any instant; BookingLimits[0] is the
	// overbooking limit.
	BookingLimits []int `json:"-"`
	// Demand is the forecast the nesting came from, one per class by rank;
	// nil when the period has too little history for one.
	Demand []forecast.DemandForecast `json:"-"`
	// Fares are the taus the classes sell at in the period, by rank, when
	// booking control sets them (limits.fares); nil: the configured taus.
	Fares []decimal.Decimal `json:"fares,omitempty"`
	// WeekendFares are the fares of the period's instances on a Saturday
	// or Sunday, where it has any and booking control sets fares.
	WeekendFares []decimal.Decimal `json:"weekend_fares,omitempty"`
	// BidPrice is the period's bid price under the bid-price method, as a
	// tau (a multiple of the base cost per node-second): the fare of the
	// first class whose forecast demand no longer fits the overbooking
	// limit, 0 when every class fits; nil under the other methods or
	// before a forecast. WeekendBidPrice is the same on a Saturday or
	// Sunday instance, where the period has weekend fares.
	BidPrice        *decimal.Decimal `json:"bid_price,omitempty"`
	WeekendBidPrice *decimal.Decimal `json:"weekend_bid_price,omitempty"`
	// Source says where the nesting came from: "forecast" (EMSR on the
	// demand forecast), "prior" (the forecast's levels and the provider's
	// initial ones, weighed by the instances seen, while fewer than
	// MinHistory), "initial" (the provider's protection levels, before any
	// instance ended) or "none" (no protection: every class may use ob).
	Source string `json:"source"`
}

// Limit is b_rank, the booking limit of the class of that rank (1 = highest);
// 0 for a rank out of range.
func (l PeriodLimits) Limit(rank int) int {
	if rank < 1 || rank > len(l.BookingLimits) {
		return 0
	}
	return l.BookingLimits[rank-1]
}

// Control is the booking control of one resource. It is not safe for
// concurrent use: the service holds the resource's lock around every call.
// Its state lives in memory, built only from what is stored: after a restart
// (or a reconfiguration) the service replays its stored bookings into
// Observe, oldest first, and then its stored refusals (RefusalRecord); a
// Control kept up to date restates the bookings changed since (Restate).
type Control struct {
	rc      config.ResourceConfig
	cal     *pricing.RateCalendar
	classes []pricing.FareClass // by rank
	rank    map[string]int      // class name -> index in classes
	periods []string

	// inst indexes the rate calendar: consecutive period instances covering
	// [inst[0].Start, inst[len-1].End).
	inst []pricing.PeriodPiece

	origin    time.Time // earliest time observed; instances starting before it are not history
	hasOrigin bool

	demand   map[int64][]float64 // instance start (unix ns) -> node-seconds per class
	censored map[int64][]bool    // instance start -> class closed during it
	// recorded are the demand records' counts by instance start and class
	// index (SetDemand, AddDemand); weekday the weekly seasonality of the
	// last Recompute.
	recorded map[int64][]booking.DemandCounts
	weekday  map[forecast.DemandKey][7]float64
	// fromHistory is the forecast of the last Recompute's history, reused
	// while the history is the same (forecastOf).
	fromHistory historyForecast
	// lastHistory is the last history made (history), and historyVersion
	// counts the changes to the observations of instances ended at
	// lastNow (what that history holds).
	lastHistory    historyMade
	historyVersion uint64
	// weighed are each period's last weighted prices (weigh).
	weighed map[string]weighed
	// counted are the bookings whose demand is counted, pending or
	// settled, until controlForgetAfter past their end (forgetBefore).
	counted      map[string]*controlBooking
	forgetBefore time.Time
	// pending are the counted bookings of no outcome yet (outcome 0), the
	// ones the show rate censors: a tick reads them all, and walking every
	// counted booking for them cost more than the estimate.
	pending map[string]*controlBooking
	// pendingRecs are the pending bookings' show-rate records by period,
	// in settledOrder: kept as bookings come and settle, since a tick
	// reads them all and building them anew each time cost more than the
	// estimate.
	pendingRecs map[string][]forecast.BookingRecord
	// ends holds, for every counted booking of known outcome, an entry at
	// or before its end (a min-heap by end): prune pops what ended instead
	// of walking every counted booking at every tick.
	ends endHeap
	// marks are the show-rate marks of each period's settled and pending
	// records, kept with them, so that an estimate sorts nothing.
	marks map[string]*forecast.ShowMarks
	// showCache is each period's last show rate: a recompute comes at
	// every tick where anything settled, most periods' records unchanged.
	showCache map[string]showCached
	// settled are the bookings of known outcome (shown, not shown or
	// cancelled) by period, in settledOrder whatever the order they were
	// observed in.
	settled map[string][]forecast.BookingRecord

	limits    map[string]PeriodLimits
	priced    []pricing.FareClass // the classes at the limits' fares (PricedClasses)
	bid       *pricing.FareClass  // the bid prices as a class (BidClass); nil: none
	lastNow   time.Time
	nextCheck time.Time // the end of the first instance not ended at lastNow
	dirty     bool
	computed  bool
}

type controlBooking struct {
	id         string
	class      int
	nodes      int
	start, end time.Time
	booked     time.Time // when it was made: the lead time it was booked at
	// outcome is 0 while the booking is pending, then EventCancelled,
	// EventShow or EventNoShow.
	outcome     EventKind
	cancelledAt time.Time
}

// New builds the booking control of a resource from its
// configuration. Until anything is observed, every period has the limits of
// its configured show rate and initial protection levels.
func New(rc config.ResourceConfig) (*Control, error) {
	const op slotfare.Op = "control.New"
	if err := rc.Validate(""); err != nil {
		return nil, slotfare.E(op, err)
	}
	cal, err := rc.RateCalendar()
	if err != nil {
		return nil, slotfare.E(op, err)
	}
	c := &Control{
		rc:       rc,
		cal:      cal,
		classes:  pricing.FareClassesByRank(rc.FareClasses),
		rank:     map[string]int{},
		periods:  cal.PeriodNames(),
		demand:   map[int64][]float64{},
		censored: map[int64][]bool{},
		counted:  map[string]*controlBooking{},
		pending:  map[string]*controlBooking{},
		settled:  map[string][]forecast.BookingRecord{},

		pendingRecs: map[string][]forecast.BookingRecord{},
		marks:       map[string]*forecast.ShowMarks{},
		showCache:   map[string]showCached{},
	}
	for i, fc := range c.classes {
		c.rank[fc.Name] = i
	}
	limits, err := c.computeAll(time.Time{})
	if err != nil {
		return nil, slotfare.E(op, err)
	}
	c.limits = limits
	return c, nil
}

// Calendar is the resource's rate calendar.
func (c *Control) Calendar() *pricing.RateCalendar { return c.cal }

// Resource is the configuration the control was built from.
func (c *Control) Resource() config.ResourceConfig { return c.rc }

// Limits gives the current limits of a rate period (as of the last
// Recompute). An unknown period has no limits: every field zero.
func (c *Control) Limits(period string) PeriodLimits {
	l, ok := c.limits[period]
	if !ok {
		return PeriodLimits{Period: period}
	}
	l.ProtectionLevels = slices.Clone(l.ProtectionLevels)
	l.BookingLimits = slices.Clone(l.BookingLimits)
	return l
}

// LimitsAt gives the limits of the period in force at instant t.
func (c *Control) LimitsAt(t time.Time) PeriodLimits { return c.Limits(c.cal.PeriodAt(t)) }

// Observe records one event. Events may come in any order within a booking's
// life, but a booking's EventBooked must come first; repeated EventBooked for
// the same id are ignored, so a replay is harmless. Errors are Invalid.
func (c *Control) Observe(ev Event) error {
	_, err := c.observe(ev)
	return err
}

// ObserveRefusal is Observe for an EventRefused, reporting whether it
// closed the class in some period instance where it was open: only such a
// refusal changes booking control, and only such a one needs storing.
func (c *Control) ObserveRefusal(ev Event) (bool, error) {
	if ev.Kind != EventRefused {
		return false, slotfare.Errorf("control.Control.ObserveRefusal", "kind", "want a refusal, got %v", ev.Kind)
	}
	return c.observe(ev)
}

// Restate counts booking b as it is stored now in place of what was counted
// of it before, so that a Control told of a resource's changes one booking
// at a time, in any order and any number of times, comes to what a replay
// of every stored booking (History, oldest first) gives: a booking is
// counted once, its demand moves with its terms, and its outcome is taken
// once (a settled booking's terms are the stored ones, wherever it was
// settled from). One that ended before what control remembers
// (forgetBefore) is left out, counted before and forgotten. Errors are
// Observe's.
func (c *Control) Restate(b booking.Booking) error {
	evs := History(b)
	cb, counted := c.counted[b.ID]
	switch {
	case !counted:
		if len(evs) == 0 || b.End.Before(c.forgetBefore) {
			return nil
		}
		for _, ev := range evs {
			if err := c.Observe(ev); err != nil {
				return err
			}
		}
		return nil
	case len(evs) == 0:
		// Counted as committed, stored cancelled without a charge: a
		// replay would not count it. (Stored held is a read older than
		// what was counted: the newer change comes after it.)
		if b.Status == booking.Cancelled && (cb.outcome == 0 || cb.outcome == EventCancelled) {
			c.addDemand(cb, -1)
			if cb.outcome == EventCancelled {
				c.unsettle(*cb)
			}
			if cb.outcome == 0 {
				c.dropPending(cb)
			}
			delete(c.counted, b.ID)
		}
		return nil
	}
	c.noteTime(b.CreatedAt) // a replay observes its booking at its creation
	class, err := c.checkTerms(evs[0])
	if err != nil {
		return err
	}
	c.recount(cb, class, evs[0])
	if cb.outcome == 0 && len(evs) > 1 {
		return c.Observe(evs[1])
	}
	return nil
}

// checkTerms checks an event's class and terms, and answers its class's
// index (-1 for an EventModified, whose class may be one renamed since).
func (c *Control) checkTerms(ev Event) (int, error) {
	const op slotfare.Op = "control.Control.Observe"
	idx, ok := c.rank[ev.Class]
	if !ok {
		if ev.Kind != EventModified {
			return 0, slotfare.Errorf(op, "class", "%q is not a fare class of %s", ev.Class, c.rc.ID)
		}
		idx = -1
	}
	if !ev.End.After(ev.Start) || ev.Start.IsZero() {
		return 0, slotfare.Errorf(op, "end", "the interval [%s, %s) is empty", ev.Start, ev.End)
	}
	if ev.Start.Sub(c.origin).Abs() > controlMaxAhead || ev.End.Sub(c.origin).Abs() > controlMaxAhead {
		return 0, slotfare.Errorf(op, "start", "%s is too far from the other events", ev.Start)
	}
	if ev.Kind != EventRefused && (ev.Nodes < 1 || ev.Nodes > config.MaxNodes) {
		return 0, slotfare.Errorf(op, "nodes", "must be between 1 and %d, got %d", config.MaxNodes, ev.Nodes)
	}
	if ev.Kind != EventRefused && ev.BookingID == "" {
		return 0, slotfare.Errorf(op, "booking_id", "is required")
	}
	return idx, nil
}

// recount moves counted booking cb to class index class and ev's terms
// (checked): its demand and, settled, its place among the settled.
func (c *Control) recount(cb *controlBooking, class int, ev Event) {
	if class == cb.class && cb.nodes == ev.Nodes && cb.start.Equal(ev.Start) && cb.end.Equal(ev.End) {
		return
	}
	old := *cb
	c.addDemand(cb, -1)
	if cb.outcome == 0 {
		c.dropPending(cb)
	}
	cb.class, cb.nodes, cb.start, cb.end = class, ev.Nodes, ev.Start, ev.End
	c.addDemand(cb, 1)
	if cb.outcome == 0 {
		c.addPending(cb)
	} else {
		c.resettle(old, *cb)
		heap.Push(&c.ends, ended{cb.end, cb}) // its end may have moved earlier
	}
}

// resettle moves a settled booking's record from its old start to its new.
func (c *Control) resettle(old, now controlBooking) {
	c.unsettle(old)
	c.settle(c.settledRecord(now))
}

// unsettle takes a settled booking's record out (one of those equal to it:
// equal records are interchangeable).
func (c *Control) unsettle(b controlBooking) {
	from := c.cal.PeriodAt(b.start)
	s := c.settled[from]
	if i, found := slices.BinarySearchFunc(s, c.settledRecord(b), settledOrder); found {
		c.markOf(from).Remove(s[i])
		c.settled[from] = slices.Delete(s, i, i+1)
	}
	c.dirty = true
}

// settledRecord is the forecast's record of booking b, pending or not.
func (c *Control) settledRecord(b controlBooking) forecast.BookingRecord {
	r := forecast.BookingRecord{
		Key:    forecast.ShowKey{Resource: c.rc.ID, Period: c.cal.PeriodAt(b.start)},
		Booked: minTime(b.booked, b.start), // a booking made after its start was made at it
		Start:  b.start,
	}
	switch b.outcome {
	case EventShow:
		r.Outcome = forecast.Shown
	case EventNoShow:
		r.Outcome = forecast.NoShow
	case EventCancelled:
		r.Outcome, r.CancelledAt = forecast.Cancelled, maxTime(b.cancelledAt, r.Booked)
	}
	return r
}

// settledOrder orders records by start, then outcome, booking time and
// cancellation time.
func settledOrder(a, b forecast.BookingRecord) int {
	if c := a.Start.Compare(b.Start); c != 0 {
		return c
	}
	if a.Outcome != b.Outcome {
		return int(a.Outcome) - int(b.Outcome)
	}
	if c := a.Booked.Compare(b.Booked); c != 0 {
		return c
	}
	return a.CancelledAt.Compare(b.CancelledAt)
}

// settle adds rec to its period's settled bookings, kept in order of
// start then outcome, the controlKeepSettled latest: the same bookings
// whatever the order they settled or were replayed in.
func (c *Control) settle(rec forecast.BookingRecord) {
	p := rec.Key.Period
	s := c.settled[p]
	i, _ := slices.BinarySearchFunc(s, rec, settledOrder)
	s = slices.Insert(s, i, rec)
	m := c.markOf(p)
	m.Add(rec)
	if over := len(s) - controlKeepSettled; over > 0 {
		for _, old := range s[:over] {
			m.Remove(old)
		}
		s = slices.Delete(s, 0, over)
	}
	c.settled[p] = s
	c.dirty = true
}

// markOf is a period's show-rate marks, made if absent.
func (c *Control) markOf(period string) *forecast.ShowMarks {
	m := c.marks[period]
	if m == nil {
		m = &forecast.ShowMarks{}
		c.marks[period] = m
	}
	return m
}

// observe records one event and reports, for a refusal, whether it closed
// anything new.
func (c *Control) observe(ev Event) (closed bool, err error) {
	const op slotfare.Op = "control.Control.Observe"
	if ev.At.IsZero() {
		return false, slotfare.Errorf(op, "at", "the event has no time")
	}
	c.noteTime(ev.At)
	switch ev.Kind {
	case EventBooked, EventRefused, EventModified:
		idx, err := c.checkTerms(ev)
		if err != nil {
			return false, err
		}
		switch ev.Kind {
		case EventBooked:
			if _, seen := c.counted[ev.BookingID]; seen {
				return false, nil
			}
			b := &controlBooking{id: ev.BookingID, class: idx, nodes: ev.Nodes, start: ev.Start, end: ev.End, booked: ev.At}
			c.counted[ev.BookingID] = b
			c.addPending(b)
			c.addDemand(b, 1)
		case EventModified:
			b, ok := c.counted[ev.BookingID]
			if !ok {
				return false, slotfare.Errorf(op, "booking_id", "%q was never booked", ev.BookingID)
			}
			c.recount(b, b.class, ev)
		case EventRefused:
			closed = c.refuse(idx, ev.Start, ev.End)
		}
	case EventCancelled:
		// Demand is what arrived: a cancelled booking was demand all the
		// same. Its nodes are free again, but one cancelled too late to be
		// sold again is lost like a no-show, so it counts against the show
		// rate as of the lead time it was booked at (seed 004 Sec. 7.5).
		// An unknown id (booked before this control existed) or one
		// settled already is nothing to do.
		if b, ok := c.counted[ev.BookingID]; ok && b.outcome == 0 {
			c.dropPending(b)
			b.outcome, b.cancelledAt = EventCancelled, ev.At
			heap.Push(&c.ends, ended{b.end, b})
			c.settle(c.settledRecord(*b))
		}
	case EventShow, EventNoShow:
		b, ok := c.counted[ev.BookingID]
		if !ok || b.outcome != 0 {
			return false, nil // settled already, or booked before this control existed
		}
		c.dropPending(b)
		b.outcome = ev.Kind
		heap.Push(&c.ends, ended{b.end, b})
		c.settle(c.settledRecord(*b))
	default:
		return false, slotfare.Errorf(op, "kind", "unknown event %v", ev.Kind)
	}
	return closed, nil
}

// Recompute brings the limits up to date at now: the demand forecast of
// every period (from the instances that have ended) and the show rates (from
// the settled bookings), then the overbooking limit and the nested booking
// limits. It does nothing when nothing new was observed and no instance has
// ended since the last call, so the service may call it on every tick. It
// reports whether any period's limits changed.
func (c *Control) Recompute(now time.Time) (bool, error) {
	if now.IsZero() {
		return false, slotfare.Errorf("control.Control.Recompute", "now", "no time given")
	}
	c.noteTime(now)
	if now.Before(c.lastNow) {
		now = c.lastNow // the clock never runs back for the forecast
	}
	if c.computed && !c.dirty && now.Before(c.nextCheck) {
		return false, nil
	}
	limits, err := c.computeAll(now)
	if err != nil {
		return false, err
	}
	changed := false
	for _, p := range c.periods {
		if !equalLimits(limits[p], c.limits[p]) {
			changed = true
		}
	}
	c.limits = limits
	c.priced = c.priceClasses()
	c.bid = c.bidClass()
	c.lastNow = now
	c.computed = true
	c.dirty = false
	c.nextCheck = c.firstEndAfter(now)
	c.prune(now)
	return changed, nil
}

func equalLimits(a, b PeriodLimits) bool {
	return a.Period == b.Period && a.Capacity == b.Capacity && a.OverbookingLimit == b.OverbookingLimit &&
		a.ShowRate == b.ShowRate && a.Source == b.Source && slices.Equal(a.ProtectionLevels, b.ProtectionLevels) &&
		slices.Equal(a.BookingLimits, b.BookingLimits) &&
		slices.EqualFunc(a.Fares, b.Fares, decimal.Decimal.Equal) &&
		slices.EqualFunc(a.WeekendFares, b.WeekendFares, decimal.Decimal.Equal) &&
		equalBid(a.BidPrice, b.BidPrice) && equalBid(a.WeekendBidPrice, b.WeekendBidPrice)
}

func equalBid(a, b *decimal.Decimal) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Equal(*b))
}

func (c *Control) noteTime(t time.Time) {
	if !c.hasOrigin || t.Before(c.origin) {
		c.origin, c.hasOrigin = t, true
		if c.computed {
			c.dirty = true
		}
	}
}

// index makes sure inst covers [from, to). Instances are the rate
// calendar's pieces (RateCalendar.Split) cut at the resource's local
// midnights, so that a period that runs for days (a weekend, or a calendar
// with one period) still comes in daily instances; a piece that crosses
// midnight (the weekend super saver, 18:00-06:00) is two instances. The
// forecast's unit, mean nodes held over an instance, does not depend on
// where instances are cut.
func (c *Control) index(from, to time.Time) {
	if len(c.inst) == 0 {
		c.inst = c.split(c.midnight(from.Add(-controlChunk)), c.midnight(to.Add(controlChunk)))
		return
	}
	if lo := c.inst[0].Start; from.Before(lo) {
		c.inst = append(c.split(c.midnight(from.Add(-controlChunk)), lo), c.inst...)
	}
	if hi := c.inst[len(c.inst)-1].End; !to.Before(hi) {
		c.inst = append(c.inst, c.split(hi, c.midnight(to.Add(controlChunk)))...)
	}
}

// midnight is the local midnight at or before t.
func (c *Control) midnight(t time.Time) time.Time {
	loc := c.cal.Location()
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, loc)
}

// split cuts [from, to) (both local midnights) into instances.
func (c *Control) split(from, to time.Time) []pricing.PeriodPiece {
	if !to.After(from) {
		return nil
	}
	pieces, err := c.cal.Split(from, to)
	if err != nil {
		return nil // from < to: Split cannot fail
	}
	loc := c.cal.Location()
	var out []pricing.PeriodPiece
	for _, p := range pieces {
		for p.End.After(p.Start) {
			l := p.Start.In(loc)
			next := time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, loc).UTC()
			if !next.Before(p.End) {
				out = append(out, p)
				break
			}
			out = append(out, pricing.PeriodPiece{Period: p.Period, Start: p.Start, End: next})
			p.Start = next
		}
	}
	return out
}

// overlapping returns the indexes [i, j) of the instances overlapping
// [from, to).
func (c *Control) overlapping(from, to time.Time) (int, int) {
	c.index(from, to)
	i := sort.Search(len(c.inst), func(k int) bool { return c.inst[k].End.After(from) })
	j := sort.Search(len(c.inst), func(k int) bool { return !c.inst[k].Start.Before(to) })
	return i, j
}

func (c *Control) addDemand(b *controlBooking, sign float64) {
	i, j := c.overlapping(b.start, b.end)
	for k := i; k < j; k++ {
		in := c.inst[k]
		lo, hi := maxTime(in.Start, b.start), minTime(in.End, b.end)
		if !hi.After(lo) {
			continue
		}
		key := in.Start.UnixNano()
		d := c.demand[key]
		if d == nil {
			d = make([]float64, len(c.classes))
			c.demand[key] = d
		}
		d[b.class] += sign * float64(b.nodes) * hi.Sub(lo).Seconds()
		if d[b.class] < 0 {
			d[b.class] = 0
		}
		if !in.End.After(c.lastNow) {
			c.dirty = true // history changed
			c.historyVersion++
		}
	}
}

// refuse closes class in the instances overlapping [from, to) and reports
// whether it was open in any of them.
func (c *Control) refuse(class int, from, to time.Time) bool {
	closed := false
	i, j := c.overlapping(from, to)
	for k := i; k < j; k++ {
		key := c.inst[k].Start.UnixNano()
		cl := c.censored[key]
		if cl == nil {
			cl = make([]bool, len(c.classes))
			c.censored[key] = cl
		}
		closed = closed || !cl[class]
		cl[class] = true
		if !c.inst[k].End.After(c.lastNow) {
			c.dirty = true
			c.historyVersion++
		}
	}
	return closed
}

func (c *Control) firstEndAfter(now time.Time) time.Time {
	c.index(now, now.Add(time.Second))
	k := sort.Search(len(c.inst), func(k int) bool { return c.inst[k].End.After(now) })
	if k < len(c.inst) {
		return c.inst[k].End
	}
	return now.Add(time.Hour)
}

// prune forgets demand of instances too old to matter, and the bookings
// settled more than controlForgetAfter ago.
func (c *Control) prune(now time.Time) {
	if forget := now.Add(-controlForgetAfter); forget.After(c.forgetBefore) {
		c.forgetBefore = forget
		for len(c.ends) > 0 && c.ends[0].end.Before(forget) {
			b := heap.Pop(&c.ends).(ended).b
			switch {
			case c.counted[b.id] != b || b.outcome == 0:
				// forgotten already, or counted anew since
			case b.end.Before(forget):
				delete(c.counted, b.id)
			default:
				heap.Push(&c.ends, ended{b.end, b}) // its end moved later since
			}
		}
	}
	if len(c.inst) == 0 {
		return
	}
	ended := 0
	for k := range c.inst {
		if c.inst[k].End.After(now) {
			break
		}
		ended++
	}
	// keep controlKeepInstances ended instances per period: with a handful
	// of periods, a few times that many instances overall
	keep := controlKeepInstances * max(1, len(c.periods)) * 2
	if ended <= keep {
		return
	}
	cut := c.inst[ended-keep].Start
	for key := range c.demand {
		if key < cut.UnixNano() {
			delete(c.demand, key)
		}
	}
	for key := range c.censored {
		if key < cut.UnixNano() {
			delete(c.censored, key)
		}
	}
	for key := range c.recorded {
		if key < cut.UnixNano() {
			delete(c.recorded, key)
		}
	}
	c.inst = slices.Delete(c.inst, 0, ended-keep)
	if c.origin.Before(cut) {
		c.origin = cut
	}
}

// history is the demand observations of the ended instances since the
// origin, per period: demand is the mean nodes a class held over the
// instance (its node-seconds over the instance's length), the per-instant
// unit the booking limits are in.
func (c *Control) history(now time.Time) ([]forecast.DemandObservation, map[string]int) {
	if now.IsZero() || !c.hasOrigin || !now.After(c.origin) {
		return nil, map[string]int{}
	}
	c.index(c.origin, now)
	made := historyMade{made: true, origin: c.origin, version: c.historyVersion}
	if k := sort.Search(len(c.inst), func(k int) bool { return c.inst[k].End.After(now) }); k > 0 {
		made.lastEnded = c.inst[k-1].End
	}
	if last := c.lastHistory; last.made && last.version == made.version && last.origin.Equal(made.origin) &&
		last.lastEnded.Equal(made.lastEnded) {
		return last.obs, last.counts // the same ended instances, observed alike
	}
	made.obs, made.counts = c.makeHistory(now)
	c.lastHistory = made
	return made.obs, made.counts
}

// historyMade is a history (obs, counts) and what it is of: the instances
// ended at lastEnded from origin, their observations at version.
type historyMade struct {
	made              bool
	origin, lastEnded time.Time
	version           uint64
	obs               []forecast.DemandObservation
	counts            map[string]int
}

// makeHistory is history made anew.
func (c *Control) makeHistory(now time.Time) ([]forecast.DemandObservation, map[string]int) {
	obs := make([]forecast.DemandObservation, 0, len(c.fromHistory.obs)+len(c.classes))
	perPeriod := map[string]int{}
	for k := len(c.inst) - 1; k >= 0; k-- {
		in := c.inst[k]
		if in.End.After(now) {
			continue
		}
		if in.Start.Before(c.origin) {
			break
		}
		if perPeriod[in.Period] >= controlKeepInstances {
			continue
		}
		perPeriod[in.Period]++
		secs := in.End.Sub(in.Start).Seconds()
		d := c.demand[in.Start.UnixNano()]
		cl := c.censored[in.Start.UnixNano()]
		for i, fc := range c.classes {
			o := forecast.DemandObservation{
				Key:      forecast.DemandKey{Resource: c.rc.ID, Class: fc.Name, Period: in.Period},
				Instance: in.Start,
			}
			if d != nil && secs > 0 {
				o.Demand = d[i] / secs
			}
			if cl != nil {
				o.Closed = cl[i]
			}
			if refused := c.refusedAt(in.Start.UnixNano(), i); refused > 0 && secs > 0 {
				// Refused because closed: the class was closed there.
				o.Refused, o.Closed = refused/secs, true
			}
			obs = append(obs, o)
		}
	}
	return obs, perPeriod
}

func (c *Control) computeAll(now time.Time) (map[string]PeriodLimits, error) {
	obs, counts := c.history(now)
	fc, err := c.forecastOf(obs, now)
	if err != nil {
		return nil, err
	}
	out := make(map[string]PeriodLimits, len(c.periods))
	pending := c.pendingRecords()
	responses, err := c.fareResponses()
	if err != nil {
		return nil, err
	}
	for _, p := range c.periods {
		var demand []forecast.DemandForecast
		if counts[p] >= 1 && fc != nil {
			demand = make([]forecast.DemandForecast, len(c.classes))
			for i, cl := range c.classes {
				demand[i] = fc[forecast.DemandKey{Resource: c.rc.ID, Class: cl.Name, Period: p}]
			}
		}
		l, err := c.computePeriod(p, now, demand, counts[p], pending, responses)
		if err != nil {
			return nil, err
		}
		out[p] = l
	}
	return out, nil
}

// weigh is the demand-weighted price and denied-show cost of a period's
// classes (overbook.WeightedPrice). The prices are the configuration's,
// the same for every recompute of c: the last weights of the period are
// reused while its demand means are the same.
func (c *Control) weigh(period string, prices, denied []decimal.Decimal, means []float64) (price, deniedCost decimal.Decimal, err error) {
	if w, ok := c.weighed[period]; ok && slices.Equal(w.means, means) {
		return w.price, w.denied, nil
	}
	if price, err = overbook.WeightedPrice(prices, means); err != nil {
		return price, deniedCost, err
	}
	if deniedCost, err = overbook.WeightedPrice(denied, means); err != nil {
		return price, deniedCost, err
	}
	if c.weighed == nil {
		c.weighed = map[string]weighed{}
	}
	c.weighed[period] = weighed{means: means, price: price, denied: deniedCost}
	return price, deniedCost, nil
}

// weighed is what weigh made of a period's demand means.
type weighed struct {
	means         []float64
	price, denied decimal.Decimal
}

// forecastOf is the demand forecast of history obs, and sets the weekly
// seasonality from it. Both depend on the ended instances alone, which a
// recompute at every tick where anything settled mostly finds unchanged:
// the last history's are reused when obs is the same to the bit.
func (c *Control) forecastOf(obs []forecast.DemandObservation, now time.Time) (map[forecast.DemandKey]forecast.DemandForecast, error) {
	last := c.fromHistory.obs
	reused := len(obs) == len(last) && (len(obs) == 0 || &obs[0] == &last[0]) // history's own reuse
	if c.fromHistory.made && (reused || slices.EqualFunc(obs, last, sameObservation)) {
		c.weekday = c.fromHistory.weekday
		return c.fromHistory.forecast, nil
	}
	var fc map[forecast.DemandKey]forecast.DemandForecast
	if len(obs) > 0 {
		var err error
		fc, err = forecast.ForecastDemand(obs, now, forecast.DemandConfig{})
		if err != nil {
			return nil, slotfare.E(slotfare.Op("control.Control"), slotfare.Other, err)
		}
	}
	c.weekday = forecast.WeekdayIndex(obs, c.cal.Location(), now)
	c.fromHistory = historyForecast{made: true, obs: obs, forecast: fc, weekday: c.weekday}
	return fc, nil
}

// historyForecast is what forecastOf made of a history.
type historyForecast struct {
	made     bool
	obs      []forecast.DemandObservation
	forecast map[forecast.DemandKey]forecast.DemandForecast
	weekday  map[forecast.DemandKey][7]float64
}

// sameObservation compares two observations to the bit: the forecast of
// equal histories is the same.
func sameObservation(a, b forecast.DemandObservation) bool {
	return a.Key == b.Key && a.Instance.Equal(b.Instance) && a.Closed == b.Closed &&
		math.Float64bits(a.Demand) == math.Float64bits(b.Demand) && math.Float64bits(a.Refused) == math.Float64bits(b.Refused)
}

// showRate is q for a period: the configured rate, moved towards the
// observed chance that a booking shows as of the lead time it was booked at
// (forecast's AtBooking: cancellations and no-shows both count, the
// bookings still pending are censored where they stand) as outcomes
// accumulate. The limits are per period, not per lead time, so a booking's
// chance is taken when it is sold: that is when the overbooking limit
// admits it (seed 004 Sec. 7.5, q(t) at the booking's t).
func (c *Control) showRate(period string, now time.Time, pending map[string][]forecast.BookingRecord) (float64, error) {
	q0 := c.rc.Limits.ShowRate(period)
	settled := c.settled[period]
	if len(settled) == 0 || now.IsZero() {
		return math.Max(q0, config.MinShowRate), nil
	}
	m, pend, at := c.marks[period], pending[period], c.showAt(period, now)
	if k := c.showCache[period]; k.version == m.Version() && k.at.Equal(at) {
		return k.q, nil // the same records as of the same instant
	}
	// The marks kept with the records: the same curve as
	// EstimateShowRate's on them, without sorting thousands at every tick.
	curve, err := forecast.ShowRateAtBookingMarked(settled, pend, m, at)
	if err != nil {
		return 0, slotfare.E(slotfare.Op("control.Control"), slotfare.Other, err)
	}
	n := float64(curve.Settled + curve.Cancellations)
	q := (n*curve.AtBooking + ShowRatePrior*q0) / (n + ShowRatePrior)
	q = math.Min(1, math.Max(q, config.MinShowRate))
	c.showCache[period] = showCached{version: m.Version(), at: at, q: q}
	return q, nil
}

// showAt is the instant a period's show rate is estimated as of: the
// latest of now and the instants in its records (an early check-in is a
// show at its start; events may run ahead of now). The lists are by start
// and no record is made after its start, so that is the last start of
// each list or the latest cancellation. The period has settled records.
func (c *Control) showAt(period string, now time.Time) time.Time {
	settled, pend := c.settled[period], c.pendingRecs[period]
	at := maxTime(now, settled[len(settled)-1].Start)
	if len(pend) > 0 {
		at = maxTime(at, pend[len(pend)-1].Start)
	}
	if t, ok := c.marks[period].LatestCancellation(); ok {
		at = maxTime(at, t)
	}
	return at
}

// showCached is a period's last show rate, of its marks' version as of at.
type showCached struct {
	version uint64
	at      time.Time
	q       float64
}

// pendingRecords are the show-rate records of the bookings not cancelled
// nor settled yet, by period, in settledOrder (a deterministic order, so
// that the estimate does not depend on the map's). The lists are control's
// own: callers read them only.
func (c *Control) pendingRecords() map[string][]forecast.BookingRecord { return c.pendingRecs }

// addPending counts b, of no outcome yet, among the pending bookings.
func (c *Control) addPending(b *controlBooking) {
	c.pending[b.id] = b
	r := c.pendingRecord(*b)
	s := c.pendingRecs[r.Key.Period]
	i, _ := slices.BinarySearchFunc(s, r, settledOrder)
	c.pendingRecs[r.Key.Period] = slices.Insert(s, i, r)
	c.markOf(r.Key.Period).Add(r)
}

// dropPending takes b out of the pending bookings, before its outcome or
// terms change (its record is found by them). Equal records are
// interchangeable: any one of them goes.
func (c *Control) dropPending(b *controlBooking) {
	delete(c.pending, b.id)
	r := c.pendingRecord(*b)
	s := c.pendingRecs[r.Key.Period]
	if i, found := slices.BinarySearchFunc(s, r, settledOrder); found {
		c.pendingRecs[r.Key.Period] = slices.Delete(s, i, i+1)
		c.markOf(r.Key.Period).Remove(r)
	}
}

// pendingRecord is b's show-rate record while it has no outcome.
func (c *Control) pendingRecord(b controlBooking) forecast.BookingRecord {
	b.outcome = 0
	return c.settledRecord(b)
}

// computePeriod is Alg. 14 of seed 004 (Sec. 7.5.5) for one period: the
// overbooking limit of the resource's policy (Sec. 7.5.1-7.5.3) with the
// classes' demand-weighted price and denied cost (Eq. 7.4), then the nested
// limits on the virtual capacity max(C, ob): by EMSR on the forecast once
// an instance of the period has ended (Alg. 11 generalised, Sec. 7.4); the
// provider's initial protection levels (Table 7.10) are the prior, weighed
// against the forecast's levels as (MinHistory - seen) to seen until seen
// (instances ended) reaches MinHistory (Source "prior"); before any
// instance, the initial levels (Source "initial"), else none.
func (c *Control) computePeriod(period string, now time.Time, demand []forecast.DemandForecast, seen int,
	pending map[string][]forecast.BookingRecord, responses []pricing.PriceResponse) (PeriodLimits, error) {
	const op slotfare.Op = "control.Control"
	capacity := c.rc.Nodes
	q, err := c.showRate(period, now, pending)
	if err != nil {
		return PeriodLimits{}, err
	}
	// The overbooking limit weighs the configured fares (what a class is
	// worth before its price moves); the fares then fill that limit.
	conf, err := c.configuredFares(period)
	if err != nil {
		return PeriodLimits{}, err
	}
	n := len(c.classes)
	prices := make([]decimal.Decimal, n)
	denied := make([]decimal.Decimal, n)
	means := make([]float64, n)
	positive := false
	for i, cl := range c.classes {
		prices[i] = conf[i].Mul(c.rc.BaseCost)
		denied[i] = prices[i].Mul(cl.DeniedCostFactor)
		if demand != nil && demand[i].Mean > 0 {
			means[i] = demand[i].Mean
			positive = true
		}
	}
	if !positive {
		for i := range means {
			means[i] = 1 // no forecast: every class weighs the same
		}
	}
	price, deniedCost, err := c.weigh(period, prices, denied, means)
	if err != nil {
		return PeriodLimits{}, slotfare.E(op, slotfare.Other, err)
	}
	res, err := overbook.Limit(c.rc.Overbooking.Policy, overbook.Params{
		Capacity: capacity, ShowRate: q, Price: price, DeniedCost: deniedCost,
		ServiceLevel: c.rc.Overbooking.ServiceLevel,
	})
	if err != nil {
		return PeriodLimits{}, slotfare.E(op, slotfare.Other, err)
	}
	ob := max(res.Limit, capacity)
	l := PeriodLimits{Period: period, Capacity: capacity, OverbookingLimit: ob, ShowRate: q}
	fares, err := c.periodFares(period, responses, float64(ob), now, dayWeekday)
	if err != nil {
		return PeriodLimits{}, err
	}
	if c.rc.Limits.Fares != nil {
		l.Fares = fares
		if l.WeekendFares, err = c.periodFares(period, responses, float64(ob), now, dayWeekend); err != nil {
			return PeriodLimits{}, err
		}
	}
	switch levels, ok := c.rc.Limits.ProtectionLevels[period]; {
	case demand != nil:
		cd := make([]pricing.ClassDemand, n)
		for i := range c.classes {
			cd[i] = pricing.ClassDemand{Fare: fares[i].InexactFloat64(), Mean: demand[i].Mean, SD: demand[i].SD}
		}
		c.pricedDemand(period, now, cd, responses)
		if c.rc.Limits.Method == pricing.BidPrice {
			c.bidPrices(&l, cd, fares)
			l.Demand = demand
			return l, nil
		}
		alloc, err := c.allocate(capacity, ob, cd)
		if err != nil {
			return PeriodLimits{}, slotfare.E(op, slotfare.Other, err)
		}
		l.ProtectionLevels, l.BookingLimits, l.Source = alloc.ProtectionLevels, alloc.BookingLimits, "forecast"
		l.Demand = demand
		if ok && seen < c.rc.Limits.MinHistory && len(levels) == len(alloc.ProtectionLevels) {
			// The provider's levels are the prior: the forecast's weight
			// grows with each instance seen, to all of it at MinHistory.
			w := float64(seen) / float64(c.rc.Limits.MinHistory)
			l.ProtectionLevels = make([]float64, len(levels))
			for j, y := range levels {
				l.ProtectionLevels[j] = w*alloc.ProtectionLevels[j] + (1-w)*y
			}
			l.BookingLimits, l.Source = limitsFromLevels(ob, l.ProtectionLevels), "prior"
		}
	case ok:
		l.ProtectionLevels = slices.Clone(levels)
		l.BookingLimits = limitsFromLevels(ob, levels)
		l.Source = "initial"
	default:
		l.ProtectionLevels = make([]float64, n-1)
		l.BookingLimits = limitsFromLevels(ob, l.ProtectionLevels)
		l.Source = "none"
	}
	return l, nil
}

// bidPrices sets l's bid prices from the forecast cd at the period's
// fares and opens every class up to the overbooking limit: under
// bid-price control a request is taken when its fare covers the bid
// prices of what it takes (pricing.Covers), summed over the periods it
// spans, not class by class in each period.
func (c *Control) bidPrices(l *PeriodLimits, cd []pricing.ClassDemand, fares []decimal.Decimal) {
	pi, weekend := decimal.Zero, decimal.Zero
	if m := pricing.MarginalClass(float64(l.OverbookingLimit), cd); m >= 0 {
		pi = fares[m]
		if m < len(l.WeekendFares) {
			weekend = l.WeekendFares[m]
		} else {
			weekend = pi
		}
	}
	l.BidPrice = &pi
	if l.WeekendFares != nil {
		l.WeekendBidPrice = &weekend
	}
	l.ProtectionLevels = make([]float64, len(cd)-1)
	l.BookingLimits = limitsFromLevels(l.OverbookingLimit, l.ProtectionLevels)
	l.Source = "forecast"
}

// BidClass is the bid prices of every period as a fare class whose taus
// they are (pricing.BidClass), for pricing.Covers; ok is false when the
// resource is not under bid-price control or no period has a bid price
// yet. The result is shared: callers must not change it.
func (c *Control) BidClass() (pricing.FareClass, bool) {
	if c.bid == nil {
		return pricing.FareClass{}, false
	}
	return *c.bid, true
}

// bidClass has a tau for every period, 0 where the period has no bid
// price yet (no forecast): a request is priced in every period it spans.
func (c *Control) bidClass() *pricing.FareClass {
	tau, weekend := map[string]decimal.Decimal{}, map[string]decimal.Decimal{}
	found := false
	for _, p := range c.periods {
		l := c.limits[p]
		tau[p] = decimal.Zero
		if l.BidPrice != nil {
			tau[p], found = *l.BidPrice, true
		}
		if l.WeekendBidPrice != nil {
			weekend[p] = *l.WeekendBidPrice
		}
	}
	if !found {
		return nil
	}
	bc := pricing.BidClass(tau, weekend)
	return &bc
}

// allocate runs the resource's method on the virtual capacity ob:
// emsr-b-mr with the classes' sell-up probabilities, the others as
// pricing.AllocateOverbooked does.
func (c *Control) allocate(capacity, ob int, cd []pricing.ClassDemand) (pricing.Allocation, error) {
	if c.rc.Limits.Method == pricing.EMSRbMR {
		return pricing.AllocateOverbookedMR(capacity, ob, cd, c.SellUp())
	}
	return pricing.AllocateOverbooked(c.rc.Limits.Method, capacity, ob, cd)
}

// SellUp is, by class rank, the probability that a request for the class,
// finding it closed, buys a higher class: what emsr-b-mr's fare
// transformation reads (pricing.SellUpDemand). It is estimated from the
// demand records (SellUpEstimates, the provider's limits.sell_up the
// prior of weight SellUpPriorWeight); the configured value alone if the
// estimate fails.
func (c *Control) SellUp() []float64 {
	out := make([]float64, len(c.classes))
	est, err := c.SellUpEstimates(SellUpPriorWeight)
	for i, cl := range c.classes {
		out[i] = c.rc.Limits.SellUp[cl.Name]
		if e, ok := est[cl.Name]; ok && err == nil {
			out[i] = e.Probability
		}
	}
	return out
}

// limitsFromLevels nests the limits under the virtual capacity cplus (Alg.
// 14, lines 2-7): b_1 = C+, b_{j+1} = C+ - ceil(y_j), never below 0; the
// protection is rounded up, as pricing.Allocate does.
func limitsFromLevels(cplus int, levels []float64) []int {
	b := make([]int, len(levels)+1)
	b[0] = cplus
	for j, y := range levels {
		r := math.Round(y)
		if math.Abs(y-r) > 1e-9 {
			r = math.Ceil(y)
		}
		b[j+1] = min(b[j], max(0, cplus-int(r)))
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// MaxReportInstances bounds the period instances one limits report lists.
const MaxReportInstances = 2000

// LimitsReport is what GET /v1/resources/{id}/limits?from=..&to=.. returns:
// the limits of every period instance in [From, To).
type LimitsReport struct {
	ResourceID string               `json:"resource_id"`
	From       time.Time            `json:"from"`
	To         time.Time            `json:"to"`
	Periods    []LimitsReportPeriod `json:"periods"`
}

// LimitsReportPeriod is one period instance (pricing's RateCalendar.Split,
// clipped to the report's window) with its limits and bookings. Booking
// limits and bookings are keyed by fare-class name.
type LimitsReportPeriod struct {
	Start            time.Time      `json:"start"`
	End              time.Time      `json:"end"`
	Period           string         `json:"period"`
	Capacity         int            `json:"capacity"`
	OverbookingLimit int            `json:"overbooking_limit"`
	ShowRate         float64        `json:"show_rate"`
	ProtectionLevels []float64      `json:"protection_levels"`
	BookingLimits    map[string]int `json:"booking_limits"`
	Bookings         map[string]int `json:"bookings"`
	Source           string         `json:"source"`
	// Fares are the taus by class when booking control sets them.
	Fares map[string]string `json:"fares,omitempty"`
	// BidPrice is the instance's bid price under bid-price control, as a
	// tau: a request is taken when its fare covers the bid prices of the
	// node-seconds it takes, summed over the instances it spans.
	BidPrice string `json:"bid_price,omitempty"`
}

// BuildLimitsReport lists the limits of c's resource for every period
// instance in [from, to). booked gives the nodes a class holds in an
// instance (the service's figure: the most held at any instant); nil means
// none are reported. from and to must be set, from before to, and the window
// at most MaxReportInstances instances long; errors are Invalid naming "from"
// or "to".
func BuildLimitsReport(c *Control, from, to time.Time, booked func(class string, from, to time.Time) int) (LimitsReport, error) {
	const op slotfare.Op = "control.BuildLimitsReport"
	switch {
	case from.IsZero():
		return LimitsReport{}, slotfare.Errorf(op, "from", "is required (RFC 3339)")
	case to.IsZero():
		return LimitsReport{}, slotfare.Errorf(op, "to", "is required (RFC 3339)")
	case !to.After(from):
		return LimitsReport{}, slotfare.Errorf(op, "to", "must be after from")
	case to.Sub(from) > 366*24*time.Hour:
		return LimitsReport{}, slotfare.Errorf(op, "to", "the window is longer than a year")
	}
	pieces, err := c.cal.Split(from, to)
	if err != nil {
		return LimitsReport{}, slotfare.E(op, err)
	}
	if len(pieces) > MaxReportInstances {
		return LimitsReport{}, slotfare.Errorf(op, "to", "the window holds %d period instances, more than %d", len(pieces), MaxReportInstances)
	}
	rep := LimitsReport{ResourceID: c.rc.ID, From: from.UTC(), To: to.UTC(), Periods: make([]LimitsReportPeriod, 0, len(pieces))}
	for _, p := range pieces {
		l := c.Limits(p.Period)
		rp := LimitsReportPeriod{
			Start: p.Start.UTC(), End: p.End.UTC(), Period: p.Period,
			Capacity: l.Capacity, OverbookingLimit: l.OverbookingLimit, ShowRate: l.ShowRate,
			ProtectionLevels: l.ProtectionLevels, Source: l.Source,
			BookingLimits: make(map[string]int, len(c.classes)),
			Bookings:      make(map[string]int, len(c.classes)),
		}
		if bid := l.BidPrice; bid != nil {
			if l.WeekendBidPrice != nil && c.isKind(p.Start, dayWeekend) {
				bid = l.WeekendBidPrice
			}
			rp.BidPrice = bid.String()
		}
		for i, cl := range c.classes {
			rp.BookingLimits[cl.Name] = l.Limit(i + 1)
			if fares := l.Fares; i < len(fares) {
				if len(l.WeekendFares) == len(fares) && c.isKind(p.Start, dayWeekend) {
					fares = l.WeekendFares
				}
				if rp.Fares == nil {
					rp.Fares = map[string]string{}
				}
				rp.Fares[cl.Name] = fares[i].String()
			}
			if booked != nil {
				rp.Bookings[cl.Name] = booked(cl.Name, p.Start, p.End)
			} else {
				rp.Bookings[cl.Name] = 0
			}
		}
		rep.Periods = append(rep.Periods, rp)
	}
	return rep, nil
}

// History is the events a booking in its current state has produced:
// booked once committed, then its outcome. A service replays every
// stored booking's history into a new Control (Control keeps nothing of
// its own across restarts).
func History(b booking.Booking) []Event {
	booked := Event{Kind: EventBooked, BookingID: b.ID, Class: b.FareClass, Nodes: b.Nodes, Start: b.Start, End: b.End, At: b.CreatedAt}
	out := func(k EventKind) Event {
		return Event{Kind: k, BookingID: b.ID, Class: b.FareClass, Nodes: b.Nodes, Start: b.Start, End: b.End, At: b.UpdatedAt}
	}
	switch b.Status {
	case booking.Committed:
		return []Event{booked}
	case booking.Active, booking.Completed, booking.Terminated, booking.Denied:
		return []Event{booked, out(EventShow)}
	case booking.NoShow:
		return []Event{booked, out(EventNoShow)}
	case booking.Cancelled:
		// It had been committed when something was billed: penalty plus
		// refund is the charge (a cancelled hold shows zeros).
		if b.Penalty != nil && b.Refund != nil && b.Penalty.Add(*b.Refund).IsPositive() {
			return []Event{booked, out(EventCancelled)}
		}
	}
	return nil
}

// ended is a counted booking and its end when it entered the heap (the
// booking's own end may move since).
type ended struct {
	end time.Time
	b   *controlBooking
}

// endHeap is a min-heap of ended by end (container/heap).
type endHeap []ended

func (h endHeap) Len() int           { return len(h) }
func (h endHeap) Less(i, j int) bool { return h[i].end.Before(h[j].end) }
func (h endHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)        { *h = append(*h, x.(ended)) }
func (h *endHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = ended{}
	*h = old[:len(old)-1]
	return e
}
