package booking

import (
	"encoding/json"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/ledger"
)

// Role is what an API key may do: providers configure resources, users book
// for their own account, billing systems read invoices and ledger entries.
type Role string

// The roles of API.md.
const (
	RoleProvider Role = "provider"
	RoleUser     Role = "user"
	RoleBilling  Role = "billing"
)

// Valid reports whether r is one of the three roles.
func (r Role) Valid() bool { return r == RoleProvider || r == RoleUser || r == RoleBilling }

// Principal is who is calling: the account the key belongs to, its role and,
// for users, the virtual organisation fare classes may be restricted to
// ("" = none).
type Principal struct {
	AccountID string
	Role      Role
	VO        string
}

// Price is what a booking or an offer costs: the reservation price (seed 004
// Eq. 7.11-7.12), the delay premium (seed 001) and their sum, each rounded to
// the currency's scale. On the wire the amounts are decimal strings with the
// currency's digits ("12.30").
type Price struct {
	Base         decimal.Decimal `json:"base"`
	DelayPremium decimal.Decimal `json:"delay_premium"`
	Total        decimal.Decimal `json:"total"`
	Currency     string          `json:"currency"`
}

// formatMoney writes d with the currency's scale of digits (never fewer
// digits than d has: formatting never loses money).
func formatMoney(d decimal.Decimal, currency string) string {
	return ledger.Currencies(nil).Rule(ledger.Currency(currency)).Format(d)
}

// MarshalJSON writes the amounts as strings with the currency's digits.
func (p Price) MarshalJSON() ([]byte, error) { return p.appendJSON(nil), nil }

// Booking is one reservation as API.md represents it. Penalty, Refund and
// Compensation are set once the booking is settled (cancelled, no-show,
// denied) and absent before.
type Booking struct {
	ID            string
	AccountID     string
	Status        Status
	HoldExpiresAt *time.Time
	ResourceID    string
	Start, End    time.Time
	Nodes         int
	FareClass     string
	Price         Price
	// Terms are the terms the booking was sold under (nil in records
	// stored before bookings carried them, until read).
	Terms        *SaleTerms
	Penalty      *decimal.Decimal
	Refund       *decimal.Decimal
	Compensation *decimal.Decimal
	CreatedAt    time.Time
	UpdatedAt    time.Time
	CheckedIn    bool
	// Profile is the application profile the job runs, when the hold named
	// one: its run is recorded against it once it completes (issue 13).
	Profile string
	// StartedAt is when the job started: the tick that made the booking
	// active. FinishedAt is when the user said it finished (checkout),
	// before the booking's end. The run recorded for Profile lasts from
	// one to the other (or to End without a checkout).
	StartedAt, FinishedAt *time.Time
}

// bookingJSON is Booking's wire form.
type bookingJSON struct {
	ID            string           `json:"booking_id"`
	AccountID     string           `json:"account_id"`
	Status        Status           `json:"status"`
	HoldExpiresAt *time.Time       `json:"hold_expires_at"`
	ResourceID    string           `json:"resource_id"`
	Start         time.Time        `json:"start"`
	End           time.Time        `json:"end"`
	Nodes         int              `json:"nodes"`
	FareClass     string           `json:"fare_class"`
	Price         Price            `json:"price"`
	Terms         *SaleTerms       `json:"terms,omitempty"`
	Penalty       *decimal.Decimal `json:"penalty,omitempty"`
	Refund        *decimal.Decimal `json:"refund,omitempty"`
	Compensation  *decimal.Decimal `json:"compensation,omitempty"`
	CreatedAt     time.Time        `json:"created_at"`
	UpdatedAt     time.Time        `json:"updated_at"`
	CheckedIn     bool             `json:"checked_in"`
	Profile       string           `json:"profile,omitempty"`
	StartedAt     *time.Time       `json:"started_at,omitempty"`
	FinishedAt    *time.Time       `json:"finished_at,omitempty"`
}

