package coreserve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/runs"
)

// Options configure a Broker. Zero values take the defaults named.
type Options struct {
	// Now is the broker's clock (time.Now); it should be the service's.
	Now func() time.Time
	// MaxParts bounds the parts of one request (DefaultMaxParts).
	MaxParts int
	// MaxAttempts bounds the co-reservation candidates tried per request
	// before giving up (DefaultMaxAttempts; seed 003 Sec. 3.3 step 6b).
	MaxAttempts int
	// CandidatesPerResource is how many reservation candidates a resource
	// reveals to one probe (DefaultCandidatesPerResource; seed 003 end of
	// Sec. 3.3: a resource decides how much it makes available).
	CandidatesPerResource int
	// RecoverAfter is how long a record may sit committing or cancelling
	// before Recover takes it over, the broker that began it being presumed
	// dead (DefaultRecoverAfter). Within this process a record being worked
	// on is never taken over.
	RecoverAfter time.Duration
	// OnOutcome, if set, is told how each co-reservation request ended:
	// "held" or the failure's kind (no_capacity, conflict, ...), the candidates tried and the messages
	// sent to resources (seed 003 Sec. 4.3's metrics).
	OnOutcome func(outcome string, attempts, messages int)
	// Logger receives what Recover could not settle (discarded when nil).
	Logger *slog.Logger
	// IDs gives the random part of co-reservation ids (crypto/rand).
	IDs io.Reader
	// Durations predicts the duration of a part that names a profile
	// instead of a duration, on each candidate resource (*runs.Predictor);
	// nil refuses such parts.
	Durations Durations
}

// Durations is what the broker needs to predict a part's duration from
// the runs recorded on a resource (*runs.Predictor satisfies it).
type Durations interface {
	Predict(ctx context.Context, resourceID, profile string, bytes int64, start, now time.Time) (runs.Prediction, bool, error)
}

// The defaults of Options.
const (
	DefaultMaxParts              = 8
	DefaultMaxAttempts           = 3
	DefaultCandidatesPerResource = 5
	DefaultRecoverAfter          = 30 * time.Second
)

// Broker is the co-reservation broker (seed 003 Sec. 3.3) over the booking
// service's public operations, with its records on a Store. It is safe for
// concurrent use.
type Broker struct {
	b  Bookings
	st Store
	o  Options

	mu    sync.Mutex
	busy  map[string]*idLock // the records this process is working on
	idsMu sync.Mutex
}

type idLock struct {
	mu   sync.Mutex
	refs int
}

