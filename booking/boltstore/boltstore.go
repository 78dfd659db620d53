// Package boltstore is the service's embedded durable store: one bbolt file
// (go.etcd.io/bbolt, a copy-on-write B+tree with fsync on commit) holding the
// bookings, the ledger's postings, the resources providers configured and the
// offer-signing secret. Concurrent writes are grouped into one transaction
// and one fsync by a single writer goroutine (group commit): while one
// transaction syncs, the next batches queue up and go together in the next
// one, so many clients committing at once share the cost of the sync without
// any added delay. Every Write returns only once its batch is on disk.
//
// Every value is stored behind a CRC-32C of its JSON (internal/recordlog's
// Seal), because bbolt checks its meta pages but not the data: a flipped
// byte that still decodes would otherwise load as a wrong booking or
// amount. Values written before checksums (bare JSON) are accepted if they
// decode. Before bbolt opens the file for writing, Open walks every bucket
// read-only and decodes every value: a damaged file is refused with a
// *recordlog.Damage naming the file and, where it can, the byte offset and
// the record, and is not written to. (bbolt rebuilds its free list on open
// by walking the tree in a goroutine of its own that panics on a bad page;
// the walk first keeps that from taking the process down.)
//
// The package is where slotfare's bbolt code lives: the webhooks' Port
// (webhooks.go, its own file beside the store's) is here too, and the
// runs' and co-reservations' stores in runsbolt and coreservebolt below,
// packages of their own because those domains reach forecast, which the
// store must not.
package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/dirlock"
	"slotfare/booking/events"
	"slotfare/booking/internal/groupcommit"
	"slotfare/ledger"
	"slotfare/ledger/recordlog"
)

var (
	bucketBookings  = []byte("bookings")
	bucketPostings  = []byte("postings")
	bucketResources = []byte("resources")
	bucketRefusals  = []byte("refusals")
	// bucketDemand keeps one record per resource, period instance, class
	// and day (demandKey), added to in place.
	bucketDemand = []byte("demand")
	// bucketKeys holds the API keys created over the API, by name (their
	// hashes only; booking.KeyRecord).
	bucketKeys = []byte("keys")
	bucketMeta = []byte("meta")
	// bucketEvents is the event log (booking/events): sealed CloudEvents
	// JSON under big-endian sequence keys. Load does not read it (a reader
	// pages it, ReadEvents), nor does the walk.
	bucketEvents = []byte("events")
	// buckets are every bucket, in the order a walk reads them.
	buckets = [][]byte{bucketBookings, bucketPostings, bucketResources, bucketRefusals, bucketKeys, bucketDemand, bucketMeta}
	// keySecret holds the offer secret sealed with its checksum;
	// keyOldSecret, the raw secret as stored before checksums, is read
	// only when keySecret is missing.
	keySecret    = []byte("offer_secret.sum")
	keyOldSecret = []byte("offer_secret")
)

// FileName is the database file Open creates in its directory.
const FileName = "slotfare.db"

// Store is a booking.Store in a bbolt file.
type Store struct {
	// keepEvents is how many events the log keeps (events.DefaultKeep
	// when not positive).
	keepEvents atomic.Int64
	db         *bolt.DB
	path       string
	lock       *dirlock.Lock
	writes     *groupcommit.Queue[*request]
	closed     sync.Once
}

// request is one encoded Write waiting for the writer.
type request struct {
	books, res, keys []kv
	posts, refusals  [][]byte
	demand           []booking.DemandWrite
	events           [][]byte
	secret           []byte
}

type kv struct{ k, v []byte }

var _ booking.Store = (*Store)(nil)

// Options tune the store; the zero value is the durable default.
type Options struct{}

