package pricing

import (
	"fmt"
	"strings"
	"time"
)

// RatePeriod is one row of a resource's rate calendar: the named pricing
// period (peak, off_peak, super_saver, ...) that applies on Days between the
// wall-clock times From and To of the resource's time zone (seed 004
// Sec. 7.6.1, Table 7.6). Several rows may share a name, as Table 7.6's
// weekday and weekend super-saver rows do; a fare class then has one tau for
// the name.
//
// The window is [From, To) on each day of Days. To may be 24:00, or 00:00
// after a later From, for the end of the day ("18:00"-"00:00" is the
// evening). When From is later than To the window wraps past midnight and
// covers both [From, 24:00) and [00:00, To) of the same calendar day: that is
// how Table 7.6's weekend super saver "06 pm - 06 am" is read, and the only
// reading under which the table covers every minute of the week exactly once.
// From equal to To is rejected (write 00:00-24:00 for a whole day).
//
// The JSON form is the body of PUT /v1/resources/{id}/rate-periods:
// {"name":"peak","days":"weekdays","from":"06:00","to":"18:00"}.
type RatePeriod struct {
	Name string    `json:"name"`
	Days Days      `json:"days"`
	From ClockTime `json:"from"`
	To   ClockTime `json:"to"`
}

// wraps reports whether the period's window runs past midnight.
func (p RatePeriod) wraps() bool { return p.From > p.To }

// Days is the set of weekdays a rate period applies to, one bit per
// time.Weekday. Its text form is "weekdays" (Monday-Friday), "weekends"
// (Saturday and Sunday), "all", a day name ("monday" or "mon"), or a comma
// list of any of these ("mon,wed,fri", "weekdays,saturday").
type Days uint8

// The named day sets.
const (
	Weekdays Days = 1<<time.Monday | 1<<time.Tuesday | 1<<time.Wednesday | 1<<time.Thursday | 1<<time.Friday
	Weekends Days = 1<<time.Saturday | 1<<time.Sunday
	AllDays  Days = Weekdays | Weekends
)

// Has reports whether d contains the weekday w.
func (d Days) Has(w time.Weekday) bool {
	return w >= time.Sunday && w <= time.Saturday && d&(1<<w) != 0
}

var dayShortNames = [7]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// String gives the canonical text form: "weekdays", "weekends", "all", or a
// comma list of three-letter day names from Monday on.
func (d Days) String() string {
	switch d & AllDays {
	case AllDays:
		return "all"
	case Weekdays:
		return "weekdays"
	case Weekends:
		return "weekends"
	case 0:
		return ""
	}
	var parts []string
	for i := 1; i <= 7; i++ {
		w := time.Weekday(i % 7)
		if d.Has(w) {
			parts = append(parts, dayShortNames[w])
		}
	}
	return strings.Join(parts, ",")
}

// MarshalText writes the canonical text form.
func (d Days) MarshalText() ([]byte, error) {
	if d&AllDays == 0 {
		return nil, fmt.Errorf("pricing: empty day set")
	}
	return []byte(d.String()), nil
}

// UnmarshalText reads any accepted text form (see Days).
func (d *Days) UnmarshalText(b []byte) error {
	v, err := ParseDays(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// ParseDays reads the text form of a day set (see Days); names are
// case-insensitive. An empty or unknown name is an error.
func ParseDays(s string) (Days, error) {
	var d Days
	for _, part := range strings.Split(s, ",") {
		name := strings.ToLower(strings.TrimSpace(part))
		switch name {
		case "weekdays":
			d |= Weekdays
			continue
		case "weekends":
			d |= Weekends
			continue
		case "all":
			d |= AllDays
			continue
		}
		found := false
		for w := time.Sunday; w <= time.Saturday; w++ {
			if name == dayShortNames[w] || name == strings.ToLower(w.String()) {
				d |= 1 << w
				found = true
				break
			}
		}
		if !found {
			return 0, fmt.Errorf("%q is not a day set: want weekdays, weekends, all, a day name or a comma list of them", s)
		}
	}
	return d, nil
}

// ClockTime is a wall-clock time of day in whole minutes since midnight,
// from 00:00 (0) to 24:00 (1440); 24:00 is only meaningful as the end of a
// window. Its text form is "HH:MM".
type ClockTime int

// EndOfDay is 24:00, the exclusive end of a day.
const EndOfDay ClockTime = 24 * 60

// Clock builds the ClockTime hh:mm.
func Clock(hh, mm int) ClockTime { return ClockTime(hh*60 + mm) }

// String writes "HH:MM".
func (c ClockTime) String() string { return fmt.Sprintf("%02d:%02d", int(c)/60, int(c)%60) }

// MarshalText writes "HH:MM".
func (c ClockTime) MarshalText() ([]byte, error) {
	if c < 0 || c > EndOfDay {
		return nil, fmt.Errorf("pricing: clock time %d out of range", int(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText reads "HH:MM".
func (c *ClockTime) UnmarshalText(b []byte) error {
	v, err := ParseClockTime(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// ParseClockTime reads "HH:MM" with two digits each, 00:00 to 24:00.
func ParseClockTime(s string) (ClockTime, error) {
	bad := fmt.Errorf("%q is not a time of day: want HH:MM from 00:00 to 24:00", s)
	if len(s) != 5 || s[2] != ':' {
		return 0, bad
	}
	digits := [4]byte{s[0], s[1], s[3], s[4]}
	for _, b := range digits {
		if b < '0' || b > '9' {
			return 0, bad
		}
	}
	hh := int(s[0]-'0')*10 + int(s[1]-'0')
	mm := int(s[3]-'0')*10 + int(s[4]-'0')
	if mm > 59 || hh > 24 || (hh == 24 && mm != 0) {
		return 0, bad
	}
	return Clock(hh, mm), nil
}
