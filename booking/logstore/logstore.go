// Package logstore is a booking.Store in one append-only file: every batch
// is one line of JSON, and a group of concurrent batches is appended and
// synced with a single fsync. It exists because the bbolt store (boltstore)
// syncs twice per transaction (data pages, then the meta page); a log needs
// one, which doubles what a disk with slow syncs can commit. Durability is
// the same: a Write returns only once its line is synced, and a line torn by
// a crash (no newline, or not valid JSON) is cut off on open, so a batch is
// stored whole or not at all.
//
// The price is the load: Open reads the whole log (the latest record of a
// booking wins). There is no compaction yet; the file grows by about a
// kilobyte per booking state change.
package logstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/internal/groupcommit"
	"slotfare/ledger"
)

// FileName is the log Open creates in its directory.
const FileName = "slotfare.log"

// line is one batch on disk.
type line struct {
	Bookings  []booking.Record         `json:"b,omitempty"`
	Postings  []json.RawMessage        `json:"p,omitempty"`
	Resources []booking.ResourceRecord `json:"r,omitempty"`
	Refusals  []booking.RefusalRecord  `json:"f,omitempty"`
	Secret    []byte                   `json:"s,omitempty"`
}

// Store is the log store. It is safe for concurrent use.
type Store struct {
	f      *os.File
	writes *groupcommit.Queue[[]byte] // lines, newline included
	closed sync.Once
	// Only the writer goroutine (commit) touches these.
	buf    []byte
	broken error
}

// Open opens (creating if needed) the log in directory dir and cuts off a
// torn last line.
func Open(dir string) (*Store, error) {
	const op = "logstore.Open"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	good, err := validPrefix(f)
	if err != nil {
		f.Close()
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, slotfare.E(op, slotfare.Unavailable, "cutting off a torn batch", err)
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	s := &Store{f: f}
	s.writes = groupcommit.New(s.commit)
	return s, nil
}

// validPrefix is the length of the file's longest prefix of whole lines that
// decode.
func validPrefix(f *os.File) (int64, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	var good int64
	for {
		b, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return good, nil // b, if any, is a torn line
		}
		if err != nil {
			return 0, err
		}
		var l line
		if json.Unmarshal(b, &l) != nil {
			return good, nil
		}
		good += int64(len(b))
	}
}

// Load reads the log: the latest record of every booking and resource, the
// postings in append order, the latest secret.
func (s *Store) Load(ctx context.Context) (booking.State, error) {
	const op = "logstore.Load"
	data, err := os.ReadFile(s.f.Name())
	if err != nil {
		return booking.State{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	var st booking.State
	books := map[string]int{}
	res := map[string]int{}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // a torn line written after Open: not acknowledged
		}
		var l line
		if err := json.Unmarshal(data[:i], &l); err != nil {
			return booking.State{}, slotfare.E(op, slotfare.Unavailable, fmt.Errorf("corrupt line: %w", err))
		}
		data = data[i+1:]
		for _, r := range l.Bookings {
			if j, ok := books[r.Booking.ID]; ok {
				st.Bookings[j] = r
			} else {
				books[r.Booking.ID] = len(st.Bookings)
				st.Bookings = append(st.Bookings, r)
			}
		}
		for _, raw := range l.Postings {
			p, err := ledger.DecodePosting(raw)
			if err != nil {
				return booking.State{}, slotfare.E(op, slotfare.Unavailable, err)
			}
			st.Postings = append(st.Postings, p)
		}
		for _, r := range l.Resources {
			if j, ok := res[r.Config.ID]; ok {
				st.Resources[j] = r
			} else {
				res[r.Config.ID] = len(st.Resources)
				st.Resources = append(st.Resources, r)
			}
		}
		st.Refusals = append(st.Refusals, l.Refusals...)
		if l.Secret != nil {
			st.Secret = l.Secret
		}
	}
	return st, nil
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
	if err := s.writes.Submit(append(data, '\n'), !b.NoWait); err != nil {
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
	if len(b.Resources) > 0 || len(b.Refusals) > 0 || b.Secret != nil {
		rest, err := json.Marshal(line{Resources: b.Resources, Refusals: b.Refusals, Secret: b.Secret})
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
		s.broken = fmt.Errorf("an earlier write failed: %w", err)
	}
	return err
}

// Close finishes the queued writes and closes the file.
func (s *Store) Close() error {
	var err error
	s.closed.Do(func() {
		s.writes.Close()
		if e := s.f.Close(); e != nil {
			err = slotfare.E("logstore.Close", slotfare.Unavailable, e)
		}
	})
	return err
}
