package booking

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// The booking's JSON is written by hand (it is on every response and every
// store write): the same bytes encoding/json would write for bookingJSON
// with the money formatted, without reflection or re-compaction.

// appendString appends s as a JSON string, escaped as encoding/json does
// (HTML characters included); strings that need no escaping take a fast path.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// AppendJSONString appends s as json.Marshal writes a string (HTML
// characters escaped), for other packages' hand-written encodings.
func AppendJSONString(b []byte, s string) []byte { return appendString(b, s) }

// appendTime appends t in UTC as encoding/json writes a time.Time.
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

func appendMoney(b []byte, d decimal.Decimal, currency string) []byte {
	return appendString(b, formatMoney(d, currency))
}

// appendJSON appends the price object.
func (p Price) appendJSON(b []byte) []byte {
	b = append(b, `{"base":`...)
	b = appendMoney(b, p.Base, p.Currency)
	b = append(b, `,"delay_premium":`...)
	b = appendMoney(b, p.DelayPremium, p.Currency)
	b = append(b, `,"total":`...)
	b = appendMoney(b, p.Total, p.Currency)
	b = append(b, `,"currency":`...)
	b = appendString(b, p.Currency)
	return append(b, '}')
}

// appendJSON appends API.md's offer object: the bytes encoding/json writes
// for the offer struct in referenceOfferJSON (types_test.go), by hand:
// every offers answer carries several.
func (o Offer) appendJSON(b []byte) []byte {
	b = append(b, `{"offer_id":`...)
	b = appendString(b, o.OfferID)
	b = append(b, `,"resource_id":`...)
	b = appendString(b, o.ResourceID)
	b = append(b, `,"start":`...)
	b = appendTime(b, o.Start)
	b = append(b, `,"end":`...)
	b = appendTime(b, o.End)
	b = append(b, `,"nodes":`...)
	b = strconv.AppendInt(b, int64(o.Nodes), 10)
	b = append(b, `,"fare_class":`...)
	b = appendString(b, o.FareClass)
	if o.RequestedFareClass != "" {
		b = append(b, `,"requested_fare_class":`...)
		b = appendString(b, o.RequestedFareClass)
	}
	b = append(b, `,"solution":`...)
	b = strconv.AppendBool(b, o.Solution)
	b = append(b, `,"expires_at":`...)
	b = appendTime(b, o.ExpiresAt)
	b = append(b, `,"price":`...)
	return append(o.Price.appendJSON(b), '}')
}

// appendJSON appends API.md's booking object.
func (bk Booking) appendJSON(b []byte) []byte {
	b = append(b, `{"booking_id":`...)
	b = appendString(b, bk.ID)
	b = append(b, `,"account_id":`...)
	b = appendString(b, bk.AccountID)
	b = append(b, `,"status":`...)
	b = appendString(b, string(bk.Status))
	b = append(b, `,"hold_expires_at":`...)
	if bk.HoldExpiresAt == nil {
		b = append(b, "null"...)
	} else {
		b = appendTime(b, *bk.HoldExpiresAt)
	}
	b = append(b, `,"resource_id":`...)
	b = appendString(b, bk.ResourceID)
	b = append(b, `,"start":`...)
	b = appendTime(b, bk.Start)
	b = append(b, `,"end":`...)
	b = appendTime(b, bk.End)
	b = append(b, `,"nodes":`...)
	b = strconv.AppendInt(b, int64(bk.Nodes), 10)
	b = append(b, `,"fare_class":`...)
	b = appendString(b, bk.FareClass)
	b = append(b, `,"price":`...)
	b = bk.Price.appendJSON(b)
	if bk.Terms != nil {
		b = append(b, `,"terms":`...)
		b = bk.Terms.appendJSON(b)
	}
	for _, m := range []struct {
		name string
		d    *decimal.Decimal
	}{{`,"penalty":`, bk.Penalty}, {`,"refund":`, bk.Refund}, {`,"compensation":`, bk.Compensation}} {
		if m.d != nil {
			b = append(b, m.name...)
			b = appendMoney(b, *m.d, bk.Price.Currency)
		}
	}
	b = append(b, `,"created_at":`...)
	b = appendTime(b, bk.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = appendTime(b, bk.UpdatedAt)
	b = append(b, `,"checked_in":`...)
	b = strconv.AppendBool(b, bk.CheckedIn)
	if bk.Profile != "" {
		b = append(b, `,"profile":`...)
		b = appendString(b, bk.Profile)
	}
	if bk.StartedAt != nil {
		b = append(b, `,"started_at":`...)
		b = appendTime(b, *bk.StartedAt)
	}
	if bk.FinishedAt != nil {
		b = append(b, `,"finished_at":`...)
		b = appendTime(b, *bk.FinishedAt)
	}
	return append(b, '}')
}

// appendJSON appends the terms object.
func (t SaleTerms) appendJSON(b []byte) []byte {
	b = append(b, `{"source":`...)
	b = appendString(b, t.Source)
	b = append(b, `,"cancellation":`...)
	if t.Cancellation == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
	}
	for i, st := range t.Cancellation {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"before_start_seconds":`...)
		b = strconv.AppendInt(b, st.BeforeStartSeconds, 10)
		b = append(b, `,"penalty_rate":`...)
		b = appendString(b, st.PenaltyRate.String())
		b = append(b, '}')
	}
	if t.Cancellation != nil {
		b = append(b, ']')
	}
	b = append(b, `,"no_show_penalty_rate":`...)
	b = appendString(b, t.NoShowPenaltyRate.String())
	b = append(b, `,"denied_cost_factor":`...)
	b = appendString(b, t.DeniedCostFactor.String())
	return append(b, '}')
}

// NewRecordBuffer is an empty buffer with room for a stored record's JSON,
// for AppendJSON.
func NewRecordBuffer() []byte { return make([]byte, 0, recordJSONSize) }

// AppendJSON appends the record's JSON (what json.Marshal writes for it),
// for stores to encode without reflection.
func (r Record) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"booking":`...)
	b = r.Booking.appendJSON(b)
	if r.Account != "" {
		b = append(b, `,"idem_account":`...)
		b = appendString(b, r.Account)
	}
	if r.IdemKey != "" {
		b = append(b, `,"idem_key":`...)
		b = appendString(b, r.IdemKey)
	}
	if r.Fingerprint != "" {
		b = append(b, `,"idem_fingerprint":`...)
		b = appendString(b, r.Fingerprint)
	}
	b = append(b, `,"groups":`...)
	b = strconv.AppendInt(b, int64(r.Groups), 10)
	if r.HoldExpires != nil {
		b = append(b, `,"hold_expires":`...)
		b = append(b, '"') // as encoding/json: in the time's own zone
		b = r.HoldExpires.AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	if r.Orig != nil {
		o, err := json.Marshal(r.Orig)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"orig":`...)
		b = append(b, o...)
	}
	return append(b, '}'), nil
}
