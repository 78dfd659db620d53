package forecast

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"time"

	"slotfare"
)

// Outcome is what became of a booking, as far as is known at now.
type Outcome int

// The outcomes. A cancellation at or after the start is counted as a no-show
// (seed 004 Sec. 7.5 defines a cancellation as ending the booking before
// t_s).
const (
	Pending   Outcome = iota // neither cancelled nor settled yet
	Cancelled                // cancelled at CancelledAt
	Shown                    // the user's job came at the start
	NoShow                   // the user never came (and never cancelled)
)

func (o Outcome) String() string {
	switch o {
	case Pending:
		return "pending"
	case Cancelled:
		return "cancelled"
	case Shown:
		return "shown"
	case NoShow:
		return "no_show"
	}
	return fmt.Sprintf("outcome(%d)", int(o))
}

// ShowKey names one show-rate series: a rate period of a resource.
type ShowKey struct {
	Resource string
	Period   string
}

// BookingRecord is one booking's history as the show-rate estimator needs it.
type BookingRecord struct {
	Key         ShowKey
	Booked      time.Time // when the booking was made
	Start       time.Time // its service time t_s
	Outcome     Outcome
	CancelledAt time.Time // when Outcome is Cancelled
}

// ShowRateCurve is q(t): the probability that a booking still alive with
// time t left before its start shows up (seed 004 Sec. 7.5). It follows the
// thesis's assumptions: bookings cancel independently of each other and of
// how many there are; the chance of cancelling depends only on the time left
// (Markovian); and a no-show is a cancellation at t_s. So q(t) is the
// product, over the time from t down to the start, of the chances of not
// cancelling, times the chance of not failing to show.
//
// The cancellation part is the product-limit (Kaplan-Meier) estimator on the
// time-before-start axis: at each remaining time u at which some booking
// cancelled, the factor 1 - d(u)/n(u), with d(u) the cancellations at u and
// n(u) the bookings at risk then: made at least u before their start (delayed
// entry: a booking made 3 hours ahead says nothing about the day before) and
// not cancelled earlier; bookings still pending at now are at risk only down
// to the time they had left at now (censored there). The no-show part is
// no-shows over bookings that reached their start with a known outcome.
type ShowRateCurve struct {
	events []showEvent // ascending remaining time
	// prefix[k] is the product of the factors of events[:k].
	prefix []float64
	// NoShowRate is no-shows over settled bookings (0 when there are none).
	NoShowRate float64
	// AtBooking is the mean, over the records, of the probability that a
	// booking shows as of the lead time at which it was booked (QBooked of
	// its lead): the share of a series' bookings expected to show, with
	// cancellations and no-shows both counted and the pending bookings
	// censored where they stand (1 when there are no records).
	AtBooking float64
	// Bookings counts the records used; Cancellations those cancelled
	// before their start; Settled those that reached their start with a
	// known outcome (shown or no-show), of which NoShows did not come.
	Bookings, Cancellations, Settled, NoShows int
}

type showEvent struct {
	left   time.Duration // remaining time before start
	factor float64       // 1 - d/n
}

// Q is q(t) for a booking with t left before its start (t <= 0: at the
// start). A cancellation at exactly t counts as past: q(t) is for a booking
// that is still alive after it. The service passes start - now.
func (c ShowRateCurve) Q(left time.Duration) float64 {
	k := sort.Search(len(c.events), func(i int) bool { return c.events[i].left >= left })
	p := 1.0
	if k > 0 {
		p = c.prefix[k]
	}
	return p * (1 - c.NoShowRate)
}

// QBooked is the probability that a booking made lead before its start
// shows: Q(lead), except that a cancellation at the very instant of booking
// counts against it (the booking was at risk then).
func (c ShowRateCurve) QBooked(lead time.Duration) float64 {
	// sort.Search's answer without its closure: the mean over a series'
	// records calls this once a record at every estimate
	k, hi := 0, len(c.events)
	for k < hi {
		h := int(uint(k+hi) >> 1)
		if c.events[h].left > lead {
			hi = h
		} else {
			k = h + 1
		}
	}
	p := 1.0
	if k > 0 {
		p = c.prefix[k]
	}
	return p * (1 - c.NoShowRate)
}

// Observed reports whether the curve rests on any booking at all; without
// one Q is 1 and the caller should use its default show rate.
func (c ShowRateCurve) Observed() bool { return c.Bookings > 0 }

