package ledger

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
)

// This file holds the ledger's wire and storage encodings. Amounts are
// always decimal strings with exactly the currency's scale of digits
// ("12.30"), formatted here with StringFixed rather than through decimal's
// MarshalJSON, so that no package-global setting of decimal can change what
// is stored or served.

// postingJSON is the stored and served form of a Posting. Its field order
// is the encoding's field order; changing it changes stored bytes (the
// golden file under testdata guards it).
type postingJSON struct {
	ID          string     `json:"id"`
	Time        string     `json:"time"`
	Kind        Kind       `json:"kind"`
	BookingID   *string    `json:"booking_id"`
	Customer    string     `json:"account_id"`
	Resource    string     `json:"resource_id"`
	Currency    Currency   `json:"currency"`
	Scale       int32      `json:"scale"`
	Description string     `json:"description"`
	Lines       []lineJSON `json:"lines"`
}

type lineJSON struct {
	Account AccountID `json:"account"`
	Side    Side      `json:"side"`
	Amount  string    `json:"amount"`
}

// timeLayout is RFC 3339 with as many fractional digits as needed (none
// for whole seconds), always in UTC ("Z").
const timeLayout = time.RFC3339Nano

// MarshalJSON encodes p as
//
//	{"id","time","kind","booking_id","account_id","resource_id","currency",
//	 "scale","description","lines":[{"account","side","amount"}]}
//
// with booking_id null when p has none and amounts as strings at p.Scale.
func (p Posting) MarshalJSON() ([]byte, error) {
	j := postingJSON{
		ID: p.ID, Time: p.Time.UTC().Format(timeLayout), Kind: p.Kind,
		Customer: p.Customer, Resource: p.Resource, Currency: p.Currency,
		Scale: p.Scale, Description: p.Description, Lines: make([]lineJSON, len(p.Lines)),
	}
	if p.BookingID != "" {
		b := p.BookingID
		j.BookingID = &b
	}
	for i, l := range p.Lines {
		j.Lines[i] = lineJSON{Account: l.Account, Side: l.Side, Amount: formatAmount(l.Amount, p.Scale)}
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes the form MarshalJSON writes, strictly: unknown
// fields, missing amounts, numbers where strings belong and bad times are
// Invalid errors naming the field. It checks the encoding only; the
// ledger's rules are checked when the posting is prepared or replayed.
func (p *Posting) UnmarshalJSON(b []byte) error {
	const op = "ledger.DecodePosting"
	var j postingJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return slotfare.E(op, slotfare.Invalid, slotfare.Field(jsonField(err)), "malformed posting", err)
	}
	if dec.More() {
		return slotfare.Errorf(op, "", "trailing data after the posting")
	}
	t, err := time.Parse(timeLayout, j.Time)
	if err != nil {
		return slotfare.E(op, slotfare.Invalid, slotfare.Field("time"), "want an RFC 3339 time", err)
	}
	out := Posting{
		ID: j.ID, Time: t.UTC(), Kind: j.Kind, Customer: j.Customer, Resource: j.Resource,
		Currency: j.Currency, Scale: j.Scale, Description: j.Description, Lines: make([]Line, len(j.Lines)),
	}
	if j.BookingID != nil {
		out.BookingID = *j.BookingID
	}
	for i, l := range j.Lines {
		a, err := decimal.NewFromString(l.Amount)
		if err != nil {
			return slotfare.E(op, slotfare.Invalid, slotfare.Field("lines["+strconv.Itoa(i)+"].amount"), "want a decimal string", err)
		}
		out.Lines[i] = Line{Account: l.Account, Side: l.Side, Amount: a}
	}
	*p = out
	return nil
}

// EncodePosting is the stable byte form a Store keeps: the posting's JSON.
func EncodePosting(p Posting) ([]byte, error) { return json.Marshal(p) }

// DecodePosting reads what EncodePosting wrote.
func DecodePosting(b []byte) (Posting, error) {
	var p Posting
	err := p.UnmarshalJSON(b)
	return p, err
}

// jsonField names the JSON field an encoding/json error is about, if any.
func jsonField(err error) string {
	switch e := err.(type) {
	case *json.UnmarshalTypeError:
		return e.Field
	}
	return ""
}

// Money is an amount at its currency's scale. It encodes as a decimal
// string with exactly Scale digits after the point ("12.30", "-4.00"),
// whatever decimal's package settings are.
type Money struct {
	Amount decimal.Decimal
	Scale  int32
}

func (m Money) String() string { return formatAmount(m.Amount, m.Scale) }

// MarshalJSON writes m as a quoted decimal string.
func (m Money) MarshalJSON() ([]byte, error) { return json.Marshal(m.String()) }

// UnmarshalJSON reads a quoted decimal string; Scale is the number of digits
// after its point.
func (m *Money) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return slotfare.E("ledger.Money", slotfare.Invalid, "want a decimal string", err)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return slotfare.E("ledger.Money", slotfare.Invalid, "want a decimal string", err)
	}
	*m = Money{Amount: d, Scale: max(0, -d.Exponent())}
	return nil
}

// Page is one page of a cursor-paginated listing, encoded as API.md's
// {"data":[..],"has_more":bool,"next_cursor":string|null}. Data is never
// null; NextCursor is empty (null in JSON) on the last page.
type Page[T any] struct {
	Data       []T
	HasMore    bool
	NextCursor string
}

// MarshalJSON writes the API's page shape.
func (p Page[T]) MarshalJSON() ([]byte, error) {
	j := struct {
		Data       []T     `json:"data"`
		HasMore    bool    `json:"has_more"`
		NextCursor *string `json:"next_cursor"`
	}{Data: p.Data, HasMore: p.HasMore}
	if j.Data == nil {
		j.Data = []T{}
	}
	if p.NextCursor != "" {
		c := p.NextCursor
		j.NextCursor = &c
	}
	return json.Marshal(j)
}
