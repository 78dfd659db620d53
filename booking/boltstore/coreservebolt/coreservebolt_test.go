package coreservebolt

import (
	"context"
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"slotfare/booking/coreserve"
	"slotfare/booking/internal/coreservetest"
)

// TestStoreContract runs coreserve.Store's contract on a bbolt file,
// reopening it as another process would.
func TestStoreContract(t *testing.T) {
	coreservetest.Contract(t, func(t *testing.T) (coreserve.Store, func() coreserve.Store) {
		dir := t.TempDir()
		b, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return b, func() coreserve.Store {
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

// TestFilesRecordsWrittenBeforeTheIndex: a file written before the
// due index has its unsettled records filed when it is opened, due at once.
func TestFilesRecordsWrittenBeforeTheIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	unsettled, settled, data := coreservetest.LegacyRecords(t)
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucket(boltBucket)
		if err != nil {
			return err
		}
		for i, id := range []string{unsettled.ID, settled.ID} {
			val := binary.BigEndian.AppendUint64(nil, 2)
			if err := bk.Put([]byte(id), append(val, data[i]...)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, err := st.Due(ctx, unsettled.UpdatedAt, 10, unsettled.UpdatedAt.Add(time.Minute))
	if err != nil || len(recs) != 1 || recs[0].ID != unsettled.ID || recs[0].Version != 2 {
		t.Fatalf("due after the open: %v %+v, want %s", err, recs, unsettled.ID)
	}
}
