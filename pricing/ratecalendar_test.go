package pricing

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones below, on any machine

	"slotfare"
)

func rateLoc(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("LoadLocation(%q): %v", name, err)
	}
	return loc
}

func rateDemoCalendar(t testing.TB, zone string) *RateCalendar {
	t.Helper()
	cal, err := NewRateCalendar(rateLoc(t, zone), DemoRatePeriods())
	if err != nil {
		t.Fatalf("NewRateCalendar(%s, Table 7.6): %v", zone, err)
	}
	return cal
}

func rateUTC(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return v
}

// rateReferencePeriod classifies an instant straight from the rows, the way
// a person reads Table 7.6: the local weekday and wall-clock minute, and the
// row whose days and window contain them.
func rateReferencePeriod(rows []RatePeriod, loc *time.Location, t time.Time) []string {
	local := t.In(loc)
	m := ClockTime(local.Hour()*60 + local.Minute())
	var hits []string
	for _, r := range rows {
		if !r.Days.Has(local.Weekday()) {
			continue
		}
		in := r.From <= m && m < r.To
		if r.wraps() {
			in = m >= r.From || m < r.To
		}
		if in {
			hits = append(hits, r.Name)
		}
	}
	return hits
}

func TestTable76PeriodAt(t *testing.T) {
	cal := rateDemoCalendar(t, "Europe/London")
	tests := []struct {
		at   string // UTC; January is GMT, July is BST
		want string
	}{
		{"2025-01-06T00:00:00Z", PeriodSuperSaver}, // Monday
		{"2025-01-06T05:59:59.999999999Z", PeriodSuperSaver},
		{"2025-01-06T06:00:00Z", PeriodPeak},
		{"2025-01-06T17:59:59Z", PeriodPeak},
		{"2025-01-06T18:00:00Z", PeriodOffPeak},
		{"2025-01-06T23:59:59Z", PeriodOffPeak},
		{"2025-01-07T00:00:00Z", PeriodSuperSaver}, // Tuesday
		{"2025-01-10T23:59:00Z", PeriodOffPeak},    // Friday night is a weekday evening
		{"2025-01-11T00:00:00Z", PeriodSuperSaver}, // Saturday early morning
		{"2025-01-11T05:59:00Z", PeriodSuperSaver},
		{"2025-01-11T06:00:00Z", PeriodOffPeak}, // weekends have no peak
		{"2025-01-11T12:00:00Z", PeriodOffPeak},
		{"2025-01-11T18:00:00Z", PeriodSuperSaver},
		{"2025-01-12T23:59:00Z", PeriodSuperSaver}, // Sunday night
		{"2025-01-13T05:00:00Z", PeriodSuperSaver}, // Monday early morning
		{"2025-07-07T04:59:00Z", PeriodSuperSaver}, // Monday 05:59 BST
		{"2025-07-07T05:00:00Z", PeriodPeak},       // Monday 06:00 BST
		{"2025-07-07T17:00:00Z", PeriodOffPeak},    // Monday 18:00 BST
	}
	for _, tt := range tests {
		at := rateUTC(t, tt.at)
		if got := cal.PeriodAt(at); got != tt.want {
			t.Errorf("PeriodAt(%s) = %q, want %q", tt.at, got, tt.want)
		}
		if ref := rateReferencePeriod(DemoRatePeriods(), cal.Location(), at); len(ref) != 1 || ref[0] != tt.want {
			t.Errorf("reference reading of Table 7.6 at %s = %v, want [%s]", tt.at, ref, tt.want)
		}
	}
	if got, want := strings.Join(cal.PeriodNames(), ","), "super_saver,peak,off_peak"; got != want {
		t.Errorf("PeriodNames = %s, want %s", got, want)
	}
	var read []string
	for i := range cal.NumPeriods() {
		read = append(read, cal.PeriodName(i))
	}
	if got, want := strings.Join(read, ","), "super_saver,peak,off_peak"; got != want {
		t.Errorf("PeriodName(0..NumPeriods) = %s, want %s", got, want)
	}
}

