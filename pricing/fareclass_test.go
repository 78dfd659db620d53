package pricing

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"slotfare"
)

func fareDec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

var demoPeriodNames = []string{PeriodSuperSaver, PeriodPeak, PeriodOffPeak}

// TestTable76Taus types Table 7.6 in and checks the demo against it, and the
// table's own rule: tau_1 and tau_2 are tau_3 plus 50% and 25%, printed with
// two decimals rounded half away from zero.
func TestTable76Taus(t *testing.T) {
	table := []struct {
		period           string
		tau1, tau2, tau3 string
	}{
		{PeriodSuperSaver, "1.88", "1.56", "1.25"},
		{PeriodPeak, "3.38", "2.81", "2.25"},
		{PeriodOffPeak, "2.63", "2.19", "1.75"},
	}
	classes := DemoFareClasses("")
	for _, row := range table {
		fares, err := FaresInPeriod(classes, row.period)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []string{row.tau1, row.tau2, row.tau3} {
			if !fares[i].Equal(fareDec(want)) {
				t.Errorf("%s tau_%d = %s, want %s", row.period, i+1, fares[i], want)
			}
		}
		tau3 := fareDec(row.tau3)
		if got := tau3.Mul(fareDec("1.5")).Round(2); !got.Equal(fareDec(row.tau1)) {
			t.Errorf("%s: 1.5 x %s rounds to %s, table says %s", row.period, tau3, got, row.tau1)
		}
		if got := tau3.Mul(fareDec("1.25")).Round(2); !got.Equal(fareDec(row.tau2)) {
			t.Errorf("%s: 1.25 x %s rounds to %s, table says %s", row.period, tau3, got, row.tau2)
		}
	}
	// The average tau_3 over the three periods' rows as Sec. 7.7.2 quotes it.
	if got := fareDec("1.25").Add(fareDec("2.25")).Add(fareDec("1.75")).Add(fareDec("1.25")).Add(fareDec("1.75")).Div(fareDec("5")); !got.Equal(fareDec("1.65")) {
		t.Errorf("mean tau_3 over Table 7.6's rows = %s, the thesis says 1.65", got)
	}
}

// TestTable79Settings checks the demo's penalty rates and denied-cost
// factors against Table 7.9, and the VO restriction of Table 7.1.
func TestTable79Settings(t *testing.T) {
	want := []struct {
		name, alpha, factor string
		rank                int
		restricted          bool
	}{
		{ClassPremium, "0", "5", 1, false},
		{ClassBusiness, "0.10", "4", 2, true},
		{ClassBudget, "0.25", "3", 3, true},
	}
	classes := DemoFareClasses("1")
	if err := ValidateFareClasses(classes, demoPeriodNames); err != nil {
		t.Fatalf("demo classes invalid: %v", err)
	}
	for i, w := range want {
		c := classes[i]
		if c.Name != w.name || c.Rank != w.rank || !c.PenaltyRate.Equal(fareDec(w.alpha)) || !c.DeniedCostFactor.Equal(fareDec(w.factor)) {
			t.Errorf("class %d = %s rank %d alpha %s factor %s, want %+v", i, c.Name, c.Rank, c.PenaltyRate, c.DeniedCostFactor, w)
		}
		if c.VO.Open() == w.restricted {
			t.Errorf("%s: VO %q, restricted want %v", c.Name, c.VO, w.restricted)
		}
		if !c.Admits("1") || c.Admits("2") != !w.restricted {
			t.Errorf("%s admits VO 1 %v, VO 2 %v", c.Name, c.Admits("1"), c.Admits("2"))
		}
		// tau_ds = factor x tau, above tau in every period.
		for _, p := range demoPeriodNames {
			ds, _ := c.DeniedTau(p)
			if !ds.Equal(c.Tau[p].Mul(fareDec(w.factor))) || !ds.GreaterThan(c.Tau[p]) {
				t.Errorf("%s %s: tau_ds %s, tau %s", c.Name, p, ds, c.Tau[p])
			}
		}
	}
	if _, ok := classes[0].DeniedTau("holiday"); ok {
		t.Error("DeniedTau of an unknown period")
	}
}

