// Package boltstore is the service's embedded durable store: one bbolt file
// (go.etcd.io/bbolt, a copy-on-write B+tree with fsync on commit) holding the
// bookings, the ledger's postings, the resources providers configured and the
// offer-signing secret. Concurrent writes are grouped into one transaction
// and one fsync by bbolt's DB.Batch, so many clients committing at once share
// the cost of the sync; every Write returns only once its batch is on disk.
package boltstore

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"slotfare"
	"slotfare/booking"
	"slotfare/ledger"
)

var (
	bucketBookings  = []byte("bookings")
	bucketPostings  = []byte("postings")
	bucketResources = []byte("resources")
	bucketMeta      = []byte("meta")
	keySecret       = []byte("offer_secret")
)

// FileName is the database file Open creates in its directory.
const FileName = "slotfare.db"

// Store is a booking.Store in a bbolt file.
type Store struct {
	db *bolt.DB
}

var _ booking.Store = (*Store)(nil)

// Options tune the store; the zero value is the durable default.
type Options struct {
	// MaxBatchDelay is how long a write waits for others to share its
	// transaction (bbolt's default, 10 ms, when zero).
	MaxBatchDelay time.Duration
}

// Open opens (creating if needed) the store in directory dir.
func Open(dir string, o Options) (*Store, error) {
	const op = "boltstore.Open"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	if o.MaxBatchDelay > 0 {
		db.MaxBatchDelay = o.MaxBatchDelay
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketBookings, bucketPostings, bucketResources, bucketMeta} {
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
	return &Store{db: db}, nil
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

// Write stores b in one transaction, shared with concurrent writers
// (DB.Batch), and returns once it is synced. The function may run more than
// once if another batch in the same transaction fails; it only puts, so a
// rerun writes the same thing.
func (s *Store) Write(ctx context.Context, b booking.Batch) error {
	const op = "boltstore.Write"
	// Encode outside the transaction: the shared writer should only copy.
	type kv struct{ k, v []byte }
	var books, res []kv
	var posts [][]byte
	for _, r := range b.Bookings {
		v, err := json.Marshal(r)
		if err != nil {
			return slotfare.E(op, slotfare.Other, err)
		}
		books = append(books, kv{[]byte(r.Booking.ID), v})
	}
	for _, p := range b.Postings {
		v, err := ledger.EncodePosting(p)
		if err != nil {
			return slotfare.E(op, slotfare.Other, err)
		}
		posts = append(posts, v)
	}
	for _, r := range b.Resources {
		v, err := json.Marshal(r)
		if err != nil {
			return slotfare.E(op, slotfare.Other, err)
		}
		res = append(res, kv{[]byte(r.Config.ID), v})
	}
	if err := ctx.Err(); err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	err := s.db.Batch(func(tx *bolt.Tx) error {
		bb := tx.Bucket(bucketBookings)
		for _, x := range books {
			if err := bb.Put(x.k, x.v); err != nil {
				return err
			}
		}
		pb := tx.Bucket(bucketPostings)
		for _, v := range posts {
			seq, err := pb.NextSequence()
			if err != nil {
				return err
			}
			var k [8]byte
			binary.BigEndian.PutUint64(k[:], seq)
			if err := pb.Put(k[:], v); err != nil {
				return err
			}
		}
		rb := tx.Bucket(bucketResources)
		for _, x := range res {
			if err := rb.Put(x.k, x.v); err != nil {
				return err
			}
		}
		if b.Secret != nil {
			if err := tx.Bucket(bucketMeta).Put(keySecret, b.Secret); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	return nil
}

// Close closes the file; Writes after Close fail.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return slotfare.E("boltstore.Close", slotfare.Unavailable, err)
	}
	return nil
}
