package records

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/booking"
	"slotfare/booking/events"
	"slotfare/ledger"
)

// reflectEventsOf is EventsOf as json.Marshal makes it (events.New with
// the booking, posting and invoice.updated structs), the reference the
// hand-written encoding must match byte for byte.
func reflectEventsOf(t *testing.T, w Write) [][]byte {
	t.Helper()
	var out [][]byte
	add := func(id, typ, subject string, at time.Time, data any) {
		e, err := events.New(id, typ, subject, at, data)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	for _, c := range w.Changes {
		b := c.Record.Booking
		typ := events.BookingType(b.Status)
		if c.Replaces > 0 && c.From == b.Status {
			typ = events.BookingModified
		}
		add("evt_"+b.ID+"_v"+strconv.FormatInt(c.Replaces+1, 10), typ, "bookings/"+b.ID, b.UpdatedAt, b)
	}
	for _, p := range w.Postings {
		add("evt_"+p.ID, events.PostingCreated, "accounts/"+p.Customer, p.Time, p)
		period := ledger.PeriodOf(p.Time)
		inv := ledger.InvoiceID(p.Customer, period, p.Currency)
		add("evt_"+p.ID+"_invoice", events.InvoiceUpdated, "invoices/"+inv, p.Time, invoiceUpdate{
			InvoiceID: inv, AccountID: p.Customer, Period: period.String(), Currency: string(p.Currency), PostingID: p.ID, BookingID: p.BookingID})
	}
	return out
}

// eventsWrite is a write whose strings need escaping (HTML characters, a
// line separator, a quote, non-ASCII), with settled money, terms and a
// posting of no booking.
func eventsWrite() Write {
	at := time.Date(2026, 11, 29, 1, 2, 3, 450000000, time.FixedZone("X", 3600))
	exp := at.Add(time.Hour)
	pen := decimal.RequireFromString("12.5")
	b := booking.Booking{ID: "bk_<1>&\"x\"", AccountID: "acct é\u2028", Status: booking.Held, HoldExpiresAt: &exp,
		ResourceID: "res/1", Start: at, End: at.Add(2 * time.Hour), Nodes: 3, FareClass: "premium",
		Price:     booking.Price{Base: decimal.RequireFromString("100"), Total: decimal.RequireFromString("101.25"), Currency: "EUR"},
		Terms:     &booking.SaleTerms{Source: "a<b", Cancellation: []booking.CancellationStep{{BeforeStartSeconds: 3600, PenaltyRate: decimal.RequireFromString("0.5")}}},
		Penalty:   &pen,
		Profile:   "p&q",
		CreatedAt: at, UpdatedAt: at.Add(time.Minute)}
	c := b
	c.ID, c.Status, c.HoldExpiresAt, c.Terms, c.Penalty, c.Profile = "bk_2", booking.Committed, nil, nil, nil, ""
	post := func(id, bk string) ledger.Posting {
		return ledger.Posting{ID: id, Time: at, Kind: ledger.KindCharge, BookingID: bk, Customer: "acct<&>", Resource: "res/1",
			Currency: "EUR", Scale: 2, Description: "charge <b>&\u2029",
			Lines: []ledger.Line{ledger.DebitLine(ledger.CustomerAccount("acct<&>"), decimal.RequireFromString("101.25"))}}
	}
	return Write{Resource: "res/1", WriteID: "w1",
		Changes: []Change{{Record: booking.Record{Booking: b}}, {Record: booking.Record{Booking: c}, Replaces: 2, From: booking.Held},
			{Record: booking.Record{Booking: c}, Replaces: 3, From: booking.Committed}},
		Postings: []ledger.Posting{post("bk_2/charge", "bk_2"), post("comp/1", "")}}
}

// TestEncodedEventsAsJSONMarshal: the hand-written events are the bytes
// json.Marshal wrote for them, so they decode to the same events.
func TestEncodedEventsAsJSONMarshal(t *testing.T) {
	w := eventsWrite()
	got, err := EncodedEventsOf(w)
	if err != nil {
		t.Fatal(err)
	}
	want := reflectEventsOf(t, w)
	if len(got) != len(want) || len(got) != 7 {
		t.Fatalf("%d events, want %d (7)", len(got), len(want))
	}
	evs, err := EventsOf(w)
	if err != nil || len(evs) != len(want) {
		t.Fatalf("EventsOf: %d events, %v", len(evs), err)
	}
	for i, e := range evs {
		if b, err := json.Marshal(e); err != nil || !bytes.Equal(b, want[i]) {
			t.Errorf("EventsOf's event %d marshals to\n %s (%v)\nwant %s", i, b, err, want[i])
		}
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("event %d\n got %s\nwant %s", i, got[i], want[i])
		}
		var g, e events.Event
		if err := json.Unmarshal(got[i], &g); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if err := json.Unmarshal(want[i], &e); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, e) {
			t.Errorf("event %d decodes to %+v, want %+v", i, g, e)
		}
	}
}

// TestEventAppendJSONRefusesWhatMarshalRefuses: a time JSON cannot hold is
// an error, as from json.Marshal.
func TestEventAppendJSONRefusesWhatMarshalRefuses(t *testing.T) {
	e := events.NewEncoded("id", "t", "s", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), json.RawMessage(`{}`))
	if _, err := json.Marshal(e); err == nil {
		t.Fatal("json.Marshal accepted year 10000")
	}
	if b, err := e.AppendJSON(nil); err == nil {
		t.Fatalf("AppendJSON wrote %s for year 10000", b)
	}
}
