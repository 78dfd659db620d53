package ledger

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
)

// Period is a calendar month in UTC: invoices cover [Start, End), from
// 00:00 UTC on the first of the month to 00:00 UTC on the first of the
// next, whatever the resources' time zones.
type Period struct {
	Year  int
	Month time.Month
}

// PeriodOf is the UTC month t falls in.
func PeriodOf(t time.Time) Period {
	u := t.UTC()
	return Period{u.Year(), u.Month()}
}

// ParsePeriod reads "YYYY-MM" (years 0001-9999); anything else is Invalid
// naming "period".
func ParsePeriod(s string) (Period, error) {
	bad := func() (Period, error) {
		return Period{}, slotfare.Errorf("ledger.ParsePeriod", "period", "%q is not a month: want YYYY-MM, such as 2026-11", s)
	}
	if len(s) != 7 || s[4] != '-' {
		return bad()
	}
	y, m := 0, 0
	for i, c := range []byte(s) {
		switch {
		case i == 4:
		case c < '0' || c > '9':
			return bad()
		case i < 4:
			y = y*10 + int(c-'0')
		default:
			m = m*10 + int(c-'0')
		}
	}
	if y < 1 || m < 1 || m > 12 {
		return bad()
	}
	return Period{y, time.Month(m)}, nil
}

func (p Period) String() string { return fmt.Sprintf("%04d-%02d", p.Year, int(p.Month)) }

// Start is the first instant of the month, UTC.
func (p Period) Start() time.Time { return time.Date(p.Year, p.Month, 1, 0, 0, 0, 0, time.UTC) }

// End is the first instant of the next month, UTC (exclusive).
func (p Period) End() time.Time { return p.Start().AddDate(0, 1, 0) }

func (p Period) before(q Period) bool {
	return p.Year < q.Year || (p.Year == q.Year && p.Month < q.Month)
}

// InvoiceStatus says whether an invoice can still change.
type InvoiceStatus string

const (
	// InvoiceOpen: the month is not over, more lines may come.
	InvoiceOpen InvoiceStatus = "open"
	// InvoiceIssued: the month is over at the time asked; the invoice is final.
	InvoiceIssued InvoiceStatus = "issued"
)

// Invoice is a customer's postings of one currency in one month, as
// API.md's invoice object. Lines are in (time, id) order; amounts carry
// the customer-facing sign: charges, upward re-pricings and penalties
// positive, refunds, downward re-pricings and compensation negative.
// Subtotal is the sum of the lines and Total equals it (slotfare adds no
// tax): the month's movement of the customer's receivable.
type Invoice struct {
	ID          string        `json:"invoice_id"`
	Account     string        `json:"account_id"`
	PeriodStart time.Time     `json:"period_start"`
	PeriodEnd   time.Time     `json:"period_end"`
	Currency    Currency      `json:"currency"`
	Status      InvoiceStatus `json:"status"`
	Lines       []InvoiceLine `json:"lines"`
	Subtotal    Money         `json:"subtotal"`
	Total       Money         `json:"total"`
}

// InvoiceLine is one posting on an invoice. Kind is one of API.md's five
// (Posting.InvoiceKind); PostingID and PostedAt (fields beyond API.md's)
// let billing systems reconcile lines with ledger entries.
type InvoiceLine struct {
	Kind        Kind
	BookingID   string // empty (null in JSON) for a compensation without booking
	Description string
	Amount      Money
	PostingID   string
	PostedAt    time.Time
}

// MarshalJSON writes {"kind","booking_id","description","amount","posting_id","posted_at"}.
func (l InvoiceLine) MarshalJSON() ([]byte, error) {
	j := struct {
		Kind        Kind    `json:"kind"`
		BookingID   *string `json:"booking_id"`
		Description string  `json:"description"`
		Amount      Money   `json:"amount"`
		PostingID   string  `json:"posting_id"`
		PostedAt    string  `json:"posted_at"`
	}{Kind: l.Kind, Description: l.Description, Amount: l.Amount, PostingID: l.PostingID, PostedAt: l.PostedAt.UTC().Format(timeLayout)}
	if l.BookingID != "" {
		b := l.BookingID
		j.BookingID = &b
	}
	return json.Marshal(j)
}

// InvoiceID is the id of a customer's invoice for one month and currency:
// "inv_2026-11_GRD_<account>", the same every time it is asked for.
func InvoiceID(account string, p Period, c Currency) string {
	return "inv_" + p.String() + "_" + string(c) + "_" + account
}

// InvoiceQuery selects a customer's invoices: Account is required; Period
// ("YYYY-MM", optional) keeps one month; Cursor and Limit page as in
// Entries.
type InvoiceQuery struct {
	Account string
	Period  string
	Cursor  string
	Limit   int
}

// invoiceKey orders invoices: by month, then currency.
type invoiceKey struct {
	period   Period
	currency Currency
}

func (k invoiceKey) after(c invoiceKey) bool {
	if k.period != c.period {
		return c.period.before(k.period)
	}
	return k.currency > c.currency
}

