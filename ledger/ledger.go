package ledger

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
)

// Options configures a Ledger.
type Options struct {
	// Currencies overrides the scale and rounding of some currencies;
	// every other currency follows Currencies.Rule's defaults.
	Currencies Currencies
}

// Ledger is the in-memory book of postings: validated and rounded on the
// way in, indexed by account and booking for fast reads, never changed once
// in. It is safe for concurrent use.
//
// Writes go in two steps so that memory never shows money the store does
// not hold: Prepare checks a batch and reserves its ids and bookings,
// the caller makes Pending.ToPersist durable (with the booking it belongs
// to, in one write), and Pending.Commit makes the batch visible (Abort
// releases it if persisting failed). Append does both for a ledger that
// nothing persists.
type Ledger struct {
	currencies Currencies

	mu   sync.RWMutex
	book *book
	// reserved ids and bookings of prepared, not yet committed batches.
	resIDs      map[string]*Pending
	resBookings map[string]*Pending
}

// book is the ledger's committed state.
type book struct {
	byID     map[string]*record
	accounts map[AccountID]*account
	bookings map[string]*bookingState
}

// record is a committed posting with what reads need precomputed.
type record struct {
	p        Posting // normalized; never modified, never handed out uncopied
	customer decimal.Decimal
	// units is customer in units of the currency's scale (p.Scale) when
	// it fits an int64 (small), so invoices sum without allocating.
	units int64
	small bool
}

// account is one account's entries in (time, id) order and its balances.
type account struct {
	recs    []*record
	balance map[Currency]decimal.Decimal // debits minus credits
	// pushed says that push appended an entry out of order: recs are
	// sorted once, when the replay ends (book.sortPushed).
	pushed bool
}

func newBook() *book {
	return &book{byID: map[string]*record{}, accounts: map[AccountID]*account{}, bookings: map[string]*bookingState{}}
}

// New returns an empty ledger.
func New(o Options) (*Ledger, error) {
	if err := o.Currencies.Check(); err != nil {
		return nil, err
	}
	return &Ledger{
		currencies:  maps.Clone(o.Currencies),
		book:        newBook(),
		resIDs:      map[string]*Pending{},
		resBookings: map[string]*Pending{},
	}, nil
}

// Rule is the scale and rounding the ledger applies to currency c.
func (l *Ledger) Rule(c Currency) CurrencyRule { return l.currencies.Rule(c) }

// Pending is a prepared batch: checked, rounded, its ids and bookings
// reserved, not yet visible. Exactly one of Commit or Abort must follow;
// Abort after Commit is a no-op, so `defer p.Abort()` is safe.
type Pending struct {
	l        *Ledger
	all      []Posting // the batch as stored: existing postings for replays
	fresh    []Posting // the postings not stored yet, in batch order
	bookings map[string]*bookingState
	state    pendingState
}

type pendingState uint8

const (
	pending pendingState = iota
	committed
	aborted
)

// Postings is the whole batch as the ledger stores it (rounded), including
// postings that were already in the ledger (idempotent replays).
func (p *Pending) Postings() []Posting { return clonePostings(p.all) }

// ToPersist is the part of the batch the store does not hold yet, in
// batch order; empty when the whole batch is a replay.
func (p *Pending) ToPersist() []Posting { return clonePostings(p.fresh) }

// Commit makes the batch visible. Call it only once ToPersist is durable.
// It cannot fail for a prepared batch: the reservations taken by Prepare
// keep every other writer off its ids and bookings. Committing twice, or a
// batch that was all replays, is a no-op; committing an aborted batch is a
// Conflict.
func (p *Pending) Commit() error {
	l := p.l
	l.mu.Lock()
	defer l.mu.Unlock()
	switch p.state {
	case committed:
		return nil
	case aborted:
		return slotfare.E(slotfare.Op("ledger.Commit"), slotfare.Conflict, "batch was aborted")
	}
	for _, q := range p.fresh {
		l.book.insert(q, (*account).add)
	}
	maps.Copy(l.book.bookings, p.bookings)
	l.release(p)
	p.state = committed
	return nil
}

// Abort drops a pending batch and its reservations; nothing of it becomes
// visible. It does nothing to a committed batch.
func (p *Pending) Abort() {
	p.l.mu.Lock()
	defer p.l.mu.Unlock()
	if p.state == pending {
		p.l.release(p)
		p.state = aborted
	}
}

func (l *Ledger) release(p *Pending) {
	for _, q := range p.fresh {
		delete(l.resIDs, q.ID)
	}
	for b := range p.bookings {
		delete(l.resBookings, b)
	}
}