// Open opens (creating if needed) the store in directory dir, after locking
// the directory against another process (*dirlock.InUse). A damaged file is
// refused (*recordlog.Damage in the error's chain) and left as it is.
func Open(dir string, o Options) (*Store, error) {
	const op slotfare.Op = "boltstore.Open"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	lock, err := dirlock.Acquire(dir)
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err == nil {
		if _, err := verify(path); err != nil {
			lock.Release()
			return nil, slotfare.E(op, err)
		}
	}
	// The freelist is rebuilt on open rather than written on every commit:
	// less to sync per group, same durability of the data. The directory
	// lock keeps other slotfares out, so bbolt's own lock waits only on a
	// foreign process.
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, NoFreelistSync: true})
	if err != nil {
		lock.Release()
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	// Create the buckets only when missing: a read-write transaction
	// writes a meta page even when it changes nothing.
	missing := false
	err = db.View(func(tx *bolt.Tx) error {
		for _, b := range append(buckets, bucketEvents) {
			missing = missing || tx.Bucket(b) == nil
		}
		return nil
	})
	if err == nil && missing {
		err = db.Update(func(tx *bolt.Tx) error {
			for _, b := range append(buckets, bucketEvents) {
				if _, err := tx.CreateBucketIfNotExists(b); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err != nil {
		db.Close()
		lock.Release()
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	s := &Store{db: db, path: path, lock: lock}
	s.writes = groupcommit.New(s.commit)
	return s, nil
}

// Counts is how many records of each kind a walk decoded.
type Counts struct {
	Bookings, Postings, Resources, Refusals, Keys, Demand int
	Secret                                                bool
}

// Report is what Check found in a store's file.
type Report struct {
	File   string
	Intact Counts            // records decoded before any damage
	Damage *recordlog.Damage // the first damage found, nil if none
	// Consistency lists what bbolt's own check (tx.Check) found; it runs
	// only when the walk found no damage.
	Consistency []string
}

// Check examines the store in dir without writing to it: it walks and
// decodes every record, and when that passes runs bbolt's consistency
// check. The caller holds the directory (dirlock).
func Check(dir string) (Report, error) {
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err != nil {
		return Report{}, err
	}
	rep := Report{File: path}
	n, err := verify(path)
	rep.Intact = n
	if err != nil {
		if !errors.As(err, &rep.Damage) {
			return rep, err
		}
		return rep, nil
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return rep, err
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		for e := range tx.Check() {
			rep.Consistency = append(rep.Consistency, e.Error())
		}
		return nil
	})
	return rep, err
}

// verify opens the file read-only and walks and decodes all of it (see
// walk). Its error is a *recordlog.Damage or a failure to read.
func verify(path string) (Counts, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		if errors.Is(err, berrors.ErrInvalid) || errors.Is(err, berrors.ErrChecksum) || errors.Is(err, berrors.ErrVersionMismatch) ||
			strings.Contains(err.Error(), "file size too small") {
			return Counts{}, &recordlog.Damage{File: path, Offset: 0, Reason: "bbolt cannot open it: " + err.Error()}
		}
		return Counts{}, slotfare.E(slotfare.Unavailable, err)
	}
	defer db.Close()
	var n Counts
	err = walk(db, path, &n, func(string, []byte) error { return nil })
	return n, err
}

// walk decodes every record of db in a read transaction, counting them in n
// and handing each one to use (bucket name, payload). A bad value, a page
// bbolt cannot read (it panics, or faults past the end of a short file) or
// pages beyond the file's end are a *recordlog.Damage.
func walk(db *bolt.DB, path string, n *Counts, use func(bucket string, payload []byte) error) (err error) {
	var where string
	defer func() {
		if p := recover(); p != nil {
			err = &recordlog.Damage{File: path, Offset: -1, Where: where, Reason: fmt.Sprintf("bbolt cannot read its tree: %v", p)}
		}
	}()
	// A damaged page can point past the mapped file; fault as a panic.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	data := db.Info().Data
	return db.View(func(tx *bolt.Tx) error {
		if fi, err := os.Stat(path); err == nil && fi.Size() < tx.Size() {
			return &recordlog.Damage{File: path, Offset: fi.Size(),
				Reason: fmt.Sprintf("the file ends at byte %d but its pages reach byte %d (cut short)", fi.Size(), tx.Size())}
		}
		damaged := func(bucket string, k, v []byte, reason string) error {
			return damageAt(path, data, tx.Size(), bucket, k, v, reason)
		}
		for _, name := range buckets {
			b := tx.Bucket(name)
			if b == nil {
				continue
			}
			bucket := string(name)
			where = bucket
			err := b.ForEach(func(k, v []byte) error {
				where = bucket + "/" + string(k)
				if bucket == string(bucketMeta) && string(k) != string(keySecret) {
					return nil // the secret as stored before checksums: raw bytes
				}
				if sequenced(bucket) && len(k) != 8 {
					return damaged(bucket, k, v, "a key is not a sequence number")
				}
				payload, err := recordlog.Unseal(v)
				if err != nil {
					return damaged(bucket, k, v, err.Error())
				}
				if err := checkRecord(bucket, payload); err != nil {
					return damaged(bucket, k, v, "the record does not decode: "+err.Error())
				}
				n.count(bucket)
				return use(bucket, payload)
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// sequenced reports whether bucket's keys are big-endian sequence numbers
// (records appended, not named).
func sequenced(bucket string) bool {
	return bucket == string(bucketPostings) || bucket == string(bucketRefusals)
}

// damageAt is the damage of record k (value v) of bucket: where the value
// lies in the file (-1 when not in the mapping that starts at data and
// holds size bytes) and its key, a sequence number shown as one.
func damageAt(path string, data uintptr, size int64, bucket string, k, v []byte, reason string) error {
	off := int64(-1)
	if len(v) > 0 {
		if o := int64(uintptr(unsafe.Pointer(&v[0])) - data); o >= 0 && o < size {
			off = o
		}
	}
	key := string(k)
	if sequenced(bucket) && len(k) == 8 {
		key = fmt.Sprint(binary.BigEndian.Uint64(k))
	}
	return &recordlog.Damage{File: path, Offset: off, Where: bucket + "/" + key, Reason: reason}
}

// checkRecord decodes payload as its bucket's record, to find one that
// does not.
func checkRecord(bucket string, payload []byte) error {
	switch bucket {
	case string(bucketBookings):
		return decodes[booking.Record](payload)
	case string(bucketPostings):
		_, err := ledger.DecodePosting(payload)
		return err
	case string(bucketResources):
		return decodes[booking.ResourceRecord](payload)
	case string(bucketRefusals):
		return decodes[booking.RefusalRecord](payload)
	case string(bucketKeys):
		return decodes[booking.KeyRecord](payload)
	case string(bucketDemand):
		return decodes[booking.DemandRecord](payload)
	}
	return nil
}

func decodes[T any](payload []byte) error {
	var r T
	return json.Unmarshal(payload, &r)
}

// count counts a record of bucket.
func (n *Counts) count(bucket string) {
	switch bucket {
	case string(bucketBookings):
		n.Bookings++
	case string(bucketPostings):
		n.Postings++
	case string(bucketResources):
		n.Resources++
	case string(bucketRefusals):
		n.Refusals++
	case string(bucketKeys):
		n.Keys++
	case string(bucketDemand):
		n.Demand++
	case string(bucketMeta):
		n.Secret = true
	}
}

// commit stores a group of queued writes in one transaction (one fsync).
func (s *Store) commit(group []*request) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		added := false
		for _, r := range group {
			if err := put(tx, r); err != nil {
				return err
			}
			added = added || len(r.events) > 0
		}
		if added {
			return trimEvents(tx.Bucket(bucketEvents), s.keepEvents.Load())
		}
		return nil
	})
}

// trimEvents drops the oldest events beyond keep, in the transaction that
// appended: the log never holds much more than its retention.
func trimEvents(b *bolt.Bucket, keep int64) error {
	if keep < 1 {
		keep = events.DefaultKeep
	}
	below := int64(b.Sequence()) - keep
	var old [][]byte
	c := b.Cursor()
	for k, _ := c.First(); k != nil && int64(binary.BigEndian.Uint64(k)) <= below; k, _ = c.Next() {
		old = append(old, append([]byte(nil), k...))
	}
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// ReadEvents implements events.Reader: the log is one sequence, read in
// one read transaction.
func (s *Store) ReadEvents(ctx context.Context, streams []string, after events.Cursor, limit int) ([]events.Logged, error) {
	const op slotfare.Op = "boltstore.ReadEvents"
	from, _ := strconv.ParseUint(after[""], 10, 64)
	var out []events.Logged
	err := s.db.View(func(tx *bolt.Tx) error {
		var k [8]byte
		binary.BigEndian.PutUint64(k[:], from+1)
		c := tx.Bucket(bucketEvents).Cursor()
		for key, v := c.Seek(k[:]); key != nil && len(out) < limit; key, v = c.Next() {
			payload, err := recordlog.Unseal(v)
			if err != nil {
				return err
			}
			var e events.Event
			if err := json.Unmarshal(payload, &e); err != nil {
				return err
			}
			out = append(out, events.Logged{Pos: strconv.FormatUint(binary.BigEndian.Uint64(key), 10), Event: e})
		}
		return nil
	})
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	return out, nil
}

// KeepEvents implements events.Keeper.
func (s *Store) KeepEvents(n int) { s.keepEvents.Store(int64(n)) }

// bookingsFill is how full a split leaves a bookings page: ids grow with
// time, so most pages are never added to again, and a record rewritten
// (held, then committed) rarely grows much.
const bookingsFill = 0.9

func put(tx *bolt.Tx, r *request) error {
	bb := tx.Bucket(bucketBookings)
	bb.FillPercent = bookingsFill
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
	if err := appendSeq(tx.Bucket(bucketEvents), r.events); err != nil {
		return err
	}
	rb := tx.Bucket(bucketResources)
	for _, x := range r.res {
		if err := rb.Put(x.k, x.v); err != nil {
			return err
		}
	}
	kb := tx.Bucket(bucketKeys)
	for _, x := range r.keys {
		if err := kb.Put(x.k, x.v); err != nil {
			return err
		}
	}
	for _, w := range r.demand {
		if err := countDemand(tx.Bucket(bucketDemand), w); err != nil {
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
	// Keys only grow, so a page split at the end is never written again
	// below: filled whole, the log takes half the pages it would at
	// bbolt's default (half full).
	b.FillPercent = 1
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

// appendJSON decodes payload, one JSON record, onto the end of dst.
func appendJSON[T any](dst *[]T, payload []byte) error {
	var r T
	if err := json.Unmarshal(payload, &r); err != nil {
		return err
	}
	*dst = append(*dst, r)
	return nil
}

// Load reads everything back: postings in append order (their keys are a
// big-endian sequence), bookings and resources by id. A damaged record is a
// *recordlog.Damage.
func (s *Store) Load(ctx context.Context) (booking.State, error) {
	const op slotfare.Op = "boltstore.Load"
	var st booking.State
	var n Counts
	err := walk(s.db, s.path, &n, func(bucket string, payload []byte) error {
		switch bucket {
		case string(bucketBookings):
			return appendJSON(&st.Bookings, payload)
		case string(bucketPostings):
			p, err := ledger.DecodePosting(payload)
			if err != nil {
				return err
			}
			st.Postings = append(st.Postings, p)
		case string(bucketResources):
			return appendJSON(&st.Resources, payload)
		case string(bucketRefusals):
			return appendJSON(&st.Refusals, payload)
		case string(bucketKeys):
			return appendJSON(&st.Keys, payload)
		case string(bucketDemand):
			return appendJSON(&st.Demand, payload)
		case string(bucketMeta):
			st.Secret = append([]byte(nil), payload...)
		}
		return nil
	})
	if err == nil && st.Secret == nil {
		err = s.db.View(func(tx *bolt.Tx) error {
			if v := tx.Bucket(bucketMeta).Get(keyOldSecret); v != nil {
				st.Secret = append([]byte(nil), v...)
			}
			return nil
		})
	}
	if err != nil {
		var d *recordlog.Damage
		if errors.As(err, &d) {
			return booking.State{}, slotfare.E(op, slotfare.Other, err)
		}
		return booking.State{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	return st, nil
}

// Write stores b in one transaction, shared with the writes queued at the
// same time, and returns once it is synced.
func (s *Store) Write(ctx context.Context, b booking.Batch) error {
	const op slotfare.Op = "boltstore.Write"
	// Encode here, in the caller's goroutine: the writer only copies.
	r := &request{}
	if b.Secret != nil {
		r.secret = recordlog.Seal(nil, b.Secret)
	}
	// Records and postings are written behind the room for their
	// checksum and sealed where they lie.
	for _, x := range b.Bookings {
		v, err := x.AppendJSON(recordlog.Reserve(booking.NewRecordBuffer()))
		if err != nil {
			return slotfare.E(op, slotfare.Other, err)
		}
		recordlog.SealAt(v, 0)
		r.books = append(r.books, kv{[]byte(x.Booking.ID), v})
	}
	for _, p := range b.Postings {
		v := ledger.AppendPosting(recordlog.Reserve(make([]byte, 0, 320+96*len(p.Lines))), p)
		recordlog.SealAt(v, 0)
		r.posts = append(r.posts, v)
	}
	for _, x := range b.Resources {
		v, err := json.Marshal(x)
		if err != nil {
			return slotfare.E(op, slotfare.Other, err)
		}
		r.res = append(r.res, kv{[]byte(x.ID), recordlog.Seal(nil, v)})
	}
	for _, x := range b.Refusals {
		v, err := json.Marshal(x)
		if err != nil {
			return slotfare.E(op, slotfare.Other, err)
		}
		r.refusals = append(r.refusals, recordlog.Seal(nil, v))
	}
	for _, e := range b.Events {
		r.events = append(r.events, recordlog.Seal(nil, e))
	}
	for _, x := range b.Keys {
		v, err := json.Marshal(x)
		if err != nil {
			return slotfare.E(op, slotfare.Other, err)
		}
		r.keys = append(r.keys, kv{[]byte(x.Name), recordlog.Seal(nil, v)})
	}
	r.demand = b.Demand
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

// Close finishes the queued writes, stops the writer, closes the file and
// frees the directory; Writes after Close fail.
func (s *Store) Close() error {
	var err error
	s.closed.Do(func() {
		s.writes.Close()
		if e := s.db.Close(); e != nil {
			err = slotfare.E(slotfare.Op("boltstore.Close"), slotfare.Unavailable, e)
		}
		if e := s.lock.Release(); e != nil && err == nil {
			err = slotfare.E(slotfare.Op("boltstore.Close"), slotfare.Unavailable, e)
		}
	})
	return err
}

// demandKey orders a resource's demand records by instance: the resource,
// the instance's unix seconds in 16 hex digits, then class and day.
func demandKey(r booking.DemandRecord) []byte {
	return fmt.Appendf(nil, "%s\x00%016x\x00%s\x00%s", r.Resource, uint64(r.Instance.Unix()), r.Class, r.Day.UTC().Format(time.DateOnly))
}

// countDemand adds w's records to those stored under the same key, then
// deletes the resource's records of instances before w.Forget: read,
// added and written in the transaction of the group's commit.
func countDemand(b *bolt.Bucket, w booking.DemandWrite) error {
	for _, r := range w.Records {
		k := demandKey(r)
		sum := booking.DemandRecord{Resource: r.Resource, Class: r.Class, Period: r.Period, Instance: r.Instance.UTC(), Day: r.Day.UTC()}
		if v := b.Get(k); v != nil {
			payload, err := recordlog.Unseal(v)
			if err != nil {
				return err
			}
			if err := json.Unmarshal(payload, &sum); err != nil {
				return err
			}
		}
		sum.Counts = sum.Counts.Add(r.Counts)
		v, err := json.Marshal(sum)
		if err != nil {
			return err
		}
		if err := b.Put(k, recordlog.Seal(nil, v)); err != nil {
			return err
		}
	}
	if w.Forget.IsZero() {
		return nil
	}
	prefix := []byte(w.Resource + "\x00")
	end := demandKey(booking.DemandRecord{Resource: w.Resource, Instance: w.Forget})
	var old [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && bytes.Compare(k, end) < 0; k, _ = c.Next() {
		old = append(old, bytes.Clone(k))
	}
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
