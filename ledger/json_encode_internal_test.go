package ledger

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// reflectPostingJSON is the reflection encoding that Posting.MarshalJSON
// replaced: the reference its hand encoder must match byte for byte.
func reflectPostingJSON(p Posting) []byte {
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
	out, err := json.Marshal(j)
	if err != nil {
		panic(err)
	}
	return out
}

// TestPostingHandEncodingMatchesReflection checks MarshalJSON and
// EncodePosting against encoding/json on random postings, including
// strings that need escaping (quotes, control and HTML characters, non-
// ASCII, invalid UTF-8), no lines, no booking id, odd scales and times.
func TestPostingHandEncodingMatchesReflection(t *testing.T) {
	strs := []string{"", "bk1/charge", "a\"b", `back\slash`, "<tag>&amp;", "tab\tnew\nline", "ünïcødé €",
		"\u2028\u2029", "bad\xffutf8", "\x00\x1f\x7f", "demo-alice", "RAL", "a<b", "c>d", "e&f"}
	r := rand.New(rand.NewPCG(7, 11))
	pick := func() string { return strs[r.IntN(len(strs))] }
	zones := []*time.Location{time.UTC, time.FixedZone("x", 5*3600+1800)}
	for i := 0; i < 3000; i++ {
		p := Posting{
			ID: pick(), Kind: Kind(pick()), BookingID: pick(), Customer: pick(), Resource: pick(),
			Currency: Currency(pick()), Scale: int32(r.IntN(4)), Description: pick(),
			Time: time.Unix(r.Int64N(4e9), r.Int64N(3)*int64(r.IntN(1e9))).In(zones[r.IntN(2)]),
		}
		for n := r.IntN(4); n > 0; n-- {
			amt := decimal.New(r.Int64N(2e7)-1e7, -int32(r.IntN(6)))
			p.Lines = append(p.Lines, Line{Account: AccountID(pick()), Side: Side(pick()), Amount: amt})
		}
		want := reflectPostingJSON(p)
		got, err := p.MarshalJSON()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("posting %d: MarshalJSON\n got %s (%v)\nwant %s", i, got, err, want)
		}
		enc, err := EncodePosting(p)
		if err != nil || !bytes.Equal(enc, want) {
			t.Fatalf("posting %d: EncodePosting\n got %s (%v)\nwant %s", i, enc, err, want)
		}
		if via, err := json.Marshal(p); err != nil || !bytes.Equal(via, want) {
			t.Fatalf("posting %d: json.Marshal(p)\n got %s (%v)\nwant %s", i, via, err, want)
		}
	}
}