// MarshalJSON writes API.md's booking object: times in UTC, money as strings
// with the currency's digits, penalty/refund/compensation only once settled.
func (b Booking) MarshalJSON() ([]byte, error) {
	return b.appendJSON(make([]byte, 0, bookingJSONSize)), nil
}

// AppendJSON appends what MarshalJSON writes to dst.
func (b *Booking) AppendJSON(dst []byte) []byte { return b.appendJSON(dst) }

// bookingJSONSize and recordJSONSize are room for a booking's JSON (about
// 400 bytes when held) and a stored record's (about 650): made at once, the
// buffer does not grow seven times from nothing while it is written.
const (
	bookingJSONSize = 640
	recordJSONSize  = 1024
)

// UnmarshalJSON reads what MarshalJSON wrote (the store keeps bookings so).
func (b *Booking) UnmarshalJSON(data []byte) error {
	var j bookingJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*b = Booking{j.ID, j.AccountID, j.Status, j.HoldExpiresAt, j.ResourceID, j.Start, j.End, j.Nodes, j.FareClass,
		j.Price, j.Terms, j.Penalty, j.Refund, j.Compensation, j.CreatedAt, j.UpdatedAt, j.CheckedIn, j.Profile, j.StartedAt, j.FinishedAt}
	return nil
}

// Where a booking's terms come from (SaleTerms.Source).
const (
	// TermsAtSale: recorded when the booking was sold.
	TermsAtSale = "sale"
	// TermsFromConfiguration: the booking was stored before bookings
	// carried their terms, and nothing stored says which were in force
	// when it was sold: its class's terms as configured when the record
	// was first read again, kept from then on.
	TermsFromConfiguration = "configuration"
)

// SaleTerms are what a booking's buyer agreed to beyond its price: the
// cancellation schedule of its class (penalty rate by lead time), the
// no-show penalty rate (the thesis's alpha_p, seed 004 Sec. 7.6.2) and
// the denied-service factor (tau_ds / tau, Sec. 7.6.3: a denied booking
// is owed that factor times its price). A provider's later change of the
// class applies to later sales only.
type SaleTerms struct {
	Source            string             `json:"source"`
	Cancellation      []CancellationStep `json:"cancellation"`
	NoShowPenaltyRate decimal.Decimal    `json:"no_show_penalty_rate"`
	DeniedCostFactor  decimal.Decimal    `json:"denied_cost_factor"`
}

// CancellationStep is one step of a cancellation schedule: a cancellation
// at least BeforeStartSeconds before the start (and later than the step
// before) keeps PenaltyRate of what was billed.
type CancellationStep struct {
	BeforeStartSeconds int64           `json:"before_start_seconds"`
	PenaltyRate        decimal.Decimal `json:"penalty_rate"`
}

// RefundAsInvoiced makes the refund of a booking stored before refunds
// were shown as invoiced (those records carry no terms) what its invoice
// shows: a cancellation or no-show credits everything billed back and
// bills the penalty apart, where such records kept the net, billed less
// penalty. Readers apply it to what they show, never to what they store.
func (b *Booking) RefundAsInvoiced() {
	if b.Terms != nil || (b.Status != Cancelled && b.Status != NoShow) || b.Penalty == nil || b.Refund == nil {
		return
	}
	whole := b.Refund.Add(*b.Penalty)
	b.Refund = &whole
}

// OfferQuery is the body of POST /v1/offers: an elastic query (seed 004
// Sec. 6.2) over [EarliestStart, LatestEnd) on one resource ("" = every
// resource the caller may book), with an optional duration and node count,
// in a fare class. Strategy is the calendar's offer strategy ("" = osp).
type OfferQuery struct {
	ResourceID      string    `json:"resource_id"`
	EarliestStart   time.Time `json:"earliest_start"`
	LatestEnd       time.Time `json:"latest_end"`
	DurationSeconds *int64    `json:"duration_seconds"`
	Nodes           *int      `json:"nodes"`
	FareClass       string    `json:"fare_class"`
	Strategy        string    `json:"strategy,omitempty"`
}