// EstimateShowRate estimates q(t) from one series' booking history as of now
// (see ShowRateCurve). Records must be consistent with now: made by now;
// cancelled between booking and now; shown or not only once started.
// Errors are slotfare.Invalid naming the record ("records[4].cancelled_at").
func EstimateShowRate(records []BookingRecord, now time.Time) (ShowRateCurve, error) {
	// Sweep the remaining-time axis from the earliest booking towards the
	// start: entries join the risk set, cancellations and censorings leave it.
	var c ShowRateCurve
	// Each record's span goes straight into the marks (a tick estimates
	// every period over thousands of records: no list of spans kept).
	marks := make([]mark, 0, 2*len(records))
	for i, r := range records {
		exit, kind, err := c.count(r, i, now)
		if err != nil {
			return ShowRateCurve{}, err
		}
		marks = append(marks, mark{r.Start.Sub(r.Booked), markEntry}, mark{exit, kind})
	}
	// Descending remaining time; at one instant entries first, then the
	// cancellations (the risk set includes those censored at that instant).
	// Marks equal in both fields are interchangeable, so any sort gives
	// the same sweep; slices.SortFunc on the integers is several times
	// faster than sort.Slice's reflection (a tick estimates every period).
	slices.SortFunc(marks, func(a, b mark) int {
		if a.at != b.at {
			return cmp.Compare(b.at, a.at)
		}
		return int(a.kind) - int(b.kind)
	})
	var sw sweep
	leads := make([]time.Duration, 0, len(records))
	for i := 0; i < len(marks); {
		at := marks[i].at
		var n [3]int
		for ; i < len(marks) && marks[i].at == at; i++ {
			n[marks[i].kind]++
		}
		for range n[markEntry] {
			leads = append(leads, at)
		}
		sw.step(at, n[markEntry], n[markCancel], n[markCensor])
	}
	slices.Reverse(leads)
	c.finish(sw.desc, leads)
	return c, nil
}

// markKind is what a mark on the remaining-time axis does to the risk set.
type markKind int

const (
	markEntry  markKind = iota // a booking joins (made this long before its start)
	markCancel                 // a booking cancels
	markCensor                 // a booking leaves uncounted: pending at now, or settled at its start
)

type mark struct {
	at   time.Duration
	kind markKind
}

// count checks records[i] against now, counts its outcome into c, and
// answers where it leaves the risk set and how.
func (c *ShowRateCurve) count(r BookingRecord, i int, now time.Time) (time.Duration, markKind, error) {
	const op slotfare.Op = "forecast.EstimateShowRate"
	at := func(field string) string { return fmt.Sprintf("records[%d].%s", i, field) }
	if r.Booked.After(r.Start) {
		return 0, 0, slotfare.Errorf(op, at("booked"), "booked %s after its start %s", r.Booked.Format(time.RFC3339), r.Start.Format(time.RFC3339))
	}
	if r.Booked.After(now) {
		return 0, 0, slotfare.Errorf(op, at("booked"), "booked %s, after now %s", r.Booked.Format(time.RFC3339), now.Format(time.RFC3339))
	}
	switch r.Outcome {
	case Pending:
		return max(r.Start.Sub(now), 0), markCensor, nil
	case Cancelled:
		if r.CancelledAt.Before(r.Booked) || r.CancelledAt.After(now) {
			return 0, 0, slotfare.Errorf(op, at("cancelled_at"), "cancelled at %s, outside booking %s to now %s",
				r.CancelledAt.Format(time.RFC3339), r.Booked.Format(time.RFC3339), now.Format(time.RFC3339))
		}
		if r.CancelledAt.Before(r.Start) {
			c.Cancellations++
			return r.Start.Sub(r.CancelledAt), markCancel, nil
		}
		c.Settled++
		c.NoShows++
	case Shown, NoShow:
		if r.Start.After(now) {
			return 0, 0, slotfare.Errorf(op, at("outcome"), "%s before its start %s", r.Outcome, r.Start.Format(time.RFC3339))
		}
		c.Settled++
		if r.Outcome == NoShow {
			c.NoShows++
		}
	default:
		return 0, 0, slotfare.Errorf(op, at("outcome"), "unknown outcome %d", int(r.Outcome))
	}
	return 0, markCensor, nil
}

// sweep walks the remaining-time axis downwards, one instant at a time,
// keeping the risk set and the product-limit factors of the instants with
// cancellations (in descending remaining time).
type sweep struct {
	atRisk int
	desc   []showEvent
}

func (s *sweep) step(at time.Duration, entries, cancels, censored int) {
	s.atRisk += entries
	if cancels > 0 {
		s.desc = append(s.desc, showEvent{left: at, factor: 1 - float64(cancels)/float64(s.atRisk)})
	}
	s.atRisk -= cancels + censored
}

