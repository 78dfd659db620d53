package service

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/ledger"
)

// quotePrefix starts every quote id. A quote is signed with the offer
// secret every replica shares (offersign.SignToken), so any replica honours
// a quote another made and nothing about it is stored.
const quotePrefix = "qt_"

// quoteClaims are what a quote id carries, signed: the kind ("c" or "m"),
// the booking and its account, what the booking was billed when quoted
// (a quote holds only while that is unchanged), the penalty rate quoted,
// when it expires (Unix seconds), and for a modification the new terms
// and price.
type quoteClaims struct {
	Kind     string `json:"k"`
	Booking  string `json:"b"`
	Account  string `json:"a"`
	Billed   string `json:"p"`
	Rate     string `json:"r"`
	Expires  int64  `json:"x"`
	Start    int64  `json:"s,omitempty"`
	End      int64  `json:"e,omitempty"`
	Nodes    int    `json:"n,omitempty"`
	Base     string `json:"bb,omitempty"`
	Delay    string `json:"bd,omitempty"`
	Currency string `json:"u,omitempty"`
}

// quote is a verified quote: its claims with the amounts read.
type quote struct {
	c            quoteClaims
	billed, rate decimal.Decimal
	price        booking.Price
}

func (s *Service) signQuote(c quoteClaims) string {
	body, _ := json.Marshal(c) // strings and numbers only: cannot fail
	return s.signer.SignToken(quotePrefix, body)
}

// openQuote verifies quote id for a change of kind to booking b by p at
// now. Errors name "quote_id": Invalid for an id this service did not sign
// or one of another booking, account or kind; Conflict once expired.
func (s *Service) openQuote(op slotfare.Op, id string, p booking.Principal, b booking.Booking, kind string, now time.Time) (*quote, error) {
	body, ok := s.signer.OpenToken(quotePrefix, id)
	var q quote
	if !ok || json.Unmarshal(body, &q.c) != nil {
		return nil, slotfare.Errorf(op, "quote_id", "not a quote id issued by this service (malformed or tampered)")
	}
	var err1, err2, err3, err4 error
	q.billed, err1 = decimal.NewFromString(q.c.Billed)
	q.rate, err2 = decimal.NewFromString(q.c.Rate)
	if q.c.Kind == "m" {
		q.price.Base, err3 = decimal.NewFromString(q.c.Base)
		q.price.DelayPremium, err4 = decimal.NewFromString(q.c.Delay)
		q.price.Total, q.price.Currency = q.price.Base.Add(q.price.DelayPremium), q.c.Currency
	}
	switch {
	case err1 != nil || err2 != nil || err3 != nil || err4 != nil:
		return nil, slotfare.Errorf(op, "quote_id", "malformed quote")
	case q.c.Account != p.AccountID || q.c.Booking != b.ID:
		return nil, slotfare.Errorf(op, "quote_id", "this quote is for another booking")
	case q.c.Kind != kind[:1]:
		return nil, slotfare.Errorf(op, "quote_id", "this quote is not for a %s", kind)
	case now.Unix() >= q.c.Expires:
		return nil, slotfare.E(op, slotfare.Conflict, slotfare.Field("quote_id"),
			fmt.Sprintf("the quote expired at %s; ask for a new one", time.Unix(q.c.Expires, 0).UTC().Format(time.RFC3339)))
	}
	return &q, nil
}

// quoteExpiry is when a quote made at now for booking b stops being
// honoured: after the offer ttl, and never after the booking's start.
func (s *Service) quoteExpiry(b booking.Booking, now time.Time) time.Time {
	exp := now.Add(time.Duration(s.cfg.OfferTTLSeconds) * time.Second).Truncate(time.Second)
	if exp.After(b.Start) {
		exp = b.Start
	}
	return exp.UTC()
}

// cancelling is what cancelling a committed booking posts and shows.
type cancelling struct {
	st    ledger.Settlement
	money *ledger.Ledger
	terms booking.SaleTerms
	rate  decimal.Decimal
}

// cancellationOf is the settlement of cancelling committed booking b at
// now: its terms' rate at the lead time, or the quoted rate when q is set,
// which holds only while what the booking is billed has not changed since
// the quote (Conflict naming quote_id). unwind keeps nothing.
func (s *Service) cancellationOf(ctx context.Context, op slotfare.Op, r *resource, b booking.Booking, now time.Time, q *quote, unwind bool) (cancelling, error) {
	c := cancelling{terms: s.termsOf(r, b)}
	c.rate = cancellationRate(c.terms, b.Start.Sub(now))
	switch {
	case unwind:
		c.rate = decimal.Zero
	case q != nil:
		c.rate = q.rate
	}
	m, err := s.moneyOf(ctx, b.ID)
	if err != nil {
		return cancelling{}, err
	}
	c.money = m
	if c.st, err = m.Cancellation(b.ID, c.rate, now); err != nil {
		return cancelling{}, slotfare.E(op, err)
	}
	if q != nil && !c.st.Charged.Equal(q.billed) {
		return cancelling{}, slotfare.E(op, slotfare.Conflict, slotfare.Field("quote_id"),
			fmt.Sprintf("the quote no longer holds: the booking is billed %s now, %s when quoted", c.st.Charged, q.billed))
	}
	return c, nil
}

