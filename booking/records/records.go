// Package records is the port for booking records where several replicas
// share them: every stored state of a booking has a version, and a write
// carries the bookings it changes, each with the version it replaces, and
// their ledger postings. A write is applied whole or not at all, and only if
// no booking in it has moved since its caller read it: of a commit on one
// replica and a cancel on another, exactly one wins, and the loser re-reads
// and decides again. Posting ids are unique in the store, so a booking is
// charged once where the data lives, whatever the replicas believe.
//
// A booking and its postings live with their resource (one Redis hash slot
// per resource, so the write is one atomic step); what is read by account
// (a customer's bookings, the postings behind invoices) is indexed under the
// account once the write is applied, before it is acknowledged.
package records

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/events"
	"slotfare/booking/idem"
	"slotfare/booking/lease"
	"slotfare/ledger"
)

// Change is one booking's new record, with the version it replaces (0 for
// a new booking). From is the status it replaces ("" for a new booking):
// a change that keeps it is recorded as booking.modified (EventsOf).
type Change struct {
	Record   booking.Record
	Replaces int64
	From     booking.Status
}

// Write is one step of the service: every booking it changes is on
// Resource. WriteID names the step, so that the same write sent again
// (after a timeout) is recognised and answers nil without applying twice.
type Write struct {
	Resource string
	WriteID  string
	Changes  []Change
	Postings []ledger.Posting
	// NoWait lets an embedded store acknowledge the write once it is queued
	// for the disk, before its sync (booking.Batch.NoWait): the service
	// writes new holds so, which carry no money and expire anyway, so that a
	// flow waits for one group commit, not two. A crash may then lose the
	// acknowledged write, so one that carries postings may not ask for it
	// (Check). Stores whose writes are as durable when applied as they will
	// ever be (Memory, Redis) ignore it.
	NoWait bool
	// KeyTTL is how long the Idempotency-Key of a new hold that carries
	// one (HeldKey) answers with the hold's booking once its guarded step
	// (AdmitApply) has stored it. The embedded ports keep keys for their
	// own Options.KeyTTL, from the booking's creation.
	KeyTTL time.Duration
	// Fence is the lease holder's fence of a ticker's write (its
	// transitions: expiry, start, denial, no-show, completion): a write
	// whose token is older than the newest the resource has seen under
	// that lease is refused whole (lease.ErrFenced), checked after a
	// retry of an applied write (same WriteID, nil) and before anything
	// else. Zero for a request's write, which no lease guards.
	Fence lease.Fence
}

// The guarded step of a new hold (AdmitApply, on the ports that keep the
// inventory beside the records) carries its Idempotency-Key: it claims
// the key (with the request's fingerprint), admits and stores the hold
// and finishes the key with its booking, or refuses whole. A key already
// used answers KeyDone (the same request made that booking),
// ErrKeyPending (another request with it is running) or the Conflict of
// ErrKeyMismatch (another request's fingerprint); a step that stores
// nothing leaves the key as it found it, and a claim whose step never
// finished (its process died) lapses after KeyPendingTTL.

// HeldKey is the new hold of w when it carries an Idempotency-Key: w's one
// change, a new record naming Account, IdemKey and Fingerprint. ok is
// false for any other write; a hold with a key and no KeyTTL of at least
// a second is Invalid.
func HeldKey(op slotfare.Op, w Write) (rec booking.Record, ok bool, err error) {
	if len(w.Changes) != 1 || w.Changes[0].Replaces != 0 || w.Changes[0].Record.IdemKey == "" {
		return booking.Record{}, false, nil
	}
	rec = w.Changes[0].Record
	if err := idem.Check(op, rec.Account, rec.IdemKey, w.KeyTTL); err != nil {
		return booking.Record{}, false, err
	}
	return rec, true, nil
}

// KeyPendingTTL is how long a hold's claim on its Idempotency-Key keeps
// other requests off it when its step never finishes (its process died
// mid-way): a retry waits, then claims the key afresh.
const KeyPendingTTL = 30 * time.Second

// KeyDone is a hold's answer when a request with the same key and
// fingerprint already made Booking.
type KeyDone struct{ Booking string }

func (k *KeyDone) Error() string { return "the Idempotency-Key made booking " + k.Booking }

// ErrKeyPending is a hold's answer when another request holds its key and
// has not finished.
var ErrKeyPending = errors.New("another request holds this Idempotency-Key")

