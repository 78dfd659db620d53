package ledger_test

import (
	"reflect"
	"slices"
	"testing"

	"slotfare"
	"slotfare/ledger"
)

// chargePosting is a hand-built charge of amount for booking bk1.
func chargePosting(id, amount string) ledger.Posting {
	return ledger.Posting{
		ID: id, Time: at("2026-11-02T10:00:00Z"), Kind: ledger.KindCharge, BookingID: "bk1",
		Customer: "alice", Resource: "RAL", Currency: "GRD",
		Lines: []ledger.Line{
			ledger.DebitLine(ledger.CustomerAccount("alice"), dec(amount)),
			ledger.CreditLine(ledger.Account(ledger.Revenue, "RAL"), dec(amount)),
		},
	}
}

func TestPrepareRejects(t *testing.T) {
	base := chargePosting("bk1/charge", "100.00")
	with := func(f func(p *ledger.Posting)) ledger.Posting {
		p := base
		p.Lines = slices.Clone(base.Lines)
		f(&p)
		return p
	}
	tests := []struct {
		name  string
		p     ledger.Posting
		field string
	}{
		{"no id", with(func(p *ledger.Posting) { p.ID = "" }), "id"},
		{"id with space", with(func(p *ledger.Posting) { p.ID = "bk 1" }), "id"},
		{"no time", with(func(p *ledger.Posting) { p.Time = at("0001-01-01T00:00:00Z") }), "time"},
		{"bad kind", with(func(p *ledger.Posting) { p.Kind = "fee" }), "kind"},
		{"charge without booking", with(func(p *ledger.Posting) { p.BookingID = "" }), "booking_id"},
		{"no customer", with(func(p *ledger.Posting) { p.Customer = "" }), "account_id"},
		{"no resource", with(func(p *ledger.Posting) { p.Resource = "" }), "resource_id"},
		{"bad currency", with(func(p *ledger.Posting) { p.Currency = "G$" }), "currency"},
		{"one line", with(func(p *ledger.Posting) { p.Lines = p.Lines[:1] }), "lines"},
		{"unbalanced", with(func(p *ledger.Posting) { p.Lines[1].Amount = dec("99.99") }), "lines"},
		{"unbalanced below scale", with(func(p *ledger.Posting) { p.Lines[1].Amount = dec("100.001") }), "lines"},
		{"zero amount", with(func(p *ledger.Posting) { p.Lines[0].Amount = dec("0") }), "lines[0].amount"},
		{"negative amount", with(func(p *ledger.Posting) {
			p.Lines[0].Amount = dec("-100")
			p.Lines[1].Amount = dec("-100")
		}), "lines[0].amount"},
		{"bad side", with(func(p *ledger.Posting) { p.Lines[1].Side = "both" }), "lines[1].side"},
		{"bad account", with(func(p *ledger.Posting) { p.Lines[1].Account = "sales:RAL" }), "lines[1].account"},
		{"another customer's receivable", with(func(p *ledger.Posting) { p.Lines[0].Account = ledger.CustomerAccount("bob") }), "lines[0].account"},
		{"wrong shape for kind", with(func(p *ledger.Posting) { p.Lines[1].Account = ledger.Account(ledger.PenaltyRevenue, "RAL") }), "lines"},
		{"reversed charge", with(func(p *ledger.Posting) {
			p.Lines[0].Side, p.Lines[1].Side = ledger.Credit, ledger.Debit
		}), "lines"},
		{"two credit roles", with(func(p *ledger.Posting) {
			p.Lines[1].Amount = dec("50")
			p.Lines = append(p.Lines, ledger.CreditLine(ledger.Account(ledger.PenaltyRevenue, "RAL"), dec("50")))
		}), "lines[2].account"},
		{"not on its resource", with(func(p *ledger.Posting) { p.Lines[1].Account = ledger.Account(ledger.Revenue, "NIKHEF") }), "lines"},
		{"rounds to zero", with(func(p *ledger.Posting) {
			p.Lines[0].Amount = dec("0.004")
			p.Lines[1].Amount = dec("0.004")
		}), "lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLedger(t, ledger.Options{})
			_, err := l.Prepare(tt.p)
			wantErr(t, err, slotfare.Invalid, tt.field)
			if l.Len() != 0 {
				t.Fatal("a rejected posting changed the ledger")
			}
		})
	}
}

