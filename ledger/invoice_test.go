package ledger_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/ledger"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ledger -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the golden file:\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

// TestInvoiceMonthBoundary: a posting at 23:59:59.999 UTC on the last day
// of a month is on that month's invoice; one at 00:00 UTC on the first is
// on the next month's.
func TestInvoiceMonthBoundary(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	charge(t, l, ref("late"), "10", at("2026-11-30T23:59:59.999Z"))
	charge(t, l, ref("early"), "20", at("2026-12-01T00:00:00Z"))
	// Time zones do not matter: 00:30 on Dec 1 in Paris is still November UTC.
	paris, _ := time.LoadLocation("Europe/Paris")
	charge(t, l, ref("paris"), "5", time.Date(2026, 12, 1, 0, 30, 0, 0, paris))

	now := at("2026-12-01T00:00:00Z")
	page, err := l.Invoices(ledger.InvoiceQuery{Account: "alice"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 2 || page.HasMore || page.NextCursor != "" {
		t.Fatalf("%d invoices, has_more %v", len(page.Data), page.HasMore)
	}
	nov, dec_ := page.Data[0], page.Data[1]
	if nov.ID != "inv_2026-11_GRD_alice" || !nov.PeriodStart.Equal(at("2026-11-01T00:00:00Z")) ||
		!nov.PeriodEnd.Equal(at("2026-12-01T00:00:00Z")) || nov.Status != ledger.InvoiceIssued {
		t.Fatalf("november: %+v", nov)
	}
	if len(nov.Lines) != 2 || nov.Lines[0].BookingID != "paris" || nov.Lines[1].BookingID != "late" || nov.Total.String() != "15.00" {
		t.Fatalf("november lines %+v total %s", nov.Lines, nov.Total)
	}
	if dec_.Status != ledger.InvoiceOpen || len(dec_.Lines) != 1 || dec_.Lines[0].BookingID != "early" || dec_.Total.String() != "20.00" {
		t.Fatalf("december: %+v", dec_)
	}
	// A moment before the month ends its invoice is still open.
	page, _ = l.Invoices(ledger.InvoiceQuery{Account: "alice", Period: "2026-11"}, at("2026-11-30T23:59:59.999999999Z"))
	if len(page.Data) != 1 || page.Data[0].Status != ledger.InvoiceOpen {
		t.Fatalf("november before its end: %+v", page.Data)
	}
}

// TestInvoiceLines: one month of a customer's life, every line kind, the
// customer-facing signs and the total as the receivable's movement; the
// JSON is compared with a golden file.
func TestInvoiceLines(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	day := func(d int) time.Time { return time.Date(2026, 11, d, 9, 0, 0, 0, time.UTC) }
	charge(t, l, ref("bk1"), "100", day(2))
	up, _ := l.Modification("bk1", dec("112.30"), "GRD", decimal.Zero, day(3))
	mustAppend(t, l, up.Postings...)
	s, _ := l.Cancellation("bk1", dec("0.1"), day(4))
	mustAppend(t, l, s.Postings...)

	charge(t, l, ref("bk2"), "50", day(5))
	down, _ := l.Modification("bk2", dec("40"), "GRD", decimal.Zero, day(6))
	mustAppend(t, l, down.Postings...)
	ns, _ := l.NoShow("bk2", dec("0.25"), day(7))
	mustAppend(t, l, ns.Postings...)

	charge(t, l, ref("bk3"), "30", day(8))
	dn, _ := l.Denial("bk3", dec("60"), day(9))
	mustAppend(t, l, dn.Postings...)
	gw, _ := l.Compensation("gw-1", ledger.BookingRef{Customer: "alice", Resource: "RAL", Currency: "GRD"}, dec("2.5"), day(10))
	mustAppend(t, l, gw)
	charge(t, l, ledger.BookingRef{ID: "bob1", Customer: "bob", Resource: "RAL", Currency: "GRD"}, "999", day(10))

	page, err := l.Invoices(ledger.InvoiceQuery{Account: "alice", Period: "2026-11"}, day(20))
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 1 {
		t.Fatalf("%d invoices", len(page.Data))
	}
	inv := page.Data[0]
	type line struct{ kind, booking, amount string }
	want := []line{
		{"charge", "bk1", "100.00"},
		{"charge", "bk1", "12.30"},
		{"cancellation_penalty", "bk1", "11.23"},
		{"refund", "bk1", "-112.30"},
		{"charge", "bk2", "50.00"},
		{"charge", "bk2", "-10.00"},
		{"no_show_penalty", "bk2", "10.00"},
		{"refund", "bk2", "-40.00"},
		{"charge", "bk3", "30.00"},
		{"compensation", "bk3", "-60.00"},
		{"refund", "bk3", "-30.00"},
		{"compensation", "", "-2.50"},
	}
	if len(inv.Lines) != len(want) {
		t.Fatalf("%d lines, want %d: %+v", len(inv.Lines), len(want), inv.Lines)
	}
	sum := decimal.Zero
	for i, w := range want {
		got := inv.Lines[i]
		if string(got.Kind) != w.kind || got.BookingID != w.booking || got.Amount.String() != w.amount {
			t.Errorf("line %d = %s %s %s, want %v", i, got.Kind, got.BookingID, got.Amount, w)
		}
		sum = sum.Add(got.Amount.Amount)
	}
	// Net: bk1 owes its penalty 11.23, bk2 its penalty 10.00, bk3 is owed
	// 60.00, the goodwill 2.50: -41.27, the receivable's balance.
	if inv.Subtotal.String() != "-41.27" || inv.Total.String() != "-41.27" || !sum.Equal(inv.Total.Amount) {
		t.Fatalf("subtotal %s total %s sum %s", inv.Subtotal, inv.Total, sum)
	}
	if bal := l.Balance(ledger.CustomerAccount("alice"))["GRD"]; !bal.Equal(inv.Total.Amount) {
		t.Fatalf("receivable %s != invoice total %s", bal, inv.Total)
	}
	if !s.Refund.Equal(dec("101.07")) || !s.Penalty.Equal(dec("11.23")) {
		t.Fatalf("cancellation reports refund %s penalty %s", s.Refund, s.Penalty)
	}
	single, err := l.Invoice("alice", ledger.Period{Year: 2026, Month: 11}, "GRD", day(20))
	if err != nil || single.ID != inv.ID || len(single.Lines) != len(inv.Lines) {
		t.Fatalf("Invoice: %v %v", single.ID, err)
	}
	_, err = l.Invoice("alice", ledger.Period{Year: 2026, Month: 10}, "GRD", day(20))
	wantErr(t, err, slotfare.NotFound, "")

	b, err := json.MarshalIndent(page, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "invoices.golden.json", append(b, '\n'))
	// The API's field names, money as strings at scale.
	var generic map[string]any
	json.Unmarshal(b, &generic)
	first := generic["data"].([]any)[0].(map[string]any)
	for _, f := range []string{"invoice_id", "account_id", "period_start", "period_end", "currency", "status", "lines", "subtotal", "total"} {
		if _, ok := first[f]; !ok {
			t.Errorf("invoice JSON lacks %q", f)
		}
	}
	l0 := first["lines"].([]any)[0].(map[string]any)
	for _, f := range []string{"kind", "booking_id", "description", "amount"} {
		if _, ok := l0[f]; !ok {
			t.Errorf("invoice line JSON lacks %q", f)
		}
	}
	if first["total"] != "-41.27" || l0["amount"] != "100.00" || first["period_start"] != "2026-11-01T00:00:00Z" {
		t.Errorf("JSON values: total %v amount %v start %v", first["total"], l0["amount"], first["period_start"])
	}
}

func TestInvoiceQueryValidation(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	charge(t, l, ref("bk1"), "10", t0)
	now := t0
	for _, bad := range []string{"2026-13", "2026-00", "2026-1", "26-11", "2026/11", "2026-11-01", "abcd-ef", "0000-01", "+026-11"} {
		_, err := l.Invoices(ledger.InvoiceQuery{Account: "alice", Period: bad}, now)
		wantErr(t, err, slotfare.Invalid, "period")
	}
	for _, bad := range []int{-1, 1001} {
		_, err := l.Invoices(ledger.InvoiceQuery{Account: "alice", Limit: bad}, now)
		wantErr(t, err, slotfare.Invalid, "limit")
	}
	_, err := l.Invoices(ledger.InvoiceQuery{}, now)
	wantErr(t, err, slotfare.Invalid, "account_id")
	_, err = l.Invoices(ledger.InvoiceQuery{Account: "alice", Cursor: "%%%"}, now)
	wantErr(t, err, slotfare.Invalid, "cursor")
	// An entries cursor is not an invoice cursor.
	charge(t, l, ref("bk2"), "10", t0)
	ep, _ := l.Entries(ledger.CustomerAccount("alice"), "", 1)
	_, err = l.Invoices(ledger.InvoiceQuery{Account: "alice", Cursor: ep.NextCursor}, now)
	wantErr(t, err, slotfare.Invalid, "cursor")

	for in, want := range map[string]int{"": 100, "1": 1, "1000": 1000} {
		if n, err := ledger.ParseLimit(in); err != nil || n != want {
			t.Errorf("ParseLimit(%q) = %d, %v", in, n, err)
		}
	}
	for _, bad := range []string{"0", "1001", "-3", "ten", "1.5"} {
		_, err := ledger.ParseLimit(bad)
		wantErr(t, err, slotfare.Invalid, "limit")
	}
	p, err := ledger.ParsePeriod("2026-02")
	if err != nil || p.String() != "2026-02" || !p.End().Equal(at("2026-03-01T00:00:00Z")) {
		t.Fatalf("ParsePeriod: %v %v", p, err)
	}
	// Unknown account: no invoices, not an error.
	page, err := l.Invoices(ledger.InvoiceQuery{Account: "nobody"}, now)
	if err != nil || len(page.Data) != 0 {
		t.Fatalf("unknown account: %v %v", page, err)
	}
	b, _ := json.Marshal(page)
	if string(b) != `{"data":[],"has_more":false,"next_cursor":null}` {
		t.Fatalf("empty page JSON %s", b)
	}
}

// TestInvoicePagination walks fourteen months of invoices in two
// currencies a few at a time: every invoice once, in (month, currency)
// order, and a cursor only for the listing that issued it.
func TestInvoicePagination(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	var want []string
	for m := 0; m < 14; m++ {
		when := time.Date(2026, time.Month(1+m), 15, 12, 0, 0, 0, time.UTC)
		p := ledger.PeriodOf(when)
		charge(t, l, ref(fmt.Sprintf("g%d", m)), "10", when)
		want = append(want, ledger.InvoiceID("alice", p, "GRD"))
		if m%3 == 0 {
			charge(t, l, ledger.BookingRef{ID: fmt.Sprintf("e%d", m), Customer: "alice", Resource: "NIKHEF", Currency: "EUR"}, "7", when)
			want = append(want, ledger.InvoiceID("alice", p, "EUR"))
			want[len(want)-1], want[len(want)-2] = want[len(want)-2], want[len(want)-1] // EUR before GRD
		}
	}
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		page, err := l.Invoices(ledger.InvoiceQuery{Account: "alice", Cursor: cursor, Limit: 4}, at("2030-01-01T00:00:00Z"))
		if err != nil {
			t.Fatal(err)
		}
		for _, inv := range page.Data {
			got = append(got, inv.ID)
		}
		if !page.HasMore {
			if page.NextCursor != "" {
				t.Fatal("a last page with a cursor")
			}
			break
		}
		if len(page.Data) != 4 || pages > 10 {
			t.Fatalf("page of %d", len(page.Data))
		}
		cursor = page.NextCursor
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("walk:\n got %v\nwant %v", got, want)
	}
	first, _ := l.Invoices(ledger.InvoiceQuery{Account: "alice", Limit: 1}, t0)
	_, err := l.Invoices(ledger.InvoiceQuery{Account: "bob", Cursor: first.NextCursor}, t0)
	wantErr(t, err, slotfare.Invalid, "cursor")
	_, err = l.Invoices(ledger.InvoiceQuery{Account: "alice", Period: "2026-01", Cursor: first.NextCursor}, t0)
	wantErr(t, err, slotfare.Invalid, "cursor")
	// Within one month, paging by currency.
	jan, _ := l.Invoices(ledger.InvoiceQuery{Account: "alice", Period: "2026-01", Limit: 1}, t0)
	if len(jan.Data) != 1 || jan.Data[0].Currency != "EUR" || !jan.HasMore {
		t.Fatalf("january page 1: %+v", jan)
	}
	jan, _ = l.Invoices(ledger.InvoiceQuery{Account: "alice", Period: "2026-01", Limit: 1, Cursor: jan.NextCursor}, t0)
	if len(jan.Data) != 1 || jan.Data[0].Currency != "GRD" || jan.HasMore {
		t.Fatalf("january page 2: %+v", jan)
	}
}

// TestInvoiceHugeAmounts: totals past what int64 units can hold are still
// exact.
func TestInvoiceHugeAmounts(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	charge(t, l, ref("a"), "90000000000000000.01", t0) // 9e18 units: fits an int64
	charge(t, l, ref("b"), "90000000000000000.01", t0) // the sum does not
	charge(t, l, ref("c"), "1", t0)
	charge(t, l, ref("d"), "123456789012345678901234567890.5", t0) // never fits
	page, err := l.Invoices(ledger.InvoiceQuery{Account: "alice"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Data[0].Total.String(); got != "123456789012525678901234567891.52" {
		t.Fatalf("total %s", got)
	}
}
