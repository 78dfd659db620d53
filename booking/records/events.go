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
	eventsOf(w, func(e events.Event, d eventData) {
		e.Data = d.appendJSON(nil)
		out = append(out, e)
	})
	return out, nil
}

// EncodedEventsOf are EventsOf(w), each as json.Marshal writes it, for a
// store to keep beside the write: each written once into its own buffer,
// its data (the booking's, the posting's JSON) straight after its head.
func EncodedEventsOf(w Write) ([][]byte, error) {
	out := make([][]byte, 0, len(w.Changes)+2*len(w.Postings))
	var err error
	eventsOf(w, func(e events.Event, d eventData) {
		b, herr := e.AppendHead(make([]byte, 0, d.size()))
		if herr != nil {
			err = herr
			return
		}
		out = append(out, append(d.appendJSON(b), '}'))
	})
	return out, err
}

// eventsOf calls add with each event of w, in order, without its data,
// and the data it carries.
func eventsOf(w Write, add func(events.Event, eventData)) {
	for i := range w.Changes {
		c := &w.Changes[i]
		b := &c.Record.Booking
		typ := events.BookingType(b.Status)
		if c.Replaces > 0 && c.From == b.Status {
			typ = events.BookingModified
		}
		v := strconv.FormatInt(c.Replaces+1, 10)
		add(events.NewEncoded("evt_"+b.ID+"_v"+v, typ, "bookings/"+b.ID, b.UpdatedAt, nil), eventData{booking: b})
	}
	for i := range w.Postings {
		p := &w.Postings[i]
		period := ledger.PeriodOf(p.Time)
		inv := ledger.InvoiceID(p.Customer, period, p.Currency)
		u := &invoiceUpdate{InvoiceID: inv, AccountID: p.Customer, Period: period.String(), Currency: string(p.Currency), PostingID: p.ID, BookingID: p.BookingID}
		add(events.NewEncoded("evt_"+p.ID, events.PostingCreated, "accounts/"+p.Customer, p.Time, nil), eventData{posting: p})
		add(events.NewEncoded("evt_"+p.ID+"_invoice", events.InvoiceUpdated, "invoices/"+inv, p.Time, nil), eventData{invoice: u})
	}
}

// eventData is an event's data: one of a booking, a posting or an
// invoice.updated, each encoded by hand as json.Marshal would.
type eventData struct {
	booking *booking.Booking
	posting *ledger.Posting
	invoice *invoiceUpdate
}

// size is room for the whole event: its head and its data.
func (d eventData) size() int {
	switch {
	case d.booking != nil:
		return 1024
	case d.posting != nil:
		return 640 + 96*len(d.posting.Lines)
	}
	return 512
}

func (d eventData) appendJSON(b []byte) []byte {
	switch {
	case d.booking != nil:
		return d.booking.AppendJSON(b)
	case d.posting != nil:
		return ledger.AppendPosting(b, *d.posting)
	}
	return d.invoice.appendJSON(b)
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
