package booking

import (
	"encoding/json"
	"time"

	"github.com/shopspring/decimal"
)

// Quote kinds.
const (
	QuoteCancellation = "cancellation"
	QuoteModification = "modification"
)

// Quote is what a change of a booking would cost if made now, and until
// when the service honours it: a cancel or PATCH that carries its ID within
// ValidUntil posts exactly these amounts (or is refused if the quote no
// longer holds). A cancellation's Penalty and Refund are the booking's
// penalty and refund once cancelled; a modification's Price is the new
// price, Difference what is billed (positive) or credited (negative), and
// Penalty what is kept of a reduction. PenaltyRate is the rate applied.
type Quote struct {
	ID          string
	BookingID   string
	Kind        string
	Penalty     decimal.Decimal
	Refund      decimal.Decimal
	PenaltyRate decimal.Decimal
	Currency    string
	ValidUntil  time.Time
	Start, End  time.Time
	Nodes       int
	Price       Price
	Difference  decimal.Decimal
}

// MarshalJSON writes the quote of its kind: money as strings with the
// currency's digits, times in UTC.
func (q Quote) MarshalJSON() ([]byte, error) {
	money := func(d decimal.Decimal) string { return formatMoney(d, q.Currency) }
	if q.Kind == QuoteCancellation {
		return json.Marshal(struct {
			ID          string    `json:"quote_id"`
			BookingID   string    `json:"booking_id"`
			Kind        string    `json:"kind"`
			Penalty     string    `json:"penalty"`
			Refund      string    `json:"refund"`
			PenaltyRate string    `json:"penalty_rate"`
			Currency    string    `json:"currency"`
			ValidUntil  time.Time `json:"valid_until"`
		}{q.ID, q.BookingID, q.Kind, money(q.Penalty), money(q.Refund), q.PenaltyRate.String(), q.Currency, q.ValidUntil.UTC()})
	}
	return json.Marshal(struct {
		ID          string          `json:"quote_id"`
		BookingID   string          `json:"booking_id"`
		Kind        string          `json:"kind"`
		Start       time.Time       `json:"start"`
		End         time.Time       `json:"end"`
		Nodes       int             `json:"nodes"`
		Price       json.RawMessage `json:"price"`
		Difference  string          `json:"difference"`
		Penalty     string          `json:"penalty"`
		PenaltyRate string          `json:"penalty_rate"`
		Currency    string          `json:"currency"`
		ValidUntil  time.Time       `json:"valid_until"`
	}{q.ID, q.BookingID, q.Kind, q.Start.UTC(), q.End.UTC(), q.Nodes, q.Price.appendJSON(nil), money(q.Difference), money(q.Penalty),
		q.PenaltyRate.String(), q.Currency, q.ValidUntil.UTC()})
}