// Prepare checks a batch of postings that must be stored together and
// reserves it. Each posting is normalized (see the package doc: balanced,
// rounded once, shaped as its kind requires) and checked against its
// booking's history. A posting whose id is already in the ledger with the
// same content is a replay and is left out of ToPersist; the same id with
// other content is a Conflict, as is an id or booking reserved by another
// pending batch. Nothing changes on error.
func (l *Ledger) Prepare(ps ...Posting) (*Pending, error) {
	const op slotfare.Op = "ledger.Prepare"
	if len(ps) == 0 {
		return nil, slotfare.Errorf(op, "postings", "empty batch")
	}
	norm := make([]Posting, 0, len(ps))
	seen := make(map[string]int, len(ps))
	for _, p := range ps {
		q, err := normalize(op, p, l.currencies.Rule)
		if err != nil {
			return nil, err
		}
		if i, dup := seen[q.ID]; dup {
			if sameContent(norm[i], q) {
				continue
			}
			return nil, slotfare.Errorf(op, "id", "posting %s appears twice in the batch with different content", q.ID)
		}
		seen[q.ID] = len(norm)
		norm = append(norm, q)
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	pend := &Pending{l: l, bookings: map[string]*bookingState{}}
	for _, q := range norm {
		if r, ok := l.book.byID[q.ID]; ok {
			if !sameContent(r.p, q) {
				return nil, slotfare.E(op, slotfare.Conflict, slotfare.Field("id"),
					"posting "+q.ID+" already exists with other content")
			}
			pend.all = append(pend.all, r.p)
			continue
		}
		if _, busy := l.resIDs[q.ID]; busy {
			return nil, slotfare.E(op, slotfare.Conflict, slotfare.Field("id"),
				"posting "+q.ID+" is being written by a concurrent request; retry")
		}
		if q.BookingID != "" {
			if _, busy := l.resBookings[q.BookingID]; busy {
				return nil, slotfare.E(op, slotfare.Conflict, slotfare.Field("booking_id"),
					"booking "+q.BookingID+" has postings being written by a concurrent request; retry")
			}
			s, ok := pend.bookings[q.BookingID]
			if !ok {
				s = l.book.bookings[q.BookingID].clone()
			}
			s, err := s.apply(q)
			if err != nil {
				return nil, slotfare.E(op, err)
			}
			pend.bookings[q.BookingID] = s
		}
		pend.all = append(pend.all, q)
		pend.fresh = append(pend.fresh, q)
	}
	for _, q := range pend.fresh {
		l.resIDs[q.ID] = pend
	}
	for b := range pend.bookings {
		l.resBookings[b] = pend
	}
	if len(pend.fresh) == 0 {
		pend.state = committed
	}
	return pend, nil
}

// Append prepares ps and commits them: the one-call path for a ledger that
// nothing persists (a decision's, a test's). It returns the batch as
// checked.
func (l *Ledger) Append(ps ...Posting) ([]Posting, error) {
	pend, err := l.Prepare(ps...)
	if err != nil {
		return nil, err
	}
	defer pend.Abort()
	if err := pend.Commit(); err != nil {
		return nil, err
	}
	return pend.Postings(), nil
}

// Replay rebuilds an empty ledger from stored postings ps, in the order
// they were stored (a booking's in its own history's order): every posting
// is checked by the same rules as on the way in (and must need no further
// rounding). An identical posting stored twice (a retried write) counts
// once. On any error the ledger stays empty.
func (l *Ledger) Replay(ctx context.Context, ps []Posting) error {
	const op slotfare.Op = "ledger.Replay"
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.book.byID) > 0 || len(l.resIDs) > 0 {
		return slotfare.E(op, slotfare.Conflict, "replay needs an empty ledger")
	}
	b := newBook()
	// Sized for the postings up front: a ledger of a resource's whole
	// history grew its maps step by step, a tenth of its replay.
	b.byID = make(map[string]*record, len(ps))
	b.bookings = make(map[string]*bookingState, len(ps)/2)
	err := replayEach(ctx, ps, func(p Posting) error {
		q, err := normalize(op, p, l.currencies.Rule)
		if err != nil {
			return corrupt(op, "stored posting "+p.ID+" breaks the ledger's rules", err)
		}
		// A stored posting needs no rounding: its amounts are already at
		// the currency's scale (a scale raised since is fine).
		stored := p
		stored.Scale = q.Scale
		if !sameContent(stored, q) {
			return corrupt(op, "stored posting "+p.ID+" is not at its currency's scale (was the currency's rule lowered?)", nil)
		}
		if r, ok := b.byID[q.ID]; ok {
			if sameContent(r.p, q) {
				return nil
			}
			return corrupt(op, "store holds two postings "+q.ID+" with different content", nil)
		}
		if q.BookingID != "" {
			st, err := b.bookings[q.BookingID].clone().apply(q)
			if err != nil {
				return corrupt(op, "store holds an inconsistent booking history", err)
			}
			b.bookings[q.BookingID] = st
		}
		b.insert(q, (*account).push)
		return nil
	})
	if err != nil {
		return slotfare.E(op, err)
	}
	b.sortPushed()
	l.book = b
	return nil
}

