package pricing

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
)

// RAL of seed 004 Table 7.7: base cost G$ 0.49 per node-second.
var ralBaseCost = fareDec("0.49")

func priceClass(t testing.TB, name string) FareClass {
	t.Helper()
	c, ok := FareClassByName(DemoFareClasses("1"), name)
	if !ok {
		t.Fatalf("no demo class %q", name)
	}
	return c
}

func TestPriceWorkedExamples(t *testing.T) {
	london := rateDemoCalendar(t, "Europe/London")
	tests := []struct {
		name       string
		class      string
		nodes      int
		from, to   string
		want       string
		pieces     []string // period:seconds:amount
		compensate string
	}{
		{
			// Eq. 7.12: bcost_AR = tau x bcost x delta = 3.38 x 0.49 x 300 s = 496.86 a
			// slot; Eq. 7.11 for 12 slots of one node: 5,962.32.
			name: "one peak hour, premium", class: ClassPremium, nodes: 1,
			from: "2025-01-06T09:00:00Z", to: "2025-01-06T10:00:00Z", want: "5962.32",
			pieces:     []string{"peak:3600:5962.32"},
			compensate: "29811.6", // tau_ds = 5 tau_1
		},
		{
			name: "one 5-minute slot, budget, super saver", class: ClassBudget, nodes: 1,
			from: "2025-01-07T02:00:00Z", to: "2025-01-07T02:05:00Z", want: "183.75", // 1.25 x 0.49 x 300
			pieces:     []string{"super_saver:300:183.75"},
			compensate: "551.25", // 3 tau_3
		},
		{
			// Friday 16:00 to Saturday 08:00, 2 nodes: tau-seconds 2h x 2.25 + 6h x 1.75 +
			// 6h x 1.25 + 2h x 1.75 = 93,600, times 0.49 x 2 = 91,728.
			name: "across four periods, budget", class: ClassBudget, nodes: 2,
			from: "2025-01-10T16:00:00Z", to: "2025-01-11T08:00:00Z", want: "91728",
			pieces: []string{"peak:7200:15876", "off_peak:21600:37044", "super_saver:21600:26460", "off_peak:7200:12348"},
		},
		{
			// London's 23-hour Sunday: (5h x 1.25 + 12h x 1.75 + 6h x 1.25) x 3600 x 0.49.
			name: "23-hour day, budget", class: ClassBudget, nodes: 1,
			from: "2025-03-30T00:00:00Z", to: "2025-03-30T23:00:00Z", want: "61299",
			pieces: []string{"super_saver:18000:11025", "off_peak:43200:37044", "super_saver:21600:13230"},
		},
		{
			// London's 25-hour Sunday: (7h x 1.25 + 12h x 1.75 + 6h x 1.25) x 3600 x 0.49.
			name: "25-hour day, budget", class: ClassBudget, nodes: 1,
			from: "2025-10-25T23:00:00Z", to: "2025-10-27T00:00:00Z", want: "65709",
			pieces: []string{"super_saver:25200:15435", "off_peak:43200:37044", "super_saver:21600:13230"},
		},
		{
			name: "fractions of a second", class: ClassBusiness, nodes: 3,
			from: "2025-01-06T12:00:00Z", to: "2025-01-06T12:00:00.001Z", want: "0.0041307", // 2.81 x 0.49 x 3 x 0.001
			pieces: []string{"peak:0.001:0.0041307"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			class := priceClass(t, tt.class)
			p, err := PriceReservation(london, class, ralBaseCost, tt.nodes, rateUTC(t, tt.from), rateUTC(t, tt.to))
			if err != nil {
				t.Fatal(err)
			}
			if !p.Total.Equal(fareDec(tt.want)) {
				t.Errorf("total = %s, want %s", p.Total, tt.want)
			}
			var got []string
			for _, piece := range p.Pieces {
				got = append(got, piece.Period+":"+piece.Seconds.String()+":"+piece.Amount.String())
			}
			if strings.Join(got, " ") != strings.Join(tt.pieces, " ") {
				t.Errorf("pieces = %v, want %v", got, tt.pieces)
			}
			if p.FareClass != tt.class || p.Nodes != tt.nodes || !p.BaseCost.Equal(ralBaseCost) {
				t.Errorf("price echoes %s %d %s", p.FareClass, p.Nodes, p.BaseCost)
			}
			if tt.compensate != "" {
				c, err := DeniedServiceCost(class, p.Total)
				if err != nil || !c.Equal(fareDec(tt.compensate)) {
					t.Errorf("compensation = %s, %v; want %s", c, err, tt.compensate)
				}
			}
		})
	}
}

