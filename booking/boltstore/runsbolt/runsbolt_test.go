package runsbolt

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"slotfare/booking/internal/runstest"
	"slotfare/booking/runs"
)

// TestStoreContract runs runs.Store's contract on a bbolt file, reopening
// it as another process would.
func TestStoreContract(t *testing.T) {
	runstest.Contract(t, func(t *testing.T) (runs.Store, func() runs.Store) {
		dir := t.TempDir()
		b, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return b, func() runs.Store {
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			b2, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b2.Close() })
			return b2
		}
	})
}

// BenchmarkPredict: runstest.BenchPredict on a bbolt file.
func BenchmarkPredict(b *testing.B) {
	st, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	runstest.BenchPredict(b, st)
}

// TestIndexesOlderFile: a runs.db written before the limits' indexes
// (runs, profile and transfers buckets only) is indexed as it is opened,
// so that its runs count toward Kept and age out like new ones.
func TestIndexesOlderFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for i, finished := range []time.Duration{-30 * 24 * time.Hour, -2 * time.Hour, -time.Hour} {
			r := runs.Run{ID: fmt.Sprint("old", i), Profile: "blast", ResourceID: "RAL", Runtime: time.Minute, FinishedAt: t0.Add(finished), AccountID: "alice"}
			data, err := json.Marshal(r)
			if err != nil {
				return err
			}
			for _, kv := range [][2][]byte{{runsBucket, key(r.ResourceID, r.ID)}, {profileBucket, orderKey(key(r.ResourceID, r.Profile), r)}} {
				b, err := tx.CreateBucketIfNotExists(kv[0])
				if err != nil {
					return err
				}
				if err := b.Put(kv[1], data); err != nil {
					return err
				}
			}
		}
		_, err := tx.CreateBucketIfNotExists(transfersBucket)
		return err
	})
	if err != nil || db.Close() != nil {
		t.Fatal(err)
	}
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := runs.Run{ID: "new", Profile: "blast", ResourceID: "RAL", Runtime: time.Minute, FinishedAt: t0, AccountID: "alice", RecordedAt: t0}
	if _, created, err := st.Append(ctx, r, runs.Limits{Kept: 2, MaxAge: 7 * 24 * time.Hour}); err != nil || !created {
		t.Fatalf("append: %v %v", created, err)
	}
	if rs, err := st.Recent(ctx, "RAL", "blast", 10); err != nil || runstest.IDs(rs) != "new old2 " {
		t.Fatalf("recent: %q %v", runstest.IDs(rs), err)
	}
}
