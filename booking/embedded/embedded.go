package embedded

import (
	"context"
	"slices"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/apikey"
	"slotfare/booking/inventory"
	"slotfare/calendar"
)

// Options tune the ports; the zero value keeps what the service keeps today.
type Options struct {
	// KeyTTL is how long an idempotency key rebuilt from a stored booking
	// answers Done, counted from the booking's creation. Zero keeps it for
	// good, as the service has always done: a client may retry a POST long
	// after its first answer and must still get the booking it made.
	KeyTTL time.Duration
	// WriteIDTTL is how long Records remembers an applied WriteID, so that
	// the same write sent again answers nil; zero is DefaultWriteIDTTL. A
	// retry comes from this process, within a request's life.
	WriteIDTTL time.Duration
	// MaxWriteIDs caps how many applied WriteIDs are remembered, whatever
	// the write rate; zero is DefaultMaxWriteIDs. A retry of a write
	// forgotten is checked again and answers a Conflict, never applied
	// twice.
	MaxWriteIDs int
	// Now is the clock WriteIDs age by; nil is time.Now. Tests set it.
	Now func() time.Time
	// NewCalendar makes the calendars of the inventory's groups; nil is
	// calendar.New (the tree). The simulator compares others.
	NewCalendar func(capacity int) (calendar.Calendar, error)
}

// DefaultWriteIDTTL and DefaultMaxWriteIDs bound the applied WriteIDs
// Records keeps. Ten minutes is far past any retry of the service's (a
// request's life); 65,536 ids cost about 8 MB (122 bytes each, measured
// with ids shaped as the service's), and at 100 writes a second still
// cover the ten minutes.
const (
	DefaultWriteIDTTL  = 10 * time.Minute
	DefaultMaxWriteIDs = 1 << 16
)

// Ports are the embedded implementations of the booking ports on one
// store, built from one Load of it.
type Ports struct {
	// Inventory is laid out from Records: a resource ensured holds its
	// live bookings. Records' guarded steps change both at once.
	Inventory *Inventory
	Records   *Records
	Idem      *Idem
	Catalog   *Catalog
	Lease     *Lease
	// APIKeys are the keys made over the API, each change one Write of
	// the store (booking.Batch.Keys).
	APIKeys *apikey.Memory
}

// Open loads store once and builds every port's memory from it. It returns
// the loaded State as well, so that the caller need not read the store a
// second time for what no port keeps (refusals, API keys) or replays
// elsewhere (the postings, in store order, for the ledger); the slices are
// the caller's, and the ports keep none of them. The ports write through
// store but never close it: its owner does.
func Open(ctx context.Context, store booking.Store, o Options) (*Ports, booking.State, error) {
	const op slotfare.Op = "embedded.Open"
	if store == nil {
		return nil, booking.State{}, slotfare.E(op, slotfare.Invalid, slotfare.Field("store"), "a store is required")
	}
	if o.KeyTTL < 0 {
		return nil, booking.State{}, slotfare.Errorf(op, "key_ttl", "must not be negative, got %s", o.KeyTTL)
	}
	if o.WriteIDTTL < 0 || o.MaxWriteIDs < 0 {
		return nil, booking.State{}, slotfare.Errorf(op, "write_id_ttl", "the window of WriteIDs must not be negative, got %s and %d", o.WriteIDTTL, o.MaxWriteIDs)
	}
	if o.WriteIDTTL == 0 {
		o.WriteIDTTL = DefaultWriteIDTTL
	}
	if o.MaxWriteIDs == 0 {
		o.MaxWriteIDs = DefaultMaxWriteIDs
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	st, err := store.Load(ctx)
	if err != nil {
		return nil, booking.State{}, slotfare.E(op, err)
	}
	keys := newIdem(o.KeyTTL)
	recs := newRecords(store, keys, newRecentWrites(o.WriteIDTTL, o.MaxWriteIDs, o.Now))
	recs.inv = inventory.NewMemoryOn(o.NewCalendar)
	// Oldest first, so that of two bookings made with one key (reused
	// after its ttl), the later one's answer is what the key keeps.
	books := slices.Clone(st.Bookings)
	slices.SortStableFunc(books, func(a, b booking.Record) int { return a.Booking.CreatedAt.Compare(b.Booking.CreatedAt) })
	recs.load(books, st.Postings, st.Refusals, st.Demand)
	cat, err := newCatalog(store, st.Resources, st.Secret)
	if err != nil {
		return nil, booking.State{}, slotfare.E(op, err)
	}
	apiKeys, err := apikey.NewStored(st.Keys, func(ctx context.Context, k booking.KeyRecord) error {
		if err := store.Write(ctx, booking.Batch{Keys: []booking.KeyRecord{k}}); err != nil {
			return slotfare.E(slotfare.Op("embedded.Open"), slotfare.Unavailable, err)
		}
		return nil
	})
	if err != nil {
		return nil, booking.State{}, slotfare.E(op, err)
	}
	return &Ports{Inventory: &Inventory{Memory: recs.inv, recs: recs}, Records: recs, Idem: keys, Catalog: cat, Lease: NewLease(), APIKeys: apiKeys}, st, nil
}