// TestThreeWayRevenueSplit posts one charge whose revenue is shared by
// three resources in thirds of 100.005: each third rounds half-even to
// 33.34, summing to 100.02 against a debit of 100.00; the two cents come
// off the lines rounded up most, earliest first, and the posting balances.
func TestThreeWayRevenueSplit(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	p := ledger.Posting{
		ID: "co1/charge", Time: at("2026-11-02T10:00:00Z"), Kind: ledger.KindCharge, BookingID: "co1",
		Customer: "alice", Resource: "RAL", Currency: "GRD",
		Lines: []ledger.Line{
			ledger.DebitLine(ledger.CustomerAccount("alice"), dec("100.005")),
			ledger.CreditLine(ledger.Account(ledger.Revenue, "RAL"), dec("33.335")),
			ledger.CreditLine(ledger.Account(ledger.Revenue, "NIKHEF"), dec("33.335")),
			ledger.CreditLine(ledger.Account(ledger.Revenue, "Bologna"), dec("33.335")),
		},
	}
	got := mustAppend(t, l, p)[0]
	want := []string{
		"debit receivable:alice 100.00",
		"credit revenue:RAL 33.33",
		"credit revenue:NIKHEF 33.33",
		"credit revenue:Bologna 33.34",
	}
	if !reflect.DeepEqual(lineStrings(got), want) {
		t.Fatalf("lines = %v, want %v", lineStrings(got), want)
	}
	if !balanced(got) {
		t.Fatal("posting does not balance after rounding")
	}
	if got.Scale != 2 {
		t.Fatalf("scale = %d", got.Scale)
	}
}

// TestRoundedOnceWhenPosted: an unrounded hand-built posting is rounded by
// the currency's rule when prepared, half-even by default and half-up when
// configured, and a posting already at scale is left as it is.
func TestRoundedOnceWhenPosted(t *testing.T) {
	tests := []struct {
		cs     ledger.Currencies
		amount string
		want   string
	}{
		{nil, "10.005", "10.00"},
		{nil, "10.015", "10.02"},
		{ledger.Currencies{"GRD": {Scale: 2, Rounding: ledger.HalfUp}}, "10.005", "10.01"},
		{ledger.Currencies{"GRD": {Scale: 0}}, "10.5", "10"},
		{nil, "10.10", "10.10"},
	}
	for _, tt := range tests {
		l := newLedger(t, ledger.Options{Currencies: tt.cs})
		got := mustAppend(t, l, chargePosting("bk1/charge", tt.amount))[0]
		for _, ln := range got.Lines {
			if ln.Amount.StringFixed(got.Scale) != tt.want || !ln.Amount.Equal(dec(tt.want)) {
				t.Errorf("%v: %s posted as %s, want %s", tt.cs, tt.amount, ln.Amount, tt.want)
			}
		}
	}
}

// TestRoundingDropsZeroLines: two half-cent debits each round to zero on
// their own; the allocation gives the cent to the first and drops the other.
func TestRoundingDropsZeroLines(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	p := ledger.Posting{
		ID: "g1", Time: at("2026-11-02T10:00:00Z"), Kind: ledger.KindCompensation,
		Customer: "alice", Resource: "RAL", Currency: "GRD",
		Lines: []ledger.Line{
			ledger.DebitLine(ledger.Account(ledger.CompensationExpense, "RAL"), dec("0.005")),
			ledger.DebitLine(ledger.Account(ledger.CompensationExpense, "RAL"), dec("0.005")),
			ledger.CreditLine(ledger.CustomerAccount("alice"), dec("0.01")),
		},
	}
	got := mustAppend(t, l, p)[0]
	want := []string{"debit compensation_expense:RAL 0.01", "credit receivable:alice 0.01"}
	if !reflect.DeepEqual(lineStrings(got), want) {
		t.Fatalf("lines = %v, want %v", lineStrings(got), want)
	}
}

func TestCustomerAmountAndInvoiceKind(t *testing.T) {
	up := ledger.Posting{Kind: ledger.KindAdjustment, Customer: "alice", Lines: []ledger.Line{
		ledger.DebitLine(ledger.CustomerAccount("alice"), dec("5")), ledger.CreditLine(ledger.Account(ledger.Revenue, "RAL"), dec("5"))}}
	down := ledger.Posting{Kind: ledger.KindAdjustment, Customer: "alice", Lines: []ledger.Line{
		ledger.DebitLine(ledger.Account(ledger.Refunds, "RAL"), dec("5")), ledger.CreditLine(ledger.CustomerAccount("alice"), dec("5"))}}
	if !up.CustomerAmount().Equal(dec("5")) || up.InvoiceKind() != ledger.KindCharge {
		t.Errorf("price up: %s %s", up.CustomerAmount(), up.InvoiceKind())
	}
	if !down.CustomerAmount().Equal(dec("-5")) || down.InvoiceKind() != ledger.KindCharge {
		t.Errorf("price down: %s %s", down.CustomerAmount(), down.InvoiceKind())
	}
}

func TestParseAccountID(t *testing.T) {
	a, err := ledger.ParseAccountID("penalty_revenue:RAL:2", "account_id")
	if err != nil || a.Role() != ledger.PenaltyRevenue || a.Owner() != "RAL:2" {
		t.Fatalf("ParseAccountID = %q (%s, %s), %v", a, a.Role(), a.Owner(), err)
	}
	for _, bad := range []string{"", "alice", "income:RAL", "receivable:", "receivable:a b"} {
		_, err := ledger.ParseAccountID(bad, "account_id")
		wantErr(t, err, slotfare.Invalid, "account_id")
	}
	if ledger.Revenue.Normal() != ledger.Credit || ledger.Receivable.Normal() != ledger.Debit {
		t.Fatal("normal sides")
	}
}