// TestPenaltyWorkedExample is Sec. 7.6.2's example: alpha_p = 0.10 on a
// G$ 100 reservation is a G$ 10 penalty.
func TestPenaltyWorkedExample(t *testing.T) {
	business := priceClass(t, ClassBusiness)
	p, err := Penalty(business, fareDec("100"))
	if err != nil || !p.Equal(fareDec("10")) {
		t.Errorf("Penalty = %s, %v; want 10", p, err)
	}
	kept, refund, err := SettleCancellation(business, fareDec("100.00"), MoneyPlaces)
	if err != nil || !kept.Equal(fareDec("10")) || !refund.Equal(fareDec("90")) {
		t.Errorf("SettleCancellation = %s, %s, %v; want 10, 90", kept, refund, err)
	}
	// Premium is fully refundable, alpha 1 keeps everything.
	premium := priceClass(t, ClassPremium)
	if kept, refund, _ := SettleCancellation(premium, fareDec("5962.32"), 2); !kept.IsZero() || !refund.Equal(fareDec("5962.32")) {
		t.Errorf("premium settles %s / %s", kept, refund)
	}
	strict := premium
	strict.PenaltyRate = decimal.NewFromInt(1)
	if kept, refund, _ := SettleCancellation(strict, fareDec("5962.32"), 2); !kept.Equal(fareDec("5962.32")) || !refund.IsZero() {
		t.Errorf("alpha 1 settles %s / %s", kept, refund)
	}
	// Half-even on the penalty, and the parts still make the whole:
	// 0.25 x 100.02 = 25.005 -> 25.00, refund 75.02; 0.25 x 100.06 = 25.015 -> 25.02.
	budget := priceClass(t, ClassBudget)
	for charged, want := range map[string][2]string{"100.02": {"25", "75.02"}, "100.06": {"25.02", "75.04"}} {
		kept, refund, _ := SettleCancellation(budget, fareDec(charged), 2)
		if !kept.Equal(fareDec(want[0])) || !refund.Equal(fareDec(want[1])) || !kept.Add(refund).Equal(fareDec(charged)) {
			t.Errorf("budget settles %s as %s + %s, want %v", charged, kept, refund, want)
		}
	}
}

// TestNonReservedCost is Eq. 7.10 on Table 7.7's resources: a job of the
// mean runtime (3 hours) on one node.
func TestNonReservedCost(t *testing.T) {
	for base, want := range map[string]string{"0.49": "5292", "0.80": "8640", "0.03": "324"} {
		got, err := NonReservedCost(fareDec(base), 1, 3*time.Hour)
		if err != nil || !got.Equal(fareDec(want)) {
			t.Errorf("NonReservedCost(%s, 1, 3h) = %s, %v; want %s", base, got, err, want)
		}
	}
	if got, _ := NonReservedCost(ralBaseCost, 4, 0); !got.IsZero() {
		t.Errorf("zero runtime costs %s", got)
	}
	for _, tt := range []struct {
		base    string
		nodes   int
		runtime time.Duration
		field   string
	}{
		{"0.49", 0, time.Hour, "nodes"},
		{"-0.49", 1, time.Hour, "base_cost"},
		{"0.49", 1, -time.Second, "runtime"},
	} {
		if _, err := NonReservedCost(fareDec(tt.base), tt.nodes, tt.runtime); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
			t.Errorf("NonReservedCost(%s, %d, %s) err = %v, want Invalid on %s", tt.base, tt.nodes, tt.runtime, err, tt.field)
		}
	}
}

