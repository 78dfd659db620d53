package records

import (
	"strconv"

	"slotfare/booking"
	"slotfare/booking/events"
	"slotfare/ledger"
)

// EventsOf are the events a write records, which a store keeps in the same
// atomic step as the write: per change, booking.<status> (booking.modified
// when it keeps its status: new terms), with the booking as its data; per
// posting, posting.created and invoice.updated for the customer's invoice
// of the posting's month and currency. Their ids come from the booking's
// new version and the posting's id, so a write made again makes the same
// events.
func EventsOf(w Write) ([]events.Event, error) {
	out := make([]events.Event, 0, len(w.Changes)+2*len(w.Postings))
	for _, c := range w.Changes {
		b := c.Record.Booking
		typ := events.BookingType(b.Status)
		if c.Replaces > 0 && c.From == b.Status {
			typ = events.BookingModified
		}
		v := strconv.FormatInt(c.Replaces+1, 10)
		data, _ := b.MarshalJSON() // never fails
		out = append(out, events.NewEncoded("evt_"+b.ID+"_v"+v, typ, "bookings/"+b.ID, b.UpdatedAt, data))
	}
	for _, p := range w.Postings {
		data, err := ledger.EncodePosting(p)
		if err != nil {
			return nil, err
		}
		period := ledger.PeriodOf(p.Time)
		inv := ledger.InvoiceID(p.Customer, period, p.Currency)
		u := invoiceUpdate{InvoiceID: inv, AccountID: p.Customer, Period: period.String(), Currency: string(p.Currency), PostingID: p.ID, BookingID: p.BookingID}
		out = append(out, events.NewEncoded("evt_"+p.ID, events.PostingCreated, "accounts/"+p.Customer, p.Time, data),
			events.NewEncoded("evt_"+p.ID+"_invoice", events.InvoiceUpdated, "invoices/"+inv, p.Time, u.appendJSON(nil)))
	}
	return out, nil
}

// EncodedEventsOf are EventsOf(w), each as json.Marshal writes it, for a
// store to keep beside the write.
func EncodedEventsOf(w Write) ([][]byte, error) {
	evs, err := EventsOf(w)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(evs))
	for i, e := range evs {
		if out[i], err = e.AppendJSON(make([]byte, 0, 256+len(e.Data))); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// invoiceUpdate is invoice.updated's data: which invoice a posting changed.
type invoiceUpdate struct {
	InvoiceID string `json:"invoice_id"`
	AccountID string `json:"account_id"`
	Period    string `json:"period"`
	Currency  string `json:"currency"`
	PostingID string `json:"posting_id"`
	BookingID string `json:"booking_id,omitempty"`
}

// appendJSON appends what json.Marshal writes for u.
func (u invoiceUpdate) appendJSON(b []byte) []byte {
	for _, f := range [...]struct{ name, v string }{{`{"invoice_id":`, u.InvoiceID}, {`,"account_id":`, u.AccountID},
		{`,"period":`, u.Period}, {`,"currency":`, u.Currency}, {`,"posting_id":`, u.PostingID}} {
		b = append(b, f.name...)
		b = booking.AppendJSONString(b, f.v)
	}
	if u.BookingID != "" {
		b = append(b, `,"booking_id":`...)
		b = booking.AppendJSONString(b, u.BookingID)
	}
	return append(b, '}')
}