// finish makes c's curve from the sweep's factors and its AtBooking from
// the records' leads (the time each was booked before its start), in
// ascending order: the sum of their QBooked in that order, whichever way
// the curve was swept, and each lead's events found on from the last's
// instead of by a search per record (a tick estimates every period over
// thousands of records).
func (c *ShowRateCurve) finish(desc []showEvent, leads []time.Duration) {
	c.Bookings = len(leads)
	if c.Settled > 0 {
		c.NoShowRate = float64(c.NoShows) / float64(c.Settled)
	}
	slices.Reverse(desc)
	c.events = desc
	c.prefix = make([]float64, len(c.events)+1)
	c.prefix[0] = 1
	for i, e := range c.events {
		c.prefix[i+1] = c.prefix[i] * e.factor
	}
	c.AtBooking = 1
	if c.Bookings > 0 {
		sum, k := 0.0, 0
		for _, lead := range leads {
			for k < len(c.events) && c.events[k].left <= lead {
				k++
			}
			sum += c.prefix[k] * (1 - c.NoShowRate) // QBooked(lead)
		}
		c.AtBooking = sum / float64(c.Bookings)
	}
}

// finishAtBooking is finish without the curve's events and prefix: the
// same products, in the same order, taken as the leads reach them.
func (c *ShowRateCurve) finishAtBooking(desc []showEvent, leads []time.Duration) {
	c.Bookings = len(leads)
	if c.Settled > 0 {
		c.NoShowRate = float64(c.NoShows) / float64(c.Settled)
	}
	slices.Reverse(desc)
	c.AtBooking = 1
	if c.Bookings > 0 {
		sum, k, q := 0.0, 0, 1.0
		for _, lead := range leads {
			for k < len(desc) && desc[k].left <= lead {
				q *= desc[k].factor
				k++
			}
			sum += q * (1 - c.NoShowRate)
		}
		c.AtBooking = sum / float64(c.Bookings)
	}
}

// ShowMarks are the marks of a series' records that do not move with now,
// kept sorted as records come and go (Add, Remove), so that an estimate
// over thousands of records needs no sort (EstimateShowRateMarked): every
// record's entry, and each settled record's exit. A pending record's exit
// is where now censors it, read from the records at the estimate.
type ShowMarks struct {
	entries []time.Duration // ascending
	cancels []time.Duration // ascending: the exits of cancellations before the start
	zeros   int             // the settled records that leave at their start uncounted
	settled int             // the settled records marked
	noShows int             // the settled records counted as no-shows
	// bad counts the settled records EstimateShowRate refuses whatever
	// now: booked after their start, cancelled before booked, of an
	// unknown outcome.
	bad int
	// cancelledAt are the cancellations' instants (unix ns), ascending,
	// and shownStarts the starts of the shown and no-show records: an
	// estimate as of an instant at or after the last of each needs no
	// check of the settled records one by one.
	cancelledAt []int64
	shownStarts []int64
	version     uint64
	// scratch is ShowRateAtBookingMarked's buffer of events.
	scratch []showEvent
}

// Version changes with every Add and Remove: marks of one version are of
// the same records.
func (m *ShowMarks) Version() uint64 { return m.version }

// LatestCancellation is the latest CancelledAt of the cancelled records
// marked; ok is false when none is.
func (m *ShowMarks) LatestCancellation() (t time.Time, ok bool) {
	if len(m.cancelledAt) == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, m.cancelledAt[len(m.cancelledAt)-1]).UTC(), true
}

// Add marks r (pending or settled as it is now).
func (m *ShowMarks) Add(r BookingRecord) {
	m.version++
	m.entries = insertSorted(m.entries, r.Start.Sub(r.Booked))
	if r.Outcome == Cancelled {
		m.cancelledAt = insertSorted(m.cancelledAt, r.CancelledAt.UnixNano())
	}
	if r.Outcome == Shown || r.Outcome == NoShow {
		m.shownStarts = insertSorted(m.shownStarts, r.Start.UnixNano())
	}
	if r.Outcome == Pending {
		return
	}
	switch exit, kind := settledExit(r); kind {
	case markCancel:
		m.cancels = insertSorted(m.cancels, exit)
	default:
		m.zeros++
	}
	m.settled++
	noShow, bad := settledTally(r)
	m.noShows += b2i(noShow)
	m.bad += b2i(bad)
}