// CancellationQuote answers what cancelling one of p's bookings now would
// keep and refund, and until when a cancel carrying the quote's id posts
// exactly that (GET /v1/bookings/{id}/cancellation). Nothing changes.
func (s *Service) CancellationQuote(ctx context.Context, p booking.Principal, id string) (booking.Quote, error) {
	const op slotfare.Op = "service.CancellationQuote"
	if err := s.checkOpen(op); err != nil {
		return booking.Quote{}, err
	}
	e, err := s.ownLive(ctx, op, p, id)
	if err != nil {
		return booking.Quote{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := s.refresh(ctx, e); err != nil {
		return booking.Quote{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	b := e.rec.Booking
	now := s.now().UTC()
	if err := booking.CheckTransition(op, b.Status, booking.Cancelled); err != nil {
		return booking.Quote{}, err
	}
	if !now.Before(b.Start) {
		return booking.Quote{}, slotfare.E(op, slotfare.Conflict, "the booking has started; it can no longer be cancelled")
	}
	exp := s.quoteExpiry(b, now)
	qt := booking.Quote{BookingID: b.ID, Kind: booking.QuoteCancellation, Penalty: decimal.Zero, Refund: decimal.Zero,
		PenaltyRate: decimal.Zero, Currency: b.Price.Currency, ValidUntil: exp}
	claims := quoteClaims{Kind: "c", Booking: b.ID, Account: p.AccountID, Billed: "0", Rate: "0", Expires: exp.Unix()}
	if b.Status == booking.Committed {
		c, err := s.cancellationOf(ctx, op, e.res, b, now, nil, false)
		if err != nil {
			return booking.Quote{}, err
		}
		after := b
		settled(&after, c.st)
		qt.Penalty, qt.Refund, qt.PenaltyRate = *after.Penalty, *after.Refund, c.rate
		claims.Billed, claims.Rate = c.st.Charged.String(), c.rate.String()
	}
	qt.ID = s.signQuote(claims)
	return qt, nil
}

// ModificationQuote answers what changing one of p's bookings as req asks
// would cost now: the new price, the difference billed or credited, and
// the penalty a reduction keeps, with until when a PATCH carrying the
// quote's id is made at exactly that price (POST /v1/bookings/{id}/quote).
// Nothing changes; capacity is checked when the PATCH comes.
func (s *Service) ModificationQuote(ctx context.Context, p booking.Principal, id string, req booking.ModifyRequest) (booking.Quote, error) {
	const op slotfare.Op = "service.ModificationQuote"
	if err := s.checkOpen(op); err != nil {
		return booking.Quote{}, err
	}
	if req.QuoteID != "" {
		return booking.Quote{}, slotfare.Errorf(op, "quote_id", "a quote is asked for a change, not for another quote")
	}
	e, err := s.ownLive(ctx, op, p, id)
	if err != nil {
		return booking.Quote{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := s.refresh(ctx, e); err != nil {
		return booking.Quote{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	b := e.rec.Booking
	now := s.now().UTC()
	start, end, nodes, err := s.checkChange(op, b, req, now)
	if err != nil {
		return booking.Quote{}, err
	}
	r := e.res
	r.mu.Lock()
	m, same, err := s.costOfMove(ctx, op, r, b, start, end, nodes, now, nil)
	r.mu.Unlock()
	if err != nil {
		return booking.Quote{}, err
	}
	if same {
		return booking.Quote{}, slotfare.Errorf(op, "start", "these are the booking's terms already: nothing to quote")
	}
	exp := s.quoteExpiry(b, now)
	qt := booking.Quote{BookingID: b.ID, Kind: booking.QuoteModification, Start: start, End: end, Nodes: nodes, Price: m.price,
		Difference: m.rp.Difference, Penalty: m.rp.Penalty, PenaltyRate: m.rate, Currency: m.price.Currency, ValidUntil: exp}
	qt.ID = s.signQuote(quoteClaims{Kind: "m", Booking: b.ID, Account: p.AccountID, Billed: m.rp.Previous.String(), Rate: m.rate.String(),
		Expires: exp.Unix(), Start: start.Unix(), End: end.Unix(), Nodes: nodes,
		Base: m.price.Base.String(), Delay: m.price.DelayPremium.String(), Currency: m.price.Currency})
	return qt, nil
}
