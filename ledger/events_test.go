package ledger_test

import (
	"reflect"
	"testing"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/ledger"
)

var t0 = at("2026-11-02T10:00:00Z")

func TestChargeEntries(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	p, err := l.Charge(ref("bk1"), dec("12.345"), t0) // rounded once, half-even
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"debit receivable:alice 12.34", "credit revenue:RAL 12.34"}
	if p.ID != "bk1/charge" || p.Kind != ledger.KindCharge || !reflect.DeepEqual(lineStrings(p), want) {
		t.Fatalf("Charge = %s %s %v", p.ID, p.Kind, lineStrings(p))
	}
	if p.Description != "booking bk1 on RAL" {
		t.Fatalf("description %q", p.Description)
	}

	for _, tt := range []struct {
		b     ledger.BookingRef
		price string
		field string
	}{
		{ledger.BookingRef{Customer: "alice", Resource: "RAL", Currency: "GRD"}, "1", "booking_id"},
		{ledger.BookingRef{ID: "bk", Resource: "RAL", Currency: "GRD"}, "1", "account_id"},
		{ledger.BookingRef{ID: "bk", Customer: "alice", Currency: "GRD"}, "1", "resource_id"},
		{ledger.BookingRef{ID: "bk", Customer: "alice", Resource: "RAL", Currency: "grd"}, "1", "currency"},
		{ref("bk"), "0", "price"},
		{ref("bk"), "-5", "price"},
		{ref("bk"), "0.004", "price"},
	} {
		_, err := l.Charge(tt.b, dec(tt.price), t0)
		wantErr(t, err, slotfare.Invalid, tt.field)
	}
	_, err = l.Charge(ref("bk"), dec("1"), at("0001-01-01T00:00:00Z"))
	wantErr(t, err, slotfare.Invalid, "time")
}

func TestModificationEntries(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	charge(t, l, ref("bk1"), "100", t0)

	up, err := l.Modification("bk1", dec("120"), "GRD", decimal.Zero, t0.Add(1))
	if err != nil {
		t.Fatal(err)
	}
	if !up.Previous.Equal(dec("100")) || !up.Difference.Equal(dec("20")) || len(up.Postings) != 1 {
		t.Fatalf("up: %+v", up)
	}
	p := up.Postings[0]
	if want := []string{"debit receivable:alice 20.00", "credit revenue:RAL 20.00"}; p.ID != "bk1/adjustment/1" ||
		p.Kind != ledger.KindAdjustment || p.InvoiceKind() != ledger.KindCharge || !reflect.DeepEqual(lineStrings(p), want) {
		t.Fatalf("price up posting %s %s %v", p.ID, p.InvoiceKind(), lineStrings(p))
	}
	mustAppend(t, l, up.Postings...)

	down, err := l.Modification("bk1", dec("89.995"), "GRD", decimal.Zero, t0.Add(2)) // rounds to 90.00
	if err != nil {
		t.Fatal(err)
	}
	p = down.Postings[0]
	if want := []string{"debit refunds:RAL 30.00", "credit receivable:alice 30.00"}; p.ID != "bk1/adjustment/2" ||
		p.InvoiceKind() != ledger.KindCharge || !reflect.DeepEqual(lineStrings(p), want) || !down.Difference.Equal(dec("-30")) {
		t.Fatalf("price down posting %s %s %v %s", p.ID, p.InvoiceKind(), lineStrings(p), down.Difference)
	}
	if p.Description != "booking bk1 re-priced from 120.00 to 90.00 GRD" {
		t.Fatalf("description %q", p.Description)
	}
	mustAppend(t, l, down.Postings...)

	same, err := l.Modification("bk1", dec("90"), "GRD", decimal.Zero, t0.Add(3))
	if err != nil || len(same.Postings) != 0 || !same.Difference.IsZero() {
		t.Fatalf("unchanged price: %+v %v", same, err)
	}
	if got := l.Balance(ledger.CustomerAccount("alice"))["GRD"]; !got.Equal(dec("90")) {
		t.Fatalf("receivable %s, want 90", got)
	}
	_, err = l.Modification("bk1", dec("0"), "GRD", decimal.Zero, t0)
	wantErr(t, err, slotfare.Invalid, "price")
	_, err = l.Modification("nope", dec("10"), "GRD", decimal.Zero, t0)
	wantErr(t, err, slotfare.NotFound, "booking_id")
}

