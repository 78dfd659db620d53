package ledger_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/ledger"
)

// randomAmount is a positive amount with up to four decimals, so that
// most need rounding.
func randomAmount(r *rand.Rand) decimal.Decimal {
	return decimal.New(1+r.Int64N(5_000_000), -4)
}

// randomBook drives a ledger through n random money events of several
// customers, resources and currencies (scales 0, 2 and 3) and returns it.
func randomBook(t *testing.T, seed uint64, n int) *ledger.Ledger {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	l := newLedger(t, ledger.Options{Currencies: ledger.Currencies{"EUR": {Scale: 2, Rounding: ledger.HalfUp}}})
	customers := []string{"alice", "bob", "carol", "dave"}
	resources := map[string]ledger.Currency{"RAL": "GRD", "NIKHEF": "EUR", "Tokyo": "JPY", "Kuwait": "KWD"}
	names := []string{"RAL", "NIKHEF", "Tokyo", "Kuwait"}
	var open []string
	curOf := map[string]ledger.Currency{}
	start := at("2026-10-20T00:00:00Z")
	for i := 0; i < n; i++ {
		when := start.Add(time.Duration(r.Int64N(int64(90 * 24 * time.Hour))))
		var ps []ledger.Posting
		switch k := r.IntN(10); {
		case k < 4 || len(open) == 0:
			res := names[r.IntN(len(names))]
			b := ledger.BookingRef{ID: fmt.Sprintf("bk%d", i), Customer: customers[r.IntN(len(customers))], Resource: res, Currency: resources[res]}
			p, err := l.Charge(b, randomAmount(r).Add(decimal.NewFromInt(1)), when)
			if err != nil {
				t.Fatal(err)
			}
			ps = []ledger.Posting{p}
			open = append(open, b.ID)
			curOf[b.ID] = b.Currency
		case k < 6:
			id := open[r.IntN(len(open))]
			rp, err := l.Modification(id, randomAmount(r).Add(decimal.NewFromInt(1)), curOf[id], decimal.New(r.Int64N(101), -2), when)
			if err != nil {
				t.Fatal(err)
			}
			ps = rp.Postings
		case k < 9:
			j := r.IntN(len(open))
			id := open[j]
			open = append(open[:j], open[j+1:]...)
			rate := decimal.New(r.Int64N(1001), -3)
			var s ledger.Settlement
			var err error
			switch r.IntN(3) {
			case 0:
				s, err = l.Cancellation(id, rate, when)
			case 1:
				s, err = l.NoShow(id, rate, when)
			default:
				s, err = l.Denial(id, randomAmount(r), when)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !s.Penalty.Add(s.Refund).Equal(s.Charged) {
				t.Fatalf("penalty %s + refund %s != charged %s", s.Penalty, s.Refund, s.Charged)
			}
			ps = s.Postings
		default:
			res := names[r.IntN(len(names))]
			p, err := l.Compensation(fmt.Sprintf("gw%d", i), ledger.BookingRef{Customer: customers[r.IntN(len(customers))], Resource: res, Currency: resources[res]}, randomAmount(r), when)
			if err != nil {
				continue // rounds to zero in a scale-0 currency
			}
			ps = []ledger.Posting{p}
		}
		if len(ps) == 0 {
			continue
		}
		if _, err := l.Append(ps...); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// TestPropertyBalancesSumToZero: whatever happens, the balances of all
// accounts sum to zero in every currency (double entry), every posting
// balances and is at its currency's scale, and each customer's invoices
// add up to their receivable's balance.
func TestPropertyBalancesSumToZero(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		l := randomBook(t, seed, 400)
		sums := map[ledger.Currency]decimal.Decimal{}
		for _, a := range l.Accounts() {
			for c, b := range l.Balance(a) {
				sums[c] = sums[c].Add(b)
			}
			for _, p := range walk(t, l, a, ledger.MaxLimit, nil) {
				if !balanced(p) {
					t.Fatalf("seed %d: posting %s does not balance", seed, p.ID)
				}
				for _, ln := range p.Lines {
					if !l.Rule(p.Currency).AtScale(ln.Amount) || ln.Amount.Sign() <= 0 {
						t.Fatalf("seed %d: posting %s line %s", seed, p.ID, ln.Amount)
					}
				}
			}
		}
		if len(sums) < 3 {
			t.Fatalf("seed %d: only %d currencies used", seed, len(sums))
		}
		for c, s := range sums {
			if !s.IsZero() {
				t.Fatalf("seed %d: balances in %s sum to %s", seed, c, s)
			}
		}
		for _, customer := range []string{"alice", "bob", "carol", "dave"} {
			totals := map[ledger.Currency]decimal.Decimal{}
			page, err := l.Invoices(ledger.InvoiceQuery{Account: customer, Limit: ledger.MaxLimit}, at("2030-01-01T00:00:00Z"))
			if err != nil {
				t.Fatal(err)
			}
			for _, inv := range page.Data {
				totals[inv.Currency] = totals[inv.Currency].Add(inv.Total.Amount)
			}
			for c, b := range l.Balance(ledger.CustomerAccount(customer)) {
				if !totals[c].Equal(b) {
					t.Fatalf("seed %d: %s's %s invoices total %s, receivable %s", seed, customer, c, totals[c], b)
				}
			}
		}
	}
}
