package ledger

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// TestFormatSmallAmountAsStringFixed: the integer fast path writes every
// amount it takes exactly as the big.Int path does, on edge cases and on
// random coefficients of every length, exponents and scales.
func TestFormatSmallAmountAsStringFixed(t *testing.T) {
	cases := []decimal.Decimal{
		decimal.Zero, decimal.RequireFromString("0.05"), decimal.RequireFromString("-0.05"),
		decimal.RequireFromString("203.04"), decimal.RequireFromString("203.0400"), decimal.RequireFromString("203.0401"),
		decimal.RequireFromString("-1"), decimal.RequireFromString("1e3"), decimal.RequireFromString("999999999999999999"),
		decimal.RequireFromString("-999999999999999999"), decimal.RequireFromString("9223372036854775807"),
		decimal.RequireFromString("0.000000000000000001"), decimal.RequireFromString("123456789.123456789"),
		decimal.New(-9223372036854775808, -2), decimal.New(5, 20), decimal.New(5, -20),
	}
	r := rand.New(rand.NewPCG(11, 25))
	for range 20000 {
		c := r.Int64N(1 << (1 + r.IntN(62)))
		if r.IntN(2) == 0 {
			c = -c
		}
		cases = append(cases, decimal.New(c, int32(r.IntN(26))-20))
	}
	took := 0
	for _, d := range cases {
		for scale := int32(0); scale <= 4; scale++ {
			want := formatBigAmount(d, scale)
			if got := formatAmount(d, scale); got != want {
				t.Fatalf("formatAmount(%s, %d) = %q, want %q", d, scale, got, want)
			}
			if _, ok := formatSmallAmount(d, scale); ok {
				took++
			}
		}
	}
	if took < len(cases) {
		t.Fatalf("the fast path took %d of %d amounts and scales", took, 5*len(cases))
	}
}

// BenchmarkFormatAmount: a price's amount as the booking JSON writes it,
// by the fast path and by big.Int.
func BenchmarkFormatAmount(b *testing.B) {
	d := decimal.RequireFromString("203.0400")
	b.Run("small", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if formatAmount(d, 2) != "203.04" {
				b.Fatal("wrong")
			}
		}
	})
	b.Run("big", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if formatBigAmount(d, 2) != "203.04" {
				b.Fatal("wrong")
			}
		}
	})
}
