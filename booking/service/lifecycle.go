package service

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/control"
	"slotfare/booking/idem"
	"slotfare/booking/inventory"
	"slotfare/booking/records"
	"slotfare/booking/runs"
	"slotfare/ledger"
	"slotfare/pricing"
)

// maxBookingSeconds bounds one booking's length (a year).
const maxBookingSeconds = 366 * 24 * 3600

// holdPlan is a hold request resolved against its resource.
type holdPlan struct {
	r          *resource
	k          int // class index
	class      pricing.FareClass
	start, end time.Time
	nodes      int
	price      booking.Price
	quote      string // the fare key the sale counts at (booking.Offer.Quote)
	requested  string // the class asked, when the hold buys a class up
}

// checkWindow validates a booking interval: whole seconds, start not in the
// past, end after start, within the book-ahead horizon.
func (s *Service) checkWindow(op slotfare.Op, start, end, now time.Time) error {
	if start.IsZero() {
		return slotfare.Errorf(op, "start", "required")
	}
	if end.IsZero() {
		return slotfare.Errorf(op, "end", "required")
	}
	if start.Nanosecond() != 0 {
		return slotfare.Errorf(op, "start", "must be a whole second")
	}
	if end.Nanosecond() != 0 {
		return slotfare.Errorf(op, "end", "must be a whole second")
	}
	if start.Before(now) {
		return slotfare.Errorf(op, "start", "is in the past (now %s)", now.UTC().Format(time.RFC3339))
	}
	if !end.After(start) {
		return slotfare.Errorf(op, "end", "must be after start")
	}
	if end.Sub(start) > maxBookingSeconds*time.Second {
		return slotfare.Errorf(op, "end", "a booking lasts at most %d seconds", maxBookingSeconds)
	}
	if end.After(now.Add(time.Duration(s.cfg.BookAheadSeconds) * time.Second)) {
		return slotfare.Errorf(op, "end", "is beyond the book-ahead horizon of %d seconds", s.cfg.BookAheadSeconds)
	}
	return nil
}

// planHold resolves a hold request: from a signed offer (its price is kept)
// or from the request's fields (priced now).
func (s *Service) planHold(op slotfare.Op, p booking.Principal, req booking.HoldRequest, now time.Time) (holdPlan, error) {
	if req.OfferID == "" {
		return s.planFields(op, p, req, now)
	}
	if req.ResourceID != "" || !req.Start.IsZero() || !req.End.IsZero() || req.Nodes != 0 || req.FareClass != "" {
		return holdPlan{}, slotfare.Errorf(op, "offer_id", "give either offer_id or resource_id, start, end, nodes and fare_class, not both")
	}
	return s.planOffer(op, p, req.OfferID, now)
}

// planOffer resolves a hold of signed offer offerID: its terms and price as
// offered, if they can still be booked.
func (s *Service) planOffer(op slotfare.Op, p booking.Principal, offerID string, now time.Time) (holdPlan, error) {
	c, err := s.signer.Verify(op, offerID, p.AccountID, now)
	if err != nil {
		return holdPlan{}, err
	}
	r := s.resource(c.Resource)
	if r == nil {
		return holdPlan{}, slotfare.E(op, slotfare.Conflict, slotfare.Field("offer_id"), "the offer's resource is gone")
	}
	base, err1 := decimal.NewFromString(c.Base)
	delay, err2 := decimal.NewFromString(c.Delay)
	if err1 != nil || err2 != nil {
		return holdPlan{}, slotfare.Errorf(op, "offer_id", "malformed offer")
	}
	start, end := time.Unix(c.Start, 0).UTC(), time.Unix(c.End, 0).UTC()
	if err := s.checkWindow(op, start, end, now); err != nil {
		return holdPlan{}, slotfare.E(op, slotfare.Conflict, slotfare.Field("offer_id"), "the offer can no longer be booked", err)
	}
	r.mu.Lock()
	k, class, ok := r.classIndex(c.Class)
	gone := r.inService(op)
	r.mu.Unlock()
	if gone != nil {
		return holdPlan{}, slotfare.E(op, slotfare.Conflict, slotfare.Field("offer_id"), "the offer's resource is gone: "+slotfare.MessageOf(gone))
	}
	if !ok {
		return holdPlan{}, slotfare.E(op, slotfare.Conflict, slotfare.Field("offer_id"), "the offer's fare class is no longer sold")
	}
	price := booking.Price{Base: base, DelayPremium: delay, Total: base.Add(delay), Currency: c.Currency}
	if err := s.billable(op, price); err != nil {
		return holdPlan{}, slotfare.E(op, slotfare.Field("offer_id"), err)
	}
	return holdPlan{r: r, k: k, class: class, start: start, end: end, nodes: c.Nodes, price: price, quote: c.Quote,
		requested: c.Requested}, nil
}

