package calendar

import (
	"slotfare"
)

// Reservation is nodes held over the half-open interval [Start, End). Times
// are int64 in the caller's unit (the service uses Unix seconds, the bench
// trace seconds).
type Reservation struct {
	ID         string
	Start, End int64
	Nodes      int
}

// Step is one piece of a free-capacity step function: Free nodes are free at
// every instant of [Start, End).
type Step struct {
	Start, End int64
	Free       int
}

// Calendar is one resource's node capacity over time: the capacity step
// function (SetCapacity) minus the reservations it holds. A reservation fits
// when, at every instant of its interval, the nodes already reserved plus its
// own nodes stay within the capacity at that instant. Not safe for concurrent
// use: callers lock.
type Calendar interface {
	// Fits reports whether nodes more nodes can be reserved over
	// [start, end). The error is only for bad input (kind Invalid).
	Fits(start, end int64, nodes int) (bool, error)
	// Add stores r. Invalid for bad input, Conflict for a duplicate id,
	// NoCapacity when it does not fit. Nothing changes on error.
	Add(r Reservation) error
	// Delete removes the reservation with this id and returns it; NotFound
	// for an unknown id.
	Delete(id string) (Reservation, error)
	// Replace puts r in place of the reservation id (r.ID may be id) in one
	// step, so that a change of a held reservation can never lose it: r is
	// stored when it fits wherever it holds more nodes than the old one did
	// (the old one's nodes count as given back there); where r holds as
	// many or fewer, it always fits, even under a capacity lowered below
	// what is reserved. Otherwise nothing changes: NoCapacity, the old
	// reservation stays exactly as it was. Invalid for bad input, NotFound
	// for an unknown id, Conflict when r.ID is another reservation's.
	Replace(id string, r Reservation) error
	// Get returns the reservation with this id.
	Get(id string) (Reservation, bool)
	// Len is the number of reservations held.
	Len() int
	// NextFree returns the earliest t in [from, limit] such that
	// [t, t+duration) fits nodes; ok is false when there is none.
	NextFree(from, limit, duration int64, nodes int) (t int64, ok bool, err error)
	// Profile returns the free capacity over [from, to) as steps in time
	// order, adjacent equal steps merged. Free never goes below zero (a
	// period whose reservations exceed a lowered capacity shows 0).
	Profile(from, to int64) ([]Step, error)
	// SetCapacity sets the capacity over [from, to) to nodes (maintenance,
	// nodes added or removed, a limit that varies by period). Reservations
	// are never lost: where they exceed the new capacity they stay, and
	// Fits answers false for anything that overlaps the excess.
	SetCapacity(from, to int64, nodes int) error
	// Capacity returns the capacity at instant at.
	Capacity(at int64) int
	// MaxCapacity is the largest capacity anywhere in time; no request for
	// more nodes can ever fit, so such requests are Invalid.
	MaxCapacity() int
}

// ProfileReuser is a calendar that writes its Profile into storage the
// caller keeps from one read to the next (an offer query reads a profile
// per group, and allocating each was a share of a simulated run).
type ProfileReuser interface {
	// ProfileInto is Profile(from, to) in buf's storage (buf[:0], grown
	// when it has not the room): the steps buf held are overwritten.
	ProfileInto(buf []Step, from, to int64) ([]Step, error)
}

// MinTime and MaxTime bound every time a calendar accepts. They leave room
// for sums such as t+duration without overflow.
const (
	MinTime int64 = -1 << 62
	MaxTime int64 = 1 << 62
)

// New returns the default calendar (the tree) with a constant capacity.
func New(capacity int) (Calendar, error) {
	t, err := NewTree(capacity)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Field names used in Invalid errors.
const (
	fieldStart    = "start"
	fieldEnd      = "end"
	fieldNodes    = "nodes"
	fieldID       = "id"
	fieldCapacity = "capacity"
	fieldDuration = "duration"
)

func checkCapacity(op slotfare.Op, capacity int) error {
	if capacity < 1 {
		return slotfare.Errorf(op, fieldCapacity, "capacity must be at least 1 node, got %d", capacity)
	}
	if capacity > maxNodes {
		return slotfare.Errorf(op, fieldCapacity, "capacity must be at most %d nodes, got %d", maxNodes, capacity)
	}
	return nil
}

// maxNodes bounds capacities so that sums of reserved nodes cannot overflow.
const maxNodes = 1 << 30

// checkSpan validates a half-open interval [start, end).
func checkSpan(op slotfare.Op, start, end int64) error {
	if start < MinTime || start > MaxTime {
		return slotfare.Errorf(op, fieldStart, "start %d is outside [%d, %d]", start, MinTime, MaxTime)
	}
	if end < MinTime || end > MaxTime {
		return slotfare.Errorf(op, fieldEnd, "end %d is outside [%d, %d]", end, MinTime, MaxTime)
	}
	if end <= start {
		return slotfare.Errorf(op, fieldEnd, "end %d must be after start %d", end, start)
	}
	return nil
}

// checkNodes validates a node count against the largest capacity.
func checkNodes(op slotfare.Op, nodes, maxCap int) error {
	if nodes < 1 {
		return slotfare.Errorf(op, fieldNodes, "nodes must be at least 1, got %d", nodes)
	}
	if nodes > maxCap {
		return slotfare.Errorf(op, fieldNodes, "nodes %d exceed the capacity %d", nodes, maxCap)
	}
	return nil
}

// checkReservation validates r for Add.
func checkReservation(op slotfare.Op, r Reservation, maxCap int) error {
	if r.ID == "" {
		return slotfare.Errorf(op, fieldID, "id must not be empty")
	}
	if err := checkSpan(op, r.Start, r.End); err != nil {
		return err
	}
	return checkNodes(op, r.Nodes, maxCap)
}

// checkSearch validates NextFree's arguments.
func checkSearch(op slotfare.Op, from, limit, duration int64, nodes, maxCap int) error {
	if duration < 1 {
		return slotfare.Errorf(op, fieldDuration, "duration must be positive, got %d", duration)
	}
	if from < MinTime || from > MaxTime {
		return slotfare.Errorf(op, fieldStart, "start %d is outside [%d, %d]", from, MinTime, MaxTime)
	}
	if limit < from {
		return slotfare.Errorf(op, fieldEnd, "search limit %d is before start %d", limit, from)
	}
	if duration > MaxTime || limit > MaxTime-duration {
		return slotfare.Errorf(op, fieldEnd, "search limit %d plus duration %d is after %d", limit, duration, MaxTime)
	}
	return checkNodes(op, nodes, maxCap)
}

func errDuplicate(op slotfare.Op, id string) error {
	return slotfare.E(op, slotfare.Conflict, slotfare.Field(fieldID), "reservation "+id+" already exists")
}

func errNoCapacity(op slotfare.Op) error {
	return slotfare.E(op, slotfare.NoCapacity, "not enough free nodes over the interval")
}

func errNotFound(op slotfare.Op, id string) error {
	return slotfare.E(op, slotfare.NotFound, slotfare.Field(fieldID), "no reservation "+id)
}

func checkSetCapacity(op slotfare.Op, from, to int64, nodes int) error {
	if err := checkSpan(op, from, to); err != nil {
		return err
	}
	if nodes < 0 || nodes > maxNodes {
		return slotfare.Errorf(op, fieldCapacity, "capacity must be in [0, %d], got %d", maxNodes, nodes)
	}
	return nil
}