// corrupt is the error for stored data the ledger cannot accept: kind
// Other whatever the cause's kind, since the caller's input is not at fault.
func corrupt(op slotfare.Op, msg string, cause error) error {
	return &slotfare.Error{Op: op, Kind: slotfare.Other, Msg: msg, Err: cause}
}

// insert adds a normalized posting to the book's indexes. Booking states
// are installed by the caller.
// insert puts p in the book, into each account it is on by add (or push).
func (b *book) insert(p Posting, add func(*account, *record)) {
	r := &record{p: p, customer: p.CustomerAmount()}
	if u := r.customer.Shift(p.Scale); u.IsInteger() {
		if c := u.BigInt(); c.IsInt64() {
			r.units, r.small = c.Int64(), true
		}
	}
	b.byID[p.ID] = r
	seen := make([]AccountID, 0, 2)
	for _, ln := range p.Lines {
		a := b.accounts[ln.Account]
		if a == nil {
			a = &account{balance: map[Currency]decimal.Decimal{}}
			b.accounts[ln.Account] = a
		}
		amt := ln.Amount
		if ln.Side == Credit {
			amt = amt.Neg()
		}
		a.balance[p.Currency] = a.balance[p.Currency].Add(amt)
		if !slices.Contains(seen, ln.Account) {
			seen = append(seen, ln.Account)
			add(a, r)
		}
	}
}

// push appends r, noting when it is out of (time, id) order. A replay
// pushes every posting and sorts each account pushed out of order once at
// its end: the postings of several resources come one resource after the
// other, and adding each in place moved a customer's entries at every
// posting of the second resource.
func (a *account) push(r *record) {
	if n := len(a.recs); n > 0 && !less(a.recs[n-1], r.p.Time, r.p.ID) {
		a.pushed = true
	}
	a.recs = append(a.recs, r)
}

// sortPushed puts the entries of every account pushed out of order in
// (time, id) order, the order add keeps: ids are unique, so the order is
// the same whichever order they came in.
func (b *book) sortPushed() {
	for _, a := range b.accounts {
		if a.pushed {
			slices.SortFunc(a.recs, func(x, y *record) int {
				if c := x.p.Time.Compare(y.p.Time); c != 0 {
					return c
				}
				return strings.Compare(x.p.ID, y.p.ID)
			})
			a.pushed = false
		}
	}
}

// less orders records by time, then id: the entries' stable order.
func less(a *record, t time.Time, id string) bool {
	if c := a.p.Time.Compare(t); c != 0 {
		return c < 0
	}
	return a.p.ID < id
}

// add inserts r keeping (time, id) order; postings mostly arrive in time
// order, so this is usually an append.
func (a *account) add(r *record) {
	n := len(a.recs)
	if n == 0 || less(a.recs[n-1], r.p.Time, r.p.ID) {
		a.recs = append(a.recs, r)
		return
	}
	i := sort.Search(n, func(i int) bool { return !less(a.recs[i], r.p.Time, r.p.ID) })
	a.recs = slices.Insert(a.recs, i, r)
}

// Posting returns the posting with the given id (NotFound if none).
func (l *Ledger) Posting(id string) (Posting, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	r, ok := l.book.byID[id]
	if !ok {
		return Posting{}, slotfare.E(slotfare.Op("ledger.Posting"), slotfare.NotFound, "no posting "+id)
	}
	return r.p.clone(), nil
}

// BookingPostings returns a booking's postings in the order they were
// committed (none for an unknown booking).
func (l *Ledger) BookingPostings(bookingID string) []Posting {
	l.mu.RLock()
	defer l.mu.RUnlock()
	s := l.book.bookings[bookingID]
	if s == nil {
		return nil
	}
	out := make([]Posting, len(s.postings))
	for i, id := range s.postings {
		out[i] = l.book.byID[id].p.clone()
	}
	return out
}

// Balance is an account's balance per currency, debits minus credits:
// positive for a customer who owes, negative for a resource's revenue.
// An account without postings has an empty balance.
func (l *Ledger) Balance(a AccountID) map[Currency]decimal.Decimal {
	l.mu.RLock()
	defer l.mu.RUnlock()
	acc := l.book.accounts[a]
	if acc == nil {
		return map[Currency]decimal.Decimal{}
	}
	return maps.Clone(acc.balance)
}

// Accounts lists every account with postings, sorted.
func (l *Ledger) Accounts() []AccountID {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := slices.Collect(maps.Keys(l.book.accounts))
	slices.SortFunc(out, func(a, b AccountID) int { return strings.Compare(string(a), string(b)) })
	return out
}

// Len is the number of committed postings.
func (l *Ledger) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.book.byID)
}

func clonePostings(ps []Posting) []Posting {
	out := make([]Posting, len(ps))
	for i, p := range ps {
		out[i] = p.clone()
	}
	return out
}

// replayEach calls fn for each of ps in order, and stops at its first
// error or once ctx is done.
func replayEach(ctx context.Context, ps []Posting, fn func(Posting) error) error {
	for _, p := range ps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}
