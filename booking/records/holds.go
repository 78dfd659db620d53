package records

import (
	"context"
	"sort"
	"strings"
	"time"

	"slotfare"
	"slotfare/booking"
)

// HoldClaim is a new hold's claim on what its account may hold on its
// resource at once (the resource's hold_limits): how many holds, and how
// many node-seconds.
type HoldClaim struct {
	Resource  string
	Account   string
	BookingID string
	// Expires is the hold's expiry: the claim counts until then, or until
	// its booking is stored as something other than held.
	Expires        time.Time
	NodeSeconds    int64
	MaxHolds       int
	MaxNodeSeconds int64
	Now            time.Time
}

// Held is one hold counted against an account's hold limits.
type Held struct {
	BookingID   string
	Expires     time.Time
	NodeSeconds int64
}

// HoldClaims is the part of the port that keeps hold limits where the
// bookings live, so that an account's holds are counted across replicas,
// not per process.
type HoldClaims interface {
	// ClaimHold counts, in one atomic step where the records live, the
	// holds the account has on the resource that still run at Now (claims
	// whose booking is stored held or not stored yet) and adds c's if it
	// keeps within both limits. Otherwise nothing changes: ok is false and
	// counted are the holds that stand in the way (for when to retry).
	// Claiming again an id already claimed (a retry) replaces its claim.
	ClaimHold(ctx context.Context, c HoldClaim) (ok bool, counted []Held, err error)
	// UnclaimHold drops a claim at once: its hold was refused or not
	// stored after it claimed. A claim left behind lapses at its expiry.
	UnclaimHold(ctx context.Context, resource, account, id string) error
}

// NodeSeconds is what a booking counts against the node-seconds limit:
// (end - start) x nodes.
func NodeSeconds(b booking.Booking) int64 {
	return int64(b.Nodes) * int64(b.End.Sub(b.Start)/time.Second)
}

// CheckClaim validates a claim before any store sees it.
func CheckClaim(c HoldClaim) error {
	const op slotfare.Op = "records.ClaimHold"
	switch {
	case c.Resource == "" || strings.ContainsAny(c.Resource, "{}"):
		return slotfare.Errorf(op, "resource", "must be set and free of { and }")
	case c.Account == "" || strings.ContainsAny(c.Account, "{}"):
		return slotfare.Errorf(op, "account_id", "must be set and free of { and }")
	case c.BookingID == "" || strings.ContainsAny(c.BookingID, "{}|"):
		return slotfare.Errorf(op, "booking_id", "must be set and free of {, } and |")
	case !c.Expires.After(c.Now):
		return slotfare.Errorf(op, "hold_expires_at", "the hold expires at %s, not after now (%s)", c.Expires.Format(time.RFC3339), c.Now.Format(time.RFC3339))
	case c.NodeSeconds <= 0 || c.MaxHolds < 1 || c.MaxNodeSeconds < 1:
		return slotfare.Errorf(op, "hold_limits", "node-seconds and both limits must be positive")
	}
	return nil
}

// claims are an account's hold claims on one resource, by booking id, as
// the in-process implementations keep them.
type claims map[string]Held

// claim decides c over cs (an account's claims on c's resource) by the
// rules of ClaimHold: lapsed claims, and those whose booking status says
// it is no longer held, are dropped first. status reports a booking's
// stored status (found false: not stored yet).
func (cs claims) claim(c HoldClaim, status func(id string) (booking.Status, bool)) (bool, []Held) {
	n, used := 0, int64(0)
	for id, h := range cs {
		st, found := status(id)
		if !h.Expires.After(c.Now) || (found && st != booking.Held) {
			delete(cs, id)
			continue
		}
		if id != c.BookingID {
			n++
			used += h.NodeSeconds
		}
	}
	if n+1 <= c.MaxHolds && used+c.NodeSeconds <= c.MaxNodeSeconds {
		cs[c.BookingID] = Held{BookingID: c.BookingID, Expires: c.Expires, NodeSeconds: c.NodeSeconds}
		return true, nil
	}
	// Refused: the claims in the way are listed, which a claim let
	// through (every hold of a flow) need not pay for.
	counted := make([]Held, 0, n)
	for id, h := range cs {
		if id != c.BookingID {
			counted = append(counted, h)
		}
	}
	sort.Slice(counted, func(i, j int) bool { return counted[i].BookingID < counted[j].BookingID })
	return false, counted
}

// ClaimsByAccount are the in-process implementations' claims: by resource
// and account.
type ClaimsByAccount map[[2]string]claims

// Claim is ClaimHold over the claims kept in m.
func (m ClaimsByAccount) Claim(c HoldClaim, status func(id string) (booking.Status, bool)) (bool, []Held) {
	k := [2]string{c.Resource, c.Account}
	cs := m[k]
	if cs == nil {
		cs = claims{}
		m[k] = cs
	}
	ok, counted := cs.claim(c, status)
	if len(cs) == 0 {
		delete(m, k)
	}
	return ok, counted
}

// Unclaim is UnclaimHold over the claims kept in m.
func (m ClaimsByAccount) Unclaim(resource, account, id string) {
	k := [2]string{resource, account}
	delete(m[k], id)
	if len(m[k]) == 0 {
		delete(m, k)
	}
}

// ClaimHold implements HoldClaims.
func (m *Memory) ClaimHold(ctx context.Context, c HoldClaim) (bool, []Held, error) {
	if err := CheckClaim(c); err != nil {
		return false, nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	ok, counted := m.claims.Claim(c, func(id string) (booking.Status, bool) {
		s, found := m.recs[id]
		return s.Record.Booking.Status, found
	})
	return ok, counted, nil
}

// UnclaimHold implements HoldClaims.
func (m *Memory) UnclaimHold(ctx context.Context, resource, account, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.claims.Unclaim(resource, account, id)
	return nil
}