func TestCancellationEntries(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	charge(t, l, ref("bk1"), "100", t0)
	up, _ := l.Modification("bk1", dec("120"), "GRD", decimal.Zero, t0)
	mustAppend(t, l, up.Postings...)

	s, err := l.Cancellation("bk1", dec("0.25"), t0.Add(1))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Charged.Equal(dec("120")) || !s.Penalty.Equal(dec("30")) || !s.Refund.Equal(dec("90")) || !s.Compensation.IsZero() {
		t.Fatalf("settlement %+v", s)
	}
	if len(s.Postings) != 2 {
		t.Fatalf("%d postings", len(s.Postings))
	}
	refund, pen := s.Postings[0], s.Postings[1]
	if want := []string{"debit refunds:RAL 120.00", "credit receivable:alice 120.00"}; refund.ID != "bk1/refund" ||
		refund.Kind != ledger.KindRefund || !reflect.DeepEqual(lineStrings(refund), want) {
		t.Fatalf("refund %s %v", refund.ID, lineStrings(refund))
	}
	if want := []string{"debit receivable:alice 30.00", "credit penalty_revenue:RAL 30.00"}; pen.ID != "bk1/cancellation_penalty" ||
		pen.Kind != ledger.KindCancellationPenalty || !reflect.DeepEqual(lineStrings(pen), want) {
		t.Fatalf("penalty %s %v", pen.ID, lineStrings(pen))
	}
	if pen.Description != "cancellation penalty for booking bk1: 25% of 120.00 GRD" {
		t.Fatalf("description %q", pen.Description)
	}
	mustAppend(t, l, s.Postings...)
	// The customer owes the penalty; the resource's net service revenue is
	// zero and its penalty revenue is the penalty.
	bal := func(a ledger.AccountID) decimal.Decimal { return l.Balance(a)["GRD"] }
	if !bal(ledger.CustomerAccount("alice")).Equal(dec("30")) ||
		!bal(ledger.Account(ledger.Revenue, "RAL")).Add(bal(ledger.Account(ledger.Refunds, "RAL"))).IsZero() ||
		!bal(ledger.Account(ledger.PenaltyRevenue, "RAL")).Equal(dec("-30")) {
		t.Fatalf("balances: receivable %s revenue %s refunds %s penalty %s", bal(ledger.CustomerAccount("alice")),
			bal(ledger.Account(ledger.Revenue, "RAL")), bal(ledger.Account(ledger.Refunds, "RAL")), bal(ledger.Account(ledger.PenaltyRevenue, "RAL")))
	}
	// Retrying the same cancellation is a no-op; a second settlement is refused.
	if _, err := l.Append(s.Postings...); err != nil {
		t.Fatalf("replayed cancellation: %v", err)
	}
	if l.Len() != 4 {
		t.Fatalf("Len %d", l.Len())
	}
	_, err = l.Cancellation("bk1", dec("0.25"), t0.Add(2))
	wantErr(t, err, slotfare.Conflict, "booking_id")
	_, err = l.NoShow("bk1", dec("0.25"), t0.Add(2))
	wantErr(t, err, slotfare.Conflict, "booking_id")
	_, err = l.Modification("bk1", dec("10"), "GRD", decimal.Zero, t0.Add(2))
	wantErr(t, err, slotfare.Conflict, "booking_id")
}

