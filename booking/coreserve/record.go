package coreserve

import (
	"time"

	"slotfare/booking/runs"
)

// Status is where a co-reservation is as a whole. The settled ones
// (committed, cancelled, expired, rejected) never change again.
type Status string

// The co-reservation statuses.
const (
	// Held: every part is a hold (a preliminary reservation, seed 003
	// Sec. 3.1) until the earliest hold_expires_at of its parts.
	Held Status = "held"
	// Committing: a commit of the parts is under way; written before the
	// first part is committed so that Recover can finish or undo it.
	Committing Status = "committing"
	// Committed: every part is committed.
	Committed Status = "committed"
	// Cancelling: a cancel of the parts is under way (Recover finishes it).
	Cancelling Status = "cancelling"
	// Cancelled: every part was cancelled (committed ones with their
	// class's penalty).
	Cancelled Status = "cancelled"
	// Expired: a part's hold lapsed before the commit; the other parts
	// were released (seed 003 Sec. 3.3 step 6c).
	Expired Status = "expired"
	// Rejected: a part could not be committed (its resource refused it at
	// commit) and the parts already committed were unwound, refunded in
	// full.
	Rejected Status = "rejected"
)

// Settled reports whether s is final.
func (s Status) Settled() bool {
	return s == Committed || s == Cancelled || s == Expired || s == Rejected
}

// Record is a co-reservation as the broker stores it: whose it is, where it
// is in the protocol, and the booking of each part (by index, the order of
// the request's parts). The bookings themselves stay the service's; the
// record only names them. Version is the record's version on its Store
// (1 once created); a write names the version it was decided on.
type Record struct {
	ID        string    `json:"co_reservation_id"`
	AccountID string    `json:"account_id"`
	VO        string    `json:"vo,omitempty"`
	Status    Status    `json:"status"`
	Policy    string    `json:"policy"`
	Alpha     float64   `json:"alpha"`
	FareClass string    `json:"fare_class,omitempty"`
	Parts     []PartRef `json:"parts"`
	Attempts  int       `json:"attempts"`
	Failed    *Failure  `json:"failure,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Fingerprint is the request's, when it was made with an
	// Idempotency-Key (ReserveOnce): a retry with the key and another
	// request is refused.
	Fingerprint string `json:"fingerprint,omitempty"`
	// DueAt is when the record is next to be looked at by a tick while it
	// is unsettled: the first moment a part's hold can lapse while held, the
	// moment a commit or cancel under way is presumed abandoned while
	// committing or cancelling. The store files the record under it (its
	// due index), so that a tick reads what is due, not all that is held.
	// Zero on a settled record; an unsettled one without it (written before
	// records had it) is due at once.
	DueAt   time.Time `json:"due_at,omitzero"`
	Version int64     `json:"-"`
}

// PartRef is one part of a stored co-reservation: its booking, and for a
// part by profile the prediction its duration came from.
type PartRef struct {
	BookingID  string           `json:"booking_id"`
	ResourceID string           `json:"resource_id"`
	Prediction *runs.Prediction `json:"prediction,omitempty"`
}

// Failure says why a co-reservation was expired or rejected: the part at
// fault and what happened to it.
type Failure struct {
	Part   int    `json:"part"`
	Reason string `json:"reason"`
}