// planFields resolves a hold from the request's own fields, priced now.
func (s *Service) planFields(op slotfare.Op, p booking.Principal, req booking.HoldRequest, now time.Time) (holdPlan, error) {
	if req.ResourceID == "" {
		return holdPlan{}, slotfare.Errorf(op, "resource_id", "required (or give offer_id)")
	}
	r := s.resource(req.ResourceID)
	if r == nil {
		return holdPlan{}, slotfare.Errorf(op, "resource_id", "no resource %q", req.ResourceID)
	}
	r.mu.Lock()
	gone := r.inService(op)
	r.mu.Unlock()
	if gone != nil {
		return holdPlan{}, slotfare.Errorf(op, "resource_id", "%s", slotfare.MessageOf(gone))
	}
	// The request's own fields are all checked before any is refused, so
	// that every fault is named at once (slotfare.Join).
	start, end := req.Start.UTC(), req.End.UTC()
	errs := []error{s.checkWindow(op, start, end, now)}
	r.mu.Lock()
	k, class, ok := r.classIndex(req.FareClass)
	rate, base, cur, pricer, snapNow, nodes := r.rate, r.rc.BaseCost, r.rc.Currency, r.pricer, r.queueNow, r.rc.Nodes
	r.mu.Unlock()
	switch {
	case req.FareClass == "":
		errs = append(errs, slotfare.Errorf(op, "fare_class", "required"))
	case !ok:
		errs = append(errs, slotfare.Errorf(op, "fare_class", "resource %s has no fare class %q", r.id, req.FareClass))
	}
	if req.Nodes <= 0 || req.Nodes > nodes {
		errs = append(errs, slotfare.Errorf(op, "nodes", "must be in 1..%d (the resource's nodes), got %d", nodes, req.Nodes))
	}
	if err := slotfare.Join(errs...); err != nil {
		return holdPlan{}, err
	}
	if !class.Admits(pricing.VO(p.VO)) {
		return holdPlan{}, slotfare.E(op, slotfare.Forbidden, fmt.Sprintf("fare class %q is restricted to VO %s", class.Name, string(class.VO)))
	}
	price, ok, err := s.price(rate, class, base, cur, pricer, snapNow, req.Nodes, start, end, now)
	if err != nil {
		return holdPlan{}, slotfare.E(op, err)
	}
	if !ok {
		return holdPlan{}, slotfare.E(op, slotfare.NoCapacity, "the resource's queue snapshot cannot take this reservation")
	}
	if err := s.billable(op, price); err != nil {
		return holdPlan{}, err
	}
	quote := req.Quote
	if quote == "" {
		r.mu.Lock()
		quote = r.quoteOf(price.Base, req.Nodes, start, end)
		r.mu.Unlock()
	}
	return holdPlan{r: r, k: k, class: class, start: start, end: end, nodes: req.Nodes, price: price, quote: quote,
		requested: req.RequestedFareClass}, nil
}

// idemTTL is how long an Idempotency-Key answers with the booking its
// first request made.
const idemTTL = 24 * time.Hour

// Hold sets capacity aside for the caller until the hold expires (user
// only; seed 003 Sec. 3: a preliminary reservation with a timeout). With an
// Idempotency-Key, a retry with the same fingerprint returns the booking the
// first request made (replayed = true, exactly as first answered) and a retry
// with another fingerprint is a Conflict; nothing is held twice. The key is
// claimed and finished by the hold's guarded step (records.HeldKey); while
// another request with it runs, the hold waits for that one's answer. A
// hold is acknowledged once queued for the store, before its sync
// (Batch.NoWait): a crash may lose a hold, never a commit.
func (s *Service) Hold(ctx context.Context, p booking.Principal, req booking.HoldRequest, key booking.Idempotency) (booking.Booking, bool, error) {
	const op slotfare.Op = "service.Hold"
	if err := s.checkOpen(op); err != nil {
		return booking.Booking{}, false, err
	}
	if err := needRole(op, p, booking.RoleUser); err != nil {
		return booking.Booking{}, false, err
	}
	for wait := time.Duration(0); ; wait = keyWait(wait) {
		if err := pause(ctx, op, wait); err != nil {
			return booking.Booking{}, false, err
		}
		id, stepped, err := s.hold(ctx, op, p, req, key)
		var done *records.KeyDone
		switch {
		case err == nil:
			b, err := s.heldBooking(ctx, id)
			return b, false, err
		case errors.As(err, &done):
			return s.replayHold(ctx, op, done.Booking)
		case key.Key != "" && !stepped:
			return s.refusedBeforeStep(ctx, op, p.AccountID, key, err)
		case !errors.Is(err, records.ErrKeyPending):
			return booking.Booking{}, false, err
		}
	}
}

// keyWait is how long a hold waits, after waiting d, before it asks again
// for a key another request holds: 2 ms, doubling up to 100 ms.
func keyWait(d time.Duration) time.Duration {
	return min(max(2*d, 2*time.Millisecond), 100*time.Millisecond)
}

// pause waits d (none when zero) for a request with the same
// Idempotency-Key to finish, or for ctx to end.
func pause(ctx context.Context, op slotfare.Op, d time.Duration) error {
	if d == 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return slotfare.E(op, slotfare.Unavailable, "a request with this Idempotency-Key is still running", ctx.Err())
	case <-t.C:
		return nil
	}
}

// refusedBeforeStep answers a hold with an Idempotency-Key refused before
// its guarded step (its offer has expired since the first request, say):
// the key, on the idem port, may name the booking the same request made
// (a replay), or be another request's (a Conflict). A key free is given
// back at once, and err stands.
func (s *Service) refusedBeforeStep(ctx context.Context, op slotfare.Op, account string, key booking.Idempotency, err error) (booking.Booking, bool, error) {
	for wait := time.Duration(0); ; wait = keyWait(wait) {
		if err := pause(ctx, op, wait); err != nil {
			return booking.Booking{}, false, err
		}
		c, cerr := s.idem.Claim(ctx, account, key.Key, key.Fingerprint, records.KeyPendingTTL, s.now())
		if cerr != nil {
			return booking.Booking{}, false, slotfare.E(op, cerr)
		}
		switch c.State {
		case idem.Claimed:
			if aerr := s.idem.Abandon(context.WithoutCancel(ctx), account, key.Key, key.Fingerprint); aerr != nil {
				// The key stays pending until its ttl: a retry waits, then claims it.
				err = errors.Join(err, slotfare.E(op, slotfare.Unavailable, aerr))
			}
			return booking.Booking{}, false, err
		case idem.Done:
			return s.replayHold(ctx, op, c.Result)
		case idem.Mismatch:
			return booking.Booking{}, false, records.ErrKeyMismatch(op)
		}
	}
}

// heldBooking is the booking hold just made, as it was first stored: a
// ticker that expired it meanwhile has let it go from memory already.
func (s *Service) heldBooking(ctx context.Context, id string) (booking.Booking, error) {
	s.mu.RLock()
	e := s.bookings[id]
	s.mu.RUnlock()
	if e != nil {
		return e.booking(), nil
	}
	b, _, err := s.replayHold(ctx, "service.Hold", id)
	return b, err
}