// ErrKeyMismatch is the answer to a request whose Idempotency-Key was used
// with another request.
func ErrKeyMismatch(op slotfare.Op) error {
	return slotfare.E(op, slotfare.Conflict, slotfare.Field("Idempotency-Key"), "this Idempotency-Key was used with another request")
}

// KeyAnswer is what the step of the hold of booking id makes of claim c on
// its key: nil when it goes on (claimed, or done by this very booking: the
// step sent again), else KeyDone, ErrKeyPending (a Conflict) or
// ErrKeyMismatch.
func KeyAnswer(op slotfare.Op, c idem.Claim, id string) error {
	switch c.State {
	case idem.Claimed:
		return nil
	case idem.Done:
		if c.Result == id {
			return nil
		}
		return &KeyDone{Booking: c.Result}
	case idem.Mismatch:
		return ErrKeyMismatch(op)
	}
	return slotfare.E(op, slotfare.Conflict, ErrKeyPending)
}

// DueAt is when a ticker must next look at a booking that holds capacity
// (held, committed, active); ok is false for one that holds none. A hold
// lapses at its expiry or once its start has passed, a committed booking
// starts (or, not checked in, becomes a no-show a grace later) from its
// start, an active one completes at its end: a ticker that reads the
// bookings due by now (Port.Due) sees every one it has to move on, and
// keeps seeing one that is due until it is moved on.
func DueAt(r booking.Record) (at time.Time, ok bool) {
	b := r.Booking
	switch b.Status {
	case booking.Held:
		if b.HoldExpiresAt != nil && b.HoldExpiresAt.Before(b.Start) {
			return *b.HoldExpiresAt, true
		}
		return b.Start, true
	case booking.Committed:
		return b.Start, true
	case booking.Active:
		return b.End, true
	}
	return time.Time{}, false
}

// Stored is a booking's record as stored, with its version.
type Stored struct {
	Record  booking.Record
	Version int64
}

// Port stores booking records.
type Port interface {
	// The event log, beside the records: a write's events (EventsOf) are
	// stored in the step that applies it, others appended alone (events of
	// no resource: a webhook disabled); KeepEvents bounds it.
	events.Reader
	events.Appender
	events.Keeper
	// Apply stores w whole or not at all: a Conflict names the booking
	// whose version is not the one its change replaces, or the posting id
	// already stored. A write already applied (same WriteID) is nil.
	Apply(ctx context.Context, w Write) error
	// Get is the stored record of booking id.
	Get(ctx context.Context, id string) (Stored, bool, error)
	// Booking is the stored record of booking id with its postings (those
	// whose BookingID is id) in the order they were stored, read together:
	// the postings are the ones the record's version was written with, so
	// a caller can rebuild the booking's ledger state (ledger.New, then
	// Replay of them) and decide a cancellation, no-show, denial or
	// modification from stored data, carrying Version as Replaces. A
	// booking not stored is found false, with no postings.
	Booking(ctx context.Context, id string) (Stored, []ledger.Posting, bool, error)
	// OfAccount pages through an account's bookings in the order of
	// (created_at, id): after is the key of the last one seen ("" to
	// start); next is "" on the last page.
	OfAccount(ctx context.Context, account, after string, limit int) (page []Stored, next string, err error)
	// Live are a resource's bookings that hold capacity (held, committed,
	// active), in id order. The records are shared with the port: the
	// caller reads them and never changes one.
	Live(ctx context.Context, resource string) ([]*Stored, error)
	// Due are resource's bookings holding capacity whose DueAt is at or
	// before until, in id order, shared as Live's are: a ticker reads the
	// bookings due, not every live one each second.
	Due(ctx context.Context, resource string, until time.Time) ([]*Stored, error)
	// Running are the nodes of resource's active bookings whose end is
	// after at (booking times are whole seconds): the nodes in use at at,
	// which a ticker starts the shows in. It is one read of what the
	// store keeps beside the live set, not a read of every live record.
	Running(ctx context.Context, resource string, at time.Time) (int, error)
	// RepairIndex indexes again (idempotently) under their accounts what
	// the resource's writes posted since its last run, and says how many
	// postings it went through; the replica holding the resource's ticker
	// lease runs it. A port that indexes a write under its accounts in a
	// second step (Redis: the account's hash slot is not the resource's)
	// loses that step when a process dies between the two, leaving the
	// postings out of invoices while the resource has them; a port that
	// indexes in the write itself has nothing to repair.
	RepairIndex(ctx context.Context, resource string) (int, error)
	// History pages through every booking ever stored on a resource,
	// whatever its status, in the order of (created_at, id), each once with
	// its current record: booking control forecasts demand from it, and on
	// shared ports the replica holding the resource's ticker lease rebuilds
	// its forecast from the store, not from its own memory. after is the
	// ListKey of the last one seen ("" to start); next is "" on the last
	// page.
	History(ctx context.Context, resource, after string, limit int) (page []Stored, next string, err error)
	// Postings are an account's postings in the order they were stored.
	Postings(ctx context.Context, account string) ([]ledger.Posting, error)
	// ResourcePostings are the postings on a resource's accounts (its
	// revenue, penalty revenue, refunds and compensation expense) in the
	// order they were stored in the resource's place: what a billing
	// system reads for "revenue:RAL" on shared ports, where no replica
	// holds the whole ledger. Each posting is on one resource (Check), so
	// a resource's postings replay into a ledger on their own.
	ResourcePostings(ctx context.Context, resource string) ([]ledger.Posting, error)
	// Refused stores refusals that closed a fare class on resource:
	// booking control's censored demand (seed 004 Sec. 7.3), which the
	// replica holding the resource's ticker lease replays with the history,
	// whichever replica saw them. Storing a refusal again (a retry) is a
	// no-op. noWait lets an embedded store acknowledge them once queued
	// for the disk, as Write.NoWait. It answers the resource's
	// observations' version the write left (Observed).
	Refused(ctx context.Context, resource string, rs []booking.RefusalRecord, noWait bool) (version int64, err error)
	// Refusals are the refusals stored on resource, oldest first.
	Refusals(ctx context.Context, resource string) ([]booking.RefusalRecord, error)
	// Observed is the version of resource's stored observations, its
	// refusals and demand records (DemandPort): a write of either that
	// stores something moves it on by one in the same step, and answers
	// the version it left. So a replica whose booking control took in
	// every observation up to version v, and whose own write then
	// answered v+1, has taken in every one up to v+1: the holder of the
	// ticker lease reads them all again only when another replica wrote.
	// Zero for a resource without any.
	Observed(ctx context.Context, resource string) (int64, error)
	DemandPort
	HoldClaims
	Changes
}

