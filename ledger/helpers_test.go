package ledger_test

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/ledger"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func newLedger(t testing.TB, o ledger.Options) *ledger.Ledger {
	t.Helper()
	l, err := ledger.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func ref(id string) ledger.BookingRef {
	return ledger.BookingRef{ID: id, Customer: "alice", Resource: "RAL", Currency: "GRD"}
}

func mustAppend(t testing.TB, l *ledger.Ledger, ps ...ledger.Posting) []ledger.Posting {
	t.Helper()
	out, err := l.Append(ps...)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return out
}

// charge appends a charge of price for booking id at when.
func charge(t testing.TB, l *ledger.Ledger, b ledger.BookingRef, price string, when time.Time) ledger.Posting {
	t.Helper()
	p, err := l.Charge(b, dec(price), when)
	if err != nil {
		t.Fatalf("Charge: %v", err)
	}
	return mustAppend(t, l, p)[0]
}

func wantErr(t testing.TB, err error, kind slotfare.Kind, field string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want a %v error naming %q, got nil", kind, field)
	}
	if got := slotfare.KindOf(err); got != kind {
		t.Fatalf("kind = %v, want %v (err: %v)", got, kind, err)
	}
	if field != "" {
		if got := slotfare.FieldOf(err); got != field {
			t.Fatalf("field = %q, want %q (err: %v)", got, field, err)
		}
	}
}

// lineStrings renders lines as "debit receivable:alice 100.00" for comparison.
func lineStrings(p ledger.Posting) []string {
	out := make([]string, len(p.Lines))
	for i, l := range p.Lines {
		out[i] = string(l.Side) + " " + string(l.Account) + " " + l.Amount.StringFixed(p.Scale)
	}
	return out
}

func balanced(p ledger.Posting) bool {
	d, c := decimal.Zero, decimal.Zero
	for _, l := range p.Lines {
		if l.Side == ledger.Debit {
			d = d.Add(l.Amount)
		} else {
			c = c.Add(l.Amount)
		}
	}
	return d.Equal(c)
}
