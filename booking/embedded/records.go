package embedded

import (
	"context"
	"encoding/json"
	"math"
	"sync"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/events"
	"slotfare/booking/inventory"
	"slotfare/booking/records"
	"slotfare/ledger"
)

// Records is records.Port on a booking.Store. Versions are assigned here
// (1 for every record loaded, +1 per change; see the package doc). A write
// is one Batch: its booking records and postings, stored together or not
// at all. Applied WriteIDs are remembered for Options.WriteIDTTL, and at
// most Options.MaxWriteIDs of them (see recentWrites), not across a
// restart: a write retried later is checked again, and its changes,
// already applied, answer ErrMoved (its postings ErrPosted).
//
// Postings(account) are in the order their writes were acknowledged. Two
// writes in flight at once may reach the disk in the other order, so after
// a restart their postings may swap places; both writes overlapped, so
// either order is one they could have had. Writes on one booking never
// overlap (see Apply; a write that posts for a booking counts as one on
// it), so a booking's own postings keep their order, the one Booking
// answers, across restarts.
type Records struct {
	store booking.Store
	keys  *Idem // told of every new booking made with an Idempotency-Key
	// inv is the inventory laid out from these records, which the guarded
	// steps (AdmitApply, WithinApply, ReplaceApply) change with them.
	inv *inventory.Memory

	mu       sync.RWMutex
	recs     map[string]*records.Stored
	accounts map[string][]string // account -> its bookings' records.ListKey, sorted
	history  map[string][]string // resource -> all its bookings' records.ListKey, sorted
	live     map[string]liveSet  // resource -> its bookings that hold capacity, in id order
	posted   map[string]struct{} // every posting id stored
	posts    []ledger.Posting    // every posting stored, each once, in acknowledged order
	postings map[string][]int    // account -> its postings (indexes in posts), in acknowledged order
	byBook   map[string][]int    // booking id -> its postings, in stored order
	byRes    map[string][]int    // resource -> its postings, in acknowledged order
	refused  map[string][]booking.RefusalRecord
	refKeys  map[string]struct{} // resource + RefusalKey of every refusal stored
	demand   booking.DemandBook
	observed map[string]int64 // records.Port's Observed, by resource
	claims   records.ClaimsByAccount
	fences   records.Fences
	// changes are each resource's change log since the process loaded
	// the store: its readers' cursors live no longer than the process.
	changes map[string]*records.ChangeLog
	keep    int           // bookings a change log keeps
	applied *recentWrites // WriteIDs applied lately by this process
	// busy reserves what an Apply writes while the store works on it; the
	// channel is closed when the store has answered and memory is up to
	// date.
	busy map[reserved]chan struct{}
}

var _ records.Guarded = (*Records)(nil)
var _ records.HoldClaims = (*Records)(nil)

func newRecords(store booking.Store, keys *Idem, applied *recentWrites) *Records {
	return &Records{store: store, keys: keys, recs: map[string]*records.Stored{}, accounts: map[string][]string{}, history: map[string][]string{},
		live: map[string]liveSet{}, posted: map[string]struct{}{}, postings: map[string][]int{},
		byBook: map[string][]int{}, byRes: map[string][]int{},
		refused: map[string][]booking.RefusalRecord{}, refKeys: map[string]struct{}{}, demand: booking.DemandBook{}, observed: map[string]int64{}, claims: records.ClaimsByAccount{},
		fences: records.Fences{}, changes: map[string]*records.ChangeLog{}, keep: records.ChangesKept,
		applied: applied, busy: map[reserved]chan struct{}{}}
}

// load indexes what the store held: every record at version 1.
func (s *Records) load(books []booking.Record, postings []ledger.Posting, refusals []booking.RefusalRecord, demand []booking.DemandRecord) {
	s.refuse(refusals)
	for _, r := range demand {
		s.demand.Count(booking.DemandWrite{Resource: r.Resource, Records: []booking.DemandRecord{r}})
	}
	for _, r := range books {
		s.put(&records.Stored{Record: r, Version: 1}, records.ListKey(r))
		if b := r.Booking; b.Status == booking.Held && b.HoldExpiresAt != nil {
			// A stored hold claims its account's limits again.
			s.claims.Claim(records.HoldClaim{Resource: b.ResourceID, Account: b.AccountID, BookingID: b.ID, Expires: *b.HoldExpiresAt,
				NodeSeconds: records.NodeSeconds(b), MaxHolds: math.MaxInt, MaxNodeSeconds: math.MaxInt64}, func(string) (booking.Status, bool) { return booking.Held, true })
		}
		if r.IdemKey != "" {
			s.keys.stored(r, true)
		}
	}
	s.post(postings)
}

// reserved names what an Apply in flight holds: a booking, a posting id or
// a WriteID (the three name spaces are apart).
type reserved struct {
	what byte // 'b', 'p' or 'w'
	id   string
}