// New returns a broker over b with its records on st.
func New(b Bookings, st Store, o Options) *Broker {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxParts <= 0 {
		o.MaxParts = DefaultMaxParts
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.CandidatesPerResource <= 0 {
		o.CandidatesPerResource = DefaultCandidatesPerResource
	}
	if o.RecoverAfter == 0 {
		o.RecoverAfter = DefaultRecoverAfter
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.IDs == nil {
		o.IDs = rand.Reader
	}
	return &Broker{b: b, st: st, o: o, busy: map[string]*idLock{}}
}

// MaxParts is the most parts a request may have.
func (b *Broker) MaxParts() int { return b.o.MaxParts }

// lock serialises this process's work on one co-reservation; try makes it
// give up at once when the record is busy (Recover skips it then).
func (b *Broker) lock(id string, try bool) (unlock func(), ok bool) {
	b.mu.Lock()
	l := b.busy[id]
	if l == nil {
		l = &idLock{}
		b.busy[id] = l
	}
	l.refs++
	b.mu.Unlock()
	release := func() {
		b.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(b.busy, id)
		}
		b.mu.Unlock()
	}
	if try {
		if !l.mu.TryLock() {
			release()
			return nil, false
		}
	} else {
		l.mu.Lock()
	}
	return func() { l.mu.Unlock(); release() }, true
}

func (b *Broker) newID() (string, error) {
	var buf [12]byte
	b.idsMu.Lock()
	_, err := io.ReadFull(b.o.IDs, buf[:])
	b.idsMu.Unlock()
	if err != nil {
		return "", slotfare.E(slotfare.Op("coreserve.Reserve"), slotfare.Other, "no random id", err)
	}
	return "co_" + hex.EncodeToString(buf[:]), nil
}

// View is a co-reservation as the API shows it: the record and each part's
// booking as the service has it now.
type View struct {
	Record
	Bookings []booking.Booking
}

// Reserve runs the protocol of seed 003 Sec. 3.3 for req (user only):
// probe, pick the best co-reservation candidate by the policy, hold every
// part (a preliminary reservation with its resource's timeout), and store
// the record once all are held. When a part's hold fails, the holds taken
// are cancelled (rollback, step 6b) and the next candidate that does not
// use the failed placement is tried, at most MaxAttempts candidates; then
// the answer is the failed part's error, naming parts[i], with nothing
// held.
func (b *Broker) Reserve(ctx context.Context, p booking.Principal, req Request) (View, error) {
	if p.Role != booking.RoleUser {
		return View{}, slotfare.E(slotfare.Op("coreserve.Reserve"), slotfare.Forbidden, "co-reservations are made by users")
	}
	return b.reserveAs(ctx, p, req, "", "")
}

// reserveAs is Reserve storing the co-reservation under id (a new random
// one when "") with the request's fingerprint (ReserveOnce). When a record
// of id is stored already, its holds are cancelled and the error is
// errTaken.
func (b *Broker) reserveAs(ctx context.Context, p booking.Principal, req Request, id, fingerprint string) (View, error) {
	const op slotfare.Op = "coreserve.Reserve"
	if req.Policy == "" {
		req.Policy = Earliest
	}
	if err := req.Validate(b.o.MaxParts); err != nil {
		return View{}, err
	}
	var msgs counter
	attempts := 0
	v, err := b.reserve(ctx, op, p, req, id, fingerprint, &msgs, &attempts)
	if b.o.OnOutcome != nil {
		outcome := "held"
		if err != nil {
			outcome = strings.ReplaceAll(slotfare.KindOf(err).String(), " ", "_")
		}
		b.o.OnOutcome(outcome, attempts, msgs.n)
	}
	return v, err
}

func (b *Broker) reserve(ctx context.Context, op slotfare.Op, p booking.Principal, req Request, id, fingerprint string, msgs *counter, attempts *int) (View, error) {
	resources := make([][]string, len(req.Parts))
	var errs []error
	for i := range req.Parts {
		prefix := partField(i, "") + "."
		ids, err := b.resourcesOf(ctx, op, p, req.Parts[i], prefix)
		if err == nil {
			ids, err = b.predict(ctx, op, prefix, &req.Parts[i], ids)
		}
		if err != nil {
			errs = append(errs, err)
		}
		resources[i] = ids
	}
	if err := slotfare.Join(errs...); err != nil {
		return View{}, err
	}
	cands, err := b.candidates(ctx, op, p, req, resources, msgs)
	if err != nil {
		return View{}, err
	}
	excluded := map[string]bool{}
	var last error
	for _, c := range cands {
		if *attempts >= b.o.MaxAttempts {
			break
		}
		if usesAny(c, excluded) {
			continue
		}
		*attempts++
		held, failed, err := b.holdAll(ctx, op, p, req, c, msgs)
		if err != nil {
			last = err
			if failed >= 0 {
				excluded[placement(failed, c[failed])] = true
			}
			if !retryable(err) {
				break
			}
			continue
		}
		return b.store(ctx, op, p, req, held, id, fingerprint, *attempts, msgs)
	}
	if last == nil {
		// Every candidate used a placement that failed, or none was left.
		return View{}, slotfare.E(op, slotfare.NoCapacity, slotfare.Field("parts"),
			"no co-reservation candidate could be held; nothing is held")
	}
	return View{}, last
}

// predict resolves a part that names a profile: its duration predicted on
// each of its candidate resources ids from the runs recorded there (TCT,
// or ETTS with bytes; Options.Durations), kept on the part. It returns the
// resources the part may go on: those with runs of the profile whose
// prediction fits the part's window. No run of the profile on any of them
// is 422 naming prefix+profile (an unknown profile), as is a prediction
// longer than the window everywhere. A part with a duration is unchanged.
func (b *Broker) predict(ctx context.Context, op slotfare.Op, prefix string, part *Part, ids []string) ([]string, error) {
	if part.Profile == "" {
		return ids, nil
	}
	if b.o.Durations == nil {
		return nil, slotfare.Errorf(op, prefix+"profile", "durations are not predicted here: give duration_seconds")
	}
	now := b.o.Now()
	window := part.LatestEnd.Sub(part.EarliestStart)
	part.predicted = map[string]runs.Prediction{}
	var kept []string
	known := false
	for _, id := range ids {
		pr, ok, err := b.o.Durations.Predict(ctx, id, part.Profile, part.Bytes, part.EarliestStart, now)
		if err != nil {
			return nil, slotfare.E(op, slotfare.Field(prefix+"profile"), err)
		}
		if !ok {
			continue
		}
		known = true
		if pr.Duration > window {
			continue
		}
		part.predicted[id] = pr
		kept = append(kept, id)
	}
	if !known {
		return nil, slotfare.Errorf(op, prefix+"profile", "unknown profile %q: no run of it is recorded on %s; record runs (POST /v1/runs) or give duration_seconds",
			part.Profile, strings.Join(ids, ", "))
	}
	if len(kept) == 0 {
		return nil, slotfare.Errorf(op, prefix+"profile", "the duration predicted for profile %q is longer than the window from earliest_start to latest_end on every resource with runs of it",
			part.Profile)
	}
	return kept, nil
}

// retryable reports whether another candidate may succeed where err
// failed: the resource had no room or refused the offer, not the caller.
func retryable(err error) bool {
	switch slotfare.KindOf(err) {
	case slotfare.NoCapacity, slotfare.Conflict:
		return true
	}
	return false
}

func usesAny(c combo, excluded map[string]bool) bool {
	for i, o := range c {
		if excluded[placement(i, o)] {
			return true
		}
	}
	return false
}

// holdAll takes a hold of every part of c in part order (seed 003 Sec. 3.3
// steps 4-5). When part i fails, the holds taken are cancelled (step 6b)
// and i is returned with the error, named parts[i]; a cancel that fails
// leaves its hold to expire at its timeout (step 6c) and is reported too.
func (b *Broker) holdAll(ctx context.Context, op slotfare.Op, p booking.Principal, req Request, c combo, msgs *counter) ([]booking.Booking, int, error) {
	held := make([]booking.Booking, 0, len(c))
	for i, o := range c {
		msgs.n++
		bk, _, err := b.b.Hold(ctx, p, booking.HoldRequest{OfferID: o.OfferID, Profile: req.Parts[i].Profile}, booking.Idempotency{})
		if err == nil {
			held = append(held, bk)
			continue
		}
		rb := b.rollback(ctx, p, held, msgs)
		kind := slotfare.KindOf(err)
		if kind == slotfare.Invalid {
			kind = slotfare.Conflict // the offer was valid when probed: the resource changed since
		}
		ferr := slotfare.E(op, kind, slotfare.Field(partField(i, "")),
			fmt.Sprintf("part %d could not be held on %s (%s); every hold of the co-reservation was cancelled", i, o.ResourceID, slotfare.MessageOf(err)),
			errors.Join(err, rb))
		return nil, i, ferr
	}
	return held, -1, nil
}

// rollback cancels the given holds (free: a hold costs nothing).
func (b *Broker) rollback(ctx context.Context, p booking.Principal, held []booking.Booking, msgs *counter) error {
	var errs []error
	for _, h := range held {
		msgs.n++
		if _, err := b.b.Cancel(context.WithoutCancel(ctx), p, h.ID); err != nil {
			errs = append(errs, fmt.Errorf("hold %s stays until it expires: %w", h.ID, err))
		}
	}
	return errors.Join(errs...)
}

// store writes the record of a co-reservation whose parts are all held. If
// it cannot be written, the holds are cancelled and the request fails.
func (b *Broker) store(ctx context.Context, op slotfare.Op, p booking.Principal, req Request, held []booking.Booking, id, fingerprint string, attempts int, msgs *counter) (View, error) {
	var err error
	if id == "" {
		id, err = b.newID()
	}
	if err == nil {
		now := b.o.Now().UTC()
		rec := Record{ID: id, AccountID: p.AccountID, VO: p.VO, Status: Held, Policy: string(req.Policy), FareClass: req.FareClass,
			Attempts: attempts, CreatedAt: now, UpdatedAt: now, Fingerprint: fingerprint, DueAt: b.dueAt(Held, held, now)}
		if req.Policy == Alpha {
			rec.Alpha = alphaWeight(req)
		}
		for i, h := range held {
			rec.Parts = append(rec.Parts, PartRef{BookingID: h.ID, ResourceID: h.ResourceID, Prediction: req.Parts[i].predictionOn(h.ResourceID)})
		}
		var v int64
		if v, err = b.st.Put(context.WithoutCancel(ctx), rec, 0); err == nil {
			rec.Version = v
			return View{Record: rec, Bookings: held}, nil
		}
	}
	rb := b.rollback(ctx, p, held, msgs)
	if fingerprint != "" && slotfare.KindOf(err) == slotfare.Conflict {
		// Another request with the same Idempotency-Key stored first.
		return View{}, errors.Join(errTaken, rb)
	}
	return View{}, slotfare.E(op, slotfare.Unavailable, "the co-reservation could not be stored; its holds were cancelled", errors.Join(err, rb))
}

// errTaken is reserveAs's answer when the id it was to store under is
// taken: ReserveOnce then answers the co-reservation stored there.
var errTaken = errors.New("the co-reservation's id is taken")

// principal is the owner of rec, as Recover acts for it.
func principal(rec Record) booking.Principal {
	return booking.Principal{AccountID: rec.AccountID, Role: booking.RoleUser, VO: rec.VO}
}

// load reads rec for its owner: another account's is NotFound, as an
// unknown one.
func (b *Broker) load(ctx context.Context, op slotfare.Op, p booking.Principal, id string) (Record, error) {
	if p.Role != booking.RoleUser {
		return Record{}, slotfare.E(op, slotfare.Forbidden, "co-reservations belong to users")
	}
	rec, found, err := b.st.Get(ctx, id)
	if err != nil {
		return Record{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	if !found || rec.AccountID != p.AccountID {
		return Record{}, slotfare.E(op, slotfare.NotFound, fmt.Sprintf("no co-reservation %q", id))
	}
	return rec, nil
}

// parts reads every part's booking. A part the service does not know is a
// hold a crash lost before it was synced (a hold is acknowledged before its
// sync; a commit never is): it reads as expired, with its id and resource,
// so the co-reservation is settled as if its hold had timed out.
func (b *Broker) parts(ctx context.Context, op slotfare.Op, rec Record) ([]booking.Booking, error) {
	out := make([]booking.Booking, len(rec.Parts))
	for i, pr := range rec.Parts {
		bk, err := b.b.Get(ctx, principal(rec), pr.BookingID)
		if slotfare.KindOf(err) == slotfare.NotFound {
			out[i] = booking.Booking{ID: pr.BookingID, AccountID: rec.AccountID, Status: booking.Expired, ResourceID: pr.ResourceID,
				CreatedAt: rec.CreatedAt, UpdatedAt: rec.CreatedAt}
			continue
		}
		if err != nil {
			return nil, slotfare.E(op, slotfare.Unavailable, fmt.Sprintf("part %d (booking %s) cannot be read", i, pr.BookingID), err)
		}
		out[i] = bk
	}
	return out, nil
}

// put writes rec over its version with status, due as its parts bks are
// (dueAt), and keeps the new one.
func (b *Broker) put(ctx context.Context, rec *Record, status Status, bks []booking.Booking) error {
	next := *rec
	next.Status = status
	next.UpdatedAt = b.o.Now().UTC()
	next.DueAt = b.dueAt(status, bks, next.UpdatedAt)
	v, err := b.st.Put(context.WithoutCancel(ctx), next, rec.Version)
	if err != nil {
		return err
	}
	next.Version = v
	*rec = next
	return nil
}
