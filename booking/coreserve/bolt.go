package coreserve

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"slotfare"
)

// BoltFileName is the Bolt store's file in the data directory, beside the
// booking store's own file.
const BoltFileName = "coreservations.db"

var boltBucket = []byte("coreservations")

// Bolt is a Store in a bbolt file: each record under its id, prefixed by
// its version (8 bytes, big endian). A Put is one bbolt transaction, synced
// before it returns; concurrent Puts share a transaction (bbolt's Batch).
// The ids of the unsettled records are kept in memory as well (read on
// Open, changed after each Put), so Recover's listing costs what is
// unsettled, not the whole history: the file is this process's alone
// (bbolt's lock).
type Bolt struct {
	db *bolt.DB

	mu        sync.Mutex
	unsettled map[string]bool
}

var _ Store = (*Bolt)(nil)

// OpenBolt opens (creating if missing) dir's BoltFileName.
func OpenBolt(dir string) (*Bolt, error) {
	const op = "coreserve.OpenBolt"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	db, err := bolt.Open(filepath.Join(dir, BoltFileName), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	b := &Bolt{db: db, unsettled: map[string]bool{}}
	err = db.Update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists(boltBucket)
		if err != nil {
			return err
		}
		return bk.ForEach(func(k, v []byte) error {
			rec, err := decodeStored(v)
			if err != nil {
				return err
			}
			if !rec.Status.Settled() {
				b.unsettled[rec.ID] = true
			}
			return nil
		})
	})
	if err != nil {
		if cerr := db.Close(); cerr != nil {
			err = slotfare.E(op, err, cerr.Error())
		}
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	return b, nil
}

func decodeStored(v []byte) (Record, error) {
	if len(v) < 8 {
		return Record{}, slotfare.E("coreserve.Bolt", slotfare.Other, "a stored co-reservation is truncated")
	}
	return decodeRecord(v[8:], int64(binary.BigEndian.Uint64(v[:8])))
}

// Get implements Store.
func (b *Bolt) Get(ctx context.Context, id string) (Record, bool, error) {
	var rec Record
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
		return Record{}, false, slotfare.E("coreserve.Get", slotfare.Unavailable, err)
	}
	return rec, found, nil
}

// Put implements Store.
func (b *Bolt) Put(ctx context.Context, rec Record, replaces int64) (int64, error) {
	data, err := encodeRecord(rec)
	if err != nil {
		return 0, err
	}
	val := make([]byte, 8, 8+len(data))
	binary.BigEndian.PutUint64(val, uint64(replaces+1))
	val = append(val, data...)
	err = b.db.Batch(func(tx *bolt.Tx) error {
		bk := tx.Bucket(boltBucket)
		var cur int64
		if v := bk.Get([]byte(rec.ID)); v != nil {
			if len(v) < 8 {
				return slotfare.E("coreserve.Put", slotfare.Other, "a stored co-reservation is truncated")
			}
			cur = int64(binary.BigEndian.Uint64(v[:8]))
		}
		if cur != replaces {
			return versionConflict(rec.ID, cur, replaces)
		}
		return bk.Put([]byte(rec.ID), val)
	})
	if err != nil {
		if slotfare.KindOf(err) == slotfare.Conflict {
			return 0, err
		}
		return 0, slotfare.E("coreserve.Put", slotfare.Unavailable, err)
	}
	b.mu.Lock()
	if rec.Status.Settled() {
		delete(b.unsettled, rec.ID)
	} else {
		b.unsettled[rec.ID] = true
	}
	b.mu.Unlock()
	return replaces + 1, nil
}

// Unsettled implements Store.
func (b *Bolt) Unsettled(ctx context.Context) ([]Record, error) {
	b.mu.Lock()
	ids := make([]string, 0, len(b.unsettled))
	for id := range b.unsettled {
		ids = append(ids, id)
	}
	b.mu.Unlock()
	var out []Record
	for _, id := range ids {
		rec, found, err := b.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if found && !rec.Status.Settled() {
			out = append(out, rec)
		}
	}
	sortRecords(out)
	return out, nil
}

// Close implements Store.
func (b *Bolt) Close() error {
	if err := b.db.Close(); err != nil {
		return slotfare.E("coreserve.Close", slotfare.Unavailable, err)
	}
	return nil
}