// TestPenaltySplitsExactly: the penalty is rounded once and the refund is
// the rest, so the two always sum to the amount billed.
func TestPenaltySplitsExactly(t *testing.T) {
	tests := []struct {
		price, rate, penalty, refund string
	}{
		{"33.33", "0.15", "5.00", "28.33"}, // 4.9995 rounds up
		{"0.05", "0.5", "0.02", "0.03"},    // 0.025 ties to even
		{"0.07", "0.5", "0.04", "0.03"},    // 0.035 ties to even
		{"100", "0", "0.00", "100.00"},
		{"100", "1", "100.00", "0.00"},
		{"99.99", "0.333", "33.30", "66.69"}, // 33.29667
	}
	for _, tt := range tests {
		l := newLedger(t, ledger.Options{})
		charge(t, l, ref("bk1"), tt.price, t0)
		s, err := l.Cancellation("bk1", dec(tt.rate), t0)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Penalty.Equal(dec(tt.penalty)) || !s.Refund.Equal(dec(tt.refund)) || !s.Penalty.Add(s.Refund).Equal(s.Charged) {
			t.Errorf("%s x %s: penalty %s refund %s, want %s %s", tt.price, tt.rate, s.Penalty, s.Refund, tt.penalty, tt.refund)
		}
		wantPostings := 2
		if s.Penalty.IsZero() {
			wantPostings = 1
		}
		if len(s.Postings) != wantPostings {
			t.Errorf("rate %s: %d postings", tt.rate, len(s.Postings))
		}
		mustAppend(t, l, s.Postings...)
		if got := l.Balance(ledger.CustomerAccount("alice"))["GRD"]; !got.Equal(dec(tt.penalty)) {
			t.Errorf("customer owes %s after cancelling, want the penalty %s", got, tt.penalty)
		}
	}
	l := newLedger(t, ledger.Options{})
	charge(t, l, ref("bk1"), "10", t0)
	for _, rate := range []string{"-0.1", "1.01"} {
		_, err := l.Cancellation("bk1", dec(rate), t0)
		wantErr(t, err, slotfare.Invalid, "penalty_rate")
	}
	_, err := l.Cancellation("nope", dec("0.1"), t0)
	wantErr(t, err, slotfare.NotFound, "booking_id")
}

func TestNoShowEntries(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	charge(t, l, ref("bk1"), "80", t0)
	s, err := l.NoShow("bk1", dec("0.1"), t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Postings) != 2 || s.Postings[1].ID != "bk1/no_show_penalty" || s.Postings[1].Kind != ledger.KindNoShowPenalty ||
		!reflect.DeepEqual(lineStrings(s.Postings[1]), []string{"debit receivable:alice 8.00", "credit penalty_revenue:RAL 8.00"}) {
		t.Fatalf("no-show %+v", s.Postings)
	}
	if !s.Refund.Equal(dec("72")) {
		t.Fatalf("refund %s", s.Refund)
	}
	mustAppend(t, l, s.Postings...)
}

func TestDenialEntries(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	charge(t, l, ref("bk1"), "80", t0)
	s, err := l.Denial("bk1", dec("400.004"), t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Postings) != 2 || !s.Refund.Equal(dec("80")) || !s.Penalty.IsZero() || !s.Compensation.Equal(dec("400")) {
		t.Fatalf("denial %+v", s)
	}
	c := s.Postings[1]
	if want := []string{"debit compensation_expense:RAL 400.00", "credit receivable:alice 400.00"}; c.ID != "bk1/compensation" ||
		c.Kind != ledger.KindCompensation || !reflect.DeepEqual(lineStrings(c), want) {
		t.Fatalf("compensation %s %v", c.ID, lineStrings(c))
	}
	mustAppend(t, l, s.Postings...)
	if got := l.Balance(ledger.CustomerAccount("alice"))["GRD"]; !got.Equal(dec("-400")) {
		t.Fatalf("customer balance %s, want -400 (owed to them)", got)
	}

	l2 := newLedger(t, ledger.Options{})
	charge(t, l2, ref("bk2"), "80", t0)
	s, _ = l2.Denial("bk2", dec("0"), t0)
	if len(s.Postings) != 1 {
		t.Fatalf("denial without compensation: %d postings", len(s.Postings))
	}
	_, err = l2.Denial("bk2", dec("-1"), t0)
	wantErr(t, err, slotfare.Invalid, "compensation")
}

