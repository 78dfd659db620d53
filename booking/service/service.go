package service

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/catalog"
	"slotfare/booking/config"
	"slotfare/booking/idem"
	"slotfare/booking/inventory"
	"slotfare/booking/offersign"
	"slotfare/booking/records"
	"slotfare/ledger"
)

// Options are the service's dependencies besides its configuration and
// store.
type Options struct {
	// Now is the service's one clock (time.Now when nil). Tick takes its
	// time as an argument instead, so a simulation can drive both.
	Now func() time.Time
	// Logger receives structured logs (discarded when nil).
	Logger *slog.Logger
	// Secret signs offer ids. When nil the store's secret is used, or a
	// random one is made and stored on first start.
	Secret []byte
	// OnTransition, if set, is called after every status change is stored
	// (from "" for a new hold), outside the service's locks: the api counts
	// transitions for /metrics.
	OnTransition func(from, to booking.Status)
	// OnTickError, if set, is called once for every booking a tick had to
	// leave as it was (its settlement or store write failed; it is logged
	// and tried again on the next tick), with its resource's id: the api
	// counts them for /metrics.
	OnTickError func(resource string)
	// OnControlError, if set, is called with the resource's id each time
	// booking control could not recompute its limits (logged; the limits
	// last computed and published stay in force): the api counts them
	// for /metrics. It is called under the resource's lock and must not
	// call back into the service.
	OnControlError func(resource string)
	// OnComplete, if set, is called by the tick for each booking that
	// named a profile (Booking.Profile) before its completion is stored:
	// serve records its run against the profile (booking/runs,
	// issue 13). It must be idempotent by booking id: a completion whose
	// store write fails is called again on the next tick, and on shared
	// ports the replica holding the resource's ticker lease calls it. An
	// error leaves the booking active for the next tick.
	OnComplete func(ctx context.Context, b booking.Booking) error
	// IDs gives the random part of booking ids (crypto/rand when nil). A
	// simulation seeds it, so that its ids, and the lottery seeded from the
	// shows' ids (seed 004 Alg. 15), repeat from run to run.
	IDs io.Reader
	// EventsKeep is how many events the event log keeps (per resource on
	// Redis); events.DefaultKeep when 0.
	EventsKeep int
	// SeedKeys are given to the Keys port on start where it has none of
	// their names, as keys made over the API: the demo's keys, so that
	// they can be revoked like any other and stay revoked after a restart.
	SeedKeys []booking.KeyRecord
}

// Service is the booking service: resources with their calendars and
// booking control, the bookings and their life cycle, and the ledger, all in
// memory and written through to a Store. It is safe for concurrent use.
//
// Locks: an entry's mutex serialises the changes of one booking (held
// across the store write, so a retried commit waits for the first); a
// resource's mutex guards its calendars and configuration (never held across
// a store write on the booking paths, so concurrent bookings share group
// commits); s.mu guards the maps. Order: entry, then resource, then s.mu.
type Service struct {
	cfg  config.Config
	opts Options
	now  func() time.Time
	log  *slog.Logger
	inv  inventory.Port
	// ports are the service's ports (Open): the service takes the same
	// steps whether other replicas decide on them too or not.
	ports Ports
	// records keep the bookings and their postings: every change is one
	// conditional write there, over the version it was decided on.
	records records.Guarded
	// idem keeps the Idempotency-Keys of holds: claimed, pending, done.
	idem idem.Port
	// writeNonce and writes name this process's writes (records.Write's
	// WriteID), so that a write sent again is recognised and no two
	// writes share a name.
	writeNonce [8]byte
	writes     atomic.Uint64
	// holder names this replica to the ticker leases.
	holder string
	// leaseTaken, when a test sets it, runs where the holder of a
	// resource's ticker lease (newly taken, or at its history refresh) is
	// about to read the resource's history: where a holder pauses (a slow
	// read, a pause of the process) while its lease runs out.
	leaseTaken func(resource string)
	// currencies are the scale and rounding of money by currency: each
	// decision's ledger, replayed from the stored postings it touches
	// (moneyOf), keeps them.
	currencies ledger.Currencies
	signer     *offersign.Signer // offer ids, with the store's secret
	idMu       sync.Mutex        // serialises reads of opts.IDs
	// fileKeys are the principals of the configuration file's keys, by
	// hash; the keys made over the API are read from the Keys port.
	fileKeys map[string]booking.Principal
	// catalogVersion is the catalog's version this replica last installed.
	catalogVersion atomic.Int64

	// life is what the service does on no request's behalf (Open, Tick)
	// runs under: Close cancels it (stop), so that a tick waiting on a
	// store returns.
	life   context.Context
	stop   context.CancelFunc
	tickMu sync.Mutex
	closed atomic.Bool
	seq    atomic.Uint64

	mu        sync.RWMutex
	resources map[string]*resource
	bookings  map[string]*entry
}

