package overbook

import (
	"fmt"
	"testing"

	"github.com/shopspring/decimal"
)

// BenchmarkLimitC5000 is one whole overbooking decision (limit, ENR and
// service level) at C = 5,000 for each policy. Target: <= 10 ms per op.
// q = 0.6 puts the limit furthest from C (about 8,300).
func BenchmarkLimitC5000(b *testing.B) {
	for _, policy := range []Policy{Probability, Risk, ServiceLevel} {
		for _, q := range []float64{0.6, 0.95} {
			p := Params{
				Capacity: 5000, ShowRate: q,
				Price: decimal.NewFromInt(100), DeniedCost: decimal.NewFromInt(150),
				ServiceLevel: 0.001,
			}
			b.Run(fmt.Sprintf("%s/q=%v", policy, q), func(b *testing.B) {
				for b.Loop() {
					if _, err := Limit(policy, p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDeny resolves one service time of 1,000 shows 10% over capacity.
func BenchmarkDeny(b *testing.B) {
	shows := make([]Show, 1000)
	for i := range shows {
		shows[i] = show(fmt.Sprintf("b%04d", i), 1+i%3, 1+i%4, fmt.Sprint(10+i%17), i)
	}
	for _, s := range []DenialStrategy{Lottery, DCF, LCDCF} {
		b.Run(string(s), func(b *testing.B) {
			for b.Loop() {
				if _, err := Deny(s, 2250, shows, DenialOptions{Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
