package boltstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"slotfare/booking"
	"slotfare/booking/dirlock"
	"slotfare/booking/internal/storetest"
)

func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(dir string) (booking.Store, error) { return Open(dir, Options{}) })
}

func TestCorruption(t *testing.T) {
	storetest.RunCorruption(t, func(dir string) (booking.Store, error) { return Open(dir, Options{}) }, storetest.Damaged{File: FileName})
}

// TestSecondOpenInUse: a second store on the same directory is refused at
// once (not after bbolt's lock timeout), naming the holder's pid.
func TestSecondOpenInUse(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = Open(dir, Options{})
	var inUse *dirlock.InUse
	if !errors.As(err, &inUse) || inUse.PID != os.Getpid() || inUse.Dir != dir {
		t.Fatalf("second Open: %v", err)
	}
}

// TestOldFormat: a file written before checksums (bare JSON values, the raw
// secret) loads; new writes are sealed and the file loads again.
func TestOldFormat(t *testing.T) {
	dir := t.TempDir()
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := storetest.Record("old", booking.Held).AppendJSON(nil)
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketBookings, bucketPostings, bucketResources, bucketMeta} {
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		if err := tx.Bucket(bucketBookings).Put([]byte("old"), old); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keyOldSecret, []byte{0x7b, 0, 1, 2})
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Load(context.Background())
	if err != nil || len(st.Bookings) != 1 || string(st.Secret) != "\x7b\x00\x01\x02" {
		t.Fatalf("%+v %v", st, err)
	}
	if err := s.Write(context.Background(), booking.Batch{Bookings: []booking.Record{storetest.Record("new", booking.Held)}, Secret: []byte("fresh")}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	rep, err := Check(dir)
	if err != nil || rep.Damage != nil || len(rep.Consistency) != 0 || rep.Intact.Bookings != 2 || !rep.Intact.Secret {
		t.Fatalf("%+v %v", rep, err)
	}
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err = s.Load(context.Background())
	if err != nil || len(st.Bookings) != 2 || string(st.Secret) != "fresh" {
		t.Fatalf("%+v %v", st, err)
	}
}