// entry is one booking in memory. rec is changed only with mu held; view is
// the latest stored state for lock-free reads.
type entry struct {
	mu  sync.Mutex
	rec booking.Record
	// version is rec's version in the records port: a change is written
	// only over it (records.Change.Replaces). Guarded by mu.
	version int64
	res     *resource
	groups  int // rec.Groups, which never changes: readable without mu
	view    atomic.Pointer[booking.Booking]
}

func (e *entry) set(r booking.Record) {
	e.rec = r
	b := r.Booking
	e.view.Store(&b)
}

func (e *entry) booking() booking.Booking { return *e.view.Load() }

// Open starts the service on cfg and ports (booking/deploy wires them
// for a process alone on its store, or for replicas sharing Redis): it
// makes the resources of the configuration and the catalog, brings each
// one's booking control up to its stored history and takes the offer
// secret. Bookings are read from the records as they are needed. On
// success the service owns the ports (Close closes them); on failure the
// caller does.
func Open(cfg config.Config, ports Ports, opts Options) (*Service, error) {
	const op slotfare.Op = "service.Open"
	if err := ports.check(op); err != nil {
		return nil, err
	}
	s, err := newService(op, cfg, ports, opts)
	if err != nil {
		return nil, err
	}
	ctx := s.life // Open has no caller's context; Close ends this one
	if err := s.wirePorts(op); err != nil {
		return nil, err
	}
	now := s.now()
	s.seq.Store(uint64(now.UnixNano()))
	if err := s.loadResources(ctx, op); err != nil {
		return nil, err
	}
	for id, r := range s.resources {
		if err := s.startResource(ctx, op, id, r, now); err != nil {
			return nil, err
		}
	}
	if err := s.takeSecret(ctx, op); err != nil {
		return nil, err
	}
	return s, nil
}

// newService is the service on cfg and ports before anything is read: its
// options' defaults filled in.
func newService(op slotfare.Op, cfg config.Config, ports Ports, opts Options) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, slotfare.E(op, err)
	}
	s := &Service{cfg: cfg, opts: opts, ports: ports, now: opts.Now, log: opts.Logger,
		fileKeys: fileKeys(cfg.Keys), resources: map[string]*resource{}, bookings: map[string]*entry{}}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s.life, s.stop = context.WithCancel(context.Background()) // the service's root: no caller's
	return s, nil
}

// wirePorts sets what the service reaches its ports through, and names
// this process's writes and its replica.
func (s *Service) wirePorts(op slotfare.Op) error {
	s.inv, s.records, s.idem = s.ports.Inventory, s.ports.Records, s.ports.Idem
	if n := s.opts.EventsKeep; n > 0 {
		s.records.KeepEvents(n)
		s.inv.KeepEvents(n) // limits.published, where it keeps them
	}
	if _, err := rand.Read(s.writeNonce[:]); err != nil {
		return slotfare.E(op, slotfare.Other, err)
	}
	s.holder = fmt.Sprintf("replica-%x", s.writeNonce)
	return nil
}

