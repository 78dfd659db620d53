package service

import (
	"bytes"
	"slices"

	"slotfare/booking"
)

// creationOrder compares two bookings in the order List pages them: by
// created_at, then by id, a total order that is the bookings' own and so the
// same before and after a restart, whatever order the store loads them in.
func creationOrder(a, b *booking.Booking) int {
	if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
		return c
	}
	switch {
	case a.ID < b.ID:
		return -1
	case a.ID > b.ID:
		return 1
	}
	return 0
}

// sortByCreation sorts bookings into creationOrder. An account's bookings
// are kept in about that order already (loaded sorted, appended as made), so
// this is close to a linear pass.
func sortByCreation(bs []*booking.Booking) { slices.SortFunc(bs, creationOrder) }

// cursorBytes joins a cursor's parts with NUL, which no part holds.
func cursorBytes(parts ...string) []byte {
	var b []byte
	for i, p := range parts {
		if i > 0 {
			b = append(b, 0)
		}
		b = append(b, p...)
	}
	return b
}

// cursorParts splits what cursorBytes joined.
func cursorParts(raw []byte) []string {
	var out []string
	for _, p := range bytes.Split(raw, []byte{0}) {
		out = append(out, string(p))
	}
	return out
}