func TestValidateFareClasses(t *testing.T) {
	edit := func(f func(c []FareClass)) []FareClass {
		c := DemoFareClasses("1")
		f(c)
		return c
	}
	tests := []struct {
		name    string
		classes []FareClass
		periods []string
		field   string
		msg     string
	}{
		{"no classes", nil, demoPeriodNames, "fare_classes", "at least one"},
		{"no periods", DemoFareClasses(""), nil, "rate_periods", "no rate periods"},
		{"empty name", edit(func(c []FareClass) { c[1].Name = "" }), demoPeriodNames, "[1].name", "empty"},
		{"bad name", edit(func(c []FareClass) { c[1].Name = "first class" }), demoPeriodNames, "[1].name", "letters"},
		{"duplicate name", edit(func(c []FareClass) { c[2].Name = ClassPremium }), demoPeriodNames, "[2].name", "also [0]"},
		{"rank zero", edit(func(c []FareClass) { c[0].Rank = 0 }), demoPeriodNames, "[0].rank", "outside 1..3"},
		{"rank too big", edit(func(c []FareClass) { c[2].Rank = 4 }), demoPeriodNames, "[2].rank", "outside 1..3"},
		{"duplicate rank", edit(func(c []FareClass) { c[2].Rank = 2 }), demoPeriodNames, "[2].rank", "also the rank of [1]"},
		{"missing tau", edit(func(c []FareClass) { delete(c[1].Tau, PeriodPeak) }), demoPeriodNames, "[1].tau.peak", "no tau"},
		{"unknown period", edit(func(c []FareClass) { c[0].Tau["holiday"] = fareDec("9") }), demoPeriodNames, "[0].tau.holiday", "no rate period"},
		{"tau below 1", edit(func(c []FareClass) { c[2].Tau[PeriodSuperSaver] = fareDec("0.99") }), demoPeriodNames, "[2].tau.super_saver", "below 1"},
		{"tau not falling", edit(func(c []FareClass) { c[1].Tau[PeriodPeak] = fareDec("3.38") }), demoPeriodNames, "[1].tau.peak", "must be below"},
		{"tau inverted", edit(func(c []FareClass) { c[2].Tau[PeriodOffPeak] = fareDec("2.5") }), demoPeriodNames, "[2].tau.off_peak", "must be below tau 2.19"},
		{"penalty negative", edit(func(c []FareClass) { c[1].PenaltyRate = fareDec("-0.01") }), demoPeriodNames, "[1].penalty_rate", "outside [0, 1]"},
		{"penalty above 1", edit(func(c []FareClass) { c[2].PenaltyRate = fareDec("1.01") }), demoPeriodNames, "[2].penalty_rate", "outside [0, 1]"},
		{"denied factor 1", edit(func(c []FareClass) { c[0].DeniedCostFactor = fareDec("1") }), demoPeriodNames, "[0].denied_cost_factor", "must exceed 1"},
		{"denied factor 0", edit(func(c []FareClass) { c[2].DeniedCostFactor = decimal.Zero }), demoPeriodNames, "[2].denied_cost_factor", "must exceed 1"},
		{"rate periods renamed", DemoFareClasses(""), []string{"day", "night"}, "[0].tau.day", "no tau"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateFareClasses(tt.classes, tt.periods)
			if err == nil {
				t.Fatal("accepted")
			}
			if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
				t.Errorf("err = %v (kind %v, field %q), want Invalid on %q", err, slotfare.KindOf(err), slotfare.FieldOf(err), tt.field)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %q, want it to mention %q", err, tt.msg)
			}
		})
	}
	// Boundaries that are allowed: alpha 0 and 1, a class order given out of rank order.
	ok := edit(func(c []FareClass) {
		c[0].PenaltyRate = decimal.Zero
		c[2].PenaltyRate = fareDec("1")
		c[0], c[2] = c[2], c[0]
	})
	if err := ValidateFareClasses(ok, demoPeriodNames); err != nil {
		t.Errorf("valid classes rejected: %v", err)
	}
	ranked := FareClassesByRank(ok)
	if ranked[0].Name != ClassPremium || ranked[2].Name != ClassBudget || ok[0].Name != ClassBudget {
		t.Errorf("FareClassesByRank = %s,%s,%s (input left %s first)", ranked[0].Name, ranked[1].Name, ranked[2].Name, ok[0].Name)
	}
	if c, found := FareClassByName(ok, ClassBusiness); !found || c.Rank != 2 {
		t.Errorf("FareClassByName(business) = %v, %v", c.Name, found)
	}
	if _, found := FareClassByName(ok, "economy"); found {
		t.Error("FareClassByName found a class that is not there")
	}
	if _, err := FaresInPeriod(ok, "holiday"); slotfare.FieldOf(err) != "tau.holiday" {
		t.Errorf("FaresInPeriod(holiday) err = %v", err)
	}
}