// replayHold is the answer to a hold whose Idempotency-Key made booking id:
// the booking as its first request answered.
func (s *Service) replayHold(ctx context.Context, op slotfare.Op, id string) (booking.Booking, bool, error) {
	st, found, err := s.records.Get(ctx, id)
	if err != nil {
		return booking.Booking{}, false, slotfare.E(op, slotfare.Unavailable, err)
	}
	if !found {
		return booking.Booking{}, false, slotfare.E(op, slotfare.Other, fmt.Sprintf("Idempotency-Key names booking %s, which is not stored", id))
	}
	return st.Record.First(), true, nil
}

// hold makes a hold in its guarded step, with its Idempotency-Key if it
// has one; stepped says whether the step ran (it answered, or failed
// unanswered) or the hold was refused before it.
func (s *Service) hold(ctx context.Context, op slotfare.Op, p booking.Principal, req booking.HoldRequest, key booking.Idempotency) (id string, stepped bool, err error) {
	now := s.now()
	if req.Profile != "" {
		if err := runs.CheckProfile(op, "profile", req.Profile); err != nil {
			return "", false, err
		}
	}
	plan, err := s.planHold(op, p, req, now)
	if err != nil {
		return "", false, err
	}
	if err := s.coversBidPrices(op, plan); err != nil {
		return "", false, err
	}
	r := plan.r
	rec := s.holdRecord(p, req, key, plan, now)
	id = rec.Booking.ID
	e := &entry{res: r, groups: rec.Groups, version: 1}
	e.set(rec)
	// A hold is acknowledged once queued for the store (NoWait): it holds
	// no money and would expire anyway, and the commit that follows is
	// stored after it. A flow so waits for one group commit, not two.
	w := records.Write{Resource: r.id, WriteID: s.writeID(), Changes: []records.Change{{Record: rec}}, NoWait: true, KeyTTL: idemTTL}
	// Its place in the account's hold limits claimed, admitted and stored
	// in one step (admitGuarded).
	claim, err := r.holdClaim(id, p.AccountID, plan.start, plan.end, *rec.HoldExpires, plan.nodes, now)
	if err != nil {
		return "", false, slotfare.E(op, err)
	}
	// The entry is locked until the hold is stored, so Tick leaves it be.
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := r.admitHold(ctx, op, e, plan, w, claim, now); err != nil {
		// A guarded step claimed, admitted and stored the hold, or none of
		// it (if it failed unanswered, Unavailable, and did it all, the
		// hold keeps its capacity and claim until its ticker expires it):
		// there is nothing to give back.
		if errors.Is(err, inventory.Retired) {
			// Retired on another replica, which this one has not heard of
			// yet: refused as a resource known retired is.
			return "", true, slotfare.Errorf(op, "resource_id", "resource %q is retired; its bookings and invoices stay readable", r.id)
		}
		return "", true, slotfare.E(op, err)
	}
	s.mu.Lock()
	s.bookings[id] = e
	s.mu.Unlock()
	s.transition("", booking.Held)
	return id, true, nil
}

// holdRecord is the record of a new hold on plan for p at now, under a new
// id: held until the resource's hold time has passed, in whole seconds.
func (s *Service) holdRecord(p booking.Principal, req booking.HoldRequest, idem booking.Idempotency, plan holdPlan, now time.Time) booking.Record {
	r := plan.r
	r.mu.Lock()
	holdSec := r.rc.HoldSeconds
	r.mu.Unlock()
	if holdSec <= 0 {
		holdSec = s.cfg.HoldSeconds
	}
	// Whole seconds, rounded up: the hold never ends before its full time.
	exp := now.Add(time.Duration(holdSec) * time.Second).UTC()
	if e := stamp(exp); !e.Equal(exp) {
		exp = e.Add(time.Second)
	}
	rec := booking.Record{Booking: booking.Booking{ID: s.newID("bk_"), AccountID: p.AccountID, Status: booking.Held, HoldExpiresAt: &exp, ResourceID: r.id,
		Start: plan.start, End: plan.end, Nodes: plan.nodes, FareClass: plan.class.Name, Price: plan.price, Terms: saleTerms(plan.class, booking.TermsAtSale),
		CreatedAt: stamp(now), UpdatedAt: stamp(now), Profile: req.Profile}, Groups: plan.k + 1, HoldExpires: &exp}
	if idem.Key != "" {
		rec.Account, rec.IdemKey, rec.Fingerprint = p.AccountID, idem.Key, idem.Fingerprint
	}
	return rec
}

// admitHold claims, admits and stores the hold of locked entry e in one
// guarded step, then counts what it says of demand: sold (and bought up),
// or refused because its class is closed there.
func (r *resource) admitHold(ctx context.Context, op slotfare.Op, e *entry, plan holdPlan, w records.Write, claim records.HoldClaim, now time.Time) error {
	start, end := plan.start.Unix(), plan.end.Unix()
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.inService(op) // DELETE counts r.admitting under r.mu: retired or seen
	if err == nil {
		// The step is atomic where the bookings live and a rebuild
		// re-admits nothing, so the resource is not locked across it:
		// holds, offers and commits of the resource go on meanwhile.
		groups := r.groups
		r.admitting++ // DELETE counts it meanwhile
		r.mu.Unlock()
		err = r.admitGuarded(ctx, e, plan.k, groups, start, end, plan.nodes, w, claim)
		r.mu.Lock()
		r.admitting--
	}
	switch {
	case err == nil:
		r.live[e.view.Load().ID] = e
		if plan.quote != booking.NoQuote {
			r.countDemand(plan.class.Name, demandSold, "", plan.quote, plan.nodes, plan.start, plan.end, now)
		}
		if plan.requested != "" && plan.requested != plan.class.Name {
			// A buy-up (seed 004 Sec. 7.4): the asked class's sell-up.
			r.countDemand(plan.requested, demandBoughtUp, plan.class.Name, "", plan.nodes, plan.start, plan.end, now)
		}
	case slotfare.KindOf(err) == slotfare.NoCapacity:
		// The class is closed there: its demand is censored (Sec. 7.3).
		r.observe(control.Event{Kind: control.EventRefused, Class: plan.class.Name, Start: plan.start, End: plan.end, At: now})
		r.countDemand(plan.class.Name, demandRefusedClosed, "", "", plan.nodes, plan.start, plan.end, now)
	}
	return err
}