// Apply implements records.Port. It checks w against memory, reserves what
// w writes, writes the batch without holding any lock (so that writes on
// other bookings share the store's group commit), and applies w to memory
// once the store acknowledged it. A write touching a booking, posting id or
// WriteID that another Apply has in flight waits for that one's answer and
// is then checked against its result. When the store refuses, nothing
// changes here and the store's error is returned.
//
// A NoWait write is applied once the store has queued it: should the sync
// of its group fail later, memory holds a hold the disk lacks, exactly as
// the service has accepted for holds (booking.Batch.NoWait); the booking's
// next waited write carries its whole record.
func (s *Records) Apply(ctx context.Context, w records.Write) error {
	const op slotfare.Op = "embedded.Records.Apply"
	if err := records.Check(w); err != nil {
		return err
	}
	names := make([]reserved, 0, 1+len(w.Changes)+2*len(w.Postings))
	names = append(names, reserved{'w', w.WriteID})
	for _, c := range w.Changes {
		names = append(names, reserved{'b', c.Record.Booking.ID})
	}
	for _, p := range w.Postings {
		names = append(names, reserved{'p', p.ID})
		if p.BookingID != "" {
			// Writes posting for one booking never overlap, so its
			// postings reach the disk in the order memory shows them.
			names = append(names, reserved{'b', p.BookingID})
		}
	}
	s.mu.Lock()
	for {
		if s.applied.has(w.WriteID) {
			s.mu.Unlock()
			return nil
		}
		wait := s.firstBusy(names)
		if wait == nil {
			break
		}
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return slotfare.E(op, slotfare.Unavailable, ctx.Err())
		}
		s.mu.Lock()
	}
	if err := s.check(w); err != nil {
		s.mu.Unlock()
		return err
	}
	done := make(chan struct{})
	for _, n := range names {
		s.busy[n] = done
	}
	s.mu.Unlock()
	var err error
	b := booking.Batch{Bookings: make([]booking.Record, len(w.Changes)), Postings: w.Postings, NoWait: w.NoWait}
	for i, c := range w.Changes {
		b.Bookings[i] = c.Record
	}
	if !keepsNoEvents(s.store) {
		b.Events, err = records.EncodedEventsOf(w)
	}
	if err == nil {
		err = s.store.Write(ctx, b)
	}
	// What memory will hold is made before taking the lock again: every
	// acknowledged Apply of a group commit wants it at the same moment.
	var next []stored
	if err == nil {
		next = make([]stored, len(w.Changes))
		for i, c := range w.Changes {
			next[i] = stored{&records.Stored{Record: c.Record, Version: c.Replaces + 1}, records.ListKey(c.Record)}
		}
	}

	s.mu.Lock()
	for _, n := range names {
		delete(s.busy, n)
	}
	if err == nil {
		s.applyLocked(w, next)
	}
	s.mu.Unlock()
	close(done)
	if err != nil {
		return slotfare.E(op, err)
	}
	return nil
}

// firstBusy is the channel of an Apply in flight that holds one of names,
// or nil.
func (s *Records) firstBusy(names []reserved) chan struct{} {
	for _, n := range names {
		if ch, ok := s.busy[n]; ok {
			return ch
		}
	}
	return nil
}

// check is w against memory: its fence not older than one seen, every
// version as replaced, no posting stored. The fence of a write let
// through is the newest from then on, so that a write checked later with
// an older one is refused even while this one is on its way to the disk
// (one process owns the store: its memory is where tokens are seen).
func (s *Records) check(w records.Write) error {
	if err := s.fences.Check(w); err != nil {
		return err
	}
	for _, c := range w.Changes {
		id := c.Record.Booking.ID
		var have int64
		if st, ok := s.recs[id]; ok {
			have = st.Version
		}
		if have != c.Replaces {
			return records.ErrMoved(id, c.Replaces, have)
		}
	}
	for _, p := range w.Postings {
		if _, ok := s.posted[p.ID]; ok {
			return records.ErrPosted(p.ID)
		}
	}
	s.fences.Keep(w)
	return nil
}

// stored is a change as memory will hold it, with its account-order key.
type stored struct {
	st  *records.Stored
	key string
}

// applyLocked makes an acknowledged write visible: next are its changes
// made ready. The caller holds mu.
func (s *Records) applyLocked(w records.Write, next []stored) {
	log := s.changes[w.Resource]
	if log == nil && len(w.Changes) > 0 {
		log = &records.ChangeLog{}
		s.changes[w.Resource] = log
	}
	for i, c := range w.Changes {
		s.put(next[i].st, next[i].key)
		log.Add(c.Record.Booking.ID, s.keep)
		if c.Replaces == 0 && c.Record.IdemKey != "" {
			s.keys.stored(c.Record, false)
		}
	}
	s.post(w.Postings)
	s.applied.add(w.WriteID)
}

// keepsNoEvents reports whether store drops the events written to it (an
// unlogged memstore): encoding them would be work for nothing.
func keepsNoEvents(store booking.Store) bool {
	u, ok := store.(interface{ KeepsNoEvents() bool })
	return ok && u.KeepsNoEvents()
}

// ReadEvents implements events.Reader on a store that keeps the log; on
// one that does not, the log is empty.
func (s *Records) ReadEvents(ctx context.Context, streams []string, after events.Cursor, limit int) ([]events.Logged, error) {
	if r, ok := s.store.(events.Reader); ok {
		return r.ReadEvents(ctx, streams, after, limit)
	}
	return nil, nil
}

// AppendEvents implements events.Appender: one batch of events alone.
func (s *Records) AppendEvents(ctx context.Context, stream string, evs []events.Event) error {
	if keepsNoEvents(s.store) {
		return nil
	}
	b := booking.Batch{Events: make([][]byte, len(evs))}
	for i, e := range evs {
		raw, err := json.Marshal(e)
		if err != nil {
			return slotfare.E(slotfare.Op("embedded.Records.AppendEvents"), slotfare.Other, err)
		}
		b.Events[i] = raw
	}
	return s.store.Write(ctx, b)
}

// KeepEvents implements events.Keeper.
func (s *Records) KeepEvents(n int) {
	if k, ok := s.store.(events.Keeper); ok {
		k.KeepEvents(n)
	}
}