// CheckRefusals validates refusals before any store sees them: each is on
// resource, names its class and has an interval.
func CheckRefusals(resource string, rs []booking.RefusalRecord) error {
	const op slotfare.Op = "records.Refused"
	if resource == "" {
		return slotfare.Errorf(op, "resource", "required")
	}
	for i, f := range rs {
		switch {
		case f.Resource != resource:
			return slotfare.Errorf(op, "resource", "refusal %d is on %q, the write on %q", i, f.Resource, resource)
		case f.Class == "":
			return slotfare.Errorf(op, "class", "refusal %d names no fare class", i)
		case !f.End.After(f.Start):
			return slotfare.Errorf(op, "end", "refusal %d ends at or before its start", i)
		}
	}
	return nil
}

// RefusalKey names a refusal for the sets that keep it once: stored twice,
// it is one refusal.
func RefusalKey(f booking.RefusalRecord) string {
	return f.At.UTC().Format(time.RFC3339Nano) + "|" + f.Class + "|" + f.Start.UTC().Format(time.RFC3339Nano) + "|" + f.End.UTC().Format(time.RFC3339Nano)
}

// ListKey is a booking's place in its account's and its resource's order
// (OfAccount, History): created_at as seconds, zero-padded so that keys
// sort as the order does, then the id.
// It is made on every write of a booking, so it is built by hand.
func ListKey(r booking.Record) string {
	var digits [20]byte
	n := strconv.AppendInt(digits[:0], r.Booking.CreatedAt.Unix()+1<<40, 10)
	b := make([]byte, 0, 21+len(r.Booking.ID))
	if n[0] == '-' { // before 1970 minus 2^40 s: never, but keep the form
		return fmt.Sprintf("%020d|%s", r.Booking.CreatedAt.Unix()+1<<40, r.Booking.ID)
	}
	for range 20 - len(n) {
		b = append(b, '0')
	}
	b = append(b, n...)
	b = append(b, '|')
	b = append(b, r.Booking.ID...)
	return string(b)
}

