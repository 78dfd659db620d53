package control

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/overbook"
	"slotfare/pricing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files under booking/control/testdata")

func demoResource(t testing.TB, id string) config.ResourceConfig {
	t.Helper()
	for _, rc := range demoConfig(t).Resources {
		if rc.ID == id {
			return rc
		}
	}
	t.Fatalf("no demo resource %s", id)
	return config.ResourceConfig{}
}

func newControl(t testing.TB, rc config.ResourceConfig) *Control {
	t.Helper()
	c, err := New(rc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkNested(t *testing.T, l PeriodLimits) {
	t.Helper()
	if len(l.BookingLimits) == 0 || l.BookingLimits[0] != l.OverbookingLimit {
		t.Errorf("%s: b_1 = %v, want the overbooking limit %d", l.Period, l.BookingLimits, l.OverbookingLimit)
	}
	if l.OverbookingLimit < l.Capacity {
		t.Errorf("%s: overbooking limit %d below capacity %d", l.Period, l.OverbookingLimit, l.Capacity)
	}
	for j := 1; j < len(l.BookingLimits); j++ {
		if l.BookingLimits[j] > l.BookingLimits[j-1] || l.BookingLimits[j] < 0 {
			t.Errorf("%s: limits %v not nested", l.Period, l.BookingLimits)
		}
	}
	if len(l.ProtectionLevels) != len(l.BookingLimits)-1 {
		t.Errorf("%s: %d levels for %d limits", l.Period, len(l.ProtectionLevels), len(l.BookingLimits))
	}
}

// TestControlInitialLevelsTable710: before any history, every demo
// resource nests its limits by the initial protection levels of Table 7.10:
// b_1 = C+ (the overbooking limit), b_2 = C+ - y_1, b_3 = C+ - y_1 - y_2
// (Alg. 14). Without overbooking, budget gets about 25% / 50% / 75% of the
// nodes in peak / off-peak / super saver (Sec. 7.7.2).
func TestControlInitialLevelsTable710(t *testing.T) {
	type y struct{ y1, y2 int }
	table := map[string][3]y{ // Table 7.10: peak, off-peak, super saver
		"RAL": {{10, 20}, {5, 15}, {3, 7}}, "Imperial": {{12, 27}, {6, 20}, {2, 11}},
		"NorduGrid": {{5, 8}, {2, 6}, {1, 3}}, "NIKHEF": {{5, 8}, {2, 6}, {1, 3}},
		"Lyon": {{3, 6}, {2, 4}, {0, 3}}, "CERN": {{12, 32}, {6, 23}, {3, 11}},
		"Milano": {{1, 2}, {0, 2}, {0, 1}}, "Torino": {{0, 1}, {0, 0}, {0, 0}},
		"Rome": {{1, 2}, {0, 2}, {0, 1}}, "Bologna": {{15, 35}, {8, 25}, {4, 12}},
	}
	periods := []string{pricing.PeriodPeak, pricing.PeriodOffPeak, pricing.PeriodSuperSaver}
	for _, rc := range demoConfig(t).Resources {
		for _, policy := range []overbook.Policy{rc.Overbooking.Policy, overbook.None} {
			rc := rc
			rc.Overbooking.Policy = policy
			c := newControl(t, rc)
			for i, p := range periods {
				l := c.Limits(p)
				checkNested(t, l)
				w := table[rc.ID][i]
				ob := l.OverbookingLimit
				want := []int{ob, ob - w.y1, ob - w.y1 - w.y2}
				if l.Source != "initial" || fmt.Sprint(l.BookingLimits) != fmt.Sprint(want) {
					t.Errorf("%s %s %s: limits %v (%s), want %v", rc.ID, policy, p, l.BookingLimits, l.Source, want)
				}
				if policy == overbook.None {
					if ob != rc.Nodes {
						t.Errorf("%s %s: policy none gives ob %d, want C = %d", rc.ID, p, ob, rc.Nodes)
					}
					share := float64(want[2]) / float64(rc.Nodes)
					target := []float64{0.25, 0.50, 0.75}[i]
					if rc.Nodes >= 12 && (share < target-0.07 || share > target+0.07) {
						t.Errorf("%s %s: budget share %.2f, thesis says about %.2f", rc.ID, p, share, target)
					}
				}
			}
		}
	}
	// RAL, cell by cell without overbooking: 41 nodes.
	rc := demoResource(t, "RAL")
	rc.Overbooking.Policy = overbook.None
	c := newControl(t, rc)
	for p, want := range map[string]string{"peak": "[41 31 11]", "off_peak": "[41 36 21]", "super_saver": "[41 38 31]"} {
		if got := fmt.Sprint(c.Limits(p).BookingLimits); got != want {
			t.Errorf("RAL %s: %s, want %s", p, got, want)
		}
	}
}

// TestControlOverbookingLimitFromPolicy: the demo's risk policy on RAL with
// the thesis's show rates overbooks a little, and the limit equals what the
// overbook package gives for the demand-weighted price (Eq. 7.4).
func TestControlOverbookingLimitFromPolicy(t *testing.T) {
	rc := demoResource(t, "RAL")
	c := newControl(t, rc)
	for _, p := range []string{"peak", "off_peak", "super_saver"} {
		l := c.Limits(p)
		if l.ShowRate != rc.Limits.ShowRates[p] {
			t.Errorf("%s show rate %v, want the configured %v", p, l.ShowRate, rc.Limits.ShowRates[p])
		}
		price, deniedCost := weighted(t, rc, p)
		want, err := overbook.Limit(overbook.Risk, overbook.Params{Capacity: 41, ShowRate: l.ShowRate, Price: price, DeniedCost: deniedCost})
		if err != nil {
			t.Fatal(err)
		}
		if l.OverbookingLimit != want.Limit || want.Limit <= 41 {
			t.Errorf("%s: ob %d, want %d (> 41)", p, l.OverbookingLimit, want.Limit)
		}
	}
	// Probability policy: floor(C / q), Eq. 7.1.
	rc.Overbooking.Policy = overbook.Probability
	c = newControl(t, rc)
	for p, want := range map[string]int{"peak": 43, "off_peak": 45, "super_saver": 48} { // 41/0.95, 41/0.9, 41/0.85
		if got := c.Limits(p).OverbookingLimit; got != want {
			t.Errorf("probability %s: ob %d, want %d", p, got, want)
		}
	}
}

func weighted(t *testing.T, rc config.ResourceConfig, period string) (price, denied decimal.Decimal) {
	t.Helper()
	var ps, ds []decimal.Decimal
	for _, fc := range pricing.FareClassesByRank(rc.FareClasses) {
		tau, _ := fc.TauFor(period)
		p := tau.Mul(rc.BaseCost)
		ps = append(ps, p)
		ds = append(ds, p.Mul(fc.DeniedCostFactor))
	}
	ones := make([]float64, len(ps))
	for i := range ones {
		ones[i] = 1
	}
	price, err := overbook.WeightedPrice(ps, ones)
	if err != nil {
		t.Fatal(err)
	}
	denied, err = overbook.WeightedPrice(ds, ones)
	if err != nil {
		t.Fatal(err)
	}
	return price, denied
}

// monday is Monday 2026-11-23 00:00 in London (UTC in winter).
var monday = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)

// TestControlNoShowsRaiseTheLimit: with the probability policy, observing
// many no-shows lowers the show rate and raises the overbooking limit; shows
// bring it back down; a Recompute with nothing new changes nothing.
func TestControlNoShowsRaiseTheLimit(t *testing.T) {
	rc := demoResource(t, "RAL")
	rc.Overbooking.Policy = overbook.Probability
	c := newControl(t, rc)
	before := c.Limits("peak")
	if changed, err := c.Recompute(monday); err != nil || changed {
		t.Fatalf("first recompute with no history: changed %v, %v", changed, err)
	}
	n := 0
	for day := 0; day < 5; day++ {
		for i := 0; i < 40; i++ {
			start := monday.AddDate(0, 0, day).Add(8 * time.Hour)
			id := fmt.Sprintf("b%d", n)
			n++
			mustObserve(t, c, Event{Kind: EventBooked, BookingID: id, Class: "business", Nodes: 1,
				Start: start, End: start.Add(2 * time.Hour), At: start.Add(-time.Hour)})
			kind := EventShow
			if i%2 == 0 {
				kind = EventNoShow
			}
			mustObserve(t, c, Event{Kind: kind, BookingID: id, At: start.Add(15 * time.Minute)})
		}
	}
	now := monday.AddDate(0, 0, 5)
	changed, err := c.Recompute(now)
	if err != nil || !changed {
		t.Fatalf("recompute after 200 settled bookings: changed %v, %v", changed, err)
	}
	after := c.Limits("peak")
	// q = (200 x 0.5 + 20 x 0.95) / 220
	wantQ := (200*0.5 + ShowRatePrior*0.95) / (200 + ShowRatePrior)
	if diff := after.ShowRate - wantQ; diff > 1e-9 || diff < -1e-9 {
		t.Errorf("show rate %v, want %v", after.ShowRate, wantQ)
	}
	if after.ShowRate >= before.ShowRate || after.OverbookingLimit <= before.OverbookingLimit {
		t.Errorf("no-shows: q %v -> %v, ob %d -> %d; want q down, ob up", before.ShowRate, after.ShowRate,
			before.OverbookingLimit, after.OverbookingLimit)
	}
	if want, _ := overbook.ProbabilityLimit(41, wantQ); after.OverbookingLimit != want {
		t.Errorf("ob %d, want floor(41/q) = %d", after.OverbookingLimit, want)
	}
	checkNested(t, after)
	if off := c.Limits("off_peak"); off.ShowRate != 0.9 {
		t.Errorf("off-peak saw no settled booking, its q moved to %v", off.ShowRate)
	}
	if changed, err := c.Recompute(now.Add(time.Second)); err != nil || changed {
		t.Errorf("recompute with nothing new: changed %v, %v", changed, err)
	}
	// Shows pull it back.
	for i := 0; i < 400; i++ {
		start := monday.AddDate(0, 0, 7).Add(8 * time.Hour) // the next Monday's peak
		id := fmt.Sprintf("s%d", i)
		mustObserve(t, c, Event{Kind: EventBooked, BookingID: id, Class: "premium", Nodes: 1, Start: start, End: start.Add(time.Hour), At: now})
		mustObserve(t, c, Event{Kind: EventShow, BookingID: id, At: start})
	}
	if _, err := c.Recompute(monday.AddDate(0, 0, 7).Add(9 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	if back := c.Limits("peak"); back.ShowRate <= after.ShowRate || back.OverbookingLimit >= after.OverbookingLimit {
		t.Errorf("shows: q %v -> %v, ob %d -> %d; want q up, ob down", after.ShowRate, back.ShowRate,
			after.OverbookingLimit, back.OverbookingLimit)
	}
}

// TestControlCancellationsLowerTheShowRate: a booking cancelled late is
// lost like a no-show, so the show rate booking control plans with is the
// chance of showing as of the lead time it was booked at, cancellations
// counted. 200 peak bookings made a day ahead: 50 cancel two hours before
// the start, 50 do not come, 100 show. All 200 are at risk when the 50
// cancel (factor 3/4), one in three of the others does not come (2/3): q
// observed 1/2 over 200 outcomes. Counting the no-shows alone gives 2/3 over
// 150 (q 0.70 with the prior, ob 58 instead of 75).
func TestControlCancellationsLowerTheShowRate(t *testing.T) {
	rc := demoResource(t, "RAL")
	rc.Overbooking.Policy = overbook.Probability
	c := newControl(t, rc)
	for day := 0; day < 5; day++ {
		start := monday.AddDate(0, 0, day).Add(8 * time.Hour)
		for i := 0; i < 40; i++ {
			id := fmt.Sprintf("d%d-%d", day, i)
			mustObserve(t, c, Event{Kind: EventBooked, BookingID: id, Class: "business", Nodes: 1,
				Start: start, End: start.Add(2 * time.Hour), At: start.Add(-24 * time.Hour)})
			switch i % 4 {
			case 0:
				mustObserve(t, c, Event{Kind: EventCancelled, BookingID: id, At: start.Add(-2 * time.Hour)})
			case 1:
				mustObserve(t, c, Event{Kind: EventNoShow, BookingID: id, At: start.Add(15 * time.Minute)})
			default:
				mustObserve(t, c, Event{Kind: EventShow, BookingID: id, At: start})
			}
		}
	}
	if _, err := c.Recompute(monday.AddDate(0, 0, 5)); err != nil {
		t.Fatal(err)
	}
	l := c.Limits("peak")
	wantQ := (200*0.5 + ShowRatePrior*0.95) / (200 + ShowRatePrior)
	if diff := l.ShowRate - wantQ; diff > 1e-9 || diff < -1e-9 {
		t.Errorf("show rate %v, want %v (no-shows alone: %v)", l.ShowRate, wantQ, (150*2.0/3+ShowRatePrior*0.95)/(150+ShowRatePrior))
	}
	if want, _ := overbook.ProbabilityLimit(41, wantQ); l.OverbookingLimit != want || want != 75 {
		t.Errorf("ob %d, want floor(41/q) = %d (75)", l.OverbookingLimit, want)
	}
	checkNested(t, l)
}

// TestControlShowRateFloor: however many no-shows, q stays >= MinShowRate.
func TestControlShowRateFloor(t *testing.T) {
	rc := demoResource(t, "Lyon")
	rc.Overbooking.Policy = overbook.Probability
	c := newControl(t, rc)
	for i := 0; i < 2000; i++ {
		start := monday.Add(8 * time.Hour)
		id := fmt.Sprintf("n%d", i)
		mustObserve(t, c, Event{Kind: EventBooked, BookingID: id, Class: "premium", Nodes: 1, Start: start, End: start.Add(time.Hour), At: monday})
		mustObserve(t, c, Event{Kind: EventNoShow, BookingID: id, At: start.Add(time.Hour)})
	}
	if _, err := c.Recompute(monday.Add(10 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	if l := c.Limits("peak"); l.ShowRate != config.MinShowRate || l.OverbookingLimit != 24 {
		t.Errorf("q %v ob %d, want %v and 2 x 12", l.ShowRate, l.OverbookingLimit, config.MinShowRate)
	}
}

func mustObserve(t *testing.T, c *Control, ev Event) {
	t.Helper()
	if err := c.Observe(ev); err != nil {
		t.Fatal(err)
	}
}

// tinyConfig is one resource with one rate period all week, so every local
// day is one instance.
func tinyResource(t *testing.T, nodes int, minHistory int) config.ResourceConfig {
	t.Helper()
	cfg, err := config.DecodeConfig([]byte(fmt.Sprintf(`{"currency":"GRD","keys":[{"key_sha256":%q,"name":"p","role":"provider","account_id":"p"}],
"resources":[{"id":"tiny","nodes":%d,"base_cost":"1","time_zone":"UTC",
 "fare_classes":[
  {"name":"gold","rank":1,"tau":{"all":"4"},"penalty_rate":"0","denied_cost_factor":"5","vo":null},
  {"name":"silver","rank":2,"tau":{"all":"2"},"penalty_rate":"0.1","denied_cost_factor":"4","vo":null},
  {"name":"bronze","rank":3,"tau":{"all":"1"},"penalty_rate":"0.25","denied_cost_factor":"3","vo":null}],
 "rate_periods":[{"name":"all","days":"all","from":"00:00","to":"24:00"}],
 "limits":{"method":"emsr-b","min_history":%d,"protection_levels":{"all":[1,2]}}}]}`, booking.HashKey("p"), nodes, minHistory)))
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Resources[0]
}

// bookDay books, for each class, nodes held all day on day d.
func bookDay(t *testing.T, c *Control, d int, nodes map[string]int) {
	t.Helper()
	start := monday.AddDate(0, 0, d)
	for class, n := range nodes {
		if n == 0 {
			continue
		}
		mustObserve(t, c, Event{Kind: EventBooked, BookingID: fmt.Sprintf("%s-%d", class, d), Class: class,
			Nodes: n, Start: start, End: start.AddDate(0, 0, 1), At: start.Add(-time.Hour)})
	}
}

// TestControlForecastClosesAClass: from the first instance on, the limits
// move from the initial levels (the prior) to EMSR on the forecast, all of
// the way once MinHistory instances have ended; when the gold demand alone needs
// more than the capacity, both lower classes are closed (b_2 = b_3 = 0),
// while b_1 stays the capacity.
func TestControlForecastClosesAClass(t *testing.T) {
	c := newControl(t, tinyResource(t, 10, 3))
	if l := c.Limits("all"); l.Source != "initial" || fmt.Sprint(l.BookingLimits) != "[10 9 8]" {
		t.Fatalf("initial limits %v (%s)", l.BookingLimits, l.Source)
	}
	for d := 0; d < 2; d++ {
		bookDay(t, c, d, map[string]int{"gold": 12 + d, "silver": 3})
	}
	if _, err := c.Recompute(monday.AddDate(0, 0, 2)); err != nil {
		t.Fatal(err)
	}
	// The initial levels are the prior: after 2 of MinHistory 3
	// instances the nesting is two thirds of the way to the forecast's.
	if l := c.Limits("all"); l.Source != "prior" || l.BookingLimits[1] >= 9 || l.BookingLimits[1] <= 0 || l.BookingLimits[2] > l.BookingLimits[1] {
		t.Errorf("after 2 of 3 instances: limits %v (%s), want between [10 9 8] and [10 0 0] from the prior", l.BookingLimits, l.Source)
	}
	bookDay(t, c, 2, map[string]int{"gold": 14, "silver": 3})
	changed, err := c.Recompute(monday.AddDate(0, 0, 3))
	if err != nil || !changed {
		t.Fatalf("third instance ended: changed %v, %v", changed, err)
	}
	l := c.Limits("all")
	checkNested(t, l)
	if l.Source != "forecast" || fmt.Sprint(l.BookingLimits) != "[10 0 0]" {
		t.Errorf("limits %v (%s), want [10 0 0] from the forecast", l.BookingLimits, l.Source)
	}
	if l.ProtectionLevels[0] < 10 {
		t.Errorf("gold protection %v, want at least the capacity", l.ProtectionLevels)
	}
}

// TestControlForecastOpensClasses: with little gold and silver demand the
// forecast protects little, and more than the initial levels is open to
// bronze; the limits are what pricing.AllocateOverbooked gives.
func TestControlForecastOpensClasses(t *testing.T) {
	c := newControl(t, tinyResource(t, 10, 3))
	for d := 0; d < 4; d++ {
		bookDay(t, c, d, map[string]int{"gold": d % 2, "silver": 1, "bronze": 5})
	}
	// a closed day: bronze was refused on day 3 (censored demand)
	mustObserve(t, c, Event{Kind: EventRefused, Class: "bronze", Start: monday.AddDate(0, 0, 3).Add(time.Hour),
		End: monday.AddDate(0, 0, 3).Add(2 * time.Hour), At: monday.AddDate(0, 0, 3)})
	if _, err := c.Recompute(monday.AddDate(0, 0, 4)); err != nil {
		t.Fatal(err)
	}
	l := c.Limits("all")
	checkNested(t, l)
	if l.Source != "forecast" {
		t.Fatalf("source %s", l.Source)
	}
	if l.BookingLimits[2] < 8 {
		t.Errorf("bronze limit %d, want more than the initial 8 with so little high-class demand", l.BookingLimits[2])
	}
}

// TestControlModifyAndCancel: a modified booking moves its demand; a
// cancelled one stays demand (it arrived), and events for unknown bookings
// are harmless.
func TestControlModifyAndCancel(t *testing.T) {
	c := newControl(t, tinyResource(t, 10, 1))
	start := monday.Add(time.Hour)
	mustObserve(t, c, Event{Kind: EventBooked, BookingID: "x", Class: "gold", Nodes: 24, Start: start, End: start.Add(time.Hour), At: monday})
	mustObserve(t, c, Event{Kind: EventModified, BookingID: "x", Nodes: 48, Start: start.AddDate(0, 0, 1), End: start.AddDate(0, 0, 1).Add(time.Hour), At: monday})
	mustObserve(t, c, Event{Kind: EventCancelled, BookingID: "x", At: monday.Add(time.Minute)})
	mustObserve(t, c, Event{Kind: EventCancelled, BookingID: "nobody", At: monday.Add(time.Minute)})
	mustObserve(t, c, Event{Kind: EventShow, BookingID: "nobody", At: monday.Add(time.Minute)})
	obs, counts := c.history(monday.AddDate(0, 0, 2))
	if counts["all"] != 2 {
		t.Fatalf("%d instances, want 2", counts["all"])
	}
	got := map[string]float64{}
	for _, o := range obs {
		got[fmt.Sprintf("%s/%d", o.Key.Class, o.Instance.Day())] = o.Demand
	}
	// 48 nodes x 1 h over a 24 h day = 2 nodes on average, on day 24; none on day 23.
	if got["gold/24"] != 2 || got["gold/23"] != 0 {
		t.Errorf("demand %v, want gold 2 on the 24th and 0 on the 23rd", got)
	}
}

func TestControlObserveRejects(t *testing.T) {
	c := newControl(t, tinyResource(t, 10, 1))
	ok := Event{Kind: EventBooked, BookingID: "a", Class: "gold", Nodes: 1, Start: monday, End: monday.Add(time.Hour), At: monday}
	for _, tc := range []struct {
		name  string
		f     func(*Event)
		field string
	}{
		{"no time", func(e *Event) { e.At = time.Time{} }, "at"},
		{"unknown class", func(e *Event) { e.Class = "platinum" }, "class"},
		{"empty interval", func(e *Event) { e.End = e.Start }, "end"},
		{"no nodes", func(e *Event) { e.Nodes = 0 }, "nodes"},
		{"no id", func(e *Event) { e.BookingID = "" }, "booking_id"},
		{"far future", func(e *Event) { e.Start = e.Start.AddDate(20, 0, 0); e.End = e.Start.Add(time.Hour) }, "start"},
		{"unknown kind", func(e *Event) { e.Kind = 99 }, "kind"},
		{"modify unknown", func(e *Event) { e.Kind = EventModified; e.BookingID = "zz" }, "booking_id"},
	} {
		ev := ok
		tc.f(&ev)
		err := c.Observe(ev)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tc.field {
			t.Errorf("%s: %v (field %q), want Invalid %q", tc.name, err, slotfare.FieldOf(err), tc.field)
		}
	}
	if _, err := New(config.ResourceConfig{ID: "x"}); slotfare.KindOf(err) != slotfare.Invalid {
		t.Errorf("New of an invalid resource: %v", err)
	}
}

// TestControlDaylightSaving: instances follow the local clock across the
// autumn change (Europe/London, 2026-10-25 is 25 hours long).
func TestControlDaylightSaving(t *testing.T) {
	c := newControl(t, demoResource(t, "RAL"))
	from := time.Date(2026, 10, 23, 0, 0, 0, 0, time.UTC)
	c.index(from, from.AddDate(0, 0, 5))
	for k := 1; k < len(c.inst); k++ {
		if !c.inst[k].Start.Equal(c.inst[k-1].End) {
			t.Fatalf("gap between instances %d and %d", k-1, k)
		}
	}
	loc, _ := time.LoadLocation("Europe/London")
	for _, in := range c.inst {
		s, e := in.Start.In(loc), in.End.In(loc)
		if e.Sub(s) > 25*time.Hour || (s.Day() != e.Day() && !(e.Hour() == 0 && e.Minute() == 0)) {
			t.Errorf("instance %s %s-%s crosses a local midnight", in.Period, s, e)
		}
		if want := c.cal.PeriodAt(in.Start); want != in.Period {
			t.Errorf("instance at %s is %s, calendar says %s", s, in.Period, want)
		}
	}
}

// TestLimitsReportGolden: the report of RAL over a Monday and Tuesday
// (Table 7.6's periods on London's clock) with a fixed booking count.
func TestLimitsReportGolden(t *testing.T) {
	c := newControl(t, demoResource(t, "RAL"))
	booked := func(class string, from, to time.Time) int {
		return map[string]int{"premium": 1, "business": 2, "budget": 3}[class] * (from.Hour() + 1)
	}
	rep, err := BuildLimitsReport(c, monday, monday.AddDate(0, 0, 2), booked)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Periods) != 6 {
		t.Errorf("%d instances over two weekdays, want 6", len(rep.Periods))
	}
	for _, p := range rep.Periods {
		if p.BookingLimits["premium"] != p.OverbookingLimit || p.BookingLimits["business"] > p.BookingLimits["premium"] ||
			p.BookingLimits["budget"] > p.BookingLimits["business"] {
			t.Errorf("%s %s: limits %v not nested under %d", p.Period, p.Start, p.BookingLimits, p.OverbookingLimit)
		}
	}
	got, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "limits_report_ral.golden.json")
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./booking/control -run TestLimitsReportGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("report differs from %s (-update to accept):\n%s", path, got)
	}
}

func TestLimitsReportRejects(t *testing.T) {
	c := newControl(t, demoResource(t, "RAL"))
	for _, tc := range []struct {
		name     string
		from, to time.Time
		field    string
	}{
		{"no from", time.Time{}, monday, "from"},
		{"no to", monday, time.Time{}, "to"},
		{"to before from", monday, monday.Add(-time.Hour), "to"},
		{"empty", monday, monday, "to"},
		{"two years", monday, monday.AddDate(2, 0, 0), "to"},
	} {
		_, err := BuildLimitsReport(c, tc.from, tc.to, nil)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tc.field {
			t.Errorf("%s: %v, want Invalid %q", tc.name, err, tc.field)
		}
	}
	rep, err := BuildLimitsReport(c, monday.Add(7*time.Hour), monday.Add(8*time.Hour), nil)
	if err != nil || len(rep.Periods) != 1 || rep.Periods[0].Bookings["budget"] != 0 || rep.Periods[0].Period != "peak" {
		t.Errorf("one hour of peak: %+v, %v", rep, err)
	}
}

// TestControlLongRunStaysBounded: a year of daily bookings recomputed every
// day keeps the control's memory bounded (old instances pruned) and its
// limits computed from the forecast of the recent instances.
func TestControlLongRunStaysBounded(t *testing.T) {
	c := newControl(t, tinyResource(t, 10, 3))
	for d := 0; d < 365; d++ {
		bookDay(t, c, d, map[string]int{"gold": 1, "silver": 2, "bronze": 3 + d%3})
		if _, err := c.Recompute(monday.AddDate(0, 0, d+1)); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.inst) > 2*controlKeepInstances+30 || len(c.demand) > 2*controlKeepInstances+1 { // one period: 2 x 60 kept
		t.Errorf("after a year: %d instances indexed, %d with demand; want them pruned", len(c.inst), len(c.demand))
	}
	t.Logf("%d instances, %d with demand", len(c.inst), len(c.demand))
	obs, counts := c.history(monday.AddDate(0, 0, 365))
	if counts["all"] != controlKeepInstances || len(obs) != 3*controlKeepInstances {
		t.Errorf("history of %d instances (%d observations), want the last %d", counts["all"], len(obs), controlKeepInstances)
	}
	l := c.LimitsAt(monday.AddDate(0, 0, 365))
	checkNested(t, l)
	if l.Source != "forecast" || l.Period != "all" {
		t.Errorf("limits %+v", l)
	}
	if l.Limit(0) != 0 || l.Limit(4) != 0 || l.Limit(1) != l.OverbookingLimit {
		t.Errorf("Limit by rank: %d %d %d", l.Limit(0), l.Limit(4), l.Limit(1))
	}
	if u := c.Limits("holiday"); u.Period != "holiday" || u.OverbookingLimit != 0 || u.BookingLimits != nil {
		t.Errorf("unknown period: %+v", u)
	}
}

func demoConfig(t testing.TB) config.Config {
	t.Helper()
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatalf("demo configuration: %v", err)
	}
	return cfg
}