// Invoices lists a customer's invoices, oldest month first and by currency
// within a month, one per month and currency with postings (a month
// without postings has no invoice). now decides each invoice's status:
// open while now is before the month's end, issued after.
func (l *Ledger) Invoices(q InvoiceQuery, now time.Time) (Page[Invoice], error) {
	const op slotfare.Op = "ledger.Invoices"
	if err := checkID(op, "account_id", q.Account); err != nil {
		return Page[Invoice]{}, err
	}
	var only *Period
	if q.Period != "" {
		p, err := ParsePeriod(q.Period)
		if err != nil {
			return Page[Invoice]{}, slotfare.E(op, err)
		}
		only = &p
	}
	n, err := limitOf(op, q.Limit)
	if err != nil {
		return Page[Invoice]{}, err
	}
	var after *invoiceKey
	if q.Cursor != "" {
		parts, err := decodeCursor(op, "i1", q.Cursor, 4)
		if err != nil {
			return Page[Invoice]{}, err
		}
		p, perr := ParsePeriod(parts[2])
		if parts[0] != q.Account || parts[1] != q.Period || perr != nil || !Currency(parts[3]).Valid() {
			return Page[Invoice]{}, slotfare.Errorf(op, "cursor", "not a cursor of this account's invoice listing")
		}
		after = &invoiceKey{p, Currency(parts[3])}
	}

	l.mu.RLock()
	defer l.mu.RUnlock()
	page := Page[Invoice]{Data: []Invoice{}}
	acc := l.book.accounts[CustomerAccount(q.Account)]
	if acc == nil {
		return page, nil
	}
	recs := acc.recs
	if only != nil {
		recs = within(recs, only.Start(), only.End())
	} else if after != nil {
		recs = within(recs, after.period.Start(), time.Time{})
	}
	// Walk month by month; within a month, by currency.
	for len(recs) > 0 && !page.HasMore {
		p := PeriodOf(recs[0].p.Time)
		month := within(recs, p.Start(), p.End())
		recs = recs[len(month):]
		var curs []Currency
		for _, r := range month {
			if !slices.Contains(curs, r.p.Currency) {
				curs = append(curs, r.p.Currency)
			}
		}
		sort.Slice(curs, func(i, j int) bool { return curs[i] < curs[j] })
		for _, c := range curs {
			k := invoiceKey{p, c}
			if after != nil && !k.after(*after) {
				continue
			}
			if len(page.Data) == n {
				page.HasMore = true
				break
			}
			page.Data = append(page.Data, l.assemble(q.Account, k, month, now))
		}
	}
	if page.HasMore {
		last := page.Data[len(page.Data)-1]
		page.NextCursor = encodeCursor("i1", q.Account, q.Period, PeriodOf(last.PeriodStart).String(), string(last.Currency))
	}
	return page, nil
}

// Invoice is one customer's invoice for a month and currency; NotFound if
// the customer has no postings in that currency that month.
func (l *Ledger) Invoice(account string, p Period, c Currency, now time.Time) (Invoice, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if acc := l.book.accounts[CustomerAccount(account)]; acc != nil {
		month := within(acc.recs, p.Start(), p.End())
		for _, r := range month {
			if r.p.Currency == c {
				return l.assemble(account, invoiceKey{p, c}, month, now), nil
			}
		}
	}
	return Invoice{}, slotfare.E(slotfare.Op("ledger.Invoice"), slotfare.NotFound, "no invoice "+InvoiceID(account, p, c))
}

// within is the sub-slice of recs (sorted by time) with from <= time < to;
// a zero to means no upper bound.
func within(recs []*record, from, to time.Time) []*record {
	i := sort.Search(len(recs), func(i int) bool { return !recs[i].p.Time.Before(from) })
	j := len(recs)
	if !to.IsZero() {
		j = i + sort.Search(len(recs)-i, func(k int) bool { return !recs[i+k].p.Time.Before(to) })
	}
	return recs[i:j]
}

// assemble builds the invoice of key k from the month's records.
func (l *Ledger) assemble(account string, k invoiceKey, month []*record, now time.Time) Invoice {
	scale := l.currencies.Rule(k.currency).Scale
	inv := Invoice{
		ID: InvoiceID(account, k.period, k.currency), Account: account,
		PeriodStart: k.period.Start(), PeriodEnd: k.period.End(), Currency: k.currency,
		Status: InvoiceOpen, Lines: []InvoiceLine{},
	}
	if !now.Before(inv.PeriodEnd) {
		inv.Status = InvoiceIssued
	}
	n := 0
	for _, r := range month {
		if r.p.Currency == k.currency {
			n++
		}
	}
	inv.Lines = make([]InvoiceLine, 0, n)
	// Sum in whole units while they fit an int64; decimals otherwise.
	sum, units, small := decimal.Zero, int64(0), true
	for _, r := range month {
		if r.p.Currency != k.currency {
			continue
		}
		inv.Lines = append(inv.Lines, InvoiceLine{
			Kind: r.p.InvoiceKind(), BookingID: r.p.BookingID, Description: r.p.Description,
			Amount: Money{r.customer, scale}, PostingID: r.p.ID, PostedAt: r.p.Time,
		})
		if small && r.small && r.p.Scale == scale {
			if u := units + r.units; (u > units) == (r.units > 0) || r.units == 0 {
				units = u
				continue
			}
		}
		if small {
			sum, small = decimal.New(units, -scale), false
		}
		sum = sum.Add(r.customer)
	}
	if small {
		sum = decimal.New(units, -scale)
	}
	inv.Subtotal = Money{sum, scale}
	inv.Total = inv.Subtotal
	return inv
}
