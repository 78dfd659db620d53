package ledger_test

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"
	"time"

	"slotfare"
	"slotfare/ledger"
)

func TestAppendIsIdempotent(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	first := mustAppend(t, l, chargePosting("bk1/charge", "100.005"))[0]
	// The same event again, even unrounded as before, is a no-op that
	// returns the stored posting.
	again := mustAppend(t, l, chargePosting("bk1/charge", "100.005"))[0]
	if l.Len() != 1 {
		t.Fatalf("Len = %d after a replayed append", l.Len())
	}
	if !reflect.DeepEqual(lineStrings(first), lineStrings(again)) || !again.Time.Equal(first.Time) {
		t.Fatalf("replay returned %v, stored %v", lineStrings(again), lineStrings(first))
	}
	pend, err := l.Prepare(chargePosting("bk1/charge", "100.00"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pend.ToPersist()) != 0 || len(pend.Postings()) != 1 {
		t.Fatalf("replay prepares %d to persist, %d in all", len(pend.ToPersist()), len(pend.Postings()))
	}
	if err := pend.Commit(); err != nil {
		t.Fatalf("committing a replay: %v", err)
	}

	// Same id, other content: Conflict, nothing changes.
	tests := map[string]func(p *ledger.Posting){
		"amount":      func(p *ledger.Posting) { p.Lines[0].Amount, p.Lines[1].Amount = dec("100.01"), dec("100.01") },
		"time":        func(p *ledger.Posting) { p.Time = p.Time.Add(time.Millisecond) },
		"description": func(p *ledger.Posting) { p.Description = "other" },
	}
	for name, change := range tests {
		p := chargePosting("bk1/charge", "100.00")
		change(&p)
		_, err := l.Append(p)
		wantErr(t, err, slotfare.Conflict, "id")
		if !strings.Contains(err.Error(), "other content") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if l.Len() != 1 {
		t.Fatalf("Len = %d after conflicts", l.Len())
	}
}

func TestBatchDuplicates(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	p := chargePosting("bk1/charge", "10")
	if got := mustAppend(t, l, p, p); len(got) != 1 {
		t.Fatalf("identical duplicates in a batch: %d postings", len(got))
	}
	q := chargePosting("bk2/charge", "10")
	q2 := chargePosting("bk2/charge", "11")
	_, err := l.Prepare(q, q2)
	wantErr(t, err, slotfare.Invalid, "id")
	_, err = l.Prepare()
	wantErr(t, err, slotfare.Invalid, "postings")
}

func TestPrepareCommitAbort(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	b := ref("bk1")
	p, err := l.Charge(b, dec("50"), at("2026-11-02T10:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	pend, err := l.Prepare(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := pend.ToPersist(); len(got) != 1 || got[0].ID != "bk1/charge" {
		t.Fatalf("ToPersist = %v", got)
	}
	// Not visible before Commit.
	if l.Len() != 0 || len(l.Balance(ledger.CustomerAccount("alice"))) != 0 {
		t.Fatal("a prepared batch is visible")
	}
	page, _ := l.Entries(ledger.CustomerAccount("alice"), "", 0)
	if len(page.Data) != 0 {
		t.Fatal("a prepared batch is listed")
	}
	// Reserved: the same id, or another posting of the same booking, waits.
	_, err = l.Prepare(p)
	wantErr(t, err, slotfare.Conflict, "id")
	other := p
	other.ID = "bk1/charge-again"
	_, err = l.Prepare(other)
	wantErr(t, err, slotfare.Conflict, "booking_id")

	pend.Abort()
	if l.Len() != 0 {
		t.Fatal("aborted batch is visible")
	}
	wantErr(t, pend.Commit(), slotfare.Conflict, "")

	pend, err = l.Prepare(p)
	if err != nil {
		t.Fatalf("after abort: %v", err)
	}
	if err := pend.Commit(); err != nil {
		t.Fatal(err)
	}
	pend.Abort() // no-op after commit
	if err := pend.Commit(); err != nil {
		t.Fatalf("second commit: %v", err)
	}
	if l.Len() != 1 || !l.Balance(ledger.CustomerAccount("alice"))["GRD"].Equal(dec("50")) {
		t.Fatalf("after commit: len %d balance %v", l.Len(), l.Balance(ledger.CustomerAccount("alice")))
	}
}

// TestAbortedBatchChangesNothing: a prepared batch whose write failed is
// aborted: nothing of it shows, and its ids and booking are free again for
// the retry.
func TestAbortedBatchChangesNothing(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	pend, err := l.Prepare(chargePosting("bk1/charge", "10"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Prepare(chargePosting("bk1/charge", "10")); err == nil {
		t.Fatal("a batch prepared twice at once: the first one's reservation is not held")
	}
	pend.Abort()
	if l.Len() != 0 || len(l.Accounts()) != 0 {
		t.Fatalf("an aborted batch shows: len %d", l.Len())
	}
	if got := mustAppend(t, l, chargePosting("bk1/charge", "10")); len(got) != 1 || l.Len() != 1 {
		t.Fatalf("the retry after the abort: %v, len %d", got, l.Len())
	}
}

// TestAppendOnly: the ledger has no way to change or remove a posting,
// and what it hands out shares no memory with what it keeps.
func TestAppendOnly(t *testing.T) {
	typ := reflect.TypeOf(&ledger.Ledger{})
	for i := 0; i < typ.NumMethod(); i++ {
		name := typ.Method(i).Name
		for _, verb := range []string{"Update", "Delete", "Remove", "Edit", "Set", "Put", "Reset", "Truncate", "Amend"} {
			if strings.HasPrefix(name, verb) {
				t.Errorf("Ledger has a mutating method %s", name)
			}
		}
	}
	l := newLedger(t, ledger.Options{})
	got := mustAppend(t, l, chargePosting("bk1/charge", "10"))
	got[0].Lines[0].Amount = dec("999")
	got[0].Lines[0].Account = "receivable:mallory"
	p, err := l.Posting("bk1/charge")
	if err != nil {
		t.Fatal(err)
	}
	p.Lines[1].Amount = dec("999")
	page, _ := l.Entries(ledger.CustomerAccount("alice"), "", 0)
	page.Data[0].Lines[0].Amount = dec("999")
	for _, q := range l.BookingPostings("bk1") {
		q.Lines[0].Amount = dec("999")
	}
	stored, _ := l.Posting("bk1/charge")
	if want := []string{"debit receivable:alice 10.00", "credit revenue:RAL 10.00"}; !reflect.DeepEqual(lineStrings(stored), want) {
		t.Fatalf("stored posting changed through a returned copy: %v", lineStrings(stored))
	}
	_, err = l.Posting("nope")
	wantErr(t, err, slotfare.NotFound, "")
}

func TestBookingRules(t *testing.T) {
	when := at("2026-11-02T10:00:00Z")
	l := newLedger(t, ledger.Options{})
	charge(t, l, ref("bk1"), "100", when)

	second := chargePosting("bk1/charge-2", "100")
	_, err := l.Prepare(second)
	wantErr(t, err, slotfare.Conflict, "booking_id")

	// Refunds credit exactly what was billed.
	partial := ledger.Posting{ID: "bk1/refund", Time: when, Kind: ledger.KindRefund, BookingID: "bk1",
		Customer: "alice", Resource: "RAL", Currency: "GRD", Lines: []ledger.Line{
			ledger.DebitLine(ledger.Account(ledger.Refunds, "RAL"), dec("60")),
			ledger.CreditLine(ledger.CustomerAccount("alice"), dec("60"))}}
	_, err = l.Prepare(partial)
	wantErr(t, err, slotfare.Conflict, "booking_id")

	pen := ledger.Posting{ID: "bk1/cancellation_penalty", Time: when, Kind: ledger.KindCancellationPenalty, BookingID: "bk1",
		Customer: "alice", Resource: "RAL", Currency: "GRD", Lines: []ledger.Line{
			ledger.DebitLine(ledger.CustomerAccount("alice"), dec("10")),
			ledger.CreditLine(ledger.Account(ledger.PenaltyRevenue, "RAL"), dec("10"))}}

	// Postings of another booking's customer, resource or currency.
	for _, change := range []func(p *ledger.Posting){
		func(p *ledger.Posting) { p.Currency = "EUR" },
		func(p *ledger.Posting) {
			p.Resource = "NIKHEF"
			p.Lines[0].Account = ledger.Account(ledger.Refunds, "NIKHEF")
		},
	} {
		p := partial
		p.Lines = append([]ledger.Line(nil), partial.Lines...)
		p.Lines[0].Amount, p.Lines[1].Amount = dec("100"), dec("100")
		change(&p)
		_, err = l.Prepare(p)
		wantErr(t, err, slotfare.Conflict, "booking_id")
	}

	// A re-pricing down to nothing is refused (cancel instead).
	toZero := ledger.Posting{ID: "bk1/adjustment/1", Time: when, Kind: ledger.KindAdjustment, BookingID: "bk1",
		Customer: "alice", Resource: "RAL", Currency: "GRD", Lines: []ledger.Line{
			ledger.DebitLine(ledger.Account(ledger.Refunds, "RAL"), dec("100")),
			ledger.CreditLine(ledger.CustomerAccount("alice"), dec("100"))}}
	_, err = l.Prepare(toZero)
	wantErr(t, err, slotfare.Conflict, "booking_id")
	raise := ledger.Posting{ID: "bk1/adjustment/1", Time: when, Kind: ledger.KindAdjustment, BookingID: "bk1",
		Customer: "alice", Resource: "RAL", Currency: "GRD", Lines: []ledger.Line{
			ledger.DebitLine(ledger.CustomerAccount("alice"), dec("5")),
			ledger.CreditLine(ledger.Account(ledger.Revenue, "RAL"), dec("5"))}}

	// No posting for a booking without a charge.
	orphan := pen
	orphan.ID, orphan.BookingID = "bk9/cancellation_penalty", "bk9"
	_, err = l.Prepare(orphan)
	wantErr(t, err, slotfare.Conflict, "booking_id")

	// A penalty larger than the amount billed, even after the refund.
	full := partial
	full.Lines = []ledger.Line{
		ledger.DebitLine(ledger.Account(ledger.Refunds, "RAL"), dec("100")),
		ledger.CreditLine(ledger.CustomerAccount("alice"), dec("100"))}
	big := pen
	big.Lines = []ledger.Line{
		ledger.DebitLine(ledger.CustomerAccount("alice"), dec("100.01")),
		ledger.CreditLine(ledger.Account(ledger.PenaltyRevenue, "RAL"), dec("100.01"))}
	_, err = l.Prepare(full, big)
	wantErr(t, err, slotfare.Conflict, "booking_id")
	if l.Len() != 1 {
		t.Fatalf("a rejected batch left %d postings", l.Len())
	}
	// Penalty and refund settle in either order; then nothing more.
	mustAppend(t, l, pen, full)
	pen2 := pen
	pen2.ID = "bk1/no_show_penalty"
	pen2.Kind = ledger.KindNoShowPenalty
	_, err = l.Prepare(pen2)
	wantErr(t, err, slotfare.Conflict, "booking_id")
	again := full
	again.ID = "bk1/refund-2"
	_, err = l.Prepare(again)
	wantErr(t, err, slotfare.Conflict, "booking_id")
	_, err = l.Prepare(raise)
	wantErr(t, err, slotfare.Conflict, "booking_id")
	_, err = l.Modification("bk1", dec("5"), "GRD", decimal.Zero, when)
	wantErr(t, err, slotfare.Conflict, "booking_id")
}

// TestConcurrentUse hammers one ledger from many goroutines: appends of
// charges and cancellations, replays of the same events, and reads; run
// with -race. Every booking ends charged once and settled at most once.
func TestConcurrentUse(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	const workers, perWorker = 8, 60
	var wg sync.WaitGroup
	start := at("2026-11-01T00:00:00Z")
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWorker; i++ {
				// Two workers share each booking, so events collide.
				id := fmt.Sprintf("bk%d-%d", w/2, i)
				when := start.Add(time.Duration(i) * time.Minute)
				b := ledger.BookingRef{ID: id, Customer: fmt.Sprintf("c%d", i%5), Resource: "RAL", Currency: "GRD"}
				if p, err := l.Charge(b, dec("12.50"), when); err == nil {
					_, _ = l.Append(p)
				}
				if i%3 == 0 {
					if s, err := l.Cancellation(id, dec("0.1"), when.Add(time.Second)); err == nil {
						_, _ = l.Append(s.Postings...)
					}
				}
				l.Entries(ledger.CustomerAccount(b.Customer), "", 10)
				l.Balance(ledger.Account(ledger.Revenue, "RAL"))
				l.Invoices(ledger.InvoiceQuery{Account: b.Customer}, when)
			}
		}()
	}
	wg.Wait()
	for w := 0; w < workers/2; w++ {
		for i := 0; i < perWorker; i++ {
			id := fmt.Sprintf("bk%d-%d", w, i)
			ps := l.BookingPostings(id)
			want := 1
			if i%3 == 0 {
				want = 3
			}
			if len(ps) != want {
				t.Fatalf("booking %s has %d postings, want %d: %v", id, len(ps), want, ps)
			}
		}
	}
	if got := l.Balance(ledger.Account(ledger.PenaltyRevenue, "RAL"))["GRD"]; !got.Equal(dec("-1.25").Mul(dec("80"))) {
		t.Fatalf("penalty revenue %s", got)
	}
}
