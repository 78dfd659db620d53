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
	k := sort.Search(len(c.events), func(i int) bool { return c.events[i].left > lead })
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
	const op slotfare.Op = "forecast.EstimateShowRate"
	type span struct {
		entry, exit time.Duration // at risk from entry down to exit (remaining time)
		cancelled   bool          // exit is a cancellation
	}
	// Sweep the remaining-time axis from the earliest booking towards the
	// start: entries join the risk set, cancellations and censorings leave it.
	type mark struct {
		at   time.Duration
		kind int // 0 entry, 1 cancellation, 2 censoring (pending, or settled at 0)
	}
	var c ShowRateCurve
	// Each record's span goes straight into the marks (a tick estimates
	// every period over thousands of records: no list of spans kept).
	marks := make([]mark, 0, 2*len(records))
	for i, r := range records {
		at := func(field string) string { return fmt.Sprintf("records[%d].%s", i, field) }
		if r.Booked.After(r.Start) {
			return ShowRateCurve{}, slotfare.Errorf(op, at("booked"), "booked %s after its start %s", r.Booked.Format(time.RFC3339), r.Start.Format(time.RFC3339))
		}
		if r.Booked.After(now) {
			return ShowRateCurve{}, slotfare.Errorf(op, at("booked"), "booked %s, after now %s", r.Booked.Format(time.RFC3339), now.Format(time.RFC3339))
		}
		entry := r.Start.Sub(r.Booked)
		s := span{entry: entry}
		switch r.Outcome {
		case Pending:
			if left := r.Start.Sub(now); left > 0 {
				s.exit = left
			}
		case Cancelled:
			if r.CancelledAt.Before(r.Booked) || r.CancelledAt.After(now) {
				return ShowRateCurve{}, slotfare.Errorf(op, at("cancelled_at"), "cancelled at %s, outside booking %s to now %s",
					r.CancelledAt.Format(time.RFC3339), r.Booked.Format(time.RFC3339), now.Format(time.RFC3339))
			}
			if r.CancelledAt.Before(r.Start) {
				s.exit, s.cancelled = r.Start.Sub(r.CancelledAt), true
				c.Cancellations++
			} else {
				c.Settled++
				c.NoShows++
			}
		case Shown, NoShow:
			if r.Start.After(now) {
				return ShowRateCurve{}, slotfare.Errorf(op, at("outcome"), "%s before its start %s", r.Outcome, r.Start.Format(time.RFC3339))
			}
			c.Settled++
			if r.Outcome == NoShow {
				c.NoShows++
			}
		default:
			return ShowRateCurve{}, slotfare.Errorf(op, at("outcome"), "unknown outcome %d", int(r.Outcome))
		}
		marks = append(marks, mark{s.entry, 0})
		if s.cancelled {
			marks = append(marks, mark{s.exit, 1})
		} else {
			marks = append(marks, mark{s.exit, 2})
		}
	}
	c.Bookings = len(records)
	if c.Settled > 0 {
		c.NoShowRate = float64(c.NoShows) / float64(c.Settled)
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
		return a.kind - b.kind
	})
	atRisk := 0
	var desc []showEvent
	for i := 0; i < len(marks); {
		at := marks[i].at
		entries, cancels, censored := 0, 0, 0
		for ; i < len(marks) && marks[i].at == at; i++ {
			switch marks[i].kind {
			case 0:
				entries++
			case 1:
				cancels++
			default:
				censored++
			}
		}
		atRisk += entries
		if cancels > 0 {
			desc = append(desc, showEvent{left: at, factor: 1 - float64(cancels)/float64(atRisk)})
		}
		atRisk -= cancels + censored
	}
	slices.Reverse(desc)
	c.events = desc
	c.prefix = make([]float64, len(c.events)+1)
	c.prefix[0] = 1
	for i, e := range c.events {
		c.prefix[i+1] = c.prefix[i] * e.factor
	}
	c.AtBooking = 1
	if len(records) > 0 {
		sum := 0.0
		for _, r := range records { // in the records' order: the same sum
			sum += c.QBooked(r.Start.Sub(r.Booked))
		}
		c.AtBooking = sum / float64(len(records))
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
