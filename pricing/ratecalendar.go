package pricing

import (
	"fmt"
	"math"
	"time"

	"slotfare"
)

// RateCalendar says which rate period is in force at any instant for one
// resource: its rate periods evaluated on the wall clock of the resource's
// IANA time zone (seed 004 Sec. 7.6.1, Table 7.6). It is immutable and safe
// for concurrent use.
//
// An instant belongs to the period whose days contain the instant's local
// weekday and whose window contains its local wall-clock time. On a day with
// a daylight-saving change this means: wall-clock times skipped by a spring
// transition belong to nobody (the day is 23 hours long and the period that
// spans the change is an hour shorter); times repeated by an autumn transition
// are priced twice, once per occurrence, each by its own wall-clock reading
// (the day is 25 hours long). Every instant still has exactly one period.
type RateCalendar struct {
	loc     *time.Location
	periods []RatePeriod
	names   []string
	// day[w] lists the day's maximal runs of one period name, in order,
	// covering minutes [0, 1440) of weekday w without gaps.
	day [7][]rateRun
}

// rateRun is a maximal run [from, to) of minutes of one day priced by one
// rate period name.
type rateRun struct {
	from, to ClockTime
	name     string
}

// PeriodPiece is a part of an interval that lies in one rate period:
// [Start, End) as UTC instants.
type PeriodPiece struct {
	Period string    `json:"period"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
}

// Duration is the piece's elapsed length.
func (p PeriodPiece) Duration() time.Duration { return p.End.Sub(p.Start) }

// NewRateCalendar checks a resource's rate periods and builds its calendar in
// the time zone loc (load it with time.LoadLocation from the resource's
// time_zone). The periods must cover every minute of the week exactly once;
// a gap or an overlap is an error (there is no implicit price for an
// uncovered instant). Errors are slotfare.Invalid naming the JSON path of the
// fault ("[2].to"); a gap, which no single row causes, names "rate_periods".
func NewRateCalendar(loc *time.Location, periods []RatePeriod) (*RateCalendar, error) {
	const op slotfare.Op = "pricing.NewRateCalendar"
	if loc == nil {
		return nil, slotfare.Errorf(op, "time_zone", "no time zone given")
	}
	if len(periods) == 0 {
		return nil, slotfare.Errorf(op, "rate_periods", "at least one rate period is needed")
	}
	// owner[w][m] is 1 + the index of the row that prices minute m of weekday w.
	var owner [7][EndOfDay]int16
	if len(periods) > 10000 {
		return nil, slotfare.Errorf(op, "rate_periods", "%d rate periods is more than the week has room for", len(periods))
	}
	var names []string
	seen := map[string]bool{}
	for i, p := range periods {
		at := func(field string) string { return fmt.Sprintf("[%d].%s", i, field) }
		if err := checkPricingName(p.Name); err != nil {
			return nil, slotfare.Errorf(op, at("name"), "%v", err)
		}
		if p.Days&AllDays == 0 {
			return nil, slotfare.Errorf(op, at("days"), "no days given")
		}
		if p.From < 0 || p.From >= EndOfDay {
			return nil, slotfare.Errorf(op, at("from"), "from %v is outside 00:00-23:59", p.From)
		}
		if p.To < 0 || p.To > EndOfDay {
			return nil, slotfare.Errorf(op, at("to"), "to %v is outside 00:00-24:00", p.To)
		}
		if p.From == p.To {
			return nil, slotfare.Errorf(op, at("to"), "from and to are both %v: write 00:00-24:00 for a whole day", p.From)
		}
		if !seen[p.Name] {
			seen[p.Name] = true
			names = append(names, p.Name)
		}
		for w := time.Sunday; w <= time.Saturday; w++ {
			if !p.Days.Has(w) {
				continue
			}
			claim := func(from, to ClockTime) error {
				for m := from; m < to; m++ {
					if j := owner[w][m]; j != 0 {
						end := m
						for end < to && owner[w][end] == j {
							end++
						}
						return slotfare.Errorf(op, fmt.Sprintf("[%d]", i),
							"overlaps [%d] (%q) on %s from %v to %v", j-1, periods[j-1].Name, w, m, end)
					}
					owner[w][m] = int16(i + 1)
				}
				return nil
			}
			var err error
			if p.wraps() {
				if err = claim(p.From, EndOfDay); err == nil {
					err = claim(0, p.To)
				}
			} else {
				err = claim(p.From, p.To)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	c := &RateCalendar{loc: loc, periods: append([]RatePeriod(nil), periods...), names: names}
	// Report the first gap in week order from Monday.
	for k := 1; k <= 7; k++ {
		w := time.Weekday(k % 7)
		for m := ClockTime(0); m < EndOfDay; m++ {
			if owner[w][m] == 0 {
				end := m
				for end < EndOfDay && owner[w][end] == 0 {
					end++
				}
				return nil, slotfare.Errorf(op, "rate_periods", "no rate period covers %s from %v to %v", w, m, end)
			}
		}
	}
	for w := time.Sunday; w <= time.Saturday; w++ {
		var runs []rateRun
		for m := ClockTime(0); m < EndOfDay; m++ {
			name := periods[owner[w][m]-1].Name
			if n := len(runs); n > 0 && runs[n-1].name == name {
				runs[n-1].to = m + 1
				continue
			}
			runs = append(runs, rateRun{from: m, to: m + 1, name: name})
		}
		c.day[w] = runs
	}
	return c, nil
}

// Location is the time zone the calendar's wall-clock times are read in.
func (c *RateCalendar) Location() *time.Location { return c.loc }

// Periods returns a copy of the rows the calendar was built from.
func (c *RateCalendar) Periods() []RatePeriod { return append([]RatePeriod(nil), c.periods...) }

// PeriodNames lists the distinct period names in order of first appearance:
// the keys every fare class's tau must have.
func (c *RateCalendar) PeriodNames() []string { return append([]string(nil), c.names...) }

// NumPeriods is len(PeriodNames()), and PeriodName(i) its i-th name: the
// names read without a copy (an offer query reads them all).
func (c *RateCalendar) NumPeriods() int { return len(c.names) }

// PeriodName is PeriodNames()[i].
func (c *RateCalendar) PeriodName(i int) string { return c.names[i] }

// locate classifies instant t: its run of the local day, and the instant the
// run ends under the zone offset in force at t (not yet capped by a zone
// transition).
func (c *RateCalendar) locate(t time.Time) (run rateRun, runEnd time.Time, zoneEnd time.Time) {
	local := t.In(c.loc)
	_, offset := local.Zone()
	_, zoneEnd = local.ZoneBounds()
	wall := t.Unix() + int64(offset)
	day := wall / 86400
	if wall%86400 < 0 {
		day--
	}
	sec := wall - day*86400 // seconds since local midnight, 0..86399
	weekday := time.Weekday(((day+4)%7 + 7) % 7)
	minute := ClockTime(sec / 60)
	runs := c.day[weekday]
	lo, hi := 0, len(runs)-1
	for lo < hi { // the last run whose from <= minute
		mid := (lo + hi + 1) / 2
		if runs[mid].from <= minute {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	run = runs[lo]
	left := time.Duration(int64(run.to)*60-sec)*time.Second - time.Duration(t.Nanosecond())
	return run, t.Add(left), zoneEnd
}

// PeriodAt is the name of the rate period in force at instant t.
func (c *RateCalendar) PeriodAt(t time.Time) string {
	run, _, _ := c.locate(t.Round(0))
	return run.name
}

// Split cuts [start, end) into consecutive pieces, each wholly in one rate
// period, as UTC instants. Neighbouring pieces have different periods; the
// pieces' durations sum to end - start exactly (to the nanosecond), daylight
// saving changes included. A reservation's price is the sum over its pieces
// (seed 004 Eq. 7.11-7.12 applied per period). The same cut over a horizon
// gives the period instances (one peak, one night, ...) the booking limits
// are kept per. end must be after start.
func (c *RateCalendar) Split(start, end time.Time) ([]PeriodPiece, error) {
	const op slotfare.Op = "pricing.RateCalendar.Split"
	start, end = start.Round(0).UTC(), end.Round(0).UTC()
	if !end.After(start) {
		return nil, slotfare.Errorf(op, "end", "end %s is not after start %s", end.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
	}
	if end.Sub(start) == time.Duration(math.MaxInt64) {
		return nil, slotfare.Errorf(op, "end", "the interval from %s to %s is longer than the 292 years a duration holds", start.Format(time.RFC3339), end.Format(time.RFC3339))
	}
	var out []PeriodPiece
	for t := start; t.Before(end); {
		run, next, zoneEnd := c.locate(t)
		if !zoneEnd.IsZero() && zoneEnd.Before(next) {
			next = zoneEnd.UTC()
		}
		if next.After(end) {
			next = end
		}
		if n := len(out); n > 0 && out[n-1].Period == run.name {
			out[n-1].End = next
		} else {
			out = append(out, PeriodPiece{Period: run.name, Start: t, End: next})
		}
		t = next.UTC()
	}
	return out, nil
}