// loadResources makes the service's resources: the configuration's, and
// over them the catalog's (made, changed or retired over the API). The
// API keys of Options.SeedKeys the Keys port lacks are adopted on the way.
func (s *Service) loadResources(ctx context.Context, op slotfare.Op) error {
	docs, catVersion, err := s.ports.Catalog.All(ctx)
	if err != nil {
		return slotfare.E(op, err)
	}
	s.catalogVersion.Store(catVersion)
	if err := s.adoptOldKeys(ctx, docs, s.opts.SeedKeys); err != nil {
		return slotfare.E(op, err)
	}
	stored, err := storedResources(op, s.cfg, docs)
	if err != nil {
		return err
	}
	for id, sr := range stored {
		r, err := s.newResource(sr.rc, sr.queue)
		if err != nil {
			return slotfare.E(op, fmt.Sprintf("resource %s", id), err)
		}
		r.retired, r.version = sr.retired, sr.version
		s.resources[id] = r
	}
	return nil
}

// storedResource is a resource as configured or as the catalog stored it.
type storedResource struct {
	rc      config.ResourceConfig
	queue   []byte
	version int64
	retired time.Time
}

// storedResources are cfg's resources, each replaced by the catalog's
// document of its id where docs have one, and the catalog's others.
func storedResources(op slotfare.Op, cfg config.Config, docs []catalog.Doc) (map[string]storedResource, error) {
	out := map[string]storedResource{}
	for _, rc := range cfg.Resources {
		out[rc.ID] = storedResource{rc: rc}
	}
	for _, d := range docs {
		if strings.HasPrefix(d.ID, keyDocPrefix) {
			continue
		}
		var rr booking.ResourceRecord
		if err := json.Unmarshal(d.Body, &rr); err != nil {
			return nil, slotfare.E(op, fmt.Sprintf("stored resource %s", d.ID), err)
		}
		rc, err := config.DecodeStored(rr)
		if err != nil {
			return nil, slotfare.E(op, err)
		}
		sr := storedResource{rc: rc, queue: rr.Queue, version: d.Version}
		if rr.RetiredAt != nil {
			sr.retired = *rr.RetiredAt
		}
		out[d.ID] = sr
	}
	return out, nil
}

// startResource brings resource r's booking control up to its stored
// history and demand and lays its calendars out at now; the first replica
// up takes r's ticker lease and lays the limits out.
func (s *Service) startResource(ctx context.Context, op slotfare.Op, id string, r *resource, now time.Time) error {
	// The change log's cursor before the history: booking control
	// follows the log from it (refreshHistory), so that taking the
	// ticker lease later reads what changed since, not the history.
	cursor, err := s.records.ChangeCursor(ctx, id)
	if err != nil {
		return slotfare.E(op, slotfare.Unavailable, fmt.Sprintf("resource %s", id), err)
	}
	hist, err := s.historyOf(ctx, id)
	if err != nil {
		return slotfare.E(op, slotfare.Unavailable, fmt.Sprintf("resource %s", id), err)
	}
	demand, err := s.storedDemand(ctx, id, now)
	if err != nil {
		return slotfare.E(op, slotfare.Unavailable, fmt.Sprintf("resource %s", id), err)
	}
	r.replay(ctx, hist, demand, now)
	r.cursor, r.following = cursor, true
	if err := r.rebuild(ctx, now, false); err != nil {
		return slotfare.E(op, fmt.Sprintf("resource %s", r.id), err)
	}
	// The first replica up takes the ticker lease and lays the limits out
	// at once, so that the overbooking limit is open from the first
	// request, not from the first tick.
	held, err := s.leaseTicker(ctx, r, now)
	if err != nil {
		return slotfare.E(op, fmt.Sprintf("resource %s", r.id), err)
	}
	if !held {
		return nil
	}
	r.mu.Lock()
	err = r.extend(ctx, now, r.fence)
	r.mu.Unlock()
	// Fenced: another replica took the lease over meanwhile.
	if err != nil && slotfare.KindOf(err) != slotfare.Fenced {
		return slotfare.E(op, fmt.Sprintf("resource %s", r.id), err)
	}
	return nil
}

// takeSecret sets the offer ids' signer: on Options.Secret, or on the
// catalog's secret, stored from a random one on first start.
func (s *Service) takeSecret(ctx context.Context, op slotfare.Op) error {
	secret := s.opts.Secret
	if secret == nil {
		candidate := make([]byte, 32)
		if _, err := rand.Read(candidate); err != nil {
			return slotfare.E(op, slotfare.Other, err)
		}
		var err error
		if secret, err = s.ports.Catalog.Secret(ctx, candidate); err != nil {
			return slotfare.E(op, err)
		}
	}
	var err error
	if s.signer, err = offersign.New(secret); err != nil {
		return slotfare.E(op, err)
	}
	return nil
}

