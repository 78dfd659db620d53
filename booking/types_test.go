package booking

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestBookingJSON(t *testing.T) {
	exp := time.Date(2026, 11, 24, 10, 10, 0, 0, time.FixedZone("X", 3600))
	pen := decimal.RequireFromString("1.5")
	b := Booking{
		ID: "bk_1", AccountID: "alice", Status: Cancelled, HoldExpiresAt: &exp, ResourceID: "RAL",
		Start: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC),
		Nodes: 4, FareClass: "budget",
		Price:   Price{Base: decimal.RequireFromString("12.3"), DelayPremium: decimal.Zero, Total: decimal.RequireFromString("12.3"), Currency: "GRD"},
		Penalty: &pen, CreatedAt: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC), UpdatedAt: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC),
	}
	got, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"booking_id":"bk_1","account_id":"alice","status":"cancelled","hold_expires_at":"2026-11-24T09:10:00Z",` +
		`"resource_id":"RAL","start":"2026-11-25T09:00:00Z","end":"2026-11-25T10:00:00Z","nodes":4,"fare_class":"budget",` +
		`"price":{"base":"12.30","delay_premium":"0.00","total":"12.30","currency":"GRD"},"penalty":"1.50",` +
		`"created_at":"2026-11-24T10:00:00Z","updated_at":"2026-11-24T10:00:00Z","checked_in":false}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	var back Booking
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	if string(again) != want {
		t.Fatalf("round trip: %s", again)
	}
	if !back.Penalty.Equal(pen) || back.Refund != nil || !back.HoldExpiresAt.Equal(exp) {
		t.Fatalf("round trip lost fields: %+v", back)
	}
}

func TestPageJSON(t *testing.T) {
	got, _ := json.Marshal(Page[int]{})
	if string(got) != `{"data":[],"has_more":false,"next_cursor":null}` {
		t.Fatal(string(got))
	}
	got, _ = json.Marshal(Page[int]{Data: []int{1}, HasMore: true, NextCursor: "c"})
	if string(got) != `{"data":[1],"has_more":true,"next_cursor":"c"}` {
		t.Fatal(string(got))
	}
}

