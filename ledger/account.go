package ledger

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"slotfare"
)

// Role is the part an account plays in the chart of accounts. Every account
// is one role held by one owner: a customer (the API's account_id) or a
// provider's resource (the API's resource_id).
type Role string

const (
	// Receivable is a customer's account: what the customer owes. Charges,
	// upward re-pricings and penalties debit it; refunds, downward
	// re-pricings and compensations credit it. Its debit balance is the
	// customer's amount due, and its movements are the customer's invoices.
	Receivable Role = "receivable"
	// Revenue is a resource's service revenue: credited by charges and
	// upward re-pricings.
	Revenue Role = "revenue"
	// PenaltyRevenue is a resource's income from cancellation and no-show
	// penalties (seed 004, Sec. 7.6.2), kept apart from service revenue so
	// that the thesis's net-revenue figures can be read off the ledger.
	PenaltyRevenue Role = "penalty_revenue"
	// Refunds is a resource's contra-revenue account: debited when a
	// charge is credited back to the customer (cancellation, no-show,
	// denial, downward re-pricing). Revenue minus Refunds is the net service
	// revenue; Revenue is never debited, so gross sales stay visible.
	Refunds Role = "refunds"
	// CompensationExpense is a resource's cost of denied service (seed 004,
	// Sec. 7.6.3, cost_ds): debited when a bumped customer is compensated.
	CompensationExpense Role = "compensation_expense"
)

// roles lists every role, customer role first.
var roles = [...]Role{Receivable, Revenue, PenaltyRevenue, Refunds, CompensationExpense}

// Valid reports whether r is one of the chart's roles.
func (r Role) Valid() bool {
	for _, x := range roles {
		if r == x {
			return true
		}
	}
	return false
}

// Customer reports whether accounts of role r are owned by a customer
// (otherwise by a resource).
func (r Role) Customer() bool { return r == Receivable }

// Normal is the side on which an account of role r grows: debit for assets
// and expenses (Receivable, Refunds, CompensationExpense), credit for income
// (Revenue, PenaltyRevenue).
func (r Role) Normal() Side {
	if r == Revenue || r == PenaltyRevenue {
		return Credit
	}
	return Debit
}

// AccountID names one account of the chart as "role:owner", for example
// "receivable:acct-alice" or "revenue:RAL". The owner is everything after
// the first colon, so owners may themselves contain colons.
type AccountID string

// Account builds the id of role r held by owner.
func Account(r Role, owner string) AccountID { return AccountID(string(r) + ":" + owner) }

// CustomerAccount is the receivable account of a customer: the account whose
// entries and invoices a billing system pulls for that customer.
func CustomerAccount(customer string) AccountID { return Account(Receivable, customer) }

// Role is the role part of the id ("" when the id has no colon).
func (a AccountID) Role() Role {
	r, _, ok := strings.Cut(string(a), ":")
	if !ok {
		return ""
	}
	return Role(r)
}

// Owner is the owner part of the id: a customer or a resource id.
func (a AccountID) Owner() string {
	_, o, _ := strings.Cut(string(a), ":")
	return o
}

// ParseAccountID checks that s names an account of the chart: a known role,
// a colon and a valid owner id. field names the input in the error.
func ParseAccountID(s, field string) (AccountID, error) {
	a := AccountID(s)
	if !a.Role().Valid() {
		return "", slotfare.Errorf("ledger.ParseAccountID", field,
			"%q is not an account: want role:owner with role one of receivable, revenue, penalty_revenue, refunds, compensation_expense", s)
	}
	if err := checkID("ledger.ParseAccountID", field, a.Owner()); err != nil {
		return "", err
	}
	return a, nil
}

// maxIDLen bounds every id the ledger stores (postings, bookings, owners).
const maxIDLen = 200

// checkID validates an identifier: 1 to maxIDLen bytes of UTF-8 without
// spaces or control characters, so that ids print, log and key cleanly.
func checkID(op slotfare.Op, field, s string) error {
	switch {
	case s == "":
		return slotfare.Errorf(op, field, "must not be empty")
	case len(s) > maxIDLen:
		return slotfare.Errorf(op, field, "longer than %d bytes", maxIDLen)
	case !utf8.ValidString(s):
		return slotfare.Errorf(op, field, "not valid UTF-8")
	}
	for _, c := range s {
		if unicode.IsSpace(c) || unicode.IsControl(c) {
			return slotfare.Errorf(op, field, "contains a space or control character: %q", s)
		}
	}
	return nil
}