// Ready is nil when the service can serve: open, with its store loaded.
func (s *Service) Ready() error {
	if s.closed.Load() {
		return slotfare.E(slotfare.Op("service.Ready"), slotfare.Unavailable, "the service is closed")
	}
	return nil
}

// Close stops the service and closes its ports (Ports.Close).
func (s *Service) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.stop() // a tick waiting on a store gives up, so tickMu comes free
	s.tickMu.Lock()
	defer s.tickMu.Unlock()
	// The refusals seen since the last tick are booking control's state
	// too: stored before the store closes, so the next start sees them,
	// under a context of their own (the service's is cancelled).
	ctx := context.WithoutCancel(s.life)
	var errs []error
	for _, r := range s.resourceList() {
		if err := s.saveRefusals(ctx, r, true); err != nil {
			errs = append(errs, err)
		}
		if err := s.flushDemand(ctx, r, s.now()); err != nil {
			errs = append(errs, err)
		}
	}
	if s.ports.Close != nil {
		errs = append(errs, s.ports.Close())
	}
	return errors.Join(errs...)
}

// Ledger is a ledger of every stored posting on the service's resources,
// read now: for a report of the whole book (the simulator's revenue,
// tests); a request reads only the postings it needs (moneyOf, booksOf).
func (s *Service) Ledger(ctx context.Context) (*ledger.Ledger, error) {
	const op slotfare.Op = "service.Ledger"
	var all []ledger.Posting
	for _, r := range s.resourceList() {
		ps, err := s.records.ResourcePostings(ctx, r.id)
		if err != nil {
			return nil, slotfare.E(op, slotfare.Unavailable, err)
		}
		all = append(all, ps...)
	}
	return s.replayed(ctx, op, all)
}

func needRole(op slotfare.Op, p booking.Principal, roles ...booking.Role) error {
	if p.Role == "" || p.AccountID == "" {
		return slotfare.E(op, slotfare.Unauthorized, "no principal")
	}
	if slices.Contains(roles, p.Role) {
		return nil
	}
	return slotfare.E(op, slotfare.Forbidden, fmt.Sprintf("role %s may not do this (needs %v)", p.Role, roles))
}

func (s *Service) checkOpen(op slotfare.Op) error {
	if s.closed.Load() {
		return slotfare.E(op, slotfare.Unavailable, "the service is closed")
	}
	return nil
}

func (s *Service) transition(from, to booking.Status) {
	if s.opts.OnTransition != nil {
		s.opts.OnTransition(from, to)
	}
}

func (s *Service) resource(id string) *resource {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.resources[id]
}

