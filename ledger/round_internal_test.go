package ledger

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// TestRoundLinesAllocates checks the allocation of rounding remainders:
// the rounded lines always sum to the rounding of the exact sum, and each
// stays within one unit of its exact amount, for every rounding mode.
func TestRoundLinesAllocates(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 11))
	for _, mode := range []Rounding{HalfEven, HalfUp, Down, Up} {
		for _, scale := range []int32{0, 2, 3} {
			r := CurrencyRule{Scale: scale, Rounding: mode}
			unit := r.unit()
			for trial := 0; trial < 300; trial++ {
				n := 1 + rnd.IntN(7)
				exact := make([]decimal.Decimal, n)
				sum := decimal.Zero
				for i := range exact {
					// amounts with up to three digits past the scale, ties included
					exact[i] = decimal.New(1+rnd.Int64N(100000), -scale-int32(rnd.IntN(4)))
					sum = sum.Add(exact[i])
				}
				got := r.roundLines(exact)
				gsum := decimal.Zero
				for i, g := range got {
					gsum = gsum.Add(g)
					if !r.AtScale(g) {
						t.Fatalf("%v/%d: line %s not at scale", mode, scale, g)
					}
					if g.Sub(exact[i]).Abs().GreaterThanOrEqual(unit) {
						t.Fatalf("%v/%d: %s rounded to %s, a unit or more away", mode, scale, exact[i], g)
					}
				}
				if !gsum.Equal(r.Round(sum)) {
					t.Fatalf("%v/%d: lines %v round to %v summing %s, want %s", mode, scale, exact, got, gsum, r.Round(sum))
				}
			}
		}
	}
}

// TestRoundLinesThreeWay is the three-way split whose independent
// half-even rounding gains a cent: 33.335 + 33.335 + 33.33 = 100.000 but
// the lines round to 33.34 + 33.34 + 33.33 = 100.01; the cent comes off
// the first line that was rounded up.
func TestRoundLinesThreeWay(t *testing.T) {
	r := CurrencyRule{Scale: 2}
	got := r.roundLines([]decimal.Decimal{
		decimal.RequireFromString("33.335"), decimal.RequireFromString("33.335"), decimal.RequireFromString("33.33"),
	})
	want := []string{"33.33", "33.34", "33.33"}
	for i := range want {
		if got[i].StringFixed(2) != want[i] {
			t.Fatalf("roundLines = %v, want %v", got, want)
		}
	}
}

// TestRoundPostingAtScale: a posting whose amounts are all written at the
// scale (as stored postings are read) comes out of roundPosting as the
// rounding of each line would make it, to the exponent, in every mode.
func TestRoundPostingAtScale(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 5))
	for _, mode := range []Rounding{HalfEven, HalfUp, Down, Up} {
		for _, scale := range []int32{0, 2, 3} {
			r := CurrencyRule{Scale: scale, Rounding: mode}
			for trial := 0; trial < 200; trial++ {
				var lines []Line
				total := decimal.Zero
				for range 1 + rnd.IntN(3) {
					a := decimal.New(1+rnd.Int64N(100000), -scale)
					lines = append(lines, Line{Account: "revenue:R", Side: Credit, Amount: a})
					total = total.Add(a)
				}
				lines = append(lines, Line{Account: "customer:alice", Side: Debit, Amount: total})
				p := Posting{ID: "p", Lines: lines}
				if !atScale(p.Lines, scale) {
					t.Fatalf("%v/%d: %v not seen at scale", mode, scale, lines)
				}
				fast, err := roundPosting("test", p, r, total)
				if err != nil {
					t.Fatal(err)
				}
				slow, err := roundEach("test", p, r, total)
				if err != nil {
					t.Fatal(err)
				}
				if len(fast.Lines) != len(slow.Lines) || fast.Scale != slow.Scale {
					t.Fatalf("%v/%d: %d lines at scale %d, rounded each %d at %d", mode, scale, len(fast.Lines), fast.Scale, len(slow.Lines), slow.Scale)
				}
				for i := range fast.Lines {
					f, s := fast.Lines[i].Amount, slow.Lines[i].Amount
					if f.String() != s.String() || f.Exponent() != s.Exponent() || fast.Lines[i].Account != slow.Lines[i].Account {
						t.Fatalf("%v/%d: line %d %s (exp %d), rounded each %s (exp %d)", mode, scale, i, f, f.Exponent(), s, s.Exponent())
					}
				}
			}
		}
	}
	if atScale([]Line{{Amount: decimal.New(1050, -3)}}, 2) || atScale([]Line{{Amount: decimal.New(105, 0)}}, 2) {
		t.Fatal("an amount written with more or fewer digits than the scale seen at scale")
	}
}