// Offer is one priced offer. FareClass is the class it is sold in, which is
// the asked class or, when that one is closed by booking control, the next
// higher open class (seed 004 Sec. 7.4). OfferID is a signed token that
// holds everything needed to book it until ExpiresAt.
type Offer struct {
	OfferID    string
	ResourceID string
	Start, End time.Time
	Nodes      int
	FareClass  string
	// RequestedFareClass is the class the query asked when the offer is in
	// a higher one, the asked class being closed there (seed 004 Sec. 7.4:
	// the user is offered the next class up); "" otherwise.
	RequestedFareClass string
	Solution           bool
	ExpiresAt          time.Time
	Price              Price
	// Quote is the fare the query was quoted in its class, as booking
	// control learns the price response from it ("" when it does not set
	// fares, NoQuote for an offer a class up): carried into the hold so
	// that the sale counts where the quote did. Not part of the API's
	// offer.
	Quote string
}

// NoQuote is the Quote of an offer made a class up from the one asked: its
// sale answers no quote of its class, and is not counted as one.
const NoQuote = "up"

// MarshalJSON writes API.md's offer object with UTC times.
func (o Offer) MarshalJSON() ([]byte, error) {
	return o.appendJSON(make([]byte, 0, 320)), nil
}

// HoldRequest is the body of POST /v1/bookings: either an OfferID, or a
// direct request (ResourceID, Start, End, Nodes, FareClass) priced now.
type HoldRequest struct {
	OfferID    string    `json:"offer_id,omitempty"`
	ResourceID string    `json:"resource_id,omitempty"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	Nodes      int       `json:"nodes,omitempty"`
	FareClass  string    `json:"fare_class,omitempty"`
	// Profile names the application profile the job runs (optional): the
	// completed booking's run time is recorded against it.
	Profile string `json:"profile,omitempty"`
	// Quote is an in-process offer's Quote, RequestedFareClass its
	// RequestedFareClass (the offer id carries its own).
	Quote              string `json:"-"`
	RequestedFareClass string `json:"-"`
}

// ModifyRequest is the body of PATCH /v1/bookings/{id}: the fields to change
// (nil = keep).
type ModifyRequest struct {
	Start *time.Time `json:"start,omitempty"`
	End   *time.Time `json:"end,omitempty"`
	Nodes *int       `json:"nodes,omitempty"`
	// QuoteID names a modification quote to honour ("" = none): the
	// change is the quoted one, at the quoted price.
	QuoteID string `json:"quote_id,omitempty"`
}

// Idempotency is a POST's Idempotency-Key with the fingerprint of its
// request (the api computes sha256 over method, path and body). The same
// key and fingerprint replay the first answer; the same key with another
// fingerprint is a Conflict.
type Idempotency struct {
	Key         string
	Fingerprint string
}

// ListQuery selects a page of the caller's bookings: Status "" = any;
// Cursor "" = the first page; Limit 0 = DefaultLimit. ResourceID narrows a
// user's bookings to one resource; a provider must name it and then lists
// every account's bookings on that resource.
type ListQuery struct {
	Status     Status
	ResourceID string
	Cursor     string
	Limit      int
}

// Listing limits for bookings (the same as the ledger's).
const (
	DefaultLimit = ledger.DefaultLimit
	MaxLimit     = ledger.MaxLimit
)

// Page is one page of a cursor-paginated list, API.md's
// {"data":[..],"has_more":bool,"next_cursor":string|null}.
type Page[T any] struct {
	Data       []T
	HasMore    bool
	NextCursor string
}

// MarshalJSON writes the page with data never null and next_cursor null on
// the last page.
func (p Page[T]) MarshalJSON() ([]byte, error) {
	data := p.Data
	if data == nil {
		data = []T{}
	}
	var next *string
	if p.NextCursor != "" {
		next = &p.NextCursor
	}
	return json.Marshal(struct {
		Data       []T     `json:"data"`
		HasMore    bool    `json:"has_more"`
		NextCursor *string `json:"next_cursor"`
	}{data, p.HasMore, next})
}
