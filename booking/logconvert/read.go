// Package logconvert moves a data directory written by the append-only log
// store (slotfare.log), which slotfare no longer serves from, into the bbolt
// store (booking/boltstore), once. It reads the log's format and writes
// nothing in it: the log is renamed, not changed, so a conversion loses
// nothing even if it is wrong.
//
// The log's format: every batch the service wrote is one line of
// internal/recordlog (a CRC-32C checksum, a space, the batch's JSON), or a
// bare JSON line in logs written before checksums. A later record of a
// booking, resource or key replaces the earlier one; postings and refusals
// are appended in order; a later secret replaces the earlier one.
package logconvert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"slotfare/booking"
	"slotfare/ledger"
	"slotfare/ledger/recordlog"
)

// FileName is the log the log store kept in its data directory.
const FileName = "slotfare.log"

// line is one batch of the log.
type line struct {
	Bookings  []booking.Record         `json:"b,omitempty"`
	Postings  []json.RawMessage        `json:"p,omitempty"`
	Resources []booking.ResourceRecord `json:"r,omitempty"`
	Refusals  []booking.RefusalRecord  `json:"f,omitempty"`
	Keys      []booking.KeyRecord      `json:"k,omitempty"`
	Secret    []byte                   `json:"s,omitempty"`
}

// Read reads the log at path into the state the log store loaded from it. A
// torn tail (a last write a crash cut short, never acknowledged) is left
// out and shown in the report, as the log store cut it off on open. Damage
// is an error with the *recordlog.Damage in its chain: the records after it
// were acknowledged, so nothing is read rather than a part.
func Read(path string) (booking.State, recordlog.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return booking.State{}, recordlog.Report{}, err
	}
	var st booking.State
	books, res := map[string]int{}, map[string]int{}
	rep, err := recordlog.Scan(path, bytes.NewReader(data), func(p []byte) error {
		return apply(p, &st, books, res)
	})
	if err != nil {
		return booking.State{}, rep, err
	}
	if rep.Damage != nil {
		return booking.State{}, rep, rep.Damage
	}
	return st, rep, nil
}

// apply decodes one batch and applies it to st (books and res index st's
// bookings and resources by id). Every record is decoded before any is
// applied, so a batch that fails leaves st as it was.
func apply(payload []byte, st *booking.State, books, res map[string]int) error {
	var l line
	if err := json.Unmarshal(payload, &l); err != nil {
		return err
	}
	posts := make([]ledger.Posting, 0, len(l.Postings))
	for _, raw := range l.Postings {
		p, err := ledger.DecodePosting(raw)
		if err != nil {
			return fmt.Errorf("posting: %w", err)
		}
		posts = append(posts, p)
	}
	for _, r := range l.Bookings {
		if j, ok := books[r.Booking.ID]; ok {
			st.Bookings[j] = r
		} else {
			books[r.Booking.ID] = len(st.Bookings)
			st.Bookings = append(st.Bookings, r)
		}
	}
	st.Postings = append(st.Postings, posts...)
	for _, r := range l.Resources {
		if j, ok := res[r.ID]; ok {
			st.Resources[j] = r
		} else {
			res[r.ID] = len(st.Resources)
			st.Resources = append(st.Resources, r)
		}
	}
	st.Refusals = append(st.Refusals, l.Refusals...)
	for _, k := range l.Keys {
		if j := slices.IndexFunc(st.Keys, func(x booking.KeyRecord) bool { return x.Name == k.Name }); j >= 0 {
			st.Keys[j] = k
		} else {
			st.Keys = append(st.Keys, k)
		}
	}
	if l.Secret != nil {
		st.Secret = l.Secret
	}
	return nil
}
