package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking/config"
	"slotfare/booking/sim"
)

// TestWillingnessToPay: on eu-datagrid-priced no user pays more per
// node-second than its willingness to pay times the resource's base cost;
// some users decline every offer (refused) and some buy up a class when
// theirs is closed (Sec. 7.4), each such booking in a higher class than the
// user's. The thesis's users (eu-datagrid, the same seed) see the same
// arrivals and neither refuse nor buy up.
func TestWillingnessToPay(t *testing.T) {
	priced, err := sim.EUDataGridPriced(1)
	if err != nil {
		t.Fatal(err)
	}
	thesis := short(t, 1)
	res := runAll(t, []sim.RunSpec{{Name: "priced", Scenario: priced, Options: sim.Options{Seed: 2}},
		{Name: "thesis", Scenario: thesis, Options: sim.Options{Seed: 2}}})
	base := map[string]decimal.Decimal{}
	rank := map[string]map[string]int{}
	for _, rc := range priced.Config.Resources {
		base[rc.ID] = rc.BaseCost
		rank[rc.ID] = ranks(rc)
	}
	up := 0
	for _, b := range res[0].Bookings {
		if b.WillingnessToPay <= 0 {
			t.Fatalf("%+v: a priced user without a willingness to pay", b)
		}
		ceiling := decimal.NewFromFloat(b.WillingnessToPay).Mul(base[b.Resource]).Mul(decimal.NewFromInt(int64(b.Nodes) * int64(b.End.Sub(b.Start).Seconds())))
		if b.Price.GreaterThan(ceiling) {
			t.Errorf("%s user on %s paid %s for %d nodes over %s, above its ceiling %s (%.3f x base cost)", b.Class, b.Resource, b.Price, b.Nodes,
				b.End.Sub(b.Start), ceiling.StringFixed(2), b.WillingnessToPay)
		}
		if b.FareClass != b.Class {
			up++
			if rank[b.Resource][b.FareClass] >= rank[b.Resource][b.Class] {
				t.Errorf("%s user booked %s on %s: not a higher class", b.Class, b.FareClass, b.Resource)
			}
		}
	}
	var booked, boughtUp, refused int
	for i, s := range res[0].Streams {
		th := res[1].Streams[i]
		if s.Arrivals != th.Arrivals {
			t.Errorf("stream %s: %d arrivals priced, %d in the thesis's model: want the same arrivals", s.Name, s.Arrivals, th.Arrivals)
		}
		if th.BoughtUp != 0 || th.Refused != 0 {
			t.Errorf("stream %s in the thesis's model: %d bought up, %d refused: want none", th.Name, th.BoughtUp, th.Refused)
		}
		booked, boughtUp, refused = booked+s.Booked, boughtUp+s.BoughtUp, refused+s.Refused
	}
	t.Logf("priced: %d booked, %d bought up, %d refused", booked, boughtUp, refused)
	if boughtUp != up || boughtUp == 0 || refused == 0 {
		t.Errorf("%d bought up (%d bookings above the user's class), %d refused: want some of each, counted alike", boughtUp, up, refused)
	}
	if booked != len(res[0].Bookings) {
		t.Errorf("%d booked in the streams, %d bookings", booked, len(res[0].Bookings))
	}
}

func ranks(rc config.ResourceConfig) map[string]int {
	out := map[string]int{}
	for _, c := range rc.FareClasses {
		out[c.Name] = c.Rank
	}
	return out
}

// TestDecodePricedDemand: arrivals given per hour are held per second,
// willingness_to_pay decodes (null keeps the thesis's model), and bad
// values are refused naming the field as written.
func TestDecodePricedDemand(t *testing.T) {
	good := strings.Replace(twoSitesText(t), `"rates": {"peak": 0.002, "off_peak": 0.0005}`,
		`"arrivals": {"per_hour": {"peak": 7.2, "off_peak": 1.8}}, "willingness_to_pay": {"distribution": "lognormal", "median": 2.5, "spread": 0.3}`, 1)
	good = strings.Replace(good, `"rates": {"peak": 0.004, "off_peak": 0.002}`, `"rates": {"peak": 0.004, "off_peak": 0.002}, "willingness_to_pay": null`, 1)
	s, err := sim.DecodeScenario([]byte(good), nil)
	if err != nil {
		t.Fatal(err)
	}
	l := s.Levels[0]
	if math.Abs(l.Rates["peak"]-0.002) > 1e-12 || !l.PerHour || l.WillingnessToPay == nil || *l.WillingnessToPay != (sim.WillingnessToPay{Median: 2.5, Spread: 0.3}) {
		t.Fatalf("level 0 decoded as %+v", l)
	}
	if s.Levels[1].WillingnessToPay != nil || s.Levels[1].PerHour {
		t.Fatalf("level 1 decoded as %+v", s.Levels[1])
	}
	for _, tt := range []struct{ name, from, to, field string }{
		{"negative rate per hour", `"peak": 7.2`, `"peak": -7.2`, "levels[0].arrivals.per_hour.peak"},
		{"negative rate per second", `"peak": 0.004`, `"peak": -0.004`, "levels[1].rates.peak"},
		{"unknown period per hour", `"peak": 7.2`, `"peek": 7.2`, "levels[0].arrivals.per_hour.peek"},
		{"no unit", `"per_hour": {`, `"per_day": {`, "levels[0].arrivals.per_day"},
		{"rates twice", `"willingness_to_pay": null`, `"willingness_to_pay": null, "arrivals": {"per_hour": {"peak": 1}}`, "levels[1].arrivals"},
		{"zero spread", `"spread": 0.3`, `"spread": 0`, "levels[0].willingness_to_pay.spread"},
		{"negative spread", `"spread": 0.3`, `"spread": -1`, "levels[0].willingness_to_pay.spread"},
		{"zero median", `"median": 2.5`, `"median": 0`, "levels[0].willingness_to_pay.median"},
		{"no median", `"median": 2.5, `, ``, "levels[0].willingness_to_pay.median"},
		{"unknown distribution", `"lognormal"`, `"normal"`, "levels[0].willingness_to_pay.distribution"},
		{"unknown field", `"spread": 0.3`, `"spread": 0.3, "mode": 2`, "levels[0].willingness_to_pay.mode"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bad := strings.Replace(good, tt.from, tt.to, 1)
			if bad == good {
				t.Fatalf("%q not in the file", tt.from)
			}
			_, err := sim.DecodeScenario([]byte(bad), nil)
			if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
				t.Fatalf("error %v (field %q), want invalid naming %q", err, slotfare.FieldOf(err), tt.field)
			}
		})
	}
	if _, err := s.Loaded(0); slotfare.FieldOf(err) != "load" {
		t.Errorf("load 0: %v, want invalid naming load", err)
	}
	double, err := s.Loaded(2)
	if err != nil || math.Abs(double.Levels[0].Rates["peak"]-0.004) > 1e-12 || s.Levels[0].Rates["peak"] != l.Rates["peak"] {
		t.Errorf("load 2: %v, rate %v (the original's %v)", err, double.Levels[0].Rates["peak"], s.Levels[0].Rates["peak"])
	}
}
