package records

import (
	"strconv"

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
		e, err := events.New("evt_"+b.ID+"_v"+v, typ, "bookings/"+b.ID, b.UpdatedAt, b)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	for _, p := range w.Postings {
		e, err := events.New("evt_"+p.ID, events.PostingCreated, "accounts/"+p.Customer, p.Time, p)
		if err != nil {
			return nil, err
		}
		period := ledger.PeriodOf(p.Time)
		inv := ledger.InvoiceID(p.Customer, period, p.Currency)
		u, err := events.New("evt_"+p.ID+"_invoice", events.InvoiceUpdated, "invoices/"+inv, p.Time, invoiceUpdate{
			InvoiceID: inv, AccountID: p.Customer, Period: period.String(), Currency: string(p.Currency), PostingID: p.ID, BookingID: p.BookingID})
		if err != nil {
			return nil, err
		}
		out = append(out, e, u)
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