func (s *Service) resourceList() []*resource {
	s.mu.RLock()
	out := make([]*resource, 0, len(s.resources))
	for _, r := range s.resources {
		out = append(out, r)
	}
	s.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// newID is a booking id: a counter that starts at the service clock's
// nanoseconds on Open (so ids sort by creation and land at the end of the
// store's B+tree, which keeps group commits small) and 4 random bytes (so two
// runs on a frozen clock never collide).
func (s *Service) newID(prefix string) string {
	var b [4]byte
	if s.opts.IDs != nil {
		s.idMu.Lock()
		_, err := io.ReadFull(s.opts.IDs, b[:])
		s.idMu.Unlock()
		if err != nil {
			panic(err) // a seeded stream never ends
		}
	} else if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return fmt.Sprintf("%s%016x%s", prefix, s.seq.Add(1), hex.EncodeToString(b[:]))
}

// stamp is how a booking's own timestamps are kept and shown: UTC, whole
// seconds (the API's RFC 3339 without fractions).
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// change is one booking's new record in a batch; from is its status before.
type change struct {
	e    *entry
	rec  booking.Record
	from booking.Status
}

// moneyOf is the ledger that decides the money of bookings ids: their
// postings as stored, read now, so that a charge made on another replica is
// what a cancellation here refunds, and no process keeps postings beside the
// store's.
func (s *Service) moneyOf(ctx context.Context, ids ...string) (*ledger.Ledger, error) {
	const op slotfare.Op = "service.money"
	var all []ledger.Posting
	for _, id := range ids {
		_, ps, _, err := s.records.Booking(ctx, id)
		if err != nil {
			return nil, slotfare.E(op, slotfare.Unavailable, err)
		}
		all = append(all, ps...)
	}
	return s.replayed(ctx, op, all)
}

// replayed is a ledger of postings ps, in their order, each checked again.
func (s *Service) replayed(ctx context.Context, op slotfare.Op, ps []ledger.Posting) (*ledger.Ledger, error) {
	l, err := ledger.New(ledger.Options{Currencies: s.currencies})
	if err != nil {
		return nil, slotfare.E(op, err)
	}
	if err := l.Replay(ctx, ps); err != nil {
		return nil, slotfare.E(op, "the stored postings do not replay", err)
	}
	return l, nil
}

// apply makes changes durable with their postings in one store batch, then
// visible: the ledger commits, the entries take their new records, bookings
// that stopped holding capacity leave the calendars. The postings were
// decided on money (moneyOf); nil when there are none. The caller holds
// every changed entry's mutex. On a store failure nothing changes
// (Unavailable).
func (s *Service) apply(ctx context.Context, op slotfare.Op, changes []change, postings []ledger.Posting, money *ledger.Ledger) error {
	return s.applyWith(ctx, op, changes, postings, money, nil)
}

// applyWith is apply with the write stored by write (nil: the records
// port's Apply): a guarded step, say.
func (s *Service) applyWith(ctx context.Context, op slotfare.Op, changes []change, postings []ledger.Posting, money *ledger.Ledger, write func(records.Write) error) error {
	var pend *ledger.Pending
	if len(postings) > 0 {
		p, err := money.Prepare(postings...)
		if err != nil {
			return slotfare.E(op, err)
		}
		pend = p
		defer pend.Abort()
	}
	w := records.Write{Resource: changes[0].rec.Booking.ResourceID, WriteID: s.writeID(), Changes: make([]records.Change, len(changes))}
	for i := range changes {
		changes[i].rec.Booking.UpdatedAt = stamp(changes[i].rec.Booking.UpdatedAt)
		w.Changes[i] = records.Change{Record: changes[i].rec, Replaces: changes[i].e.version, From: changes[i].from}
	}
	if pend != nil {
		w.Postings = pend.ToPersist()
	}
	if write == nil {
		write = func(w records.Write) error { return s.records.Apply(ctx, w) }
	}
	if err := write(w); err != nil {
		if k := slotfare.KindOf(err); k == slotfare.Conflict || k == slotfare.Fenced {
			return slotfare.E(op, err)
		}
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	if pend != nil {
		if err := pend.Commit(); err != nil {
			// Cannot happen for a prepared batch (ledger's contract); the
			// store holds it and a restart replays it.
			s.log.Error("ledger commit after store write", "op", op, "err", err)
		}
	}
	for _, c := range changes {
		c.e.set(c.rec)
		c.e.version++
		if !c.rec.Booking.Status.Holding() {
			s.forget(c.e)
			// Released even when the request was cancelled meanwhile.
			if err := c.e.res.release(context.WithoutCancel(ctx), c.rec.Booking.ID); err != nil {
				// Stored as no longer holding: the capacity stays held
				// (never sold twice) until a Tick releases it.
				s.log.Error("inventory: release of a booking that stopped holding", "op", op, "booking", c.rec.Booking.ID, "err", err)
			}
		}
	}
	for _, c := range changes {
		if c.from != c.rec.Booking.Status {
			s.transition(c.from, c.rec.Booking.Status)
		}
	}
	return nil
}

// entryOf is booking id's entry in this process, made from its stored
// record when the process has not seen it yet (another replica made it);
// nil when no such booking is stored. Changes refresh it (retry) before
// they decide.
func (s *Service) entryOf(ctx context.Context, op slotfare.Op, id string) (*entry, error) {
	s.mu.RLock()
	e := s.bookings[id]
	s.mu.RUnlock()
	if e != nil {
		return e, nil
	}
	st, found, err := s.records.Get(ctx, id)
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	if !found {
		return nil, nil
	}
	return s.adopt(&st), nil
}

// adopt is the entry of a booking read from the records: this process's
// own when it has one, otherwise one made from st.
func (s *Service) adopt(st *records.Stored) *entry {
	rec := &st.Record
	s.mu.RLock()
	e := s.bookings[rec.Booking.ID]
	s.mu.RUnlock()
	if e != nil {
		return e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.bookings[rec.Booking.ID]; e != nil {
		return e
	}
	e = &entry{res: s.resources[rec.Booking.ResourceID], groups: rec.Groups}
	e.take(st)
	if rec.Booking.Status.Holding() {
		s.bookings[rec.Booking.ID] = e
	}
	return e
}

// forget drops e from the bookings this process keeps once it no longer
// holds capacity: its record is the store's, read again when asked for, so
// a replica's memory stays bounded by the live bookings. A terminal
// booking never changes again, so two entries of it (a request that still
// has this one, another that reads it anew) decide the same.
func (s *Service) forget(e *entry) {
	id := e.booking().ID
	s.mu.Lock()
	if s.bookings[id] == e {
		delete(s.bookings, id)
	}
	s.mu.Unlock()
}

// take makes st the entry's record, with its version. The caller holds
// e.mu, or nobody else can reach e yet.
func (e *entry) take(st *records.Stored) {
	e.set(st.Record)
	e.version = st.Version
}

// maxAttempts bounds how often a change is decided again after its write
// found the booking moved (another request or replica changed it first).
const maxAttempts = 5

// retry runs decide on e's record and again while its write finds the
// booking moved since: of two changes racing on one booking, on one replica
// or several, each is decided on what the other left. The first decision is
// taken on the record this process last read or wrote, without reading it
// again: a write carries the version it was decided on, so the records
// port refuses it (moved) if another request or replica changed the
// booking since, and it is then decided again on a fresh read. A decision
// that wrote nothing (a replay of a commit already made, a refusal) is
// checked against a fresh read, and decided again if the booking moved: an
// answer never rests on a record that was stale. The caller holds e.mu;
// decide reads e.rec.
func (s *Service) retry(ctx context.Context, e *entry, decide func() (booking.Booking, error)) (booking.Booking, error) {
	fresh := e.version == 0 // never read: read it first
	for attempt := 1; ; attempt++ {
		if fresh {
			if err := s.refresh(ctx, e); err != nil {
				return booking.Booking{}, err
			}
		}
		v := e.version
		b, err := decide()
		if attempt < maxAttempts && moved(err) {
			fresh = true
			continue
		}
		if !fresh && e.version == v && slotfare.KindOf(err) != slotfare.Unavailable {
			// Nothing written: was the record decided on still current?
			if rerr := s.refresh(ctx, e); rerr != nil {
				return booking.Booking{}, rerr
			}
			if e.version != v && attempt < maxAttempts {
				fresh = true
				continue
			}
		}
		return b, err
	}
}

// refresh brings e up to its stored record. The caller holds e.mu.
func (s *Service) refresh(ctx context.Context, e *entry) error {
	id := e.view.Load().ID
	st, found, err := s.records.Get(ctx, id)
	if err != nil {
		return slotfare.E(slotfare.Op("service.refresh"), slotfare.Unavailable, err)
	}
	if !found {
		return slotfare.E(slotfare.Op("service.refresh"), slotfare.NotFound, fmt.Sprintf("no booking %q", id))
	}
	if st.Version != e.version {
		e.take(&st)
	}
	return nil
}

// moved reports a write refused because its booking has another version
// than the one the change was decided on (records.ErrMoved).
func moved(err error) bool {
	return slotfare.KindOf(err) == slotfare.Conflict && slotfare.FieldOf(err) == "booking_id"
}

// writeID names a new write of this process.
func (s *Service) writeID() string {
	return fmt.Sprintf("%x.%d", s.writeNonce, s.writes.Add(1))
}
