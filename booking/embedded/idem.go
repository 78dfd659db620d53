package embedded

import (
	"context"
	"sync"
	"time"

	"slotfare"
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
// Pending claims are in memory only: a crash before the hold is stored
// loses a claim whose request was never answered, and the retry claims the
// key afresh. A key finished with a result that no stored record carries
// (none of the service's) is forgotten by a restart.
//
// Keys whose ttl has ended (done keys, and pending claims whose claimer
// died) are dropped by a sweep, so the table stays bounded under churn by
// about twice the keys alive at once (see sweep). A dropped key is one
// Claim treats as free anyway; Finish of it answers a Conflict, as Redis,
// which expires keys itself, does. Keys rebuilt from stored bookings with
// a zero KeyTTL never end: they are as many as the bookings Records holds.
type Idem struct {
	ttl  time.Duration
	mu   sync.Mutex
	keys map[[2]string]idemKey
	// swept is how many keys the last sweep left.
	swept int
}

// minSweep is the table size below which no sweep is made: a small table
// costs little, and a sweep of it would run too often.
const minSweep = 1024

// sweep drops the keys whose ttl has ended at now, once the table has
// grown to twice what the last sweep left (and to minSweep): each sweep
// then visits at most twice the keys added since the one before, so a
// Claim pays O(1) for it on average, and the table never holds more than
// max(minSweep, twice the keys alive at the last sweep). The caller holds
// mu.
func (m *Idem) sweep(now time.Time) {
	if len(m.keys) < max(minSweep, 2*m.swept) {
		return
	}
	for k, v := range m.keys {
		if v.expired(now) {
			delete(m.keys, k)
		}
	}
	m.swept = len(m.keys)
}

// idemKey is one key's state; a zero expires never expires.
type idemKey struct {
	fingerprint, result string
	done                bool
	expires             time.Time
}

func (k idemKey) expired(now time.Time) bool { return !k.expires.IsZero() && !now.Before(k.expires) }

var _ idem.Port = (*Idem)(nil)

func newIdem(ttl time.Duration) *Idem { return &Idem{ttl: ttl, keys: map[[2]string]idemKey{}} }

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
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{r.Account, r.IdemKey}
	cur, ok := m.keys[k]
	switch {
	case !ok || loading:
	case cur.fingerprint != r.Fingerprint || (cur.done && cur.result != r.Booking.ID):
		return
	case cur.expires.IsZero() || exp.IsZero():
		exp = time.Time{}
	case cur.expires.After(exp):
		exp = cur.expires
	}
	m.keys[k] = idemKey{fingerprint: r.Fingerprint, result: r.Booking.ID, done: true, expires: exp}
}

// Claim implements idem.Port.
func (m *Idem) Claim(ctx context.Context, account, key, fingerprint string, ttl time.Duration, now time.Time) (idem.Claim, error) {
	if err := idem.Check("idem.Claim", account, key, ttl); err != nil {
		return idem.Claim{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	k := [2]string{account, key}
	cur, ok := m.keys[k]
	switch {
	case !ok || cur.expired(now):
		m.keys[k] = idemKey{fingerprint: fingerprint, expires: now.Add(ttl)}
		return idem.Claim{State: idem.Claimed}, nil
	case cur.fingerprint != fingerprint:
		return idem.Claim{State: idem.Mismatch}, nil
	case cur.done:
		return idem.Claim{State: idem.Done, Result: cur.result}, nil
	}
	return idem.Claim{State: idem.Pending}, nil
}

// Finish implements idem.Port. A key its booking's Apply marked Done
// already finishes again with the same result (a retry).
func (m *Idem) Finish(ctx context.Context, account, key, fingerprint, result string, ttl time.Duration, now time.Time) error {
	const op = "idem.Finish"
	if err := idem.Check(op, account, key, ttl); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	k := [2]string{account, key}
	cur, ok := m.keys[k]
	if !ok || cur.fingerprint != fingerprint || (cur.done && cur.result != result) {
		return slotfare.E(op, slotfare.Conflict, slotfare.Field("Idempotency-Key"), "the key is not this request's claim")
	}
	m.keys[k] = idemKey{fingerprint: fingerprint, result: result, done: true, expires: now.Add(ttl)}
	return nil
}

// Abandon implements idem.Port: a pending claim with fingerprint is freed;
// a done key stays.
func (m *Idem) Abandon(ctx context.Context, account, key, fingerprint string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{account, key}
	if cur, ok := m.keys[k]; ok && cur.fingerprint == fingerprint && !cur.done {
		delete(m.keys, k)
	}
	return nil
}