func TestPriceInvalid(t *testing.T) {
	cal := rateDemoCalendar(t, "UTC")
	budget := priceClass(t, ClassBudget)
	noPeak := priceClass(t, ClassBudget)
	noPeak.Tau = map[string]decimal.Decimal{PeriodOffPeak: fareDec("1.75")}
	at := rateUTC(t, "2025-01-06T09:00:00Z")
	tests := []struct {
		name  string
		cal   *RateCalendar
		class FareClass
		base  string
		nodes int
		end   time.Time
		field string
	}{
		{"no calendar", nil, budget, "0.49", 1, at.Add(time.Hour), "rate_periods"},
		{"zero nodes", cal, budget, "0.49", 0, at.Add(time.Hour), "nodes"},
		{"negative nodes", cal, budget, "0.49", -2, at.Add(time.Hour), "nodes"},
		{"zero base cost", cal, budget, "0", 1, at.Add(time.Hour), "base_cost"},
		{"negative base cost", cal, budget, "-0.49", 1, at.Add(time.Hour), "base_cost"},
		{"empty interval", cal, budget, "0.49", 1, at, "end"},
		{"end before start", cal, budget, "0.49", 1, at.Add(-time.Hour), "end"},
		{"no tau for the period", cal, noPeak, "0.49", 1, at.Add(time.Hour), "fare_class"},
	}
	for _, tt := range tests {
		_, err := PriceReservation(tt.cal, tt.class, fareDec(tt.base), tt.nodes, at, tt.end)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
			t.Errorf("%s: err = %v (field %q), want Invalid on %q", tt.name, err, slotfare.FieldOf(err), tt.field)
		}
	}
	bad := budget
	bad.PenaltyRate = fareDec("1.5")
	if _, err := Penalty(bad, fareDec("10")); slotfare.FieldOf(err) != "penalty_rate" {
		t.Errorf("Penalty with alpha 1.5: %v", err)
	}
	if _, _, err := SettleCancellation(budget, fareDec("-1"), 2); slotfare.FieldOf(err) != "price" {
		t.Errorf("SettleCancellation of a negative charge: %v", err)
	}
	if _, err := Penalty(budget, fareDec("-1")); slotfare.FieldOf(err) != "price" {
		t.Errorf("Penalty of a negative price: %v", err)
	}
	bad = budget
	bad.DeniedCostFactor = fareDec("1")
	if _, err := DeniedServiceCost(bad, fareDec("10")); slotfare.FieldOf(err) != "denied_cost_factor" {
		t.Errorf("DeniedServiceCost with factor 1: %v", err)
	}
	if _, err := DeniedServiceCost(budget, fareDec("-10")); slotfare.FieldOf(err) != "price" {
		t.Errorf("DeniedServiceCost of a negative price: %v", err)
	}
}