func TestNewRateCalendarInvalid(t *testing.T) {
	london := rateLoc(t, "Europe/London")
	demo := DemoRatePeriods()
	with := func(edit func([]RatePeriod) []RatePeriod) []RatePeriod { return edit(DemoRatePeriods()) }
	tests := []struct {
		name    string
		loc     *time.Location
		periods []RatePeriod
		field   string
		msg     string
	}{
		{"no zone", nil, demo, "time_zone", "time zone"},
		{"no rows", london, nil, "rate_periods", "at least one"},
		{"empty name", london, with(func(p []RatePeriod) []RatePeriod { p[0].Name = ""; return p }), "[0].name", "empty"},
		{"name with space", london, with(func(p []RatePeriod) []RatePeriod { p[2].Name = "off peak"; return p }), "[2].name", "letters"},
		{"no days", london, with(func(p []RatePeriod) []RatePeriod { p[1].Days = 0; return p }), "[1].days", "no days"},
		{"from is to", london, with(func(p []RatePeriod) []RatePeriod { p[1].To = p[1].From; return p }), "[1].to", "both"},
		{"from 24:00", london, with(func(p []RatePeriod) []RatePeriod { p[2].From = EndOfDay; return p }), "[2].from", "outside"},
		{"to past 24:00", london, with(func(p []RatePeriod) []RatePeriod { p[2].To = EndOfDay + 1; return p }), "[2].to", "outside"},
		{"overlap", london, append(DemoRatePeriods(), RatePeriod{Name: "early", Days: 1 << time.Wednesday, From: Clock(5, 0), To: Clock(7, 0)}),
			"[5]", `overlaps [0] ("super_saver") on Wednesday from 05:00 to 06:00`},
		{"overlap of a wrap", london, with(func(p []RatePeriod) []RatePeriod { p[3].Days = AllDays; return p }),
			"[3]", "overlaps [2]"},
		{"gap", london, with(func(p []RatePeriod) []RatePeriod { return append(p[:2], p[3:]...) }),
			"rate_periods", "no rate period covers Monday from 18:00 to 24:00"},
		{"gap in the weekend", london, with(func(p []RatePeriod) []RatePeriod { p[4].From = Clock(7, 0); return p }),
			"rate_periods", "Saturday from 06:00 to 07:00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cal, err := NewRateCalendar(tt.loc, tt.periods)
			if err == nil {
				t.Fatalf("NewRateCalendar accepted it: %v", cal.Periods())
			}
			if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
				t.Errorf("err = %v (kind %v, field %q), want Invalid on %q", err, slotfare.KindOf(err), slotfare.FieldOf(err), tt.field)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %q, want it to mention %q", err, tt.msg)
			}
		})
	}
}

func TestRateCalendarMidnightSpellings(t *testing.T) {
	// "18:00"-"00:00" is the same evening as "18:00"-"24:00".
	rows := DemoRatePeriods()
	rows[2].To = 0
	cal, err := NewRateCalendar(time.UTC, rows)
	if err != nil {
		t.Fatalf("18:00-00:00 rejected: %v", err)
	}
	if got := cal.PeriodAt(rateUTC(t, "2025-01-06T23:59:00Z")); got != PeriodOffPeak {
		t.Errorf("Monday 23:59 = %q, want off_peak", got)
	}
	// A single all-week period is a calendar too.
	cal, err = NewRateCalendar(time.UTC, []RatePeriod{{Name: "flat", Days: AllDays, From: 0, To: EndOfDay}})
	if err != nil {
		t.Fatal(err)
	}
	pieces, err := cal.Split(rateUTC(t, "2025-01-01T00:00:00Z"), rateUTC(t, "2025-03-01T00:00:00Z"))
	if err != nil || len(pieces) != 1 || pieces[0].Duration() != 59*24*time.Hour {
		t.Errorf("flat calendar split = %v, %v; want one 59-day piece", pieces, err)
	}
}

type ratePieceWant struct {
	period string
	length time.Duration
}

