package ledger_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/ledger"
)

func TestRound(t *testing.T) {
	tests := []struct {
		rule ledger.CurrencyRule
		in   string
		want string
	}{
		{ledger.CurrencyRule{Scale: 2, Rounding: ledger.HalfEven}, "2.345", "2.34"},
		{ledger.CurrencyRule{Scale: 2, Rounding: ledger.HalfEven}, "2.355", "2.36"},
		{ledger.CurrencyRule{Scale: 2, Rounding: ledger.HalfEven}, "2.3451", "2.35"},
		{ledger.CurrencyRule{Scale: 2, Rounding: ledger.HalfEven}, "-2.345", "-2.34"},
		{ledger.CurrencyRule{Scale: 2, Rounding: ledger.HalfUp}, "2.345", "2.35"},
		{ledger.CurrencyRule{Scale: 2, Rounding: ledger.HalfUp}, "2.344", "2.34"},
		{ledger.CurrencyRule{Scale: 2, Rounding: ledger.Down}, "2.349", "2.34"},
		{ledger.CurrencyRule{Scale: 2, Rounding: ledger.Up}, "2.341", "2.35"},
		{ledger.CurrencyRule{Scale: 0, Rounding: ledger.HalfEven}, "12.5", "12"},
		{ledger.CurrencyRule{Scale: 0, Rounding: ledger.HalfEven}, "13.5", "14"},
		{ledger.CurrencyRule{Scale: 3, Rounding: ledger.HalfEven}, "1.0005", "1.000"},
		{ledger.CurrencyRule{Scale: 2, Rounding: ledger.HalfEven}, "7", "7.00"},
	}
	for _, tt := range tests {
		got := tt.rule.Round(dec(tt.in))
		if got.StringFixed(tt.rule.Scale) != tt.want || !got.Equal(dec(tt.want)) {
			t.Errorf("%v scale %d: Round(%s) = %s, want %s", tt.rule.Rounding, tt.rule.Scale, tt.in, got, tt.want)
		}
	}
}

func TestCurrencyRules(t *testing.T) {
	cs := ledger.Currencies{"EUR": {Scale: 4, Rounding: ledger.HalfUp}}
	tests := []struct {
		c    ledger.Currency
		want ledger.CurrencyRule
	}{
		{"GRD", ledger.CurrencyRule{Scale: 2, Rounding: ledger.HalfEven}},
		{"USD", ledger.CurrencyRule{Scale: 2, Rounding: ledger.HalfEven}},
		{"JPY", ledger.CurrencyRule{Scale: 0, Rounding: ledger.HalfEven}},
		{"KWD", ledger.CurrencyRule{Scale: 3, Rounding: ledger.HalfEven}},
		{"EUR", ledger.CurrencyRule{Scale: 4, Rounding: ledger.HalfUp}},
	}
	for _, tt := range tests {
		if got := cs.Rule(tt.c); got != tt.want {
			t.Errorf("Rule(%s) = %+v, want %+v", tt.c, got, tt.want)
		}
	}
	_, err := ledger.New(ledger.Options{Currencies: ledger.Currencies{"GRD": {Scale: 13}}})
	wantErr(t, err, slotfare.Invalid, "currencies.GRD.scale")
	_, err = ledger.New(ledger.Options{Currencies: ledger.Currencies{"GRD": {Scale: 2, Rounding: 9}}})
	wantErr(t, err, slotfare.Invalid, "currencies.GRD.rounding")
	_, err = ledger.New(ledger.Options{Currencies: ledger.Currencies{"grd": {Scale: 2}}})
	wantErr(t, err, slotfare.Invalid, "currencies")

	for _, name := range []string{"half-even", "half-up", "down", "up"} {
		r, err := ledger.ParseRounding(name, "rounding")
		if err != nil || r.String() != name {
			t.Errorf("ParseRounding(%q) = %v, %v", name, r, err)
		}
	}
	_, err = ledger.ParseRounding("bankers", "currencies.GRD.rounding")
	wantErr(t, err, slotfare.Invalid, "currencies.GRD.rounding")
}

func TestFormat(t *testing.T) {
	r := ledger.CurrencyRule{Scale: 2}
	tests := map[string]string{"12.3": "12.30", "0": "0.00", "-4": "-4.00", "1.005": "1.005", "100": "100.00"}
	for in, want := range tests {
		if got := r.Format(dec(in)); got != want {
			t.Errorf("Format(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestSplit(t *testing.T) {
	r := ledger.CurrencyRule{Scale: 2}
	tests := []struct {
		total   string
		weights []string
		want    []string
	}{
		{"100.00", []string{"1", "1", "1"}, []string{"33.34", "33.33", "33.33"}},
		{"-100.00", []string{"1", "1", "1"}, []string{"-33.34", "-33.33", "-33.33"}},
		{"10.00", []string{"1", "2", "3"}, []string{"1.67", "3.33", "5.00"}},
		{"0.02", []string{"1", "1", "1"}, []string{"0.01", "0.01", "0.00"}},
		{"100.005", []string{"0.5", "0.25", "0.25"}, []string{"50.00", "25.00", "25.00"}},
		{"1.00", []string{"3", "0", "0"}, []string{"1.00", "0.00", "0.00"}},
	}
	for _, tt := range tests {
		ws := make([]decimal.Decimal, len(tt.weights))
		for i, w := range tt.weights {
			ws[i] = dec(w)
		}
		got, err := r.Split(dec(tt.total), ws)
		if err != nil {
			t.Fatalf("Split(%s): %v", tt.total, err)
		}
		sum := decimal.Zero
		for i, g := range got {
			sum = sum.Add(g)
			if !g.Equal(dec(tt.want[i])) {
				t.Errorf("Split(%s, %v)[%d] = %s, want %s", tt.total, tt.weights, i, g, tt.want[i])
			}
		}
		if !sum.Equal(r.Round(dec(tt.total))) {
			t.Errorf("Split(%s) parts sum to %s", tt.total, sum)
		}
	}
	_, err := r.Split(dec("1"), []decimal.Decimal{dec("1"), dec("-1")})
	wantErr(t, err, slotfare.Invalid, "weights")
	_, err = r.Split(dec("1"), []decimal.Decimal{dec("0")})
	wantErr(t, err, slotfare.Invalid, "weights")
	_, err = r.Split(dec("1"), nil)
	wantErr(t, err, slotfare.Invalid, "weights")
}
