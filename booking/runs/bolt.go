package runs

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"slotfare"
)

// BoltFileName is the Bolt store's file in the data directory, beside the
// booking store's and the co-reservations' files.
const BoltFileName = "runs.db"

var (
	runsBucket      = []byte("runs")      // resource \0 run id -> run JSON
	profileBucket   = []byte("profile")   // resource \0 profile \0 finished id -> ""
	transfersBucket = []byte("transfers") // resource \0 finished id -> ""
)

// Bolt is a Store in a bbolt file. Each run is stored under its resource
// and id, with two index entries ordered by finished_at (8 bytes, big
// endian) then id: one per resource and profile, one per resource for runs
// that moved data; Recent and Transfers walk an index backwards from its
// end, so a read costs the n runs it returns. An Append is one bbolt
// transaction, synced before it returns; concurrent Appends share one
// (bbolt's Batch).
type Bolt struct{ db *bolt.DB }

var _ Store = (*Bolt)(nil)

// OpenBolt opens (creating if missing) dir's BoltFileName.
func OpenBolt(dir string) (*Bolt, error) {
	const op = "runs.OpenBolt"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	db, err := bolt.Open(filepath.Join(dir, BoltFileName), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{runsBucket, profileBucket, transfersBucket} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if cerr := db.Close(); cerr != nil {
			err = slotfare.E(op, err, cerr.Error())
		}
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	return &Bolt{db: db}, nil
}

// key joins parts with \0 (names never hold one).
func key(parts ...string) []byte {
	var b []byte
	for i, p := range parts {
		if i > 0 {
			b = append(b, 0)
		}
		b = append(b, p...)
	}
	return b
}

// orderKey is prefix \0 finished (milliseconds, sign bit flipped, big
// endian) run id: bytewise order is finished_at, then id.
func orderKey(prefix []byte, r Run) []byte {
	k := append(append([]byte{}, prefix...), 0)
	k = binary.BigEndian.AppendUint64(k, uint64(r.FinishedAt.UnixMilli())^(1<<63))
	return append(k, r.ID...)
}

// Append implements Store.
func (b *Bolt) Append(ctx context.Context, r Run) (Run, bool, error) {
	r, err := checkAppend(r)
	if err != nil {
		return Run{}, false, err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return Run{}, false, slotfare.E("runs.Append", slotfare.Other, err)
	}
	var stored Run
	created := false
	err = b.db.Batch(func(tx *bolt.Tx) error {
		created = false
		rk := key(r.ResourceID, r.ID)
		if v := tx.Bucket(runsBucket).Get(rk); v != nil {
			if err := json.Unmarshal(v, &stored); err != nil {
				return slotfare.E("runs.Append", slotfare.Other, "a stored run does not decode", err)
			}
			if !same(stored, r) {
				return idConflict(r)
			}
			return nil
		}
		if err := tx.Bucket(runsBucket).Put(rk, data); err != nil {
			return err
		}
		if err := tx.Bucket(profileBucket).Put(orderKey(key(r.ResourceID, r.Profile), r), nil); err != nil {
			return err
		}
		if r.hasTransfer() {
			if err := tx.Bucket(transfersBucket).Put(orderKey(key(r.ResourceID), r), nil); err != nil {
				return err
			}
		}
		stored, created = r, true
		return nil
	})
	if err != nil {
		return Run{}, false, storeErr("runs.Append", err)
	}
	return stored, created, nil
}

// Recent implements Store.
func (b *Bolt) Recent(ctx context.Context, resourceID, profile string, n int) ([]Run, error) {
	return b.newest(profileBucket, key(resourceID, profile), resourceID, n)
}

// Transfers implements Store.
func (b *Bolt) Transfers(ctx context.Context, resourceID string, n int) ([]Run, error) {
	return b.newest(transfersBucket, key(resourceID), resourceID, n)
}

// newest walks index entries under prefix \0 backwards and reads each run.
func (b *Bolt) newest(index, prefix []byte, resourceID string, n int) ([]Run, error) {
	if n < 1 {
		return nil, nil
	}
	p := append(append([]byte{}, prefix...), 0)
	end := append(append([]byte{}, prefix...), 1)
	var out []Run
	err := b.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(index).Cursor()
		k, _ := c.Seek(end)
		if k == nil {
			k, _ = c.Last()
		} else {
			k, _ = c.Prev()
		}
		runs := tx.Bucket(runsBucket)
		for ; k != nil && bytes.HasPrefix(k, p) && len(out) < n; k, _ = c.Prev() {
			if len(k) < len(p)+8 {
				return slotfare.E("runs.Recent", slotfare.Other, "a run index entry is truncated")
			}
			id := string(k[len(p)+8:])
			v := runs.Get(key(resourceID, id))
			if v == nil {
				return slotfare.E("runs.Recent", slotfare.Other, "run "+id+" is indexed but not stored")
			}
			r, err := decodeRun(v)
			if err != nil {
				return slotfare.E("runs.Recent", slotfare.Other, "a stored run does not decode", err)
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, storeErr("runs.Recent", err)
	}
	return out, nil
}

// Close implements Store.
func (b *Bolt) Close() error {
	if err := b.db.Close(); err != nil {
		return slotfare.E("runs.Close", slotfare.Unavailable, err)
	}
	return nil
}

// storeErr passes this package's own errors on and makes any other (the
// file's) Unavailable.
func storeErr(op string, err error) error {
	var e *slotfare.Error
	if errors.As(err, &e) {
		return err
	}
	return slotfare.E(op, slotfare.Unavailable, err)
}
