package ledger_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/ledger"
)

// samplePostings is one of every kind, as the builders make them and the
// ledger stores them.
func samplePostings(t *testing.T) []ledger.Posting {
	t.Helper()
	l := newLedger(t, ledger.Options{Currencies: ledger.Currencies{"EUR": {Scale: 3}}})
	charge(t, l, ref("bk1"), "112.3", at("2026-11-02T10:00:00Z"))
	up, _ := l.Modification("bk1", dec("120"), "GRD", decimal.Zero, at("2026-11-02T11:30:00.25Z"))
	mustAppend(t, l, up.Postings...)
	c, _ := l.Cancellation("bk1", dec("0.1"), at("2026-11-03T08:00:00Z"))
	mustAppend(t, l, c.Postings...)
	charge(t, l, ledger.BookingRef{ID: "bk2", Customer: "bob", Resource: "NIKHEF", Currency: "EUR"}, "7.1", at("2026-11-30T23:59:59.999Z"))
	ns, _ := l.NoShow("bk2", dec("0.5"), at("2026-12-01T00:00:00Z"))
	mustAppend(t, l, ns.Postings...)
	charge(t, l, ledger.BookingRef{ID: "bk3", Customer: "bob", Resource: "Tokyo", Currency: "JPY"}, "1200", at("2026-12-02T00:00:00Z"))
	dn, _ := l.Denial("bk3", dec("4800"), at("2026-12-03T00:00:00Z"))
	mustAppend(t, l, dn.Postings...)
	gw, _ := l.Compensation("gw-1", ledger.BookingRef{Customer: "bob", Resource: "RAL", Currency: "GRD"}, dec("2"), at("2026-12-04T00:00:00Z"))
	mustAppend(t, l, gw)
	var out []ledger.Posting
	for _, a := range []ledger.AccountID{ledger.CustomerAccount("alice"), ledger.CustomerAccount("bob")} {
		page, _ := l.Entries(a, "", 0)
		out = append(out, page.Data...)
	}
	return out
}

// TestPostingEncodingGolden pins the stored bytes of postings: one
// EncodePosting line each. Changing the encoding breaks stored data, so
// it must be deliberate (go test ./ledger -run Golden -update).
func TestPostingEncodingGolden(t *testing.T) {
	ps := samplePostings(t)
	var buf bytes.Buffer
	for _, p := range ps {
		b, err := ledger.EncodePosting(p)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	golden(t, "postings.golden.jsonl", buf.Bytes())

	// Round trip: decoding the golden bytes gives the same postings, and
	// they encode to the same bytes again.
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for i, line := range lines {
		p, err := ledger.DecodePosting([]byte(line))
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if p.ID != ps[i].ID || !p.Time.Equal(ps[i].Time) || !reflect.DeepEqual(lineStrings(p), lineStrings(ps[i])) ||
			p.BookingID != ps[i].BookingID || p.Description != ps[i].Description || p.Scale != ps[i].Scale {
			t.Fatalf("line %d decodes to %+v, want %+v", i, p, ps[i])
		}
		again, _ := ledger.EncodePosting(p)
		if string(again) != line {
			t.Fatalf("line %d re-encodes as\n%s\nnot\n%s", i, again, line)
		}
	}
	if !strings.Contains(buf.String(), `"amount":"112.30"`) || !strings.Contains(buf.String(), `"amount":"7.100"`) ||
		!strings.Contains(buf.String(), `"amount":"1200"`) || !strings.Contains(buf.String(), `"booking_id":null`) {
		t.Fatal("amounts are not written at their currency's scale, or booking_id is not null when absent")
	}
}

func TestDecodePostingRejects(t *testing.T) {
	good := `{"id":"bk1/charge","time":"2026-11-02T10:00:00Z","kind":"charge","booking_id":"bk1","account_id":"alice","resource_id":"RAL","currency":"GRD","scale":2,"description":"","lines":[{"account":"receivable:alice","side":"debit","amount":"1.00"},{"account":"revenue:RAL","side":"credit","amount":"1.00"}]}`
	if _, err := ledger.DecodePosting([]byte(good)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in, field string
	}{
		{"unknown field", strings.Replace(good, `"scale":2`, `"scale":2,"extra":1`, 1), ""},
		{"amount as number", strings.Replace(good, `"amount":"1.00"`, `"amount":1.00`, 1), "lines.amount"},
		{"amount not decimal", strings.Replace(good, `"amount":"1.00"`, `"amount":"one"`, 1), "lines[0].amount"},
		{"bad time", strings.Replace(good, `2026-11-02T10:00:00Z`, `2026-11-02 10:00`, 1), "time"},
		{"not an object", `[1,2]`, ""},
		{"trailing data", good + `{}`, ""},
	}
	for _, tt := range tests {
		_, err := ledger.DecodePosting([]byte(tt.in))
		wantErr(t, err, slotfare.Invalid, tt.field)
	}
}

func TestMoneyJSON(t *testing.T) {
	for in, want := range map[string]string{"12.3": `"12.30"`, "-4": `"-4.00"`, "0": `"0.00"`} {
		b, _ := json.Marshal(ledger.Money{Amount: dec(in), Scale: 2})
		if string(b) != want {
			t.Errorf("Money(%s) = %s, want %s", in, b, want)
		}
		var m ledger.Money
		if err := json.Unmarshal(b, &m); err != nil || m.Scale != 2 || !m.Amount.Equal(dec(in)) {
			t.Errorf("Money round trip of %s: %+v %v", b, m, err)
		}
	}
	var m ledger.Money
	if err := json.Unmarshal([]byte(`12.30`), &m); err == nil {
		t.Error("a JSON number was accepted as money")
	}
}

// FuzzDecodePosting throws arbitrary bytes at the decoder and, when they
// decode, at Prepare: errors are fine, panics are not, and whatever the
// ledger accepts encodes and decodes back to itself.
func FuzzDecodePosting(f *testing.F) {
	golden, err := os.ReadFile(filepath.Join("testdata", "postings.golden.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(golden)), "\n") {
		f.Add([]byte(line))
	}
	f.Add([]byte(`{"lines":[{"amount":"1e-9999"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ledger.DecodePosting(b)
		if err != nil {
			return
		}
		l, _ := ledger.New(ledger.Options{})
		// Let bookings other than charges through by charging them first.
		if p.Kind != ledger.KindCharge && p.BookingID != "" {
			if c, err := l.Charge(ledger.BookingRef{ID: p.BookingID, Customer: p.Customer, Resource: p.Resource, Currency: p.Currency}, dec("100"), p.Time); err == nil {
				l.Append(c)
			}
		}
		pend, err := l.Prepare(p)
		if err != nil {
			return
		}
		for _, q := range pend.ToPersist() {
			enc, err := ledger.EncodePosting(q)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ledger.DecodePosting(enc)
			if err != nil {
				t.Fatalf("%s does not decode: %v", enc, err)
			}
			again, _ := ledger.EncodePosting(back)
			if string(again) != string(enc) {
				t.Fatalf("round trip changed %s into %s", enc, again)
			}
		}
		pend.Abort()
	})
}
