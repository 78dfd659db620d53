// Package runsbolt is booking/runs' Store in a bbolt file of the data
// directory. It is a package of its own beside booking/boltstore because
// runs reaches forecast (its predictions), which the booking stores must
// not depend on (booking/deps_test.go).
package runsbolt

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
	"slotfare/booking/runs"
)

// FileName is the store's file in the data directory, beside the
// booking store's and the co-reservations' files.
const FileName = "runs.db"

var (
	runsBucket      = []byte("runs")      // resource \0 run id -> run JSON
	profileBucket   = []byte("profile")   // resource \0 profile \0 finished id -> ""
	transfersBucket = []byte("transfers") // resource \0 finished id -> ""
	finishedBucket  = []byte("finished")  // resource \0 finished id -> "": every run, for the age limit
	accountBucket   = []byte("account")   // resource \0 account \0 finished id -> "": for runs.Limits.Kept
	keptBucket      = []byte("kept")      // resource \0 account -> runs kept (8 bytes, big endian)
	postedBucket    = []byte("posted")    // resource \0 account \0 recorded id -> "": the last hour's, for runs.Limits.PerHour
)

// Store is a runs.Store in a bbolt file. Each run is stored under its resource
// and id, with two index entries ordered by finished_at (8 bytes, big
// endian) then id: one per resource and profile, one per resource for runs
// that moved data; Recent and Transfers walk an index backwards from its
// end, so a read costs the n runs it returns. An Append is one bbolt
// transaction, synced before it returns; concurrent Appends share one
// (bbolt's Batch). The same transaction keeps the runs.Limits: an index of
// every run by finish (the age limit), one per account (the runs it
// keeps, with their count) and one of when each account's runs were
// recorded in the last hour (the rate).
type Store struct{ db *bolt.DB }

var _ runs.Store = (*Store)(nil)