// goneMeanwhile turns the inventory's NotFound for a booking this change
// read as holding capacity into the Conflict of a booking moved meanwhile:
// another request (on this replica or another) released it after the read,
// so the change is decided again on what that request stored (retry).
func goneMeanwhile(op slotfare.Op, id string, err error) error {
	if slotfare.KindOf(err) != slotfare.NotFound {
		return err
	}
	return slotfare.E(op, slotfare.Conflict, slotfare.Field("booking_id"), fmt.Sprintf("booking %s was changed meanwhile", id), err)
}

// holdLapsed reports whether a hold can no longer be committed at now: its
// time to commit is over, or its interval has begun. why says which.
func holdLapsed(b booking.Booking, now time.Time) (bool, string) {
	if b.HoldExpiresAt != nil && !now.Before(*b.HoldExpiresAt) {
		return true, fmt.Sprintf("the hold expired at %s", b.HoldExpiresAt.Format(time.RFC3339))
	}
	if now.After(b.Start) {
		return true, fmt.Sprintf("the hold's start %s has passed; it expired unbooked", b.Start.Format(time.RFC3339))
	}
	return false, ""
}

// own finds a booking of the caller's account; another account's booking is
// NotFound, as an unknown one.
func (s *Service) own(ctx context.Context, op slotfare.Op, p booking.Principal, id string) (*entry, error) {
	if err := needRole(op, p, booking.RoleUser); err != nil {
		return nil, err
	}
	e, err := s.entryOf(ctx, op, id)
	if err != nil {
		return nil, err
	}
	if e == nil || e.booking().AccountID != p.AccountID {
		return nil, slotfare.E(op, slotfare.NotFound, fmt.Sprintf("no booking %q", id))
	}
	return e, nil
}

// ownLive is own for a change: the booking's resource must still be
// configured.
func (s *Service) ownLive(ctx context.Context, op slotfare.Op, p booking.Principal, id string) (*entry, error) {
	e, err := s.own(ctx, op, p, id)
	if err != nil {
		return nil, err
	}
	if e.res == nil {
		return nil, slotfare.E(op, slotfare.Conflict, fmt.Sprintf("resource %s of this booking is no longer configured", e.booking().ResourceID))
	}
	return e, nil
}

