package embedded

import (
	"time"

	"slotfare/booking"
	"slotfare/booking/idem"
)

// Idem is idem.Port for the embedded deployment. Keys live in memory; what
// makes a done key durable is the booking it made: the service writes the
// key's account, name and fingerprint into the booking.Record of the hold
// the POST created (Record.Account, IdemKey, Fingerprint), so on Open every
// stored record with a key is a Done key whose Result is the record's
// booking id, and so is every new record Records.Apply stores (Replaces 0),
// as soon as the store acknowledged it: the booking and its key commit
// together. Such a key answers Done for Options.KeyTTL from the booking's
// creation (for good when zero); Finish sets its ttl from then on.
//
// A hold's step (Records.AdmitApply) claims its key here before it admits
// and writes, so that a request with the key meanwhile finds it pending,
// and gives it back if it stores nothing. Pending claims are in memory
// only: a crash before the hold is stored loses a claim whose request was
// never answered, and the retry claims the key afresh. A key finished with a result that no stored record carries
// (none of the service's) is forgotten by a restart.
//
// The table is idem.Memory's, which sweeps keys whose ttl has ended. Keys
// rebuilt from stored bookings with a zero KeyTTL never end: they are as
// many as the bookings Records holds.
type Idem struct {
	*idem.Memory
	ttl time.Duration
}

var _ idem.Port = (*Idem)(nil)

func newIdem(ttl time.Duration) *Idem { return &Idem{Memory: idem.NewMemory(), ttl: ttl} }

// stored records that r, a booking made with an Idempotency-Key, is
// stored: its key is Done with r's booking id. While loading (oldest
// booking first) a later booking's key replaces an earlier one's: the key
// was used again after its ttl. Otherwise a key another request holds now
// (another fingerprint, or done with another booking) is left to it.
func (m *Idem) stored(r booking.Record, loading bool) {
	var exp time.Time
	if m.ttl > 0 {
		exp = r.Booking.CreatedAt.Add(m.ttl)
	}
	m.Recorded(r.Account, r.IdemKey, r.Fingerprint, r.Booking.ID, exp, loading)
}
