package pricing

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

func TestRoundMoney(t *testing.T) {
	tests := []struct {
		in     string
		places int32
		want   string
		shown  string
	}{
		{"0.125", 2, "0.12", "0.12"}, // half to even: down
		{"0.135", 2, "0.14", "0.14"}, // half to even: up
		{"2.675", 2, "2.68", "2.68"},
		{"-0.125", 2, "-0.12", "-0.12"},
		{"12.3", 2, "12.3", "12.30"},
		{"5962.32", 2, "5962.32", "5962.32"},
		{"0.0041307", 2, "0", "0.00"},
		{"91728", 0, "91728", "91728"},
		{"2.5", 0, "2", "2"},
		{"1.23456", 3, "1.235", "1.235"},
	}
	for _, tt := range tests {
		if got := RoundMoney(fareDec(tt.in), tt.places); !got.Equal(fareDec(tt.want)) {
			t.Errorf("RoundMoney(%s, %d) = %s, want %s", tt.in, tt.places, got, tt.want)
		}
		if got := FormatMoney(fareDec(tt.in), tt.places); got != tt.shown {
			t.Errorf("FormatMoney(%s, %d) = %q, want %q", tt.in, tt.places, got, tt.shown)
		}
	}
}

func TestAllocateRounded(t *testing.T) {
	tests := []struct {
		parts []string
		want  []string
	}{
		{[]string{"0.333", "0.333", "0.334"}, []string{"0.33", "0.33", "0.34"}},
		{[]string{"1.005", "1.005", "1.005"}, []string{"1.01", "1.01", "1"}}, // 3.015 -> 3.02
		{[]string{"0.005", "0.005"}, []string{"0.01", "0"}},                  // 0.01 -> 0.01
		{[]string{"0.0025", "0.0025"}, []string{"0", "0"}},                   // 0.005 -> 0.00
		{[]string{"15876", "37044"}, []string{"15876", "37044"}},
		{[]string{"-0.333", "-0.333", "-0.334"}, []string{"-0.33", "-0.33", "-0.34"}},
		{nil, nil},
	}
	for _, tt := range tests {
		var parts []decimal.Decimal
		for _, p := range tt.parts {
			parts = append(parts, fareDec(p))
		}
		got := AllocateRounded(parts, 2)
		if len(got) != len(tt.want) {
			t.Fatalf("AllocateRounded(%v) = %v", tt.parts, got)
		}
		for i := range got {
			if !got[i].Equal(fareDec(tt.want[i])) {
				t.Errorf("AllocateRounded(%v) = %v, want %v", tt.parts, got, tt.want)
				break
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 9))
	unit := fareDec("0.01")
	for trial := 0; trial < 2000; trial++ {
		parts := make([]decimal.Decimal, 1+rng.IntN(12))
		for i := range parts {
			parts[i] = decimal.New(rng.Int64N(2_000_000)-500_000, -int32(rng.IntN(6)))
		}
		got := AllocateRounded(parts, 2)
		sum := decimal.Sum(decimal.Zero, got...)
		if want := RoundMoney(decimal.Sum(decimal.Zero, parts...), 2); !sum.Equal(want) {
			t.Fatalf("parts %v rounded to %v sum to %s, want %s", parts, got, sum, want)
		}
		for i := range got {
			if got[i].Sub(parts[i]).Abs().GreaterThanOrEqual(unit) || !got[i].Equal(got[i].Round(2)) {
				t.Fatalf("part %s rounded to %s", parts[i], got[i])
			}
		}
	}
}