// Get returns one of the caller's bookings.
func (s *Service) Get(ctx context.Context, p booking.Principal, id string) (booking.Booking, error) {
	const op slotfare.Op = "service.Get"
	if err := needRole(op, p, booking.RoleUser); err != nil {
		return booking.Booking{}, err
	}
	st, found, err := s.records.Get(ctx, id)
	if err != nil {
		return booking.Booking{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	if !found || st.Record.Booking.AccountID != p.AccountID {
		return booking.Booking{}, slotfare.E(op, slotfare.NotFound, fmt.Sprintf("no booking %q", id))
	}
	return s.withTerms(st.Record.Booking), nil
}

// List pages through the caller's bookings (a provider: those on the
// resource it names), oldest first by (created_at, id), optionally of one
// status. The cursor is a key, not a position: it
// names the last booking returned (its created_at and id, with the status
// filter it belongs to), and the next page starts after that key. The order
// is the bookings' own, not the order the store loads them in, so a walk
// neither skips nor repeats a booking across a restart, and every booking
// present when the walk began is returned exactly once however many are made
// meanwhile (a new one shows up if it sorts after the cursor). A cursor that
// is not one this listing issued is Invalid naming "cursor".
func (s *Service) List(ctx context.Context, p booking.Principal, q booking.ListQuery) (booking.Page[booking.Booking], error) {
	const op slotfare.Op = "service.List"
	if err := needRole(op, p, booking.RoleUser, booking.RoleProvider); err != nil {
		return booking.Page[booking.Booking]{}, err
	}
	if q.Status != "" && !q.Status.Valid() {
		return booking.Page[booking.Booking]{}, slotfare.Errorf(op, "status", "unknown status %q", q.Status)
	}
	limit := q.Limit
	if limit == 0 {
		limit = booking.DefaultLimit
	}
	if limit < 1 || limit > booking.MaxLimit {
		return booking.Page[booking.Booking]{}, slotfare.Errorf(op, "limit", "must be in 1..%d, got %d", booking.MaxLimit, q.Limit)
	}
	read, match, err := s.listSource(op, p, q)
	if err != nil {
		return booking.Page[booking.Booking]{}, err
	}
	from, err := listFrom(op, q)
	if err != nil {
		return booking.Page[booking.Booking]{}, err
	}
	picked := make([]booking.Booking, 0, limit+1)
	for len(picked) <= limit {
		page, next, err := read(ctx, from, max(limit+1, 64))
		if err != nil {
			return booking.Page[booking.Booking]{}, slotfare.E(op, slotfare.Unavailable, err)
		}
		for _, st := range page {
			if b := st.Record.Booking; (q.Status == "" || b.Status == q.Status) && match(b) {
				picked = append(picked, s.withTerms(b))
			}
		}
		if next == "" {
			break
		}
		from = next
	}
	out := booking.Page[booking.Booking]{Data: picked[:min(len(picked), limit)]}
	if len(picked) > limit {
		last := out.Data[len(out.Data)-1]
		out.HasMore = true
		// base64url of "b1", the status filter, created_at as Unix seconds
		// and nanoseconds, the id and the resource filter, NUL-separated
		// (ids hold no NUL).
		out.NextCursor = base64.RawURLEncoding.EncodeToString(cursorBytes("b1", string(q.Status),
			strconv.FormatInt(last.CreatedAt.Unix(), 10), strconv.Itoa(last.CreatedAt.Nanosecond()), last.ID, q.ResourceID))
	}
	return out, nil
}

// listSource is where a listing reads: a user's own bookings (those on
// q.ResourceID when named), or for a provider every booking ever stored on
// q.ResourceID, which it must name.
func (s *Service) listSource(op slotfare.Op, p booking.Principal, q booking.ListQuery) (read func(context.Context, string, int) ([]records.Stored, string, error), match func(booking.Booking) bool, err error) {
	if p.Role == booking.RoleProvider {
		if q.ResourceID == "" {
			return nil, nil, slotfare.Errorf(op, "resource_id", "a provider lists the bookings of one resource: name it")
		}
		if s.resource(q.ResourceID) == nil {
			return nil, nil, slotfare.E(op, slotfare.NotFound, slotfare.Field("resource_id"), fmt.Sprintf("no resource %q", q.ResourceID))
		}
		read = func(ctx context.Context, from string, n int) ([]records.Stored, string, error) {
			return s.records.History(ctx, q.ResourceID, from, n)
		}
		return read, func(booking.Booking) bool { return true }, nil
	}
	read = func(ctx context.Context, from string, n int) ([]records.Stored, string, error) {
		return s.records.OfAccount(ctx, p.AccountID, from, n)
	}
	return read, func(b booking.Booking) bool { return q.ResourceID == "" || b.ResourceID == q.ResourceID }, nil
}

// listFrom is the list key a listing's cursor resumes after ("" for the
// first page); a cursor of another filter is refused, naming cursor.
func listFrom(op slotfare.Op, q booking.ListQuery) (string, error) {
	if q.Cursor == "" {
		return "", nil
	}
	bad := slotfare.Errorf(op, "cursor", "not a cursor of this listing (it must come from next_cursor of the same status and resource_id filter)")
	raw, err := base64.RawURLEncoding.DecodeString(q.Cursor)
	if err != nil {
		return "", bad
	}
	parts := cursorParts(raw)
	if len(parts) == 5 {
		parts = append(parts, "") // a cursor made before the resource filter
	}
	if len(parts) != 6 || parts[0] != "b1" || parts[1] != string(q.Status) || parts[4] == "" || parts[5] != q.ResourceID {
		return "", bad
	}
	sec, err1 := strconv.ParseInt(parts[2], 10, 64)
	nsec, err2 := strconv.ParseInt(parts[3], 10, 64)
	if err1 != nil || err2 != nil || nsec < 0 || nsec >= 1e9 {
		return "", bad
	}
	return records.ListKey(booking.Record{Booking: booking.Booking{CreatedAt: time.Unix(sec, nsec).UTC(), ID: parts[4]}}), nil
}

// onLive runs a change of one of p's live bookings: the service open, the
// booking p's own and live, its entry locked, decide retried on the
// current record while its write finds the booking moved (retry).
func (s *Service) onLive(ctx context.Context, op slotfare.Op, p booking.Principal, id string, decide func(e *entry) (booking.Booking, error)) (booking.Booking, error) {
	if err := s.checkOpen(op); err != nil {
		return booking.Booking{}, err
	}
	e, err := s.ownLive(ctx, op, p, id)
	if err != nil {
		return booking.Booking{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return s.retry(ctx, e, func() (booking.Booking, error) { return decide(e) })
}

// Commit confirms a hold and posts its charge in the same store batch (user
// only). Committing a committed booking returns it unchanged: a retry never
// charges twice. A hold past its expiry or its start is expired now and the
// commit is a Conflict (nothing is sold for a time already begun); a hold
// that no longer fits the limits in force (lowered since it was taken) is
// rejected and the commit is NoCapacity.
func (s *Service) Commit(ctx context.Context, p booking.Principal, id string) (booking.Booking, error) {
	const op slotfare.Op = "service.Commit"
	return s.onLive(ctx, op, p, id, func(e *entry) (booking.Booking, error) {
		rec := e.rec
		b := rec.Booking
		if b.Status == booking.Committed {
			return b, nil
		}
		if err := booking.CheckTransition(op, b.Status, booking.Committed); err != nil {
			return booking.Booking{}, err
		}
		now := s.now().UTC()
		if expired, why := holdLapsed(b, now); expired {
			rec.Booking.Status, rec.Booking.UpdatedAt = booking.Expired, stamp(now)
			if err := s.apply(ctx, op, []change{{e, rec, booking.Held}}, nil, nil); err != nil {
				return booking.Booking{}, err
			}
			return booking.Booking{}, slotfare.E(op, slotfare.Conflict, why)
		}
		// The hold must still be within the limits in force now: they may have
		// been lowered since it was taken (booking control recomputed, the
		// provider shrank the resource). A hold in an excess is not committed on
		// top of it: it is rejected, and leaves the calendars only once that is
		// stored. The check and the commit's write are one step (commitWithin).
		r := e.res
		reject := func() (booking.Booking, error) {
			r.tell(control.Event{Kind: control.EventRefused, Class: b.FareClass, Start: b.Start, End: b.End, At: now})
			rec.Booking.Status, rec.Booking.UpdatedAt, rec.Booking.HoldExpiresAt = booking.Rejected, stamp(now), nil
			if err := s.apply(ctx, op, []change{{e, rec, booking.Held}}, nil, nil); err != nil {
				return booking.Booking{}, err
			}
			return booking.Booking{}, slotfare.E(op, slotfare.NoCapacity, "the hold no longer fits the resource's current limits; it is rejected")
		}
		// A hold carries no money (nothing is posted before the charge):
		// its ledger needs no read of stored postings.
		money, err := s.moneyOf(ctx)
		if err != nil {
			return booking.Booking{}, err
		}
		charge, err := money.Charge(bookingRef(b), b.Price.Total, now)
		if err != nil {
			return booking.Booking{}, slotfare.E(op, err)
		}
		committed := rec
		committed.Booking.Status, committed.Booking.UpdatedAt, committed.Booking.HoldExpiresAt = booking.Committed, stamp(now), nil
		var refused error // why the guarded step did not write
		write := s.commitWithin(ctx, op, e, &refused)
		if err := s.applyWith(ctx, op, []change{{e, committed, booking.Held}}, []ledger.Posting{charge}, money, write); err != nil {
			switch {
			case refused == errNotWithin:
				return reject()
			case refused != nil:
				return booking.Booking{}, slotfare.E(op, refused)
			}
			return booking.Booking{}, err
		}
		rec = committed
		// Made when held: the lead time its show rate is taken at, as a
		// replay of the stored booking (control.History) has it.
		e.res.tell(control.Event{Kind: control.EventBooked, BookingID: b.ID, Class: b.FareClass, Nodes: b.Nodes, Start: b.Start, End: b.End, At: b.CreatedAt})
		e.res.mu.Lock()
		e.res.countDemand(b.FareClass, demandBooked, "", "", b.Nodes, b.Start, b.End, now)
		e.res.mu.Unlock()
		return rec.Booking, nil
	})
}

// errNotWithin is commitWithin's refusal of a hold past the limits in
// force.
var errNotWithin = errors.New("the hold is not within the limits in force")

// commitWithin is the write of a commit: stored only if the hold is within
// the limits in force, in the same step, then indexed.
// A refusal that is not the write's own (moved, posted) is left in
// *refused: errNotWithin, or the Conflict of a booking the inventory no
// longer holds (released meanwhile: decided again).
func (s *Service) commitWithin(ctx context.Context, op slotfare.Op, e *entry, refused *error) func(records.Write) error {
	// A resource's layout is under its id (rebuild): no need to lock the
	// resource for its key.
	key, id := e.res.id, e.view.Load().ID
	return func(w records.Write) error {
		within, err := s.records.WithinApply(ctx, key, id, w)
		if slotfare.KindOf(err) == slotfare.NotFound {
			*refused = goneMeanwhile(op, id, err)
			return *refused
		}
		if err != nil {
			return err
		}
		if !within {
			*refused = errNotWithin
			return errNotWithin
		}
		return nil
	}
}

// Cancel gives a booking up before its start (user only). A hold is simply
// released; a committed booking is credited back what was billed and
// billed the penalty its terms keep at this lead time (its cancellation
// schedule; alpha_p x charged, seed 004 Sec. 7.6.2), posted together, and
// shows penalty and refund as its invoice does.
func (s *Service) Cancel(ctx context.Context, p booking.Principal, id string) (booking.Booking, error) {
	return s.cancel(ctx, "service.Cancel", p, id, "", false)
}

// CancelQuoted is Cancel honouring the cancellation quote quoteID ("" =
// none): within its validity the quoted amounts are posted, or nothing
// if the quote no longer holds (the booking re-priced since: Conflict).
func (s *Service) CancelQuoted(ctx context.Context, p booking.Principal, id, quoteID string) (booking.Booking, error) {
	return s.cancel(ctx, "service.Cancel", p, id, quoteID, false)
}

// cancel is Cancel honouring quote quoteID; unwind keeps no penalty (the
// co-reservation broker's rollback).
func (s *Service) cancel(ctx context.Context, op slotfare.Op, p booking.Principal, id, quoteID string, unwind bool) (booking.Booking, error) {
	return s.onLive(ctx, op, p, id, func(e *entry) (booking.Booking, error) {
		rec := e.rec
		b := rec.Booking
		if b.Status == booking.Cancelled {
			return b, nil
		}
		if err := booking.CheckTransition(op, b.Status, booking.Cancelled); err != nil {
			return booking.Booking{}, err
		}
		now := s.now().UTC()
		if !now.Before(b.Start) {
			return booking.Booking{}, slotfare.E(op, slotfare.Conflict, "the booking has started; it can no longer be cancelled")
		}
		var q *quote
		if quoteID != "" {
			var err error
			if q, err = s.openQuote(op, quoteID, p, b, booking.QuoteCancellation, now); err != nil {
				return booking.Booking{}, err
			}
		}
		rec.Booking.Status, rec.Booking.UpdatedAt, rec.Booking.HoldExpiresAt = booking.Cancelled, stamp(now), nil
		var posts []ledger.Posting
		var money *ledger.Ledger
		if b.Status == booking.Committed {
			c, err := s.cancellationOf(ctx, op, e.res, b, now, q, unwind)
			if err != nil {
				return booking.Booking{}, err
			}
			posts, money, rec.Booking.Terms = c.st.Postings, c.money, &c.terms
			settled(&rec.Booking, c.st)
		} else {
			if q != nil && !q.billed.IsZero() {
				return booking.Booking{}, slotfare.E(op, slotfare.Conflict, slotfare.Field("quote_id"), "the quote no longer holds: the booking is no longer committed")
			}
			zero, zero2 := decimal.Zero, decimal.Zero // a hold cost nothing: API.md's shape, nothing kept or returned
			rec.Booking.Penalty, rec.Booking.Refund = &zero, &zero2
		}
		if err := s.apply(ctx, op, []change{{e, rec, b.Status}}, posts, money); err != nil {
			return booking.Booking{}, err
		}
		if b.Status == booking.Committed {
			e.res.tell(control.Event{Kind: control.EventCancelled, BookingID: b.ID, Class: b.FareClass, Nodes: b.Nodes, Start: b.Start, End: b.End, At: now})
		}
		return rec.Booking, nil
	})
}

// CheckIn records that the user's job is there (user only): a committed
// booking may check in from start - checkin_open_seconds until start +
// grace (and never at or after its end); at its start it then counts as a
// show. Checking in twice returns
// the booking unchanged.
func (s *Service) CheckIn(ctx context.Context, p booking.Principal, id string) (booking.Booking, error) {
	const op slotfare.Op = "service.CheckIn"
	return s.onLive(ctx, op, p, id, func(e *entry) (booking.Booking, error) {
		rec := e.rec
		b := rec.Booking
		if b.Status != booking.Committed {
			if b.CheckedIn {
				return b, nil
			}
			return booking.Booking{}, slotfare.E(op, slotfare.Conflict, fmt.Sprintf("a %s booking cannot check in", b.Status))
		}
		if b.CheckedIn {
			return b, nil
		}
		now := s.now().UTC()
		open := b.Start.Add(-time.Duration(s.cfg.CheckinOpenSeconds) * time.Second)
		closes := b.Start.Add(time.Duration(s.cfg.GraceSeconds) * time.Second)
		if closes.After(b.End) {
			closes = b.End // a booking already over cannot be shown up for
		}
		if now.Before(open) {
			return booking.Booking{}, slotfare.E(op, slotfare.Conflict, fmt.Sprintf("check-in opens at %s", open.Format(time.RFC3339)))
		}
		if !now.Before(closes) {
			return booking.Booking{}, slotfare.E(op, slotfare.Conflict, fmt.Sprintf("check-in closed at %s", closes.Format(time.RFC3339)))
		}
		rec.Booking.CheckedIn, rec.Booking.UpdatedAt = true, stamp(now)
		if err := s.apply(ctx, op, []change{{e, rec, booking.Committed}}, nil, nil); err != nil {
			return booking.Booking{}, err
		}
		return rec.Booking, nil
	})
}

// Modify changes a committed booking's interval or nodes before its start
// (user only); once it has started, a later end extends it (extend). The new terms must fit its class's limits wherever they hold
// more nodes than the old (calendar.ReplaceFits); where they hold fewer
// they always fit, even on a resource shrunk below what it has sold. The
// booking is re-priced in its class and in the currency it was sold in,
// and the difference is posted; a lower price is a partial cancellation
// and keeps the rate its terms' cancellation schedule sets at this lead
// time of what is given up (seed 004 Sec. 7.6.2, ledger.Modification),
// shown in its penalty. With req.QuoteID the quoted change is made at the
// quoted price (quotes.go). It stays committed.
//
// The move on the inventory, the record and its postings are one step
// (records.Guarded's ReplaceApply): all stored, or none, whatever stops the process or the
// store meanwhile. The resource's lock is held across it, so that its
// layout on the inventory does not change under it; modifications are
// rare next to holds, and the resource's other requests wait one write.
func (s *Service) Modify(ctx context.Context, p booking.Principal, id string, req booking.ModifyRequest) (booking.Booking, error) {
	const op slotfare.Op = "service.Modify"
	return s.onLive(ctx, op, p, id, func(e *entry) (booking.Booking, error) {
		if req.Start == nil && req.End == nil && req.Nodes == nil && req.QuoteID == "" {
			return booking.Booking{}, slotfare.Errorf(op, "start", "nothing to change: give start, end or nodes")
		}
		b := e.rec.Booking
		now := s.now().UTC()
		if running(b, now) || ended(b) {
			if req.QuoteID != "" {
				return booking.Booking{}, slotfare.Errorf(op, "quote_id", "quotes are for changes before the start; an extension is priced when asked")
			}
			end, err := s.extensionEnd(op, b, req, now)
			if err != nil {
				return booking.Booking{}, err
			}
			return s.extend(ctx, op, e, end, now)
		}
		var q *quote
		if req.QuoteID != "" {
			var err error
			if q, err = s.openQuote(op, req.QuoteID, p, b, booking.QuoteModification, now); err != nil {
				return booking.Booking{}, err
			}
			if req, err = quotedChange(op, req, q); err != nil {
				return booking.Booking{}, err
			}
		}
		start, end, nodes, err := s.checkChange(op, e.rec.Booking, req, now)
		if err != nil {
			return booking.Booking{}, err
		}
		return s.modify(ctx, op, e, start, end, nodes, now, q)
	})
}

// quotedChange is req with the terms of modification quote q: a field
// left out is the quote's, one given must be the quote's.
func quotedChange(op slotfare.Op, req booking.ModifyRequest, q *quote) (booking.ModifyRequest, error) {
	start, end, nodes := time.Unix(q.c.Start, 0).UTC(), time.Unix(q.c.End, 0).UTC(), q.c.Nodes
	if (req.Start != nil && !req.Start.Equal(start)) || (req.End != nil && !req.End.Equal(end)) || (req.Nodes != nil && *req.Nodes != nodes) {
		return req, slotfare.Errorf(op, "quote_id", "the quote is for start %s, end %s and %d nodes; leave them out or give the same",
			start.Format(time.RFC3339), end.Format(time.RFC3339), nodes)
	}
	req.Start, req.End, req.Nodes = &start, &end, &nodes
	return req, nil
}

// checkChange is the booking's new interval and nodes under req, checked:
// a committed booking, before its start, with something to change.
func (s *Service) checkChange(op slotfare.Op, b booking.Booking, req booking.ModifyRequest, now time.Time) (start, end time.Time, nodes int, err error) {
	if req.Start == nil && req.End == nil && req.Nodes == nil {
		return start, end, 0, slotfare.Errorf(op, "start", "nothing to change: give start, end or nodes")
	}
	if b.Status != booking.Committed {
		return start, end, 0, slotfare.E(op, slotfare.Conflict, fmt.Sprintf("only a committed booking can be modified; this one is %s", b.Status))
	}
	if !now.Before(b.Start) {
		return start, end, 0, slotfare.E(op, slotfare.Conflict, "the booking has started; it can no longer be modified")
	}
	start, end, nodes = b.Start, b.End, b.Nodes
	if req.Start != nil {
		start = req.Start.UTC()
	}
	if req.End != nil {
		end = req.End.UTC()
	}
	if req.Nodes != nil {
		nodes = *req.Nodes
	}
	return start, end, nodes, s.checkWindow(op, start, end, now)
}

// moving is what moving a booking to new terms costs: its new price, the
// penalty rate a reduction keeps, and the postings (rp) of the ledger
// (money) that decided them.
type moving struct {
	price booking.Price
	rate  decimal.Decimal
	terms *booking.SaleTerms
	rp    ledger.Repricing
	money *ledger.Ledger
}

// costOfMove prices booking b's move to start, end and nodes now, in its
// class and the currency it was sold in; with a quote, at the quoted price
// and rate, which hold only while what the booking is billed has not
// changed since (Conflict naming quote_id). same is true when the terms
// are the booking's own. The caller holds r.mu.
func (s *Service) costOfMove(ctx context.Context, op slotfare.Op, r *resource, b booking.Booking, start, end time.Time, nodes int, now time.Time, q *quote) (m moving, same bool, err error) {
	_, class, ok := r.classIndex(b.FareClass)
	if !ok && q == nil {
		return m, false, slotfare.E(op, slotfare.Conflict, fmt.Sprintf("fare class %q is no longer sold", b.FareClass))
	}
	if nodes <= 0 || nodes > r.rc.Nodes {
		return m, false, slotfare.Errorf(op, "nodes", "must be in 1..%d, got %d", r.rc.Nodes, nodes)
	}
	if r.rc.Currency != b.Price.Currency {
		return m, false, slotfare.E(op, slotfare.Conflict, fmt.Sprintf(
			"resource %s now prices in %s; this booking was sold in %s and keeps it for life: cancel it and book again to buy in %s",
			r.id, r.rc.Currency, b.Price.Currency, r.rc.Currency))
	}
	if start.Equal(b.Start) && end.Equal(b.End) && nodes == b.Nodes {
		return m, true, nil // the terms it has: nothing to re-price
	}
	// A lower price gives part of the booking up: its terms' cancellation
	// rate at this lead time is kept of that part. (r.mu is held: the
	// class is read here, not by termsOf.)
	if m.terms = b.Terms; m.terms == nil {
		m.terms = saleTerms(class, booking.TermsFromConfiguration)
	}
	m.rate = cancellationRate(*m.terms, b.Start.Sub(now))
	if q != nil {
		m.price, m.rate = q.price, q.rate
	} else if m.price, err = s.movePrice(op, r, class, start, end, nodes, now); err != nil {
		return m, false, err
	} else if err = r.coversChange(op, "start", class, start, end); err != nil {
		return m, false, err
	}
	if m.money, err = s.moneyOf(ctx, b.ID); err != nil {
		return m, false, err
	}
	if m.rp, err = m.money.Modification(b.ID, m.price.Total, ledger.Currency(m.price.Currency), m.rate, now); err != nil {
		return m, false, slotfare.E(op, err)
	}
	if q != nil && !m.rp.Previous.Equal(q.billed) {
		return m, false, slotfare.E(op, slotfare.Conflict, slotfare.Field("quote_id"),
			fmt.Sprintf("the quote no longer holds: the booking is billed %s now, %s when quoted", m.rp.Previous, q.billed))
	}
	return m, false, nil
}

// movePrice is the price of start, end and nodes in class on r now. The
// caller holds r.mu.
func (s *Service) movePrice(op slotfare.Op, r *resource, class pricing.FareClass, start, end time.Time, nodes int, now time.Time) (booking.Price, error) {
	price, ok, err := s.price(r.rate, class, r.rc.BaseCost, r.rc.Currency, r.pricer, r.queueNow, nodes, start, end, now)
	if err != nil {
		return price, slotfare.E(op, err)
	}
	if !ok {
		return price, slotfare.E(op, slotfare.NoCapacity, "the resource's queue snapshot cannot take this reservation")
	}
	return price, s.billable(op, price)
}

// modify moves booking e to its new terms at the cost costOfMove decides,
// in one step with its record and postings (records.Guarded's ReplaceApply). The caller holds
// e.mu.
func (s *Service) modify(ctx context.Context, op slotfare.Op, e *entry, start, end time.Time, nodes int, now time.Time, q *quote) (booking.Booking, error) {
	rec := e.rec
	b := rec.Booking
	r := e.res
	r.mu.Lock()
	defer r.mu.Unlock()
	m, same, err := s.costOfMove(ctx, op, r, b, start, end, nodes, now, q)
	if err != nil || same {
		return b, err
	}
	if rec.Orig == nil {
		rec.Orig = &booking.Terms{Start: b.Start, End: b.End, Nodes: b.Nodes, Price: b.Price}
	}
	rec.Booking.Start, rec.Booking.End, rec.Booking.Nodes, rec.Booking.Price, rec.Booking.UpdatedAt = start, end, nodes, m.price, stamp(now)
	rec.Booking.Terms = m.terms
	if m.rp.Penalty.Sign() > 0 {
		kept := keptBefore(b).Add(m.rp.Penalty)
		rec.Booking.Penalty = &kept
	}
	if !start.Equal(b.Start) {
		rec.Booking.CheckedIn = false // checked in for another start
	}
	var refused error // why the step did not write
	if err := s.applyWith(ctx, op, []change{{e, rec, booking.Committed}}, m.rp.Postings, m.money, r.replaceWith(ctx, op, &refused)); err != nil {
		if refused != nil {
			return booking.Booking{}, slotfare.E(op, refused)
		}
		return booking.Booking{}, err
	}
	r.observe(control.Event{Kind: control.EventModified, BookingID: b.ID, Class: b.FareClass, Nodes: nodes, Start: start, End: end, At: now})
	return rec.Booking, nil
}

// Terminate stops a running (active) booking before its end (provider
// only): its nodes are free from now on. Money is not touched: the charge
// stands, and any goodwill is a separate compensation posting.
func (s *Service) Terminate(ctx context.Context, p booking.Principal, id string) (booking.Booking, error) {
	const op slotfare.Op = "service.Terminate"
	if err := s.checkOpen(op); err != nil {
		return booking.Booking{}, err
	}
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return booking.Booking{}, err
	}
	e, err := s.entryOf(ctx, op, id)
	if err != nil {
		return booking.Booking{}, err
	}
	if e == nil {
		return booking.Booking{}, slotfare.E(op, slotfare.NotFound, fmt.Sprintf("no booking %q", id))
	}
	if e.res == nil {
		return booking.Booking{}, slotfare.E(op, slotfare.Conflict, "the booking's resource is no longer configured")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return s.retry(ctx, e, func() (booking.Booking, error) {
		rec := e.rec
		b := rec.Booking
		if b.Status == booking.Terminated {
			return b, nil
		}
		if err := booking.CheckTransition(op, b.Status, booking.Terminated); err != nil {
			return booking.Booking{}, err
		}
		rec.Booking.Status, rec.Booking.UpdatedAt = booking.Terminated, stamp(s.now())
		if err := s.apply(ctx, op, []change{{e, rec, b.Status}}, nil, nil); err != nil {
			return booking.Booking{}, err
		}
		return rec.Booking, nil
	})
}