// Check validates a write before any store sees it.
func Check(w Write) error {
	const op slotfare.Op = "records.Apply"
	if w.Resource == "" {
		return slotfare.Errorf(op, "resource", "required")
	}
	if w.WriteID == "" || len(w.WriteID) > 128 {
		return slotfare.Errorf(op, "write_id", "must be 1 to 128 bytes")
	}
	if len(w.Changes) == 0 && len(w.Postings) == 0 {
		return slotfare.Errorf(op, "changes", "nothing to write")
	}
	if w.NoWait && len(w.Postings) > 0 {
		return slotfare.Errorf(op, "no_wait", "a write that carries postings waits for the disk: a crash may lose a hold, never money")
	}
	if err := lease.CheckFence(op, w.Fence); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, c := range w.Changes {
		b := c.Record.Booking
		switch {
		case b.ID == "" || strings.ContainsAny(b.ID, "{}|"):
			return slotfare.Errorf(op, "booking_id", "must be set and free of {, } and |, got %q", b.ID)
		case b.ResourceID != w.Resource:
			return slotfare.Errorf(op, "resource_id", "booking %s is on %s, the write on %s", b.ID, b.ResourceID, w.Resource)
		case b.AccountID == "" || strings.ContainsAny(b.AccountID, "{}"):
			return slotfare.Errorf(op, "account_id", "booking %s: must be set and free of { and }", b.ID)
		case c.Replaces < 0:
			return slotfare.Errorf(op, "replaces", "booking %s: a version is never negative", b.ID)
		case seen[b.ID]:
			return slotfare.Errorf(op, "booking_id", "booking %s is changed twice in one write", b.ID)
		}
		seen[b.ID] = true
	}
	ids := map[string]bool{}
	for _, p := range w.Postings {
		if p.ID == "" || ids[p.ID] {
			return slotfare.Errorf(op, "postings", "posting id %q empty or given twice", p.ID)
		}
		if p.Customer == "" {
			return slotfare.Errorf(op, "postings", "posting %s names no customer", p.ID)
		}
		// A booking's postings are stored with it, in its resource's
		// place (one Redis hash slot), so that Booking reads both in one
		// step: a posting of a booking on another resource has no place
		// in this write.
		// Every posting, a compensation included, is stored in its
		// resource's place, where ResourcePostings reads it.
		if p.Resource != w.Resource {
			return slotfare.Errorf(op, "postings", "posting %s of booking %q is on resource %s, the write on %s", p.ID, p.BookingID, p.Resource, w.Resource)
		}
		ids[p.ID] = true
	}
	return nil
}

// ErrMoved is the Conflict of a change whose booking has another version.
func ErrMoved(id string, want, have int64) error {
	return slotfare.E(slotfare.Op("records.Apply"), slotfare.Conflict, slotfare.Field("booking_id"),
		fmt.Sprintf("booking %s is at version %d, the change replaces %d: read it again", id, have, want))
}

// ErrPosted is the Conflict of a posting id already stored.
func ErrPosted(id string) error {
	return slotfare.E(slotfare.Op("records.Apply"), slotfare.Conflict, slotfare.Field("postings"), "posting "+id+" is already stored")
}

// Fences are the newest lease tokens a store in one process has seen per
// resource and lease (Write.Fence), kept under the store's lock: Check
// and Keep in the step that applies a write.
type Fences map[[2]string]int64

// Check refuses w when its fence is older than the newest its resource
// has seen under that lease.
func (fs Fences) Check(w Write) error {
	at := [2]string{w.Resource, w.Fence.Name}
	if ok, _ := w.Fence.Admits(fs[at]); !ok {
		return lease.ErrFenced("records.Apply", w.Resource, w.Fence, fs[at])
	}
	return nil
}

// Keep takes the fence of w, applied, as its resource's newest.
func (fs Fences) Keep(w Write) {
	if w.Fence != (lease.Fence{}) {
		at := [2]string{w.Resource, w.Fence.Name}
		_, fs[at] = w.Fence.Admits(fs[at])
	}
}

// Memory is the in-process Port.
type Memory struct {
	mu       sync.Mutex
	recs     map[string]Stored
	writes   map[string]bool
	posted   map[string]bool
	postings map[string][]ledger.Posting // by account
	byBook   map[string][]ledger.Posting // by booking, in stored order
	byRes    map[string][]ledger.Posting // by resource, in stored order
	refused  map[string][]booking.RefusalRecord
	refKeys  map[string]bool // resource + RefusalKey of every refusal stored
	claims   ClaimsByAccount
	fences   Fences
	changes  map[string]*ChangeLog // by resource
	keep     int                   // bookings a change log keeps
	demand   booking.DemandBook
	observed map[string]int64 // Observed, by resource
	events   events.Log
}

