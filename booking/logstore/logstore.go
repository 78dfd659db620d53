// Package logstore is a booking.Store in one append-only file: every batch
// is one line (a CRC-32C checksum, a space, the batch's JSON; see
// internal/recordlog), and a group of concurrent batches is appended and
// synced with a single fsync. It exists because the bbolt store (boltstore)
// syncs twice per transaction (data pages, then the meta page); a log needs
// one, which doubles what a disk with slow syncs can commit. Durability is
// the same: a Write returns only once its line is synced.
//
// A batch is one line, so it is stored whole or not at all: a line torn by
// a crash (no newline, or a last line that fails its check and holds the
// zeros of unwritten blocks) was never acknowledged and is cut off on open.
// Any other line that fails its checksum or does not decode is damage: Open
// refuses with an error naming the file and the byte offset and leaves the
// file untouched, since cutting there would drop acknowledged commits.
// Logs written before checksums are read as they are: their lines are
// accepted if they decode (with no protection against a flipped byte that
// still decodes), and new batches are appended with checksums.
//
// The price is the load: Open reads the whole log (the latest record of a
// booking wins). There is no compaction yet; the file grows by about a
// kilobyte per booking state change.
package logstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/dirlock"
	"slotfare/booking/internal/groupcommit"
	"slotfare/ledger"
	"slotfare/ledger/recordlog"
)

// FileName is the log Open creates in its directory.
const FileName = "slotfare.log"

// line is one batch on disk.
type line struct {
	Bookings  []booking.Record         `json:"b,omitempty"`
	Postings  []json.RawMessage        `json:"p,omitempty"`
	Resources []booking.ResourceRecord `json:"r,omitempty"`
	Refusals  []booking.RefusalRecord  `json:"f,omitempty"`
	Keys      []booking.KeyRecord      `json:"k,omitempty"`
	Secret    []byte                   `json:"s,omitempty"`
}

// Store is the log store. It is safe for concurrent use.
type Store struct {
	f      *os.File
	lock   *dirlock.Lock
	writes *groupcommit.Queue[[]byte] // framed lines, newline included
	closed sync.Once
	// Only the writer goroutine (commit) touches these.
	buf    []byte
	end    int64 // bytes of synced lines
	broken error
}

// Open opens (creating if needed) the log in directory dir, after locking
// the directory against another process (*dirlock.InUse). It cuts off a torn
// tail and refuses a damaged log (*recordlog.Damage in the error's chain),
// leaving the file as it found it.
func Open(dir string) (*Store, error) {
	const op = "logstore.Open"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	lock, err := dirlock.Acquire(dir)
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		lock.Release()
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	fail := func(err error) (*Store, error) {
		f.Close()
		lock.Release()
		return nil, err
	}
	rep, err := recordlog.Scan(f.Name(), f, func(p []byte) error { var l line; return json.Unmarshal(p, &l) })
	if err != nil {
		return fail(slotfare.E(op, slotfare.Unavailable, err))
	}
	if rep.Damage != nil {
		return fail(slotfare.E(op, slotfare.Other, rep.Damage))
	}
	if rep.Torn > 0 {
		if err := f.Truncate(rep.Intact); err != nil {
			return fail(slotfare.E(op, slotfare.Unavailable, "cutting off a torn batch", err))
		}
		if err := f.Sync(); err != nil {
			return fail(slotfare.E(op, slotfare.Unavailable, err))
		}
	}
	if _, err := f.Seek(rep.Intact, io.SeekStart); err != nil {
		return fail(slotfare.E(op, slotfare.Unavailable, err))
	}
	s := &Store{f: f, lock: lock, end: rep.Intact}
	s.writes = groupcommit.New(s.commit)
	return s, nil
}

// Check scans the log in dir without changing it: how many batches are
// intact, whether there is a torn tail (which Open would cut) or damage
// (which Open refuses). The caller holds the directory (dirlock).
func Check(dir string) (recordlog.Report, error) {
	f, err := os.Open(filepath.Join(dir, FileName))
	if err != nil {
		return recordlog.Report{}, err
	}
	defer f.Close()
	return recordlog.Scan(f.Name(), f, func(p []byte) error { return decodeLine(p, &booking.State{}, nil, nil) })
}

