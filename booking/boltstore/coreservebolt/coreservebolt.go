// Package coreservebolt is booking/coreserve's Store in a bbolt file of
// the data directory. It is a package of its own beside booking/boltstore
// because coreserve reaches forecast (through booking/runs' predictions),
// which the booking stores must not depend on (booking/deps_test.go).
package coreservebolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"slotfare"
	"slotfare/booking/coreserve"
)

// FileName is the store's file in the data directory, beside the
// booking store's own file.
const FileName = "coreservations.db"

var (
	boltBucket = []byte("coreservations")
	// dueBucket is the due index: the unsettled records' ids under when
	// they are due, dueKey(at, id); filedBucket is where each id is filed
	// there (id: 8 bytes of at), to take it out again.
	dueBucket   = []byte("coreservations.due")
	filedBucket = []byte("coreservations.filed")
)

// Store is a coreserve.Store in a bbolt file: each record under its id,
// prefixed by its version (8 bytes, big endian), and each unsettled one in
// the due index, written in the same transaction. A Put is one bbolt
// transaction, synced before it returns; concurrent Puts share a
// transaction (bbolt's Batch).
type Store struct {
	db *bolt.DB
}

var _ coreserve.Store = (*Store)(nil)

// Open opens (creating if missing) dir's FileName.
func Open(dir string) (*Store, error) {
	const op slotfare.Op = "coreservebolt.Open"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	if err = db.Update(createBuckets); err != nil {
		if cerr := db.Close(); cerr != nil {
			err = slotfare.E(op, err, cerr.Error())
		}
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	return &Store{db: db}, nil
}

// createBuckets creates the buckets a new file lacks. A file written before
// the due index existed has its unsettled records filed in it now, once:
// the only pass over every record.
func createBuckets(tx *bolt.Tx) error {
	bk, err := tx.CreateBucketIfNotExists(boltBucket)
	if err != nil {
		return err
	}
	if tx.Bucket(dueBucket) != nil {
		return nil
	}
	if _, err := tx.CreateBucket(dueBucket); err != nil {
		return err
	}
	if _, err := tx.CreateBucket(filedBucket); err != nil {
		return err
	}
	return bk.ForEach(func(k, v []byte) error {
		rec, err := decodeStored(v)
		if err != nil {
			return err
		}
		return fileDue(tx, rec)
	})
}

func dueKey(at int64, id string) []byte {
	k := make([]byte, 8, 8+len(id))
	binary.BigEndian.PutUint64(k, uint64(at))
	return append(k, id...)
}

// fileDue files rec in the due index under its due time while it is
// unsettled, and takes it out once it is settled.
func fileDue(tx *bolt.Tx, rec coreserve.Record) error {
	var at int64 = -1
	if !rec.Status.Settled() {
		at = coreserve.DueMillis(rec.DueAt)
	}
	return refile(tx, rec.ID, at)
}

// refile moves id in the due index to at (-1: out of it).
func refile(tx *bolt.Tx, id string, at int64) error {
	due, filed := tx.Bucket(dueBucket), tx.Bucket(filedBucket)
	if old := filed.Get([]byte(id)); len(old) == 8 {
		if err := due.Delete(dueKey(int64(binary.BigEndian.Uint64(old)), id)); err != nil {
			return err
		}
	}
	if at < 0 {
		return filed.Delete([]byte(id))
	}
	if err := due.Put(dueKey(at, id), nil); err != nil {
		return err
	}
	return filed.Put([]byte(id), dueKey(at, "")) // the 8 bytes of at
}

func decodeStored(v []byte) (coreserve.Record, error) {
	if len(v) < 8 {
		return coreserve.Record{}, slotfare.E(slotfare.Op("coreservebolt.Store"), slotfare.Other, "a stored co-reservation is truncated")
	}
	return coreserve.DecodeRecord(v[8:], int64(binary.BigEndian.Uint64(v[:8])))
}

// Get implements coreserve.Store.
func (b *Store) Get(ctx context.Context, id string) (coreserve.Record, bool, error) {
	var rec coreserve.Record
	found := false
	err := b.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(boltBucket).Get([]byte(id))
		if v == nil {
			return nil
		}
		r, err := decodeStored(v)
		rec, found = r, err == nil
		return err
	})
	if err != nil {
		return coreserve.Record{}, false, slotfare.E(slotfare.Op("coreservebolt.Get"), slotfare.Unavailable, err)
	}
	return rec, found, nil
}

