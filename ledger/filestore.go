package ledger

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"sync"

	"slotfare"
	"slotfare/ledger/recordlog"
)

// FileStore is a Store in one append-only file, one line per batch: a
// CRC-32C checksum, a space, a JSON array of EncodePosting objects and a
// newline (internal/recordlog), fsynced before AppendPostings returns. A
// batch is one line, so it is stored whole or not at all: a batch torn by a
// crash (no newline, or a last line that fails its check and holds the zeros
// of unwritten blocks) is cut off when the file is opened. Any other line
// that fails its checksum or does not decode is damage: OpenFileStore
// refuses with a *recordlog.Damage naming the file and the byte offset and
// leaves the file untouched, since cutting there would drop acknowledged
// postings. Lines written before checksums (a bare JSON array) are accepted
// if they decode, before the first checksummed line. It suits
// single-process tools and tests; the service uses its bbolt adapter so that
// a booking and its postings share one transaction.
type FileStore struct {
	mu   sync.Mutex
	f    *os.File
	size int64 // bytes of complete batches
}

// OpenFileStore opens (creating if needed) the store at path, drops a torn
// last batch and refuses a damaged file.
func OpenFileStore(path string) (*FileStore, error) {
	const op slotfare.Op = "ledger.OpenFileStore"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	rep, err := recordlog.Scan(path, f, func(line []byte) error { return decodeBatch(line, nil) })
	if err != nil {
		f.Close()
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	if rep.Damage != nil {
		f.Close()
		return nil, corrupt(op, "", rep.Damage)
	}
	if rep.Torn > 0 {
		if err := f.Truncate(rep.Intact); err != nil {
			f.Close()
			return nil, slotfare.E(op, slotfare.Unavailable, "dropping a torn batch", err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, slotfare.E(op, slotfare.Unavailable, err)
		}
	}
	return &FileStore{f: f, size: rep.Intact}, nil
}

// decodeBatch decodes one batch line and, when fn is not nil, hands it its
// postings in order once all of them decode.
func decodeBatch(line []byte, fn func(Posting) error) error {
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil {
		return err
	}
	batch := make([]Posting, 0, len(raws))
	for _, raw := range raws {
		p, err := DecodePosting(raw)
		if err != nil {
			return err
		}
		batch = append(batch, p)
	}
	if fn == nil {
		return nil
	}
	for _, p := range batch {
		if err := fn(p); err != nil {
			return &applyError{err}
		}
	}
	return nil
}

// applyError is the caller's own error from LoadPostings' fn, told apart
// from a batch that does not decode.
type applyError struct{ err error }

func (e *applyError) Error() string { return e.err.Error() }

// AppendPostings writes ps as one line and fsyncs it.
func (s *FileStore) AppendPostings(ctx context.Context, ps []Posting) error {
	const op slotfare.Op = "ledger.FileStore.AppendPostings"
	if err := ctx.Err(); err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	payload, err := json.Marshal(ps)
	if err != nil {
		return slotfare.E(op, err)
	}
	line := recordlog.Append(nil, payload)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return slotfare.E(op, slotfare.Unavailable, "store is closed")
	}
	if _, err := s.f.WriteAt(line, s.size); err != nil {
		s.f.Truncate(s.size) // best effort; a torn line is dropped on open anyway
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	if err := s.f.Sync(); err != nil {
		s.f.Truncate(s.size)
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	s.size += int64(len(line))
	return nil
}

// LoadPostings calls fn for every stored posting in append order.
func (s *FileStore) LoadPostings(ctx context.Context, fn func(Posting) error) error {
	const op slotfare.Op = "ledger.FileStore.LoadPostings"
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return slotfare.E(op, slotfare.Unavailable, "store is closed")
	}
	var failed error
	rep, err := recordlog.Scan(s.f.Name(), io.NewSectionReader(s.f, 0, s.size), func(line []byte) error {
		if failed != nil {
			return failed
		}
		if err := ctx.Err(); err != nil {
			failed = err
			return err
		}
		err := decodeBatch(line, fn)
		if ae, ok := err.(*applyError); ok {
			failed = ae.err
		}
		return err
	})
	if failed != nil {
		if ctx.Err() != nil {
			return slotfare.E(op, slotfare.Unavailable, failed)
		}
		return failed
	}
	if err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	if rep.Damage != nil {
		return corrupt(op, "", rep.Damage)
	}
	return nil
}

// Close closes the file.
func (s *FileStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}