// NewMemory returns an empty in-process record store.
func NewMemory() *Memory {
	return &Memory{recs: map[string]Stored{}, writes: map[string]bool{}, posted: map[string]bool{}, postings: map[string][]ledger.Posting{},
		byBook: map[string][]ledger.Posting{}, byRes: map[string][]ledger.Posting{},
		refused: map[string][]booking.RefusalRecord{}, refKeys: map[string]bool{}, claims: ClaimsByAccount{}, fences: Fences{},
		changes: map[string]*ChangeLog{}, keep: ChangesKept, demand: booking.DemandBook{}, observed: map[string]int64{}}
}

var _ Port = (*Memory)(nil)

// Apply implements Port.
func (m *Memory) Apply(ctx context.Context, w Write) error {
	if err := Check(w); err != nil {
		return err
	}
	evs, err := EventsOf(w)
	if err != nil {
		return slotfare.E(slotfare.Op("records.Apply"), slotfare.Other, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.writes[w.WriteID] {
		return nil
	}
	if err := m.fences.Check(w); err != nil {
		return err
	}
	for _, c := range w.Changes {
		if have := m.recs[c.Record.Booking.ID].Version; have != c.Replaces {
			return ErrMoved(c.Record.Booking.ID, c.Replaces, have)
		}
	}
	for _, p := range w.Postings {
		if m.posted[p.ID] {
			return ErrPosted(p.ID)
		}
	}
	for _, c := range w.Changes {
		m.recs[c.Record.Booking.ID] = Stored{Record: c.Record, Version: c.Replaces + 1}
		m.changeLog(w.Resource).Add(c.Record.Booking.ID, m.keep)
	}
	for _, p := range w.Postings {
		m.posted[p.ID] = true
		m.postings[p.Customer] = append(m.postings[p.Customer], p)
		m.byRes[p.Resource] = append(m.byRes[p.Resource], p)
		if p.BookingID != "" {
			m.byBook[p.BookingID] = append(m.byBook[p.BookingID], p)
		}
	}
	m.events.Add(evs)
	m.fences.Keep(w)
	m.writes[w.WriteID] = true
	return nil
}

// ReadEvents implements events.Reader: the log is one sequence.
func (m *Memory) ReadEvents(ctx context.Context, streams []string, after events.Cursor, limit int) ([]events.Logged, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.events.Read(after, limit), nil
}

// AppendEvents implements events.Appender.
func (m *Memory) AppendEvents(ctx context.Context, stream string, evs []events.Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events.Add(evs)
	return nil
}

// KeepEvents implements events.Keeper.
func (m *Memory) KeepEvents(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events.Keep(n)
}

// Get implements Port.
func (m *Memory) Get(ctx context.Context, id string) (Stored, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.recs[id]
	return s, ok, nil
}

// Booking implements Port.
func (m *Memory) Booking(ctx context.Context, id string) (Stored, []ledger.Posting, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.recs[id]
	if !ok {
		return Stored{}, nil, false, nil
	}
	return s, append([]ledger.Posting(nil), m.byBook[id]...), true, nil
}

// OfAccount implements Port.
func (m *Memory) OfAccount(ctx context.Context, account, after string, limit int) ([]Stored, string, error) {
	return m.page("records.OfAccount", after, limit, func(b booking.Booking) bool { return b.AccountID == account })
}

// History implements Port.
func (m *Memory) History(ctx context.Context, resource, after string, limit int) ([]Stored, string, error) {
	return m.page("records.History", after, limit, func(b booking.Booking) bool { return b.ResourceID == resource })
}

// page is a keyset page, in ListKey order after after, of the bookings
// that match: what OfAccount and History read, by account or resource.
func (m *Memory) page(op slotfare.Op, after string, limit int, match func(booking.Booking) bool) ([]Stored, string, error) {
	if limit < 1 {
		return nil, "", slotfare.Errorf(op, "limit", "must be positive, got %d", limit)
	}
	// Keys and ids are sorted, not the records: a page of a long history
	// sorts what is after the page's start.
	type keyed struct{ key, id string }
	m.mu.Lock()
	defer m.mu.Unlock()
	var all []keyed
	for id, s := range m.recs {
		if !match(s.Record.Booking) {
			continue
		}
		if k := ListKey(s.Record); k > after {
			all = append(all, keyed{k, id})
		}
	}
	slices.SortFunc(all, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	next := ""
	if len(all) > limit {
		all = all[:limit]
		next = all[limit-1].key
	}
	page := make([]Stored, len(all))
	for i, k := range all {
		page[i] = m.recs[k.id]
	}
	return page, next, nil
}

// Due implements Port: the live set, filtered.
func (m *Memory) Due(ctx context.Context, resource string, until time.Time) ([]*Stored, error) {
	live, err := m.Live(ctx, resource)
	return DueOf(live, until), err
}

// DueOf are the records of live whose DueAt is at or before until, in
// their order.
func DueOf(live []*Stored, until time.Time) []*Stored {
	var out []*Stored
	for _, st := range live {
		if at, ok := DueAt(st.Record); ok && !at.After(until) {
			out = append(out, st)
		}
	}
	return out
}

// Running implements Port.
func (m *Memory) Running(ctx context.Context, resource string, at time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, s := range m.recs {
		if b := s.Record.Booking; b.ResourceID == resource && b.Status == booking.Active && b.End.After(at) {
			n += b.Nodes
		}
	}
	return n, nil
}

// RepairIndex implements Port: Apply indexes a write whole, so there is
// nothing to repair.
func (m *Memory) RepairIndex(ctx context.Context, resource string) (int, error) { return 0, nil }

// Live implements Port.
func (m *Memory) Live(ctx context.Context, resource string) ([]*Stored, error) {
	m.mu.Lock()
	var out []*Stored
	for _, s := range m.recs {
		if b := s.Record.Booking; b.ResourceID == resource && b.Status.Holding() {
			out = append(out, &s)
		}
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Record.Booking.ID < out[j].Record.Booking.ID })
	return out, nil
}

// Postings implements Port.
func (m *Memory) Postings(ctx context.Context, account string) ([]ledger.Posting, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]ledger.Posting(nil), m.postings[account]...), nil
}