// Open opens (creating if missing) dir's FileName.
func Open(dir string) (*Store, error) {
	const op slotfare.Op = "runsbolt.Open"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		indexed := tx.Bucket(finishedBucket) != nil
		for _, b := range [][]byte{runsBucket, profileBucket, transfersBucket, finishedBucket, accountBucket, keptBucket, postedBucket} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		if indexed {
			return nil
		}
		return indexLimits(tx)
	})
	if err != nil {
		if cerr := db.Close(); cerr != nil {
			err = slotfare.E(op, err, cerr.Error())
		}
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	return &Store{db: db}, nil
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
func orderKey(prefix []byte, r runs.Run) []byte {
	k := append(append([]byte{}, prefix...), 0)
	k = binary.BigEndian.AppendUint64(k, uint64(r.FinishedAt.UnixMilli())^(1<<63))
	return append(k, r.ID...)
}

// Append implements runs.Store.
func (b *Store) Append(ctx context.Context, r runs.Run, lim runs.Limits) (runs.Run, bool, error) {
	r, err := runs.CheckAppend(r, lim)
	if err != nil {
		return runs.Run{}, false, err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return runs.Run{}, false, slotfare.E(slotfare.Op("runsbolt.Append"), slotfare.Other, err)
	}
	var stored runs.Run
	created := false
	err = b.db.Batch(func(tx *bolt.Tx) error {
		created = false
		rk := key(r.ResourceID, r.ID)
		if v := tx.Bucket(runsBucket).Get(rk); v != nil {
			if err := json.Unmarshal(v, &stored); err != nil {
				return slotfare.E(slotfare.Op("runsbolt.Append"), slotfare.Other, "a stored run does not decode", err)
			}
			return runs.CheckRetry(stored, r)
		}
		if lim.PerHour > 0 {
			if err := countPosted(tx, r, lim); err != nil {
				return err
			}
		}
		if err := tx.Bucket(runsBucket).Put(rk, data); err != nil {
			return err
		}
		if err := putIndexes(tx, r); err != nil {
			return err
		}
		if err := pruneBolt(tx, r, lim); err != nil {
			return err
		}
		stored, created = r, true
		return nil
	})
	if err != nil {
		return runs.Run{}, false, storeErr("runsbolt.Append", err)
	}
	return stored, created, nil
}

// putIndexes enters stored run r in every index and counts it among its
// account's.
func putIndexes(tx *bolt.Tx, r runs.Run) error {
	puts := []struct {
		bucket, key []byte
	}{
		{profileBucket, orderKey(key(r.ResourceID, r.Profile), r)},
		{finishedBucket, orderKey(key(r.ResourceID), r)},
		{accountBucket, orderKey(key(r.ResourceID, r.AccountID), r)},
	}
	if r.HasTransfer() {
		puts = append(puts, struct{ bucket, key []byte }{transfersBucket, orderKey(key(r.ResourceID), r)})
	}
	for _, p := range puts {
		if err := tx.Bucket(p.bucket).Put(p.key, nil); err != nil {
			return err
		}
	}
	return addKept(tx, r, 1)
}

// addKept adds d to the count of r's account's runs on its resource.
func addKept(tx *bolt.Tx, r runs.Run, d int64) (err error) {
	k := key(r.ResourceID, r.AccountID)
	n := int64(0)
	if v := tx.Bucket(keptBucket).Get(k); len(v) == 8 {
		n = int64(binary.BigEndian.Uint64(v))
	}
	if n += d; n <= 0 {
		return tx.Bucket(keptBucket).Delete(k)
	}
	return tx.Bucket(keptBucket).Put(k, binary.BigEndian.AppendUint64(nil, uint64(n)))
}

// forget deletes stored run r and its index entries.
func forget(tx *bolt.Tx, r runs.Run) error {
	dels := []struct {
		bucket, key []byte
	}{
		{runsBucket, key(r.ResourceID, r.ID)},
		{profileBucket, orderKey(key(r.ResourceID, r.Profile), r)},
		{transfersBucket, orderKey(key(r.ResourceID), r)},
		{finishedBucket, orderKey(key(r.ResourceID), r)},
		{accountBucket, orderKey(key(r.ResourceID, r.AccountID), r)},
	}
	for _, d := range dels {
		if err := tx.Bucket(d.bucket).Delete(d.key); err != nil {
			return err
		}
	}
	return addKept(tx, r, -1)
}

// countPosted drops r's account's recordings on its resource that left
// the hour, then counts r among them or refuses it.
func countPosted(tx *bolt.Tx, r runs.Run, lim runs.Limits) error {
	prefix := append(key(r.ResourceID, r.AccountID), 0)
	c := tx.Bucket(postedBucket).Cursor()
	since := r.RecordedAt.Add(-runs.QuotaWindow).UnixMilli()
	n := 0
	var first int64
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); {
		if len(k) < len(prefix)+8 {
			return slotfare.E(slotfare.Op("runsbolt.Append"), slotfare.Other, "a posted entry is truncated")
		}
		at := int64(binary.BigEndian.Uint64(k[len(prefix):]) ^ (1 << 63))
		if at <= since {
			if err := c.Delete(); err != nil {
				return err
			}
			k, _ = c.Seek(prefix)
			continue
		}
		if n == 0 {
			first = at
		}
		n++
		k, _ = c.Next()
	}
	if n >= lim.PerHour {
		return runs.OverQuota(r, lim, n, time.UnixMilli(first))
	}
	posted := runs.Run{ID: r.ID, FinishedAt: r.RecordedAt} // ordered by when it was recorded
	return tx.Bucket(postedBucket).Put(orderKey(key(r.ResourceID, r.AccountID), posted), nil)
}

// pruneBolt deletes the runs of r's account beyond lim.Kept and up to
// runs.PruneBatch runs of r's resource past lim.MaxAge, earliest finished
// first.
func pruneBolt(tx *bolt.Tx, r runs.Run, lim runs.Limits) error {
	if lim.Kept > 0 {
		n := int64(0)
		if v := tx.Bucket(keptBucket).Get(key(r.ResourceID, r.AccountID)); len(v) == 8 {
			n = int64(binary.BigEndian.Uint64(v))
		}
		if over := n - int64(lim.Kept); over > 0 {
			if err := forgetEarliest(tx, accountBucket, key(r.ResourceID, r.AccountID), r.ResourceID, int(over), time.Time{}); err != nil {
				return err
			}
		}
	}
	if c := lim.Cutoff(r.RecordedAt); !c.IsZero() {
		return forgetEarliest(tx, finishedBucket, key(r.ResourceID), r.ResourceID, runs.PruneBatch, c)
	}
	return nil
}