func rateCheckSplit(t *testing.T, cal *RateCalendar, from, to string, want []ratePieceWant) {
	t.Helper()
	start, end := rateUTC(t, from), rateUTC(t, to)
	pieces, err := cal.Split(start, end)
	if err != nil {
		t.Fatalf("Split(%s, %s): %v", from, to, err)
	}
	var got []ratePieceWant
	for _, p := range pieces {
		got = append(got, ratePieceWant{p.Period, p.Duration()})
	}
	if len(got) != len(want) {
		t.Fatalf("Split(%s, %s) = %v, want %v", from, to, got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Split(%s, %s) piece %d = %v, want %v (all: %v)", from, to, i, got[i], want[i], got)
		}
	}
	if !pieces[0].Start.Equal(start) || !pieces[len(pieces)-1].End.Equal(end) {
		t.Errorf("pieces span %s-%s, want %s-%s", pieces[0].Start, pieces[len(pieces)-1].End, start, end)
	}
}

func TestSplitAcrossPeriods(t *testing.T) {
	cal := rateDemoCalendar(t, "Europe/London")
	// Friday 16:00 to Saturday 08:00 in winter (GMT).
	rateCheckSplit(t, cal, "2025-01-10T16:00:00Z", "2025-01-11T08:00:00Z", []ratePieceWant{
		{PeriodPeak, 2 * time.Hour}, {PeriodOffPeak, 6 * time.Hour},
		{PeriodSuperSaver, 6 * time.Hour}, {PeriodOffPeak, 2 * time.Hour},
	})
	// Sunday evening runs on into Monday's super saver: one piece.
	rateCheckSplit(t, cal, "2025-01-12T17:00:00Z", "2025-01-13T07:00:00Z", []ratePieceWant{
		{PeriodOffPeak, time.Hour}, {PeriodSuperSaver, 12 * time.Hour}, {PeriodPeak, time.Hour},
	})
	// Inside one period, with nanoseconds.
	rateCheckSplit(t, cal, "2025-01-08T09:00:00.5Z", "2025-01-08T09:00:01.25Z", []ratePieceWant{
		{PeriodPeak, 750 * time.Millisecond},
	})
	// A whole winter week: 5 x 12 h of peak, 2 x 12 h + 5 x 6 h of off-peak.
	week, err := cal.Split(rateUTC(t, "2025-01-06T00:00:00Z"), rateUTC(t, "2025-01-13T00:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	total := map[string]time.Duration{}
	for _, p := range week {
		total[p.Period] += p.Duration()
	}
	if total[PeriodPeak] != 60*time.Hour || total[PeriodOffPeak] != 54*time.Hour || total[PeriodSuperSaver] != 54*time.Hour {
		t.Errorf("week totals = %v, want peak 60h, off_peak 54h, super_saver 54h", total)
	}
}

func TestSplitDaylightSaving(t *testing.T) {
	t.Run("London spring, a 23-hour Sunday", func(t *testing.T) {
		cal := rateDemoCalendar(t, "Europe/London") // 2025-03-30 01:00 GMT -> 02:00 BST
		rateCheckSplit(t, cal, "2025-03-30T00:00:00Z", "2025-03-30T23:00:00Z", []ratePieceWant{
			{PeriodSuperSaver, 5 * time.Hour}, {PeriodOffPeak, 12 * time.Hour}, {PeriodSuperSaver, 6 * time.Hour},
		})
	})
	t.Run("London autumn, a 25-hour Sunday", func(t *testing.T) {
		cal := rateDemoCalendar(t, "Europe/London") // 2025-10-26 02:00 BST -> 01:00 GMT
		rateCheckSplit(t, cal, "2025-10-25T23:00:00Z", "2025-10-27T00:00:00Z", []ratePieceWant{
			{PeriodSuperSaver, 7 * time.Hour}, {PeriodOffPeak, 12 * time.Hour}, {PeriodSuperSaver, 6 * time.Hour},
		})
	})
	t.Run("Sydney spring, a 23-hour Sunday", func(t *testing.T) {
		cal := rateDemoCalendar(t, "Australia/Sydney") // 2025-10-05 02:00 AEST -> 03:00 AEDT
		rateCheckSplit(t, cal, "2025-10-04T14:00:00Z", "2025-10-05T13:00:00Z", []ratePieceWant{
			{PeriodSuperSaver, 5 * time.Hour}, {PeriodOffPeak, 12 * time.Hour}, {PeriodSuperSaver, 6 * time.Hour},
		})
	})
	t.Run("Sydney autumn, a 25-hour Sunday", func(t *testing.T) {
		cal := rateDemoCalendar(t, "Australia/Sydney") // 2025-04-06 03:00 AEDT -> 02:00 AEST
		rateCheckSplit(t, cal, "2025-04-05T13:00:00Z", "2025-04-06T14:00:00Z", []ratePieceWant{
			{PeriodSuperSaver, 7 * time.Hour}, {PeriodOffPeak, 12 * time.Hour}, {PeriodSuperSaver, 6 * time.Hour},
		})
	})
	t.Run("Jerusalem, a 23-hour Friday", func(t *testing.T) {
		cal := rateDemoCalendar(t, "Asia/Jerusalem") // 2025-03-28 02:00 IST -> 03:00 IDT, a weekday
		rateCheckSplit(t, cal, "2025-03-27T22:00:00Z", "2025-03-28T21:00:00Z", []ratePieceWant{
			{PeriodSuperSaver, 5 * time.Hour}, {PeriodPeak, 12 * time.Hour}, {PeriodOffPeak, 6 * time.Hour},
		})
	})
	daily := []RatePeriod{
		{Name: "sat", Days: 1 << time.Saturday, From: 0, To: EndOfDay},
		{Name: "sun", Days: 1 << time.Sunday, From: 0, To: EndOfDay},
		{Name: "week", Days: Weekdays, From: 0, To: EndOfDay},
	}
	t.Run("Santiago autumn, Saturday's last hour twice", func(t *testing.T) {
		cal, err := NewRateCalendar(rateLoc(t, "America/Santiago"), daily) // 2025-04-05 24:00 -03 -> 23:00 -04
		if err != nil {
			t.Fatal(err)
		}
		rateCheckSplit(t, cal, "2025-04-05T03:00:00Z", "2025-04-07T04:00:00Z", []ratePieceWant{
			{"sat", 25 * time.Hour}, {"sun", 24 * time.Hour},
		})
	})
	t.Run("Santiago spring, Sunday starts at 01:00", func(t *testing.T) {
		cal, err := NewRateCalendar(rateLoc(t, "America/Santiago"), daily) // 2025-09-07 00:00 -04 -> 01:00 -03
		if err != nil {
			t.Fatal(err)
		}
		rateCheckSplit(t, cal, "2025-09-06T04:00:00Z", "2025-09-08T03:00:00Z", []ratePieceWant{
			{"sat", 24 * time.Hour}, {"sun", 23 * time.Hour},
		})
	})
	boundaryAt0130 := []RatePeriod{
		{Name: "a", Days: AllDays, From: 0, To: Clock(1, 30)},
		{Name: "b", Days: AllDays, From: Clock(1, 30), To: EndOfDay},
	}
	t.Run("a boundary inside the skipped hour", func(t *testing.T) {
		cal, err := NewRateCalendar(rateLoc(t, "Europe/London"), boundaryAt0130)
		if err != nil {
			t.Fatal(err)
		}
		// 00:00-01:00 GMT is a; the clock then reads 02:00 BST, which is b.
		rateCheckSplit(t, cal, "2025-03-30T00:00:00Z", "2025-03-30T03:00:00Z", []ratePieceWant{
			{"a", time.Hour}, {"b", 2 * time.Hour},
		})
	})
	t.Run("a boundary inside the repeated hour", func(t *testing.T) {
		cal, err := NewRateCalendar(rateLoc(t, "Europe/London"), boundaryAt0130)
		if err != nil {
			t.Fatal(err)
		}
		// 00:00-01:30 BST a, 01:30-02:00 BST b, 01:00-01:30 GMT a again, then b.
		rateCheckSplit(t, cal, "2025-10-25T23:00:00Z", "2025-10-26T03:00:00Z", []ratePieceWant{
			{"a", 90 * time.Minute}, {"b", 30 * time.Minute}, {"a", 30 * time.Minute}, {"b", 90 * time.Minute},
		})
	})
}

func TestSplitInvalid(t *testing.T) {
	cal := rateDemoCalendar(t, "UTC")
	at := rateUTC(t, "2025-01-06T10:00:00Z")
	for _, end := range []time.Time{at, at.Add(-time.Nanosecond), at.AddDate(300, 0, 0)} {
		_, err := cal.Split(at, end)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "end" {
			t.Errorf("Split(%s, %s) err = %v, want Invalid on end", at, end, err)
		}
	}
}

// TestSplitProperties checks, on random intervals in zones with and without
// daylight saving and with odd offsets: the pieces tile the interval exactly,
// neighbours differ, every piece's instants belong to its period by a
// reading of the raw rows, and splitting in two then joining changes nothing.
func TestSplitProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 76))
	zones := []string{"UTC", "Europe/London", "Australia/Sydney", "America/Santiago", "Asia/Jerusalem", "Asia/Kolkata", "Pacific/Chatham", "America/St_Johns"}
	lo := rateUTC(t, "2024-01-01T00:00:00Z").UnixNano()
	span := int64(3 * 365 * 24 * time.Hour)
	for _, zone := range zones {
		loc := rateLoc(t, zone)
		cal := rateDemoCalendar(t, zone)
		for trial := 0; trial < 300; trial++ {
			start := time.Unix(0, lo+rng.Int64N(span)).UTC()
			if trial%3 == 0 {
				start = start.Truncate(time.Minute)
			}
			end := start.Add(time.Duration(1 + rng.Int64N(int64(9*24*time.Hour))))
			pieces, err := cal.Split(start, end)
			if err != nil {
				t.Fatalf("%s: Split: %v", zone, err)
			}
			var sum time.Duration
			for i, p := range pieces {
				sum += p.Duration()
				if !p.End.After(p.Start) {
					t.Fatalf("%s: empty piece %v", zone, p)
				}
				if i > 0 && (!pieces[i-1].End.Equal(p.Start) || pieces[i-1].Period == p.Period) {
					t.Fatalf("%s: pieces %v and %v do not join properly", zone, pieces[i-1], p)
				}
				for _, probe := range []time.Time{p.Start, p.End.Add(-time.Nanosecond), p.Start.Add(p.Duration() / 2)} {
					if ref := rateReferencePeriod(DemoRatePeriods(), loc, probe); len(ref) != 1 || ref[0] != p.Period {
						t.Fatalf("%s: %s is in piece %q but the rows say %v", zone, probe, p.Period, ref)
					}
					if got := cal.PeriodAt(probe); got != p.Period {
						t.Fatalf("%s: PeriodAt(%s) = %q inside piece %q", zone, probe, got, p.Period)
					}
				}
			}
			if sum != end.Sub(start) || !pieces[0].Start.Equal(start) || !pieces[len(pieces)-1].End.Equal(end) {
				t.Fatalf("%s: pieces of [%s, %s) sum to %s", zone, start, end, sum)
			}
			mid := start.Add(time.Duration(rng.Int64N(int64(end.Sub(start)))))
			if mid.Equal(start) {
				continue
			}
			left, err1 := cal.Split(start, mid)
			right, err2 := cal.Split(mid, end)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: split halves: %v %v", zone, err1, err2)
			}
			joined := append([]PeriodPiece(nil), left...)
			if last := joined[len(joined)-1]; last.Period == right[0].Period {
				joined[len(joined)-1].End = right[0].End
				right = right[1:]
			}
			joined = append(joined, right...)
			if len(joined) != len(pieces) {
				t.Fatalf("%s: halves joined give %d pieces, whole gives %d", zone, len(joined), len(pieces))
			}
			for i := range joined {
				if joined[i].Period != pieces[i].Period || !joined[i].Start.Equal(pieces[i].Start) || !joined[i].End.Equal(pieces[i].End) {
					t.Fatalf("%s: joined piece %d = %v, whole = %v", zone, i, joined[i], pieces[i])
				}
			}
		}
	}
}

func BenchmarkSplitThirtyDays(b *testing.B) {
	cal := rateDemoCalendar(b, "Europe/London")
	start := rateUTC(b, "2025-03-15T07:13:00Z")
	end := start.Add(30 * 24 * time.Hour)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cal.Split(start, end); err != nil {
			b.Fatal(err)
		}
	}
}