func TestCompensationEntries(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	goodwill, err := l.Compensation("gw-1", ledger.BookingRef{Customer: "bob", Resource: "NIKHEF", Currency: "EUR"}, dec("5"), t0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"debit compensation_expense:NIKHEF 5.00", "credit receivable:bob 5.00"}; goodwill.BookingID != "" ||
		!reflect.DeepEqual(lineStrings(goodwill), want) {
		t.Fatalf("goodwill %v", lineStrings(goodwill))
	}
	mustAppend(t, l, goodwill)

	// With a booking, the booking must be charged and the id derives from it.
	withBooking, err := l.Compensation("", ref("bk1"), dec("5"), t0)
	if err != nil || withBooking.ID != "bk1/compensation" {
		t.Fatalf("%v %v", withBooking.ID, err)
	}
	_, err = l.Prepare(withBooking)
	wantErr(t, err, slotfare.Conflict, "booking_id")
	charge(t, l, ref("bk1"), "10", t0)
	mustAppend(t, l, withBooking)

	_, err = l.Compensation("", ledger.BookingRef{Customer: "bob", Resource: "NIKHEF", Currency: "EUR"}, dec("5"), t0)
	wantErr(t, err, slotfare.Invalid, "booking_id")
	_, err = l.Compensation("gw-2", ref(""), dec("0"), t0)
	wantErr(t, err, slotfare.Invalid, "amount")
}

// TestStaleSettlementRefused: a cancellation built before a re-pricing was
// committed credits the old amount; the ledger refuses it rather than
// leave the customer billed for the difference.
func TestStaleSettlementRefused(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	charge(t, l, ref("bk1"), "100", t0)
	stale, err := l.Cancellation("bk1", dec("0.1"), t0.Add(2))
	if err != nil {
		t.Fatal(err)
	}
	up, _ := l.Modification("bk1", dec("150"), "GRD", decimal.Zero, t0.Add(1))
	mustAppend(t, l, up.Postings...)
	_, err = l.Append(stale.Postings...)
	wantErr(t, err, slotfare.Conflict, "booking_id")
	fresh, err := l.Cancellation("bk1", dec("0.1"), t0.Add(2))
	if err != nil || !fresh.Penalty.Equal(dec("15")) {
		t.Fatalf("fresh cancellation %+v %v", fresh, err)
	}
	mustAppend(t, l, fresh.Postings...)
}

// TestExtensionEntries: an extension bills the added time as a charge on
// top of what was billed, numbered after the re-pricings, and a later
// settlement refunds it with the rest.
func TestExtensionEntries(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	charge(t, l, ref("bk1"), "100", t0)
	until := at("2026-12-01T14:00:00Z")
	p, err := l.Extension("bk1", dec("25.004"), "GRD", until, t0.Add(1))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"debit receivable:alice 25.00", "credit revenue:RAL 25.00"}; p.ID != "bk1/adjustment/1" ||
		p.InvoiceKind() != ledger.KindCharge || !reflect.DeepEqual(lineStrings(p), want) {
		t.Fatalf("extension posting %s %s %v", p.ID, p.InvoiceKind(), lineStrings(p))
	}
	if p.Description != "booking bk1 extended to 2026-12-01T14:00:00Z: 25.00 GRD more" {
		t.Fatalf("description %q", p.Description)
	}
	mustAppend(t, l, p)
	_, err = l.Extension("bk1", dec("5"), "JPY", until, t0.Add(2))
	wantErr(t, err, slotfare.Conflict, "currency")
	_, err = l.Extension("bk1", dec("0.001"), "GRD", until, t0.Add(2))
	wantErr(t, err, slotfare.Invalid, "price")
	st, err := l.Cancellation("bk1", decimal.Zero, t0.Add(3))
	if err != nil || !st.Refund.Equal(dec("125")) {
		t.Fatalf("settlement after the extension: %+v %v", st, err)
	}
	mustAppend(t, l, st.Postings...)
	_, err = l.Extension("bk1", dec("5"), "GRD", until, t0.Add(4))
	wantErr(t, err, slotfare.Conflict, "booking_id")
}
