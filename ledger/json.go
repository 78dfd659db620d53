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
	return p.appendJSON(make([]byte, 0, 256+96*len(p.Lines))), nil
}

// appendJSON appends p's encoding to b by hand, in postingJSON's field
// order: every commit stores its postings, and encoding/json's reflection
// was a visible share of the server's CPU per booking. The bytes are those
// json.Marshal gives for postingJSON (a test compares the two).
func (p Posting) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, p.ID)
	b = append(b, `,"time":"`...)
	b = p.Time.UTC().AppendFormat(b, timeLayout)
	b = append(b, `","kind":`...)
	b = appendJSONString(b, string(p.Kind))
	b = append(b, `,"booking_id":`...)
	if p.BookingID != "" {
		b = appendJSONString(b, p.BookingID)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"account_id":`...)
	b = appendJSONString(b, p.Customer)
	b = append(b, `,"resource_id":`...)
	b = appendJSONString(b, p.Resource)
	b = append(b, `,"currency":`...)
	b = appendJSONString(b, string(p.Currency))
	b = append(b, `,"scale":`...)
	b = strconv.AppendInt(b, int64(p.Scale), 10)
	b = append(b, `,"description":`...)
	b = appendJSONString(b, p.Description)
	b = append(b, `,"lines":`...)
	b = append(b, '[')
	for i, l := range p.Lines {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"account":`...)
		b = appendJSONString(b, string(l.Account))
		b = append(b, `,"side":`...)
		b = appendJSONString(b, string(l.Side))
		b = append(b, `,"amount":`...)
		b = appendJSONString(b, formatAmount(l.Amount, p.Scale))
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendJSONString appends s as encoding/json writes it: plain printable
// ASCII without quote, backslash or HTML characters is copied as is, and
// anything else goes through encoding/json so that escaping stays exactly
// the standard library's.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// UnmarshalJSON decodes the form MarshalJSON writes, strictly: unknown
// fields, missing amounts, numbers where strings belong and bad times are
// Invalid errors naming the field. It checks the encoding only; the
// ledger's rules are checked when the posting is prepared or replayed.
func (p *Posting) UnmarshalJSON(b []byte) error {
	const op slotfare.Op = "ledger.DecodePosting"
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
// It calls MarshalJSON directly: through json.Marshal the result would be
// validated and compacted a second time for the same bytes.
func EncodePosting(p Posting) ([]byte, error) { return p.MarshalJSON() }

// AppendPosting appends EncodePosting's bytes to dst.
func AppendPosting(dst []byte, p Posting) []byte { return p.appendJSON(dst) }

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
		return slotfare.E(slotfare.Op("ledger.Money"), slotfare.Invalid, "want a decimal string", err)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return slotfare.E(slotfare.Op("ledger.Money"), slotfare.Invalid, "want a decimal string", err)
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