func TestOfferJSON(t *testing.T) {
	o := Offer{OfferID: "o", ResourceID: "RAL", Start: time.Unix(0, 0), End: time.Unix(60, 0), Nodes: 1, FareClass: "premium",
		Solution: true, ExpiresAt: time.Unix(300, 0), Price: Price{Base: decimal.New(1, 0), DelayPremium: decimal.Zero, Total: decimal.New(1, 0), Currency: "JPY"}}
	got, _ := json.Marshal(o)
	want := `{"offer_id":"o","resource_id":"RAL","start":"1970-01-01T00:00:00Z","end":"1970-01-01T00:01:00Z","nodes":1,` +
		`"fare_class":"premium","solution":true,"expires_at":"1970-01-01T00:05:00Z","price":{"base":"1","delay_premium":"0","total":"1","currency":"JPY"}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// referenceJSON is the booking as encoding/json writes it from a tagged
// struct: what the hand-written encoder must equal byte for byte.
func referenceJSON(t *testing.T, b Booking) string {
	money := func(d *decimal.Decimal) *string {
		if d == nil {
			return nil
		}
		s := formatMoney(*d, b.Price.Currency)
		return &s
	}
	var hold *time.Time
	if b.HoldExpiresAt != nil {
		u := b.HoldExpiresAt.UTC()
		hold = &u
	}
	type price struct {
		Base         string `json:"base"`
		DelayPremium string `json:"delay_premium"`
		Total        string `json:"total"`
		Currency     string `json:"currency"`
	}
	out, err := json.Marshal(struct {
		ID            string     `json:"booking_id"`
		AccountID     string     `json:"account_id"`
		Status        Status     `json:"status"`
		HoldExpiresAt *time.Time `json:"hold_expires_at"`
		ResourceID    string     `json:"resource_id"`
		Start         time.Time  `json:"start"`
		End           time.Time  `json:"end"`
		Nodes         int        `json:"nodes"`
		FareClass     string     `json:"fare_class"`
		Price         price      `json:"price"`
		Terms         *SaleTerms `json:"terms,omitempty"`
		Penalty       *string    `json:"penalty,omitempty"`
		Refund        *string    `json:"refund,omitempty"`
		Compensation  *string    `json:"compensation,omitempty"`
		CreatedAt     time.Time  `json:"created_at"`
		UpdatedAt     time.Time  `json:"updated_at"`
		CheckedIn     bool       `json:"checked_in"`
		Profile       string     `json:"profile,omitempty"`
		StartedAt     *time.Time `json:"started_at,omitempty"`
		FinishedAt    *time.Time `json:"finished_at,omitempty"`
	}{b.ID, b.AccountID, b.Status, hold, b.ResourceID, b.Start.UTC(), b.End.UTC(), b.Nodes, b.FareClass,
		price{formatMoney(b.Price.Base, b.Price.Currency), formatMoney(b.Price.DelayPremium, b.Price.Currency), formatMoney(b.Price.Total, b.Price.Currency), b.Price.Currency},
		b.Terms, money(b.Penalty), money(b.Refund), money(b.Compensation), b.CreatedAt.UTC(), b.UpdatedAt.UTC(), b.CheckedIn, b.Profile, utcPtr(b.StartedAt), utcPtr(b.FinishedAt)})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestHandWrittenJSON(t *testing.T) {
	exp := time.Date(2026, 11, 24, 10, 10, 0, 123456789, time.FixedZone("X", 3600))
	d := decimal.RequireFromString("-12.345")
	cases := []Booking{
		{},
		{ID: "bk_1", AccountID: "alice", Status: Held, HoldExpiresAt: &exp, ResourceID: "RAL", Start: exp, End: exp.Add(time.Hour), Nodes: 3,
			FareClass: "budget", Price: Price{Base: decimal.New(5, -1), DelayPremium: decimal.Zero, Total: decimal.New(5, -1), Currency: "GRD"}},
		{ID: "q\"<x>&\\\n\u00e9\u2028", AccountID: "a\tb", Status: Denied, Penalty: &d, Refund: &d, Compensation: &d, CheckedIn: true, Profile: "blast/2.1", StartedAt: &exp, FinishedAt: &exp,
			Price: Price{Base: d, DelayPremium: d, Total: d, Currency: "JPY"}, CreatedAt: exp, UpdatedAt: exp},
		{ID: "bk_2", Status: Committed, Price: Price{Base: d, DelayPremium: d, Total: d, Currency: "GRD"}, Terms: &SaleTerms{Source: TermsAtSale,
			Cancellation:      []CancellationStep{{BeforeStartSeconds: 86400, PenaltyRate: decimal.Zero}, {BeforeStartSeconds: 0, PenaltyRate: decimal.RequireFromString("0.25")}},
			NoShowPenaltyRate: decimal.RequireFromString("0.250"), DeniedCostFactor: decimal.New(5, 0)}},
		{ID: "bk_3", Terms: &SaleTerms{Source: TermsFromConfiguration}},
	}
	for i, b := range cases {
		got, _ := json.Marshal(b)
		if want := referenceJSON(t, b); string(got) != want {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
		r := Record{Booking: b, Account: "alice", IdemKey: "k\"1", Fingerprint: "f", Groups: 2, HoldExpires: &exp,
			Orig: &Terms{Start: exp, End: exp, Nodes: 1, Price: b.Price}}
		want, _ := json.Marshal(r)
		got, err := r.AppendJSON(nil)
		if err != nil || string(got) != string(want) {
			t.Errorf("record %d:\n got %s\nwant %s", i, got, want)
		}
		var back Record
		if err := json.Unmarshal(got, &back); err != nil || back.Booking.ID != b.ID || back.Groups != 2 {
			t.Errorf("record %d does not decode: %v", i, err)
		}
	}
}

// referenceOfferJSON is the reflection encoding Offer.MarshalJSON used to
// be; the hand encoder must write the same bytes.
func referenceOfferJSON(t *testing.T, o Offer) string {
	t.Helper()
	out, err := json.Marshal(struct {
		OfferID    string    `json:"offer_id"`
		ResourceID string    `json:"resource_id"`
		Start      time.Time `json:"start"`
		End        time.Time `json:"end"`
		Nodes      int       `json:"nodes"`
		FareClass  string    `json:"fare_class"`
		Solution   bool      `json:"solution"`
		ExpiresAt  time.Time `json:"expires_at"`
		Price      Price     `json:"price"`
	}{o.OfferID, o.ResourceID, o.Start.UTC(), o.End.UTC(), o.Nodes, o.FareClass, o.Solution, o.ExpiresAt.UTC(), o.Price})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestHandWrittenOfferJSON compares Offer's hand encoder with the
// reflection reference on offers with escapes, zones, fractions of a
// second, zero values and negative amounts.
func TestHandWrittenOfferJSON(t *testing.T) {
	zone := time.FixedZone("X", -(3*3600 + 1800))
	at := time.Date(2026, 11, 24, 10, 10, 0, 123456789, zone)
	d := decimal.RequireFromString("-12.345")
	cases := []Offer{
		{},
		{OfferID: "of_abc-DEF_123", ResourceID: "RAL", Start: at, End: at.Add(time.Hour), Nodes: 3, FareClass: "premium",
			Solution: true, ExpiresAt: at.Add(5 * time.Minute), Price: Price{Base: decimal.New(5, -1), DelayPremium: decimal.Zero, Total: decimal.New(5, -1), Currency: "GRD"}},
		{OfferID: "q\"<x>&\\\n\u00e9\u2028", ResourceID: "a\tb", Start: at.UTC(), End: at, Nodes: -1, FareClass: "\x00",
			ExpiresAt: time.Unix(0, 1), Price: Price{Base: d, DelayPremium: d, Total: d, Currency: "JPY"}},
	}
	for i, o := range cases {
		want := referenceOfferJSON(t, o)
		got, err := o.MarshalJSON()
		if err != nil || string(got) != want {
			t.Errorf("case %d:\n got %s (%v)\nwant %s", i, got, err, want)
		}
		if via, err := json.Marshal([]Offer{o}); err != nil || string(via) != "["+want+"]" {
			t.Errorf("case %d in a slice:\n got %s (%v)\nwant [%s]", i, via, err, want)
		}
	}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// TestRefundAsInvoiced: a settled booking stored before bookings carried
// terms kept its net refund; it is shown with everything billed credited
// back, as its invoice shows it, and only once.
func TestRefundAsInvoiced(t *testing.T) {
	pen, ref := decimal.RequireFromString("25"), decimal.RequireFromString("75")
	old := Booking{Status: Cancelled, Penalty: &pen, Refund: &ref}
	old.RefundAsInvoiced()
	if !old.Refund.Equal(decimal.NewFromInt(100)) || !ref.Equal(decimal.NewFromInt(75)) {
		t.Fatalf("refund %s (stored %s), want 100 shown and the stored value untouched", old.Refund, ref)
	}
	fresh := Booking{Status: Cancelled, Penalty: &pen, Refund: &ref, Terms: &SaleTerms{Source: TermsAtSale}}
	fresh.RefundAsInvoiced()
	if !fresh.Refund.Equal(ref) {
		t.Fatalf("a booking with terms changed its refund to %s", fresh.Refund)
	}
}