// Put implements coreserve.Store.
func (b *Store) Put(ctx context.Context, rec coreserve.Record, replaces int64) (int64, error) {
	data, err := coreserve.EncodeRecord(rec)
	if err != nil {
		return 0, err
	}
	val := make([]byte, 8, 8+len(data))
	binary.BigEndian.PutUint64(val, uint64(replaces+1))
	val = append(val, data...)
	err = b.db.Batch(func(tx *bolt.Tx) error {
		bk := tx.Bucket(boltBucket)
		var cur int64
		stored := bk.Get([]byte(rec.ID))
		if stored != nil {
			if len(stored) < 8 {
				return slotfare.E(slotfare.Op("coreservebolt.Put"), slotfare.Other, "a stored co-reservation is truncated")
			}
			cur = int64(binary.BigEndian.Uint64(stored[:8]))
		}
		if cur == replaces+1 && bytes.Equal(stored, val) {
			return nil
		}
		if cur != replaces {
			return coreserve.VersionConflict(rec.ID, cur, replaces)
		}
		if err := bk.Put([]byte(rec.ID), val); err != nil {
			return err
		}
		return fileDue(tx, rec)
	})
	if err != nil {
		if slotfare.KindOf(err) == slotfare.Conflict {
			return 0, err
		}
		return 0, slotfare.E(slotfare.Op("coreservebolt.Put"), slotfare.Unavailable, err)
	}
	return replaces + 1, nil
}

// Due implements coreserve.Store: a read transaction finds whether
// anything is due, so an idle tick writes nothing; a write transaction
// then claims what is.
func (b *Store) Due(ctx context.Context, now time.Time, limit int, claimUntil time.Time) ([]coreserve.Record, error) {
	const op slotfare.Op = "coreservebolt.Due"
	nowMs := now.UnixMilli()
	isDue := func(k []byte) bool { return k != nil && int64(binary.BigEndian.Uint64(k[:8])) <= nowMs }
	found := false
	if err := b.db.View(func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(dueBucket).Cursor().First()
		found = isDue(k)
		return nil
	}); err != nil || !found {
		return nil, unavailable(op, err)
	}
	var out []coreserve.Record
	err := b.db.Update(func(tx *bolt.Tx) error {
		out = out[:0]
		var ids []string
		c := tx.Bucket(dueBucket).Cursor()
		for k, _ := c.First(); isDue(k) && len(ids) < limit; k, _ = c.Next() {
			ids = append(ids, string(k[8:]))
		}
		recs := tx.Bucket(boltBucket)
		for _, id := range ids {
			v := recs.Get([]byte(id))
			at := coreserve.DueMillis(claimUntil)
			if v == nil {
				at = -1 // filed without its record, which no Put does: out
			}
			if err := refile(tx, id, at); err != nil || v == nil {
				return err
			}
			rec, err := decodeStored(v)
			if err != nil {
				return err
			}
			out = append(out, rec)
		}
		return nil
	})
	if err != nil {
		return nil, unavailable(op, err)
	}
	return out, nil
}

// unavailable is err (nil: nil) as the store's failure in op.
func unavailable(op slotfare.Op, err error) error {
	if err == nil {
		return nil
	}
	return slotfare.E(op, slotfare.Unavailable, err)
}

// Close implements coreserve.Store.
func (b *Store) Close() error {
	if err := b.db.Close(); err != nil {
		return slotfare.E(slotfare.Op("coreservebolt.Close"), slotfare.Unavailable, err)
	}
	return nil
}