// settledTally is whether settled record r counts as a no-show, and
// whether EstimateShowRate refuses it whatever now.
func settledTally(r BookingRecord) (noShow, bad bool) {
	switch r.Outcome {
	case Cancelled:
		noShow = !r.CancelledAt.Before(r.Start)
		bad = r.CancelledAt.Before(r.Booked)
	case NoShow:
		noShow = true
	case Shown:
	default:
		bad = true
	}
	return noShow, bad || r.Booked.After(r.Start)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Remove takes out the marks of r as Add made them; it reports whether
// they were there.
func (m *ShowMarks) Remove(r BookingRecord) bool {
	m.version++
	entry := r.Start.Sub(r.Booked)
	i, found := slices.BinarySearch(m.entries, entry)
	if !found {
		return false
	}
	c, sh := -1, -1
	if r.Outcome == Cancelled {
		var ok bool
		if c, ok = slices.BinarySearch(m.cancelledAt, r.CancelledAt.UnixNano()); !ok {
			return false
		}
	}
	if r.Outcome == Shown || r.Outcome == NoShow {
		var ok bool
		if sh, ok = slices.BinarySearch(m.shownStarts, r.Start.UnixNano()); !ok {
			return false
		}
	}
	exit, kind := settledExit(r)
	switch {
	case r.Outcome == Pending:
	case kind == markCancel:
		j, ok := slices.BinarySearch(m.cancels, exit)
		if !ok {
			return false
		}
		m.cancels = slices.Delete(m.cancels, j, j+1)
	default:
		if m.zeros == 0 {
			return false
		}
		m.zeros--
	}
	if r.Outcome != Pending {
		m.settled--
		noShow, bad := settledTally(r)
		m.noShows -= b2i(noShow)
		m.bad -= b2i(bad)
	}
	m.entries = slices.Delete(m.entries, i, i+1)
	if c >= 0 {
		m.cancelledAt = slices.Delete(m.cancelledAt, c, c+1)
	}
	if sh >= 0 {
		m.shownStarts = slices.Delete(m.shownStarts, sh, sh+1)
	}
	return true
}

// settledExit is where a settled record leaves the risk set.
func settledExit(r BookingRecord) (time.Duration, markKind) {
	if r.Outcome == Cancelled && r.CancelledAt.Before(r.Start) {
		return r.Start.Sub(r.CancelledAt), markCancel
	}
	return 0, markCensor
}

func insertSorted[T cmp.Ordered](s []T, x T) []T {
	i, _ := slices.BinarySearch(s, x)
	return slices.Insert(s, i, x)
}

// EstimateShowRateMarked is EstimateShowRate(settled followed by pending,
// now), the same curve to the bit, where m holds the marks of exactly
// those records (ShowMarks.Add of each), settled having only records of
// an outcome and pending only Pending ones in ascending start: the marks
// come sorted, so the estimate is linear in the records. Errors are
// EstimateShowRate's, and Invalid when m does not match the records.
func EstimateShowRateMarked(settled, pending []BookingRecord, m *ShowMarks, now time.Time) (ShowRateCurve, error) {
	var desc []showEvent
	if len(m.cancels) > 0 { // at most an event a cancellation: no growing
		desc = make([]showEvent, 0, len(m.cancels))
	}
	c, desc, err := m.sweep(settled, pending, now, desc)
	if err != nil {
		return ShowRateCurve{}, err
	}
	c.finish(desc, m.entries)
	return c, nil
}

// ShowRateAtBookingMarked is EstimateShowRateMarked's curve without its
// events: its counts and AtBooking, the same to the bit. It reuses a
// buffer the marks keep, so that an estimate at every tick allocates
// nothing.
func ShowRateAtBookingMarked(settled, pending []BookingRecord, m *ShowMarks, now time.Time) (ShowRateCurve, error) {
	c, desc, err := m.sweep(settled, pending, now, m.scratch[:0])
	if err != nil {
		return ShowRateCurve{}, err
	}
	m.scratch = desc
	c.finishAtBooking(desc, m.entries)
	return c, nil
}

// sweep is EstimateShowRateMarked's counts and the factors of its curve
// in descending order, appended to desc.
func (m *ShowMarks) sweep(settled, pending []BookingRecord, now time.Time, desc []showEvent) (ShowRateCurve, []showEvent, error) {
	const op slotfare.Op = "forecast.EstimateShowRateMarked"
	c, err := m.countSettled(settled, now)
	if err != nil {
		return ShowRateCurve{}, nil, err
	}
	for i, r := range pending {
		if r.Outcome != Pending || i > 0 && r.Start.Before(pending[i-1].Start) {
			return ShowRateCurve{}, nil, slotfare.Errorf(op, fmt.Sprintf("records[%d]", len(settled)+i), "pending records must be pending, by start")
		}
		if _, _, err := c.count(r, len(settled)+i, now); err != nil {
			return ShowRateCurve{}, nil, err
		}
	}
	if len(m.entries) != len(settled)+len(pending) || m.settled != len(settled) {
		return ShowRateCurve{}, nil, slotfare.Errorf(op, "marks", "%d entries and %d settled marked for %d records, %d settled",
			len(m.entries), m.settled, len(settled)+len(pending), len(settled))
	}
	sw := sweep{desc: desc} // at most an event a cancellation
	e, x, p, zeros := len(m.entries)-1, len(m.cancels)-1, len(pending)-1, m.zeros
	// pe is the exit of pending[p], where now censors it: pending come by
	// start, so their exits come down from the last.
	var pe time.Duration
	next := func() {
		if p >= 0 {
			pe = max(pending[p].Start.Sub(now), 0)
		}
	}
	next()
	for e >= 0 || x >= 0 || p >= 0 || zeros > 0 {
		at := time.Duration(0) // every mark is at or above 0
		if e >= 0 {
			at = max(at, m.entries[e])
		}
		if x >= 0 {
			at = max(at, m.cancels[x])
		}
		if p >= 0 {
			at = max(at, pe)
		}
		var entries, cancels, censored int
		for ; e >= 0 && m.entries[e] == at; e-- {
			entries++
		}
		for ; x >= 0 && m.cancels[x] == at; x-- {
			cancels++
		}
		for p >= 0 && pe == at {
			censored++
			p--
			next()
		}
		if at == 0 {
			censored, zeros = censored+zeros, 0
		}
		if entries+cancels+censored == 0 {
			return ShowRateCurve{}, nil, slotfare.Errorf(op, "marks", "a mark below zero")
		}
		sw.step(at, entries, cancels, censored)
	}
	return c, sw.desc, nil
}

// countSettled is the curve's counts of the settled records, checked
// against now. The marks hold them, and what could be wrong with a record
// whatever now (bad) or as of now (an instant in the records after it):
// the records are walked one by one, to name the one refused, only when
// something is.
func (m *ShowMarks) countSettled(settled []BookingRecord, now time.Time) (ShowRateCurve, error) {
	const op slotfare.Op = "forecast.EstimateShowRateMarked"
	at := now.UnixNano()
	if m.bad == 0 && m.settled == len(settled) &&
		(len(m.cancelledAt) == 0 || m.cancelledAt[len(m.cancelledAt)-1] <= at) &&
		(len(m.shownStarts) == 0 || m.shownStarts[len(m.shownStarts)-1] <= at) {
		return ShowRateCurve{Cancellations: len(m.cancels), Settled: m.zeros, NoShows: m.noShows}, nil
	}
	var c ShowRateCurve
	for i, r := range settled {
		if r.Outcome == Pending {
			return ShowRateCurve{}, slotfare.Errorf(op, fmt.Sprintf("records[%d].outcome", i), "pending among the settled")
		}
		if _, _, err := c.count(r, i, now); err != nil {
			return ShowRateCurve{}, err
		}
	}
	return c, nil
}

// ShowRates estimates one curve per (resource, period) series in records:
// what the overbooking policy of each period takes as q (seed 004 Sec. 7.5).
// A record's field path in an error is its index in records.
func ShowRates(records []BookingRecord, now time.Time) (map[ShowKey]ShowRateCurve, error) {
	groups := map[ShowKey][]int{}
	for i, r := range records {
		groups[r.Key] = append(groups[r.Key], i)
	}
	out := make(map[ShowKey]ShowRateCurve, len(groups))
	for key, idx := range groups {
		sub := make([]BookingRecord, len(idx))
		for j, i := range idx {
			sub[j] = records[i]
		}
		curve, err := EstimateShowRate(sub, now)
		if err != nil {
			return nil, renumberRecordError(err, idx)
		}
		out[key] = curve
	}
	return out, nil
}

// renumberRecordError maps "records[j]..." of a group back to the index in
// the caller's list.
func renumberRecordError(err error, idx []int) error {
	field := slotfare.FieldOf(err)
	var j int
	var rest string
	if n, _ := fmt.Sscanf(field, "records[%d]", &j); n == 1 && j >= 0 && j < len(idx) {
		if k := len(fmt.Sprintf("records[%d]", j)); k <= len(field) {
			rest = field[k:]
		}
		return slotfare.E(slotfare.Op("forecast.ShowRates"), slotfare.Invalid, slotfare.Field(fmt.Sprintf("records[%d]%s", idx[j], rest)), slotfare.MessageOf(err))
	}
	return err
}
