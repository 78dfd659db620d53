package ledger

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strconv"
	"sync"

	"slotfare"
)

// FileStore is a Store in one append-only file, one line per batch: a JSON
// array of EncodePosting objects and a newline, fsynced before
// AppendPostings returns. A batch torn by a crash lacks its newline; it is
// cut off when the file is opened, so a batch is stored whole or not at
// all. It suits single-process tools and tests; the service uses its bbolt
// adapter so that a booking and its postings share one transaction.
type FileStore struct {
	mu   sync.Mutex
	f    *os.File
	size int64 // bytes of complete batches
}

// OpenFileStore opens (creating if needed) the store at path and drops a
// torn last batch.
func OpenFileStore(path string) (*FileStore, error) {
	const op = "ledger.OpenFileStore"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	size := int64(bytes.LastIndexByte(b, '\n') + 1)
	if size < int64(len(b)) {
		if err := f.Truncate(size); err != nil {
			f.Close()
			return nil, slotfare.E(op, slotfare.Unavailable, "dropping a torn batch", err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, slotfare.E(op, slotfare.Unavailable, err)
		}
	}
	return &FileStore{f: f, size: size}, nil
}

// AppendPostings writes ps as one line and fsyncs it.
func (s *FileStore) AppendPostings(ctx context.Context, ps []Posting) error {
	const op = "ledger.FileStore.AppendPostings"
	if err := ctx.Err(); err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	line, err := json.Marshal(ps)
	if err != nil {
		return slotfare.E(op, err)
	}
	line = append(line, '\n')
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
	const op = "ledger.FileStore.LoadPostings"
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return slotfare.E(op, slotfare.Unavailable, "store is closed")
	}
	r := bufio.NewReader(io.NewSectionReader(s.f, 0, s.size))
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return nil
		}
		if err != nil {
			return slotfare.E(op, slotfare.Unavailable, err)
		}
		if err := ctx.Err(); err != nil {
			return slotfare.E(op, slotfare.Unavailable, err)
		}
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil {
			return corrupt(op, "batch "+strconv.Itoa(n)+" is corrupt", err)
		}
		for _, raw := range batch {
			p, err := DecodePosting(raw)
			if err != nil {
				return corrupt(op, "batch "+strconv.Itoa(n)+" is corrupt", err)
			}
			if err := fn(p); err != nil {
				return err
			}
		}
	}
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
