package service

import (
	"context"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/ledger"
)

// Invoices lists a customer's invoices (billing only): per UTC month and
// currency, lines of kind charge, cancellation_penalty, no_show_penalty,
// refund and compensation, paged by cursor; period "YYYY-MM" keeps one month.
func (s *Service) Invoices(ctx context.Context, p booking.Principal, accountID, period, cursor string, limit int) (ledger.Page[ledger.Invoice], error) {
	const op slotfare.Op = "service.Invoices"
	if err := needRole(op, p, booking.RoleBilling); err != nil {
		return ledger.Page[ledger.Invoice]{}, err
	}
	if accountID == "" {
		return ledger.Page[ledger.Invoice]{}, slotfare.Errorf(op, "account_id", "required")
	}
	if period != "" {
		if _, err := ledger.ParsePeriod(period); err != nil {
			return ledger.Page[ledger.Invoice]{}, err
		}
	}
	books, err := s.booksOf(ctx, op, accountID, ledger.CustomerAccount(accountID))
	if err != nil {
		return ledger.Page[ledger.Invoice]{}, err
	}
	return books.Invoices(ledger.InvoiceQuery{Account: accountID, Period: period, Cursor: cursor, Limit: limit}, s.now())
}

// LedgerEntries lists the postings of an account (billing only): a
// customer's receivable for a plain account id, or any account of the chart
// given as "role:owner" (for example "revenue:RAL").
func (s *Service) LedgerEntries(ctx context.Context, p booking.Principal, accountID, cursor string, limit int) (ledger.Page[ledger.Posting], error) {
	const op slotfare.Op = "service.LedgerEntries"
	if err := needRole(op, p, booking.RoleBilling); err != nil {
		return ledger.Page[ledger.Posting]{}, err
	}
	if accountID == "" {
		return ledger.Page[ledger.Posting]{}, slotfare.Errorf(op, "account_id", "required")
	}
	acct := ledger.CustomerAccount(accountID)
	owner := accountID
	if strings.Contains(accountID, ":") {
		a, err := ledger.ParseAccountID(accountID, "account_id")
		if err != nil {
			return ledger.Page[ledger.Posting]{}, err
		}
		acct, owner = a, ""
	}
	books, err := s.booksOf(ctx, op, owner, acct)
	if err != nil {
		return ledger.Page[ledger.Posting]{}, err
	}
	return books.Entries(acct, cursor, limit)
}

// Balance is an account's balance per currency (billing only): for a
// customer (plain account id) what it owes, debits minus credits.
func (s *Service) Balance(ctx context.Context, p booking.Principal, accountID string) (map[ledger.Currency]decimal.Decimal, error) {
	const op slotfare.Op = "service.Balance"
	if err := needRole(op, p, booking.RoleBilling); err != nil {
		return nil, err
	}
	if accountID == "" {
		return nil, slotfare.Errorf(op, "account_id", "required")
	}
	acct := ledger.CustomerAccount(accountID)
	owner := accountID
	if strings.Contains(accountID, ":") {
		a, err := ledger.ParseAccountID(accountID, "account_id")
		if err != nil {
			return nil, err
		}
		acct, owner = a, ""
	}
	books, err := s.booksOf(ctx, op, owner, acct)
	if err != nil {
		return nil, err
	}
	return books.Balance(acct), nil
}

// booksOf is the ledger billing reads for an account: the postings as
// stored, read now from the records port, so that any replica answers what
// any other posted. customer is "" for an account of the
// chart other than a customer's (revenue, refunds, ...): those belong to
// one resource, whose postings are read in the order its place stored them.
func (s *Service) booksOf(ctx context.Context, op slotfare.Op, customer string, acct ledger.AccountID) (*ledger.Ledger, error) {
	var ps []ledger.Posting
	var err error
	if customer == "" {
		ps, err = s.records.ResourcePostings(ctx, acct.Owner())
	} else if ps, err = s.records.Postings(ctx, customer); err == nil {
		ps, err = s.bookingOrder(ctx, ps)
	}
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	return s.replayed(ctx, op, ps)
}

// postingPhase is where a kind of posting stands in a booking's life: the
// charge, then re-pricings, then what settles it.
func postingPhase(k ledger.Kind) int {
	switch k {
	case ledger.KindCharge:
		return 0
	case ledger.KindAdjustment, ledger.KindReductionPenalty:
		return 1
	}
	return 2
}

// bookingOrder puts each booking's postings in an account's list in the
// order the booking's own history has them. Replicas index a write's
// postings under the account after deciding it in the resource's slot, so
// the charge one replica posted and the refund another posted a moment later
// may be listed the other way round; the ledger replays a booking only in
// its own order. Within a booking the postings go by phase (charge,
// re-pricings, settlement); a booking re-priced more than once is read
// whole from its resource's slot (records.Booking), where its order is
// the stored one. Bookings keep the place of their first posting.
func (s *Service) bookingOrder(ctx context.Context, ps []ledger.Posting) ([]ledger.Posting, error) {
	type group struct {
		id       string
		ps       []ledger.Posting
		repriced int
	}
	var groups []*group
	byID := map[string]*group{}
	for _, p := range ps {
		g := byID[p.BookingID]
		if g == nil || p.BookingID == "" {
			g = &group{id: p.BookingID}
			groups = append(groups, g)
			if p.BookingID != "" {
				byID[p.BookingID] = g
			}
		}
		g.ps = append(g.ps, p)
		if postingPhase(p.Kind) == 1 {
			g.repriced++
		}
	}
	out := make([]ledger.Posting, 0, len(ps))
	for _, g := range groups {
		if g.repriced > 1 {
			_, own, _, err := s.records.Booking(ctx, g.id)
			if err != nil {
				return nil, err
			}
			out = append(out, own...)
			continue
		}
		sort.SliceStable(g.ps, func(i, j int) bool { return postingPhase(g.ps[i].Kind) < postingPhase(g.ps[j].Kind) })
		out = append(out, g.ps...)
	}
	return out, nil
}
