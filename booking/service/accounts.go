package service

import (
	"context"
	"encoding/base64"
	"slices"
	"sort"

	"slotfare"
	"slotfare/booking"
	"slotfare/ledger"
)

// Account is a customer account as billing lists it.
type Account struct {
	AccountID string `json:"account_id"`
}

// customerAccounts are the accounts of the live user keys, the
// configuration file's and those made over the API, sorted: the accounts
// a billing system invoices.
func (s *Service) customerAccounts(ctx context.Context, op slotfare.Op) ([]string, error) {
	made, err := s.ports.Keys.All(ctx)
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	seen := map[string]bool{}
	for _, k := range s.cfg.Keys {
		if k.Role == booking.RoleUser {
			seen[k.AccountID] = true
		}
	}
	for _, k := range made {
		if k.Role == booking.RoleUser {
			seen[k.AccountID] = true
		}
	}
	out := make([]string, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	sort.Strings(out)
	return out, nil
}

// Accounts pages through the customer accounts in id order (billing): the
// accounts of the live user keys. The cursor is the last account listed.
func (s *Service) Accounts(ctx context.Context, p booking.Principal, cursor string, limit int) (ledger.Page[Account], error) {
	const op slotfare.Op = "service.Accounts"
	if err := needRole(op, p, booking.RoleBilling); err != nil {
		return ledger.Page[Account]{}, err
	}
	limit, err := pageLimit(op, limit)
	if err != nil {
		return ledger.Page[Account]{}, err
	}
	after, err := accountCursor(op, "c1", cursor)
	if err != nil {
		return ledger.Page[Account]{}, err
	}
	all, err := s.customerAccounts(ctx, op)
	if err != nil {
		return ledger.Page[Account]{}, err
	}
	i, _ := slices.BinarySearch(all, after[0])
	if after[0] != "" && i < len(all) && all[i] == after[0] {
		i++
	}
	var out ledger.Page[Account]
	for ; i < len(all) && len(out.Data) < limit; i++ {
		out.Data = append(out.Data, Account{AccountID: all[i]})
	}
	if i < len(all) {
		out.HasMore = true
		out.NextCursor = encodeAccountCursor("c1", all[i-1], "")
	}
	return out, nil
}

// AllInvoices pages through every customer account's invoices (billing),
// account by account in id order, each account's as Invoices lists them,
// of one period when period is given.
func (s *Service) AllInvoices(ctx context.Context, p booking.Principal, period, cursor string, limit int) (ledger.Page[ledger.Invoice], error) {
	const op slotfare.Op = "service.Invoices"
	if err := needRole(op, p, booking.RoleBilling); err != nil {
		return ledger.Page[ledger.Invoice]{}, err
	}
	limit, err := pageLimit(op, limit)
	if err != nil {
		return ledger.Page[ledger.Invoice]{}, err
	}
	if period != "" {
		if _, err := ledger.ParsePeriod(period); err != nil {
			return ledger.Page[ledger.Invoice]{}, err
		}
	}
	at, err := accountCursor(op, "i1"+period, cursor)
	if err != nil {
		return ledger.Page[ledger.Invoice]{}, err
	}
	all, err := s.customerAccounts(ctx, op)
	if err != nil {
		return ledger.Page[ledger.Invoice]{}, err
	}
	i, _ := slices.BinarySearch(all, at[0])
	var out ledger.Page[ledger.Invoice]
	inner := at[1]
	for ; i < len(all); i++ {
		page, err := s.Invoices(ctx, p, all[i], period, inner, limit-len(out.Data))
		if err != nil {
			return ledger.Page[ledger.Invoice]{}, err
		}
		out.Data = append(out.Data, page.Data...)
		inner = ""
		if page.HasMore {
			out.HasMore, out.NextCursor = true, encodeAccountCursor("i1"+period, all[i], page.NextCursor)
			return out, nil
		}
		if len(out.Data) == limit && i+1 < len(all) {
			out.HasMore, out.NextCursor = true, encodeAccountCursor("i1"+period, all[i+1], "")
			return out, nil
		}
	}
	return out, nil
}

func pageLimit(op slotfare.Op, limit int) (int, error) {
	if limit == 0 {
		limit = booking.DefaultLimit
	}
	if limit < 1 || limit > booking.MaxLimit {
		return 0, slotfare.Errorf(op, "limit", "must be in 1..%d, got %d", booking.MaxLimit, limit)
	}
	return limit, nil
}

// encodeAccountCursor is a cursor of a listing by account: its tag (the
// listing and its filter), an account and the account's own cursor.
func encodeAccountCursor(tag, account, inner string) string {
	return base64.RawURLEncoding.EncodeToString(cursorBytes(tag, account, inner))
}

// accountCursor reads encodeAccountCursor's account and inner cursor; ""
// is the start; one of another listing or filter is Invalid naming cursor.
func accountCursor(op slotfare.Op, tag, cursor string) ([2]string, error) {
	if cursor == "" {
		return [2]string{}, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	parts := cursorParts(raw)
	if err != nil || len(parts) != 3 || parts[0] != tag || parts[1] == "" {
		return [2]string{}, slotfare.Errorf(op, "cursor", "not a cursor of this listing (it must come from next_cursor of the same filter)")
	}
	return [2]string{parts[1], parts[2]}, nil
}
