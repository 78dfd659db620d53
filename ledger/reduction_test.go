package ledger_test

import (
	"reflect"
	"testing"

	"slotfare"
	"slotfare/ledger"
)

// TestReductionKeepsPenalty: giving part of a booking up is a partial
// cancellation. Shrinking and then cancelling keeps exactly what
// cancelling the whole would have kept (issue 9, defect 7).
func TestReductionKeepsPenalty(t *testing.T) {
	rate := dec("0.2")
	whole := newLedger(t, ledger.Options{})
	charge(t, whole, ref("bk1"), "100", t0)
	st, err := whole.Cancellation("bk1", rate, t0.Add(2))
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, whole, st.Postings...)

	l := newLedger(t, ledger.Options{})
	charge(t, l, ref("bk1"), "100", t0)
	down, err := l.Modification("bk1", dec("60"), "GRD", rate, t0.Add(1))
	if err != nil {
		t.Fatal(err)
	}
	if !down.Penalty.Equal(dec("8")) || len(down.Postings) != 2 {
		t.Fatalf("reduction: %+v", down)
	}
	p := down.Postings[1]
	if want := []string{"debit receivable:alice 8.00", "credit penalty_revenue:RAL 8.00"}; p.ID != "bk1/reduction_penalty/1" ||
		p.Kind != ledger.KindReductionPenalty || p.InvoiceKind() != ledger.KindCancellationPenalty || !reflect.DeepEqual(lineStrings(p), want) {
		t.Fatalf("reduction penalty posting %s %s %v", p.ID, p.InvoiceKind(), lineStrings(p))
	}
	mustAppend(t, l, down.Postings...)
	st2, err := l.Cancellation("bk1", rate, t0.Add(2))
	if err != nil {
		t.Fatal(err)
	}
	if !st2.Charged.Equal(dec("60")) || !st2.Penalty.Equal(dec("12")) {
		t.Fatalf("cancellation after the reduction: %+v", st2)
	}
	mustAppend(t, l, st2.Postings...)
	a, b := whole.Balance(ledger.CustomerAccount("alice"))["GRD"], l.Balance(ledger.CustomerAccount("alice"))["GRD"]
	if !a.Equal(dec("20")) || !b.Equal(a) {
		t.Fatalf("customer owes %s after shrink then cancel, %s after a plain cancel; want 20 both", b, a)
	}
	if got := l.Balance(ledger.Account(ledger.PenaltyRevenue, "RAL"))["GRD"]; !got.Equal(dec("-20")) {
		t.Fatalf("penalty revenue %s, want 20", got)
	}

	// A higher price keeps nothing; a rate outside [0, 1] is refused.
	l2 := newLedger(t, ledger.Options{})
	charge(t, l2, ref("bk2"), "100", t0)
	up, err := l2.Modification("bk2", dec("150"), "GRD", rate, t0.Add(1))
	if err != nil || !up.Penalty.IsZero() || len(up.Postings) != 1 {
		t.Fatalf("price up: %+v %v", up, err)
	}
	_, err = l2.Modification("bk2", dec("50"), "GRD", dec("1.5"), t0.Add(1))
	wantErr(t, err, slotfare.Invalid, "penalty_rate")
}

// TestModificationKeepsCurrency: a booking is billed in one currency for
// life; a price in another is refused, never posted as if it were the
// same unit (issue 9, defect 3: 8,091,900.00 GRD after GRD -> JPY).
func TestModificationKeepsCurrency(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	charge(t, l, ref("bk1"), "100", t0)
	_, err := l.Modification("bk1", dec("8092000"), "JPY", dec("0"), t0.Add(1))
	wantErr(t, err, slotfare.Conflict, "currency")
	if n := len(l.BookingPostings("bk1")); n != 1 {
		t.Fatalf("%d postings after a refused modification, want the charge only", n)
	}
}