// ResourcePostings implements Port.
func (m *Memory) ResourcePostings(ctx context.Context, resource string) ([]ledger.Posting, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]ledger.Posting(nil), m.byRes[resource]...), nil
}

// Refused implements Port.
func (m *Memory) Refused(ctx context.Context, resource string, rs []booking.RefusalRecord, noWait bool) (int64, error) {
	if err := CheckRefusals(resource, rs); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	stored := false
	for _, f := range rs {
		k := resource + "\x00" + RefusalKey(f)
		if !m.refKeys[k] {
			m.refKeys[k] = true
			m.refused[resource] = append(m.refused[resource], f)
			stored = true
		}
	}
	if stored {
		m.observed[resource]++
	}
	return m.observed[resource], nil
}

// Observed implements Port.
func (m *Memory) Observed(ctx context.Context, resource string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.observed[resource], nil
}

// Refusals implements Port.
func (m *Memory) Refusals(ctx context.Context, resource string) ([]booking.RefusalRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return SortRefusals(append([]booking.RefusalRecord(nil), m.refused[resource]...)), nil
}

// SortRefusals puts refusals oldest first (by when they were seen, then by
// key), the order booking control replays them in.
func SortRefusals(rs []booking.RefusalRecord) []booking.RefusalRecord {
	sort.SliceStable(rs, func(i, j int) bool {
		if !rs[i].At.Equal(rs[j].At) {
			return rs[i].At.Before(rs[j].At)
		}
		return RefusalKey(rs[i]) < RefusalKey(rs[j])
	})
	return rs
}

// changeLog is resource's change log. The caller holds m.mu.
func (m *Memory) changeLog(resource string) *ChangeLog {
	l := m.changes[resource]
	if l == nil {
		l = &ChangeLog{}
		m.changes[resource] = l
	}
	return l
}

// ChangeCursor implements Changes.
func (m *Memory) ChangeCursor(ctx context.Context, resource string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changeLog(resource).Cursor(), nil
}

// Changes implements Changes.
func (m *Memory) Changes(ctx context.Context, resource string, after int64, limit int) (ChangePage, error) {
	if err := CheckChanges(resource, after, limit); err != nil {
		return ChangePage{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	ids, next, more, lost := m.changeLog(resource).Page(after, limit)
	page := ChangePage{Bookings: make([]Stored, len(ids)), Next: next, More: more, Lost: lost}
	for i, id := range ids {
		page.Bookings[i] = m.recs[id]
	}
	return page, nil
}

// KeepChanges implements Changes.
func (m *Memory) KeepChanges(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keep = n
}