// TestPriceProperties checks on random reservations: pricing two halves and
// adding equals pricing the whole, to the last digit; more nodes or a later
// end costs strictly more; a reservation costs at least Eq. 7.10's
// non-reserved cost; the penalty lies in [0, price]; the compensation is
// tau_ds / tau = DeniedCostFactor times the price and equals Eq. 7.11 priced
// with tau_ds piece by piece; and the rounded pieces add up to the rounded
// total.
func TestPriceProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 7))
	cals := []*RateCalendar{rateDemoCalendar(t, "Europe/London"), rateDemoCalendar(t, "Australia/Sydney"), rateDemoCalendar(t, "Asia/Kolkata")}
	classes := DemoFareClasses("1")
	bases := []decimal.Decimal{fareDec("0.49"), fareDec("0.03"), fareDec("0.8"), fareDec("1.2345")}
	lo := rateUTC(t, "2024-01-01T00:00:00Z").UnixNano()
	for trial := 0; trial < 500; trial++ {
		cal := cals[trial%len(cals)]
		class := classes[rng.IntN(len(classes))]
		base := bases[rng.IntN(len(bases))]
		nodes := 1 + rng.IntN(64)
		start := time.Unix(0, lo+rng.Int64N(int64(2*365*24*time.Hour))).UTC()
		if trial%2 == 0 {
			start = start.Truncate(5 * time.Minute)
		}
		end := start.Add(time.Duration(1 + rng.Int64N(int64(10*24*time.Hour))))
		whole, err := PriceReservation(cal, class, base, nodes, start, end)
		if err != nil {
			t.Fatal(err)
		}
		mid := start.Add(time.Duration(1 + rng.Int64N(int64(end.Sub(start)))))
		if mid.Before(end) {
			a, err1 := PriceReservation(cal, class, base, nodes, start, mid)
			b, err2 := PriceReservation(cal, class, base, nodes, mid, end)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if !a.Total.Add(b.Total).Equal(whole.Total) {
				t.Fatalf("halves %s + %s != whole %s", a.Total, b.Total, whole.Total)
			}
		}
		more, _ := PriceReservation(cal, class, base, nodes+1, start, end)
		longer, _ := PriceReservation(cal, class, base, nodes, start, end.Add(time.Duration(1+rng.Int64N(int64(time.Hour)))))
		if !more.Total.GreaterThan(whole.Total) || !longer.Total.GreaterThan(whole.Total) {
			t.Fatalf("not monotone: %s, +1 node %s, longer %s", whole.Total, more.Total, longer.Total)
		}
		floor, _ := NonReservedCost(base, nodes, end.Sub(start))
		if whole.Total.LessThan(floor) {
			t.Fatalf("reservation %s below the non-reserved cost %s", whole.Total, floor)
		}
		pen, err := Penalty(class, whole.Total)
		if err != nil || pen.IsNegative() || pen.GreaterThan(whole.Total) {
			t.Fatalf("penalty %s outside [0, %s]: %v", pen, whole.Total, err)
		}
		comp, err := DeniedServiceCost(class, whole.Total)
		if err != nil || !comp.Equal(class.DeniedCostFactor.Mul(whole.Total)) || !comp.GreaterThan(whole.Total) {
			t.Fatalf("compensation %s for price %s: %v", comp, whole.Total, err)
		}
		byTauDS := decimal.Zero
		for _, piece := range whole.Pieces {
			tauDS, _ := class.DeniedTau(piece.Period)
			byTauDS = byTauDS.Add(tauDS.Mul(base).Mul(decimal.NewFromInt(int64(nodes))).Mul(piece.Seconds))
		}
		if !byTauDS.Equal(comp) {
			t.Fatalf("Eq. 7.11 with tau_ds gives %s, DeniedServiceCost %s", byTauDS, comp)
		}
		rounded := whole.RoundedPieces(MoneyPlaces)
		if sum := decimal.Sum(decimal.Zero, rounded...); !sum.Equal(whole.Rounded(MoneyPlaces)) {
			t.Fatalf("rounded pieces sum to %s, rounded total %s", sum, whole.Rounded(MoneyPlaces))
		}
	}
}

func BenchmarkPriceReservationWeek(b *testing.B) {
	cal := rateDemoCalendar(b, "Europe/London")
	class := DemoFareClasses("")[1]
	start := rateUTC(b, "2025-03-27T07:13:00Z")
	end := start.Add(7 * 24 * time.Hour)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PriceReservation(cal, class, ralBaseCost, 4, start, end); err != nil {
			b.Fatal(err)
		}
	}
}
