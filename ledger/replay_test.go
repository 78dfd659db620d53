package ledger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"slotfare"
	"slotfare/ledger"
)

// snapshot is everything a reader can see of a ledger, as JSON.
func snapshot(t *testing.T, l *ledger.Ledger) string {
	t.Helper()
	var b strings.Builder
	for _, a := range l.Accounts() {
		page, err := l.Entries(a, "", ledger.MaxLimit)
		if err != nil {
			t.Fatal(err)
		}
		bal, _ := json.Marshal(l.Balance(a))
		ent, _ := json.Marshal(page)
		b.WriteString(string(a) + " " + string(bal) + " " + string(ent) + "\n")
	}
	for _, c := range []string{"alice", "bob"} {
		inv, _ := l.Invoices(ledger.InvoiceQuery{Account: c}, at("2027-01-01T00:00:00Z"))
		j, _ := json.Marshal(inv)
		b.Write(j)
	}
	return b.String()
}

// TestReplayRebuildsTheLedger: the postings a ledger handed out to be
// stored (Pending.ToPersist), replayed in their order into an empty
// ledger, show exactly what the first one showed, and the history they
// carry is enforced.
func TestReplayRebuildsTheLedger(t *testing.T) {
	eur := ledger.Currencies{"EUR": {Scale: 3}}
	l := newLedger(t, ledger.Options{Currencies: eur})
	var stored []ledger.Posting
	for _, p := range samplePostings(t) {
		stored = append(stored, mustAppend(t, l, p)...)
	}
	p, _ := l.Charge(ref("bk9"), dec("9.99"), at("2026-12-24T12:00:00Z"))
	pend, err := l.Prepare(p)
	if err != nil {
		t.Fatal(err)
	}
	stored = append(stored, pend.ToPersist()...)
	if err := pend.Commit(); err != nil {
		t.Fatal(err)
	}
	want := snapshot(t, l)

	replayed := newLedger(t, ledger.Options{Currencies: eur})
	if err := replayed.Replay(context.Background(), stored); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, replayed); got != want {
		t.Fatalf("replayed ledger differs:\n got %s\nwant %s", got, want)
	}
	wantErr(t, replayed.Replay(context.Background(), stored), slotfare.Conflict, "")
	// bk1 was cancelled: the replayed ledger refuses to settle it again.
	_, err = replayed.Cancellation("bk1", dec("0"), at("2027-01-01T00:00:00Z"))
	wantErr(t, err, slotfare.Conflict, "booking_id")
}

// TestReplayRefusesBadHistory: postings no ledger would have handed out
// are refused whole; an identical posting stored twice counts once.
func TestReplayRefusesBadHistory(t *testing.T) {
	cp := func(id string, amount string) ledger.Posting { return chargePosting(id, amount) }
	unbalanced := cp("x/charge", "10")
	unbalanced.Lines[1].Amount = dec("9")
	tests := []struct {
		name  string
		batch []ledger.Posting
	}{
		{"unbalanced", []ledger.Posting{unbalanced}},
		{"two charges", []ledger.Posting{cp("bk1/charge", "10"), cp("bk1/charge-2", "10")}},
		{"same id, other content", []ledger.Posting{cp("bk1/charge", "10"), cp("bk1/charge", "11")}},
		{"needs rounding", []ledger.Posting{cp("bk1/charge", "10.005")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLedger(t, ledger.Options{})
			wantErr(t, l.Replay(context.Background(), tt.batch), slotfare.Other, "")
			if l.Len() != 0 || len(l.Accounts()) != 0 {
				t.Fatal("a failed replay left postings behind")
			}
		})
	}
	p := charge(t, newLedger(t, ledger.Options{}), ref("bk1"), "10", t0)
	l := newLedger(t, ledger.Options{})
	if err := l.Replay(context.Background(), []ledger.Posting{p, p}); err != nil || l.Len() != 1 {
		t.Fatalf("duplicate: len %d, %v", l.Len(), err)
	}
}

// TestReplayAfterScaleChange: raising a currency's scale keeps stored
// postings valid; lowering it below their digits is refused.
func TestReplayAfterScaleChange(t *testing.T) {
	l := newLedger(t, ledger.Options{Currencies: ledger.Currencies{"GRD": {Scale: 3}}})
	stored := []ledger.Posting{charge(t, l, ref("bk1"), "10.125", t0)}
	up := newLedger(t, ledger.Options{Currencies: ledger.Currencies{"GRD": {Scale: 4}}})
	if err := up.Replay(context.Background(), stored); err != nil {
		t.Fatalf("scale raised: %v", err)
	}
	down := newLedger(t, ledger.Options{})
	wantErr(t, down.Replay(context.Background(), stored), slotfare.Other, "")
}

// TestReplayOfResourcesOneAfterTheOther: the postings of two resources
// replayed one resource after the other (as the service reads them, each
// resource's in its stored order) show what the ledger that took them as
// they came showed: every account's entries in (time, id) order, postings
// of one instant included.
func TestReplayOfResourcesOneAfterTheOther(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	byRes := map[string][]ledger.Posting{}
	for i := range 40 {
		res := []string{"RAL", "Bologna"}[i%2]
		r := ledger.BookingRef{ID: fmt.Sprintf("bk%02d", 39-i), Customer: []string{"alice", "bob", "carol"}[i%3], Resource: res, Currency: "GRD"}
		when := t0.Add(time.Duration(i/4) * time.Minute) // four postings an instant
		ps := mustAppend(t, l, charge(t, l, r, "12.50", when))
		if i%5 == 0 {
			st, err := l.NoShow(r.ID, dec("0.25"), when.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, mustAppend(t, l, st.Postings...)...)
		}
		byRes[res] = append(byRes[res], ps...)
	}
	want := snapshot(t, l)
	for _, order := range [][]string{{"RAL", "Bologna"}, {"Bologna", "RAL"}} {
		var stored []ledger.Posting
		for _, res := range order {
			stored = append(stored, byRes[res]...)
		}
		r := newLedger(t, ledger.Options{})
		if err := r.Replay(context.Background(), stored); err != nil {
			t.Fatal(err)
		}
		if got := snapshot(t, r); got != want {
			t.Fatalf("%v replayed:\n got %s\nwant %s", order, got, want)
		}
	}
}
