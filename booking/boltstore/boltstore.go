// Package boltstore is the service's embedded durable store: one bbolt file
// (go.etcd.io/bbolt, a copy-on-write B+tree with fsync on commit) holding the
// bookings, the ledger's postings, the resources providers configured and the
// offer-signing secret. Concurrent writes are grouped into one transaction
// and one fsync by a single writer goroutine (group commit): while one
// transaction syncs, the next batches queue up and go together in the next
// one, so many clients committing at once share the cost of the sync without
// any added delay. Every Write returns only once its batch is on disk.
package boltstore

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/internal/groupcommit"
	"slotfare/ledger"
)

var (
	bucketBookings  = []byte("bookings")
	bucketPostings  = []byte("postings")
	bucketResources = []byte("resources")
	bucketRefusals  = []byte("refusals")
	bucketMeta      = []byte("meta")
	keySecret       = []byte("offer_secret")
)

// FileName is the database file Open creates in its directory.
const FileName = "slotfare.db"

// Store is a booking.Store in a bbolt file.
type Store struct {
	db     *bolt.DB
	writes *groupcommit.Queue[*request]
	closed sync.Once
}

// request is one encoded Write waiting for the writer.
type request struct {
	books, res      []kv
	posts, refusals [][]byte
	secret          []byte
}

type kv struct{ k, v []byte }

var _ booking.Store = (*Store)(nil)

// Options tune the store; the zero value is the durable default.
type Options struct{}

// Open opens (creating if needed) the store in directory dir.
func Open(dir string, o Options) (*Store, error) {
	const op = "boltstore.Open"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	// The freelist is rebuilt on open rather than written on every commit:
	// less to sync per group, same durability of the data.
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, &bolt.Options{Timeout: 5 * time.Second, NoFreelistSync: true})
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketBookings, bucketPostings, bucketResources, bucketRefusals, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	s := &Store{db: db}
	s.writes = groupcommit.New(s.commit)
	return s, nil
}

// commit stores a group of queued writes in one transaction (one fsync).
func (s *Store) commit(group []*request) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		for _, r := range group {
			if err := put(tx, r); err != nil {
				return err
			}
		}
		return nil
	})
}

func put(tx *bolt.Tx, r *request) error {
	bb := tx.Bucket(bucketBookings)
	for _, x := range r.books {
		if err := bb.Put(x.k, x.v); err != nil {
			return err
		}
	}
	if err := appendSeq(tx.Bucket(bucketPostings), r.posts); err != nil {
		return err
	}
	if err := appendSeq(tx.Bucket(bucketRefusals), r.refusals); err != nil {
		return err
	}
	rb := tx.Bucket(bucketResources)
	for _, x := range r.res {
		if err := rb.Put(x.k, x.v); err != nil {
			return err
		}
	}
	if r.secret != nil {
		if err := tx.Bucket(bucketMeta).Put(keySecret, r.secret); err != nil {
			return err
		}
	}
	return nil
}

// appendSeq appends values to a bucket under big-endian sequence keys, so
// that ForEach reads them in append order.
func appendSeq(b *bolt.Bucket, values [][]byte) error {
	for _, v := range values {
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		var k [8]byte
		binary.BigEndian.PutUint64(k[:], seq)
		if err := b.Put(k[:], v); err != nil {
			return err
		}
	}
	return nil
}

// Load reads everything back: postings in append order (their keys are a
// big-endian sequence), bookings and resources by id.
func (s *Store) Load(ctx context.Context) (booking.State, error) {
	const op = "boltstore.Load"
	var st booking.State
	err := s.db.View(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketBookings).ForEach(func(k, v []byte) error {
			var r booking.Record
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("booking %s: %w", k, err)
			}
			st.Bookings = append(st.Bookings, r)
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketPostings).ForEach(func(k, v []byte) error {
			p, err := ledger.DecodePosting(v)
			if err != nil {
				return fmt.Errorf("posting %x: %w", k, err)
			}
			st.Postings = append(st.Postings, p)
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketResources).ForEach(func(k, v []byte) error {
			var r booking.ResourceRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("resource %s: %w", k, err)
			}
			st.Resources = append(st.Resources, r)
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketRefusals).ForEach(func(k, v []byte) error {
			var r booking.RefusalRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("refusal %x: %w", k, err)
			}
			st.Refusals = append(st.Refusals, r)
			return nil
		}); err != nil {
			return err
		}
		if v := tx.Bucket(bucketMeta).Get(keySecret); v != nil {
			st.Secret = append([]byte(nil), v...)
		}
		return nil
	})
	if err != nil {
		return booking.State{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	return st, nil
}

// Write stores b in one transaction, shared with the writes queued at the
// same time, and returns once it is synced.
func (s *Store) Write(ctx context.Context, b booking.Batch) error {
	const op = "boltstore.Write"
	// Encode here, in the caller's goroutine: the writer only copies.
	r := &request{secret: b.Secret}
	for _, x := range b.Bookings {
		v, err := x.AppendJSON(nil)
		if err != nil {
			return slotfare.E(op, slotfare.Other, err)
		}
		r.books = append(r.books, kv{[]byte(x.Booking.ID), v})
	}
	for _, p := range b.Postings {
		v, err := ledger.EncodePosting(p)
		if err != nil {
			return slotfare.E(op, slotfare.Other, err)
		}
		r.posts = append(r.posts, v)
	}
	for _, x := range b.Resources {
		v, err := json.Marshal(x)
		if err != nil {
			return slotfare.E(op, slotfare.Other, err)
		}
		r.res = append(r.res, kv{[]byte(x.Config.ID), v})
	}
	for _, x := range b.Refusals {
		v, err := json.Marshal(x)
		if err != nil {
			return slotfare.E(op, slotfare.Other, err)
		}
		r.refusals = append(r.refusals, v)
	}
	if err := ctx.Err(); err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	// Once queued the write is not abandoned: the caller learns whether it
	// is durable, whatever its context says meanwhile.
	if err := s.writes.Submit(r, !b.NoWait); err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	return nil
}

// Close finishes the queued writes, stops the writer and closes the file;
// Writes after Close fail.
func (s *Store) Close() error {
	var err error
	s.closed.Do(func() {
		s.writes.Close()
		if e := s.db.Close(); e != nil {
			err = slotfare.E("boltstore.Close", slotfare.Unavailable, e)
		}
	})
	return err
}
