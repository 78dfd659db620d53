package booking

import (
	"fmt"

	"slotfare"
)

// Status is where a booking is in its life cycle (seed 004 Sec. 3.3.1, the
// reservation states; seed 003 Sec. 3 for holds that time out). The wire
// form is API.md's status string.
type Status string

// The statuses of API.md.
const (
	// Held: capacity is set aside until HoldExpiresAt; nothing is charged.
	Held Status = "held"
	// Committed: the user confirmed; the charge is posted.
	Committed Status = "committed"
	// Active: the start came and the user had checked in (a show).
	Active Status = "active"
	// Completed: an active booking reached its end.
	Completed Status = "completed"
	// Cancelled: given up by the user, before its start (penalty kept on a
	// committed booking, the rest refunded).
	Cancelled Status = "cancelled"
	// Expired: a hold that was not committed in time.
	Expired Status = "expired"
	// Rejected: a hold that can no longer be admitted (its capacity went
	// away, for example a resource shrank) and so was never committed.
	Rejected Status = "rejected"
	// NoShow: committed but not checked in by start + grace; penalty kept.
	NoShow Status = "no_show"
	// Denied: bumped at its start because more showed than fit; refunded
	// and compensated (seed 004 Sec. 7.6.3).
	Denied Status = "denied"
	// Terminated: an active booking stopped before its end by the provider.
	Terminated Status = "terminated"
)

// Statuses lists every status in life-cycle order.
var Statuses = []Status{Held, Committed, Active, Completed, Cancelled, Expired, Rejected, NoShow, Denied, Terminated}

// transitions is the state machine: from each status, the statuses it may
// move to. A modification keeps a committed booking committed (re-priced)
// and is not a transition.
var transitions = map[Status][]Status{
	Held:      {Committed, Expired, Cancelled, Rejected},
	Committed: {Active, Cancelled, NoShow, Denied},
	Active:    {Completed, Terminated},
}

// Valid reports whether s is one of API.md's statuses.
func (s Status) Valid() bool {
	for _, v := range Statuses {
		if s == v {
			return true
		}
	}
	return false
}

// Final reports whether no transition leaves s.
func (s Status) Final() bool { return s.Valid() && len(transitions[s]) == 0 }

// Holding reports whether a booking in status s occupies capacity on its
// resource's calendar: holds (until they expire), commitments and running
// bookings do; every other status has given its nodes back.
func (s Status) Holding() bool { return s == Held || s == Committed || s == Active }

// CanTransition reports whether the state machine allows from -> to.
func CanTransition(from, to Status) bool {
	for _, v := range transitions[from] {
		if v == to {
			return true
		}
	}
	return false
}

// ParseStatus reads a status filter (the status query parameter); the empty
// string is the empty status (no filter).
func ParseStatus(s string) (Status, error) {
	st := Status(s)
	if s == "" || st.Valid() {
		return st, nil
	}
	return "", slotfare.Errorf("booking.ParseStatus", "status", "unknown status %q (want one of %v)", s, Statuses)
}

// CheckTransition returns a Conflict (under op) naming both statuses when
// the state machine does not allow from -> to.
func CheckTransition(op slotfare.Op, from, to Status) error {
	if CanTransition(from, to) {
		return nil
	}
	return slotfare.E(op, slotfare.Conflict, fmt.Sprintf("a %s booking cannot become %s", from, to))
}