// forgetEarliest forgets up to n runs of resourceID under prefix in index
// (accountBucket or finishedBucket), earliest finished first, stopping at
// the first that finished at or after before when it is not zero.
func forgetEarliest(tx *bolt.Tx, index, prefix []byte, resourceID string, n int, before time.Time) error {
	p := append(append([]byte{}, prefix...), 0)
	var victims []runs.Run
	c := tx.Bucket(index).Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(victims) < n; k, _ = c.Next() {
		if len(k) < len(p)+8 {
			return slotfare.E(slotfare.Op("runsbolt.Append"), slotfare.Other, "a run index entry is truncated")
		}
		at := int64(binary.BigEndian.Uint64(k[len(p):]) ^ (1 << 63))
		if !before.IsZero() && at >= before.UnixMilli() {
			break
		}
		v := tx.Bucket(runsBucket).Get(key(resourceID, string(k[len(p)+8:])))
		if v == nil {
			return slotfare.E(slotfare.Op("runsbolt.Append"), slotfare.Other, "run "+string(k[len(p)+8:])+" is indexed but not stored")
		}
		old, err := runs.DecodeRun(v)
		if err != nil {
			return slotfare.E(slotfare.Op("runsbolt.Append"), slotfare.Other, "a stored run does not decode", err)
		}
		victims = append(victims, old)
	}
	for _, v := range victims {
		if err := forget(tx, v); err != nil {
			return err
		}
	}
	return nil
}

// indexLimits enters the runs a file kept before it had the limits'
// indexes in them, once, as it is opened.
func indexLimits(tx *bolt.Tx) error {
	return tx.Bucket(runsBucket).ForEach(func(_, v []byte) error {
		r, err := runs.DecodeRun(v)
		if err != nil {
			return slotfare.E(slotfare.Op("runsbolt.Open"), slotfare.Other, "a stored run does not decode", err)
		}
		if err := tx.Bucket(finishedBucket).Put(orderKey(key(r.ResourceID), r), nil); err != nil {
			return err
		}
		if err := tx.Bucket(accountBucket).Put(orderKey(key(r.ResourceID, r.AccountID), r), nil); err != nil {
			return err
		}
		return addKept(tx, r, 1)
	})
}

// Recent implements runs.Store.
func (b *Store) Recent(ctx context.Context, resourceID, profile string, n int) ([]runs.Run, error) {
	return b.newest(profileBucket, key(resourceID, profile), resourceID, n)
}

// Transfers implements runs.Store.
func (b *Store) Transfers(ctx context.Context, resourceID string, n int) ([]runs.Run, error) {
	return b.newest(transfersBucket, key(resourceID), resourceID, n)
}

// newest walks index entries under prefix \0 backwards and reads each run.
func (b *Store) newest(index, prefix []byte, resourceID string, n int) ([]runs.Run, error) {
	if n < 1 {
		return nil, nil
	}
	p := append(append([]byte{}, prefix...), 0)
	end := append(append([]byte{}, prefix...), 1)
	var out []runs.Run
	err := b.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(index).Cursor()
		k, _ := c.Seek(end)
		if k == nil {
			k, _ = c.Last()
		} else {
			k, _ = c.Prev()
		}
		stored := tx.Bucket(runsBucket)
		for ; k != nil && bytes.HasPrefix(k, p) && len(out) < n; k, _ = c.Prev() {
			if len(k) < len(p)+8 {
				return slotfare.E(slotfare.Op("runsbolt.Recent"), slotfare.Other, "a run index entry is truncated")
			}
			id := string(k[len(p)+8:])
			v := stored.Get(key(resourceID, id))
			if v == nil {
				return slotfare.E(slotfare.Op("runsbolt.Recent"), slotfare.Other, "run "+id+" is indexed but not stored")
			}
			r, err := runs.DecodeRun(v)
			if err != nil {
				return slotfare.E(slotfare.Op("runsbolt.Recent"), slotfare.Other, "a stored run does not decode", err)
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, storeErr("runsbolt.Recent", err)
	}
	return out, nil
}

// Close implements runs.Store.
func (b *Store) Close() error {
	if err := b.db.Close(); err != nil {
		return slotfare.E(slotfare.Op("runsbolt.Close"), slotfare.Unavailable, err)
	}
	return nil
}

// storeErr passes this package's own errors on and makes any other (the
// file's) Unavailable.
func storeErr(op slotfare.Op, err error) error {
	var e *slotfare.Error
	if errors.As(err, &e) {
		return err
	}
	return slotfare.E(op, slotfare.Unavailable, err)
}
