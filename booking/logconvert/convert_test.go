package logconvert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/dirlock"
	"slotfare/booking/internal/storetest"
	"slotfare/ledger"
	"slotfare/ledger/recordlog"
)

// v0Log is a log the log store wrote (booking/service/testdata/v0, made by
// the code before package booking was split).
var v0Log = filepath.Join("..", "service", "testdata", "v0", "log", FileName)

// withLog returns a new data directory holding log.
func withLog(t *testing.T, log []byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), log, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// loadBolt opens the bbolt store in dir and loads it.
func loadBolt(t *testing.T, dir string) booking.State {
	t.Helper()
	s, err := boltstore.Open(dir, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestConvertsTheV0Log: the v0 log's records all land in the bbolt store
// (two resources, one retired; two keys; a committed booking with its
// charge and a hold; the offer secret), store check's walk passes, the log
// is kept byte for byte as slotfare.log.converted, and nothing of the
// conversion's working directory is left.
func TestConvertsTheV0Log(t *testing.T) {
	orig := readFile(t, v0Log)
	dir := withLog(t, orig)
	res, err := Convert(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := boltstore.Counts{Bookings: 2, Postings: 1, Resources: 2, Keys: 2, Secret: true}
	if res.Counts != want || res.Log.Records != 9 || res.Log.Torn != 0 {
		t.Fatalf("counts %+v, log %+v; want %+v from 9 batches", res.Counts, res.Log, want)
	}
	if res.Store != filepath.Join(dir, boltstore.FileName) || res.Kept != filepath.Join(dir, ConvertedName) {
		t.Fatalf("%+v", res)
	}
	if got := readFile(t, res.Kept); !bytes.Equal(got, orig) {
		t.Fatal("the kept log differs from the log")
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the log is still under its name: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, building)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the working directory is left: %v", err)
	}
	rep, err := boltstore.Check(dir)
	if err != nil || rep.Damage != nil || len(rep.Consistency) > 0 || rep.Intact != want {
		t.Fatalf("store check: %+v, %v", rep, err)
	}
	fromLog, _, err := Read(res.Kept)
	if err != nil {
		t.Fatal(err)
	}
	if err := same(fromLog, loadBolt(t, dir)); err != nil {
		t.Fatal(err)
	}
}

// TestConvertOnce: a second conversion finds no log (NotFound); with the
// log put back beside the converted store it refuses (Conflict) and changes
// neither file.
func TestConvertOnce(t *testing.T) {
	orig := readFile(t, v0Log)
	dir := withLog(t, orig)
	if _, err := Convert(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	if _, err := Convert(context.Background(), dir); slotfare.KindOf(err) != slotfare.NotFound || !strings.Contains(err.Error(), "holds no slotfare.log") {
		t.Fatalf("second conversion: %v", err)
	}
	if err := os.Rename(filepath.Join(dir, ConvertedName), filepath.Join(dir, FileName)); err != nil {
		t.Fatal(err)
	}
	db := readFile(t, filepath.Join(dir, boltstore.FileName))
	_, err := Convert(context.Background(), dir)
	if slotfare.KindOf(err) != slotfare.Conflict || !strings.Contains(err.Error(), "holds data already (2 bookings, 1 postings") {
		t.Fatalf("conversion onto a store with data: %v", err)
	}
	if !bytes.Equal(readFile(t, filepath.Join(dir, boltstore.FileName)), db) || !bytes.Equal(readFile(t, filepath.Join(dir, FileName)), orig) {
		t.Fatal("a refused conversion changed a file")
	}
}

// TestEmptyStoreReplaced: a bbolt store with no record and no secret (what
// opening one creates) is no data to keep, and is replaced.
func TestEmptyStoreReplaced(t *testing.T) {
	dir := withLog(t, readFile(t, v0Log))
	s, err := boltstore.Open(dir, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	res, err := Convert(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if st := loadBolt(t, dir); len(st.Bookings) != 2 || res.Counts.Bookings != 2 {
		t.Fatalf("%d bookings loaded, %+v", len(st.Bookings), res.Counts)
	}
}

// TestDamagedLogRefused: a flipped byte in the second batch stops the
// conversion before anything is written, naming the file and the offset;
// the log stays as it was, under its name.
func TestDamagedLogRefused(t *testing.T) {
	orig := readFile(t, v0Log)
	damaged := bytes.Clone(orig)
	second := bytes.IndexByte(orig, '\n') + 1
	damaged[second+30] ^= 0x04
	dir := withLog(t, damaged)
	_, err := Convert(context.Background(), dir)
	var d *recordlog.Damage
	if !errors.As(err, &d) || d.Offset != int64(second) || d.Line != 2 || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("conversion of a damaged log: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, boltstore.FileName)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a bbolt store was made: %v", err)
	}
	if !bytes.Equal(readFile(t, filepath.Join(dir, FileName)), damaged) {
		t.Fatal("the damaged log changed")
	}
}

// TestTornTailLeftOut: a last batch a crash cut short was never
// acknowledged; the log store cut it off on open, the conversion leaves it
// out and says so, and keeps the log with it.
func TestTornTailLeftOut(t *testing.T) {
	orig := readFile(t, v0Log)
	torn := append(bytes.Clone(orig), `0badc0de {"b":[{"booking":{"booking_id":"torn"`...)
	dir := withLog(t, torn)
	res, err := Convert(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Log.Torn == 0 || res.Log.Intact != int64(len(orig)) || res.Counts.Bookings != 2 {
		t.Fatalf("%+v", res)
	}
	if !bytes.Equal(readFile(t, res.Kept), torn) {
		t.Fatal("the kept log lost its torn tail")
	}
}

// TestDirectoryInUse: while another holder has the directory's lock (a
// server), the conversion refuses with *dirlock.InUse and writes nothing.
func TestDirectoryInUse(t *testing.T) {
	dir := withLog(t, readFile(t, v0Log))
	lock, err := dirlock.Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	_, err = Convert(context.Background(), dir)
	var inUse *dirlock.InUse
	if !errors.As(err, &inUse) {
		t.Fatalf("conversion of a directory in use: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, boltstore.FileName)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a bbolt store was made: %v", err)
	}
}

// TestLatestRecordsWin: a log whose first lines were written before
// checksums, then batches that replace a booking, a resource and a key and
// the secret, append postings and refusals: the store gets the latest
// record of each and every posting and refusal in order.
func TestLatestRecordsWin(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	l, _ := ledger.New(ledger.Options{})
	ref := ledger.BookingRef{ID: "a", Customer: "alice", Resource: "RAL", Currency: "GRD"}
	charge, err := l.Charge(ref, decimal.RequireFromString("3.50"), t0)
	if err != nil {
		t.Fatal(err)
	}
	key := booking.KeyRecord{Name: "k", KeySHA256: booking.HashKey("k"), Role: booking.RoleUser, AccountID: "alice", VO: "1", CreatedAt: t0}
	revoked := key
	revokedAt := t0.Add(time.Hour)
	revoked.RevokedAt = &revokedAt
	refusal := func(class string) booking.RefusalRecord {
		return booking.RefusalRecord{Resource: "RAL", Class: class, Start: t0, End: t0.Add(time.Hour), At: t0}
	}
	var log []byte
	for i, b := range []line{
		{Secret: []byte("old"), Keys: []booking.KeyRecord{key}},
		{Bookings: []booking.Record{storetest.Record("a", booking.Held)}, Resources: []booking.ResourceRecord{storetest.ResourceRecord("X", nil)}},
		{Bookings: []booking.Record{storetest.Record("a", booking.Committed), storetest.Record("b", booking.Held)}, Postings: []json.RawMessage{encode(t, charge)}},
		{Refusals: []booking.RefusalRecord{refusal("budget"), refusal("premium")}, Keys: []booking.KeyRecord{revoked}},
		{Resources: []booking.ResourceRecord{storetest.ResourceRecord("X", &revokedAt)}, Secret: []byte("new")},
	} {
		p, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if i < 2 { // the format before checksums
			log = append(append(log, p...), '\n')
		} else {
			log = recordlog.Append(log, p)
		}
	}
	dir := withLog(t, log)
	res, err := Convert(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := (boltstore.Counts{Bookings: 2, Postings: 1, Resources: 1, Refusals: 2, Keys: 1, Secret: true}); res.Counts != want || res.Log.Legacy != 2 {
		t.Fatalf("%+v, want %+v", res, want)
	}
	st := loadBolt(t, dir)
	for _, r := range st.Bookings {
		if r.Booking.ID == "a" && r.Booking.Status != booking.Committed {
			t.Errorf("booking a: %s, want its latest record (committed)", r.Booking.Status)
		}
	}
	if st.Keys[0].RevokedAt == nil || st.Resources[0].RetiredAt == nil || string(st.Secret) != "new" {
		t.Errorf("not the latest: key %+v, resource %+v, secret %q", st.Keys[0], st.Resources[0], st.Secret)
	}
	if st.Refusals[0].Class != "budget" || st.Refusals[1].Class != "premium" || st.Postings[0].ID != charge.ID || !st.Postings[0].CustomerAmount().Equal(charge.CustomerAmount()) {
		t.Errorf("refusals %+v, postings %+v", st.Refusals, st.Postings)
	}
}

func encode(t *testing.T, p ledger.Posting) json.RawMessage {
	t.Helper()
	b, err := ledger.EncodePosting(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEarlierAttemptCleared: what a conversion cut short left (its working
// directory, with a part-written store) is not data: the next conversion
// clears it and succeeds.
func TestEarlierAttemptCleared(t *testing.T) {
	dir := withLog(t, readFile(t, v0Log))
	left := filepath.Join(dir, building)
	if err := os.MkdirAll(left, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, boltstore.FileName), []byte("half a store"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Convert(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); !errors.Is(err, fs.ErrNotExist) || res.Counts.Bookings != 2 {
		t.Fatalf("working directory: %v; %+v", err, res.Counts)
	}
}
