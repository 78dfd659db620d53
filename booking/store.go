package booking

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"slotfare/ledger"
)

// Record is a booking as the store keeps it: the API view plus what the
// service needs to rebuild its indexes on start (the idempotency key and
// fingerprint of the POST that created it, and how many nested class groups
// it occupies on its resource's calendars).
type Record struct {
	Booking     Booking `json:"booking"`
	Account     string  `json:"idem_account,omitempty"`
	IdemKey     string  `json:"idem_key,omitempty"`
	Fingerprint string  `json:"idem_fingerprint,omitempty"`
	Groups      int     `json:"groups"`
	// HoldExpires is when the hold was to expire, kept after the commit
	// clears Booking.HoldExpiresAt; Orig holds the terms first booked once a
	// modification changed them. With them the first answer to the POST
	// that created the booking can be replayed exactly (First).
	HoldExpires *time.Time `json:"hold_expires,omitempty"`
	Orig        *Terms     `json:"orig,omitempty"`
}

// Terms are what a modification may change.
type Terms struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Nodes int       `json:"nodes"`
	Price Price     `json:"price"`
}

// First is the booking as the POST that created it answered: held, with
// its first terms.
func (r Record) First() Booking {
	b := r.Booking
	first := Booking{ID: b.ID, AccountID: b.AccountID, Status: Held, HoldExpiresAt: r.HoldExpires, ResourceID: b.ResourceID,
		Start: b.Start, End: b.End, Nodes: b.Nodes, FareClass: b.FareClass, Price: b.Price, Terms: b.Terms, CreatedAt: b.CreatedAt, UpdatedAt: b.CreatedAt}
	if r.Orig != nil {
		first.Start, first.End, first.Nodes, first.Price = r.Orig.Start, r.Orig.End, r.Orig.Nodes, r.Orig.Price
	}
	return first
}

// ResourceRecord is a resource as the providers last configured it through
// the API (it overrides the configuration file's resource of the same id).
// Config is the resource's configuration object as booking/config writes
// it, opaque here: stores keep it and give it back byte for byte, and only
// the configuration package reads it, so that a store does not depend on
// pricing. ID is its "id", the key a store replaces the record by (not
// stored apart: UnmarshalJSON reads it from Config). Queue is the last
// queue snapshot PUT, as received (nil = none).
//
// RetiredAt is set once DELETE /v1/resources/{id} retired it: the record
// is kept, so its bookings still name a known resource after a restart,
// and a resource of the configuration file stays retired.
type ResourceRecord struct {
	ID        string          `json:"-"`
	Config    json.RawMessage `json:"config"`
	Queue     []byte          `json:"queue,omitempty"`
	RetiredAt *time.Time      `json:"retired_at,omitempty"`
}

// UnmarshalJSON reads a stored record and takes its ID from the
// configuration's "id".
func (r *ResourceRecord) UnmarshalJSON(data []byte) error {
	type plain ResourceRecord
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	var id struct {
		ID string `json:"id"`
	}
	if len(p.Config) > 0 {
		if err := json.Unmarshal(p.Config, &id); err != nil {
			return fmt.Errorf("booking.ResourceRecord: config: %w", err)
		}
	}
	*r = ResourceRecord(p)
	r.ID = id.ID
	return nil
}

// RefusalRecord is one refusal booking control saw (EventRefused): fare
// class Class of resource Resource was closed over [Start, End), at At. Its
// demand there is censored (seed 004 Sec. 7.3), which changes the forecast
// and so the limits; stored, a restart or another replica replays it as
// the running service saw it. Only refusals that closed something not
// closed before are stored, so there is at most one per period instance
// and class.
type RefusalRecord struct {
	Resource string    `json:"resource"`
	Class    string    `json:"class"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	At       time.Time `json:"at"`
}

// Batch is what one service step writes: it is stored whole or not at all,
// durably, before the step is acknowledged. Bookings replace the stored
// record of the same id; Postings and Refusals are appended in order after
// every posting (refusal) of earlier batches; Resources replace the stored
// record of the same id; a non-nil Secret replaces the offer-signing secret.
type Batch struct {
	Bookings  []Record
	Postings  []ledger.Posting
	Resources []ResourceRecord
	Refusals  []RefusalRecord
	// Keys replace the stored record of the same name (key.go).
	Keys []KeyRecord
	// Demand are added to the stored demand records of the same key, and
	// each forgets its resource's instances before its Forget
	// (DemandBook.Count), in order.
	Demand []DemandWrite
	Secret []byte
	// Events are the event log's entries the batch records (CloudEvents
	// JSON, booking/events), appended in order after every event of
	// earlier batches by a store that keeps the log (events.Reader).
	Events [][]byte
	// NoWait asks Write to return once the batch is queued, before it is
	// durable: it is stored in order with the writes queued after it, so it
	// is durable at the latest when any later Write returns. The service
	// uses it for new holds, which carry no money and expire anyway: a crash
	// may lose an acknowledged hold, never a commit (the commit's batch holds
	// the whole booking record).
	NoWait bool
}

// State is everything a store holds, as loaded on start: the latest record
// of every booking (any order), every posting in the order it was appended,
// every configured resource, every refusal in the order it was appended,
// the latest record of every API key by name (revoked ones included), the
// demand records (any order), and the offer secret (nil if none yet).
type State struct {
	Bookings  []Record
	Postings  []ledger.Posting
	Resources []ResourceRecord
	Refusals  []RefusalRecord
	Keys      []KeyRecord
	Demand    []DemandRecord
	Secret    []byte
}

// Store is where the service's state outlives the process. The service keeps
// everything in memory and writes through; the store decides nothing.
// Contract:
//   - Write is atomic and durable: when it returns nil the whole batch
//     survives a crash (kill -9, power loss once the disk has acknowledged);
//     when it fails or the process dies during it, none of it is ever loaded.
//     Concurrent Writes may share one sync (group commit). Batches are
//     stored in the order their Writes were called by one goroutine; a
//     NoWait batch is durable once any Write called after it returns.
//   - Load returns the State as of the last acknowledged Write.
//   - It is safe for concurrent use.
type Store interface {
	Load(ctx context.Context) (State, error)
	Write(ctx context.Context, b Batch) error
	Close() error
}