// Load reads the log: the latest record of every booking and resource, the
// postings in append order, the latest secret. A torn line written after
// Open is a write still under way, not acknowledged, and is skipped.
func (s *Store) Load(ctx context.Context) (booking.State, error) {
	const op = "logstore.Load"
	data, err := os.ReadFile(s.f.Name())
	if err != nil {
		return booking.State{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	var st booking.State
	books := map[string]int{}
	res := map[string]int{}
	rep, err := recordlog.Scan(s.f.Name(), bytes.NewReader(data), func(p []byte) error {
		return decodeLine(p, &st, books, res)
	})
	if err != nil {
		return booking.State{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	if rep.Damage != nil {
		return booking.State{}, slotfare.E(op, slotfare.Other, rep.Damage)
	}
	return st, nil
}

// decodeLine decodes one batch and applies it to st (books and res index
// st's bookings and resources by id; nil to only decode). Every record is
// decoded before any is applied, so a batch that fails leaves st as it was.
func decodeLine(payload []byte, st *booking.State, books, res map[string]int) error {
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
	if books == nil {
		return nil
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

// Write appends b as one line, shared with the writes queued meanwhile, and
// returns once it is synced (or, for b.NoWait, once it is queued).
func (s *Store) Write(ctx context.Context, b booking.Batch) error {
	const op = "logstore.Write"
	data, err := encodeLine(b)
	if err != nil {
		return slotfare.E(op, slotfare.Other, err)
	}
	if err := ctx.Err(); err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	if err := s.writes.Submit(recordlog.Append(nil, data), !b.NoWait); err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	return nil
}

// encodeLine writes a batch as the JSON of line, records by hand.
func encodeLine(b booking.Batch) ([]byte, error) {
	out := []byte{'{'}
	sep := func() {
		if len(out) > 1 {
			out = append(out, ',')
		}
	}
	if len(b.Bookings) > 0 {
		out = append(out, `"b":[`...)
		for i, r := range b.Bookings {
			if i > 0 {
				out = append(out, ',')
			}
			var err error
			if out, err = r.AppendJSON(out); err != nil {
				return nil, err
			}
		}
		out = append(out, ']')
	}
	if len(b.Postings) > 0 {
		sep()
		out = append(out, `"p":[`...)
		for i, p := range b.Postings {
			raw, err := ledger.EncodePosting(p)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, raw...)
		}
		out = append(out, ']')
	}
	if len(b.Resources) > 0 || len(b.Refusals) > 0 || len(b.Keys) > 0 || b.Secret != nil {
		rest, err := json.Marshal(line{Resources: b.Resources, Refusals: b.Refusals, Keys: b.Keys, Secret: b.Secret})
		if err != nil {
			return nil, err
		}
		sep()
		out = append(out, rest[1:len(rest)-1]...) // the fields without braces
	}
	return append(out, '}'), nil
}

// commit appends a group of queued lines with one write and one sync.
// After a failed write or sync the file's state is unknown, so the store
// refuses every later write: a restart cuts off whatever was torn.
func (s *Store) commit(lines [][]byte) error {
	if s.broken != nil {
		return s.broken
	}
	s.buf = s.buf[:0]
	for _, l := range lines {
		s.buf = append(s.buf, l...)
	}
	_, err := s.f.Write(s.buf)
	if err == nil {
		err = s.f.Sync()
	}
	if err != nil {
		// The group was answered with an error, so none of it may load
		// later: take back what reached the file (a failed cut leaves
		// whole lines that a restart would load).
		if s.f.Truncate(s.end) == nil {
			s.f.Sync()
		}
		s.broken = fmt.Errorf("an earlier write failed: %w", err)
		return err
	}
	s.end += int64(len(s.buf))
	return nil
}

// Close finishes the queued writes, closes the file and frees the
// directory.
func (s *Store) Close() error {
	var err error
	s.closed.Do(func() {
		s.writes.Close()
		if e := s.f.Close(); e != nil {
			err = slotfare.E("logstore.Close", slotfare.Unavailable, e)
		}
		if e := s.lock.Release(); e != nil && err == nil {
			err = slotfare.E("logstore.Close", slotfare.Unavailable, e)
		}
	})
	return err
}
