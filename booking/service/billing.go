package service

import (
	"context"
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
	const op = "booking.Invoices"
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
	books, err := s.booksOf(ctx, op, accountID)
	if err != nil {
		return ledger.Page[ledger.Invoice]{}, err
	}
	return books.Invoices(ledger.InvoiceQuery{Account: accountID, Period: period, Cursor: cursor, Limit: limit}, s.now())
}

// LedgerEntries lists the postings of an account (billing only): a
// customer's receivable for a plain account id, or any account of the chart
// given as "role:owner" (for example "revenue:RAL").
func (s *Service) LedgerEntries(ctx context.Context, p booking.Principal, accountID, cursor string, limit int) (ledger.Page[ledger.Posting], error) {
	const op = "booking.LedgerEntries"
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
	books, err := s.booksOf(ctx, op, owner)
	if err != nil {
		return ledger.Page[ledger.Posting]{}, err
	}
	return books.Entries(acct, cursor, limit)
}

// Balance is an account's balance per currency (billing only): for a
// customer (plain account id) what it owes, debits minus credits.
func (s *Service) Balance(ctx context.Context, p booking.Principal, accountID string) (map[ledger.Currency]decimal.Decimal, error) {
	const op = "booking.Balance"
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
	books, err := s.booksOf(ctx, op, owner)
	if err != nil {
		return nil, err
	}
	return books.Balance(acct), nil
}

// booksOf is the ledger billing reads for customer's account: this
// process's ledger on ports of its own (it holds every posting), otherwise
// the customer's postings as stored, read now from the records port, so
// that any replica answers what any other posted. customer is "" for an
// account of the chart other than a customer's (revenue, cash, ...), which
// the records port does not index: those are read on ports of the
// process's own only.
func (s *Service) booksOf(ctx context.Context, op, customer string) (*ledger.Ledger, error) {
	if !s.shared {
		return s.ledger, nil
	}
	if customer == "" {
		return nil, slotfare.Errorf(op, "account_id", "with shared ports (Redis) only a customer's account is readable; give the account id alone")
	}
	ps, err := s.records.Postings(ctx, customer)
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	l, err := ledger.New(ledger.Options{})
	if err != nil {
		return nil, slotfare.E(op, err)
	}
	if err := l.Replay(ctx, postingSource(ps)); err != nil {
		return nil, slotfare.E(op, "the stored postings do not replay", err)
	}
	return l, nil
}
