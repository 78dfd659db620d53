package logstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"slotfare/booking"
	"slotfare/booking/dirlock"
	"slotfare/booking/internal/storetest"
	"slotfare/ledger/recordlog"
)

func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(dir string) (booking.Store, error) { return Open(dir) })
}

// TestTornTail: a batch torn by a crash (a partial last line) is cut off on
// open; everything before it loads and later writes append after it.
func TestTornTail(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{storetest.Record("a", booking.Held)}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"b":[{"booking":{"booking_id":"torn"`)
	f.Close()
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{storetest.Record("b", booking.Held)}}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if len(st.Bookings) != 2 || st.Bookings[0].Booking.ID != "a" || st.Bookings[1].Booking.ID != "b" {
		t.Fatalf("%+v", st.Bookings)
	}
}

func TestCorruption(t *testing.T) {
	storetest.RunCorruption(t, func(dir string) (booking.Store, error) { return Open(dir) }, storetest.Damaged{File: FileName, CutsTornTail: true})
}

// writeN writes n one-booking batches l000, l001, ... and closes the store.
func writeN(t *testing.T, dir string, n int) {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := s.Write(context.Background(), booking.Batch{Bookings: []booking.Record{storetest.Record(fmt.Sprintf("l%03d", i), booking.Held)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// lineStarts are the offsets where each line of the log begins.
func lineStarts(b []byte) []int {
	at := []int{0}
	for i, c := range b {
		if c == '\n' && i+1 < len(b) {
			at = append(at, i+1)
		}
	}
	return at
}

// TestDamageNamesOffset: a flipped byte in the fifth of ten batches makes
// Open fail with the file and the offset where that line starts; the file is
// unchanged, and Check reports four intact batches and five after the damage.
func TestDamageNamesOffset(t *testing.T) {
	dir := t.TempDir()
	writeN(t, dir, 10)
	path := filepath.Join(dir, FileName)
	b, _ := os.ReadFile(path)
	starts := lineStarts(b)
	b[starts[4]+40] ^= 0x20
	os.WriteFile(path, b, 0o600)
	_, err := Open(dir)
	var d *recordlog.Damage
	if !errors.As(err, &d) || d.Offset != int64(starts[4]) || d.Line != 5 {
		t.Fatalf("Open: %v", err)
	}
	if want := fmt.Sprintf("%s is damaged at byte offset %d, line 5: checksum mismatch", path, starts[4]); !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q lacks %q", err, want)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
		t.Fatal("Open changed a damaged log")
	}
	rep, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records != 4 || rep.Intact != int64(starts[4]) || rep.Damage == nil || rep.LinesAfter != 5 || rep.IntactAfter != 5 || rep.Torn != 0 {
		t.Fatalf("%+v", rep)
	}
}

// TestDamagedLastLine: a flipped byte in the last, complete line is damage,
// not a torn write (a crash leaves zeros or nothing, never another byte).
func TestDamagedLastLine(t *testing.T) {
	dir := t.TempDir()
	writeN(t, dir, 3)
	path := filepath.Join(dir, FileName)
	b, _ := os.ReadFile(path)
	b[len(b)-10] ^= 0x01
	os.WriteFile(path, b, 0o600)
	if _, err := Open(dir); err == nil {
		t.Fatal("a damaged last line opened")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
		t.Fatal("Open changed a damaged log")
	}
}

// TestZeroedTail: blocks allocated but never written by a crash read as
// zeros; a last line holding them is torn and cut, with or without the
// newline surviving.
func TestZeroedTail(t *testing.T) {
	for _, keepNewline := range []bool{true, false} {
		dir := t.TempDir()
		writeN(t, dir, 3)
		path := filepath.Join(dir, FileName)
		b, _ := os.ReadFile(path)
		starts := lineStarts(b)
		end := len(b) - 1
		if !keepNewline {
			end = len(b)
		}
		clear(b[starts[2]+20 : end])
		os.WriteFile(path, b, 0o600)
		if rep, _ := Check(dir); rep.Damage != nil || rep.Records != 2 || rep.Torn != int64(len(b)-starts[2]) {
			t.Fatalf("newline %v: %+v", keepNewline, rep)
		}
		s, err := Open(dir)
		if err != nil {
			t.Fatalf("newline %v: %v", keepNewline, err)
		}
		st, err := s.Load(context.Background())
		s.Close()
		if err != nil || len(st.Bookings) != 2 {
			t.Fatalf("newline %v: %d bookings, %v", keepNewline, len(st.Bookings), err)
		}
		if fi, _ := os.Stat(path); fi.Size() != int64(starts[2]) {
			t.Fatalf("newline %v: size %d after the cut, want %d", keepNewline, fi.Size(), starts[2])
		}
	}
}

// TestOldFormat: a log written before checksums (bare JSON lines) opens,
// new batches are appended with checksums, and it reopens; an old line after
// a checksummed one is damage.
func TestOldFormat(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	old := `{"b":[{"booking":{"booking_id":"old1","status":"held"},"groups":1}]}` + "\n" +
		`{"s":"c2VjcmV0"}` + "\n"
	os.WriteFile(path, []byte(old), 0o600)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(context.Background(), booking.Batch{Bookings: []booking.Record{storetest.Record("new1", booking.Held)}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Load(context.Background())
	s.Close()
	if err != nil || len(st.Bookings) != 2 || string(st.Secret) != "secret" {
		t.Fatalf("%+v %v", st, err)
	}
	rep, _ := Check(dir)
	if rep.Records != 3 || rep.Legacy != 2 || !rep.Clean() {
		t.Fatalf("%+v", rep)
	}
	b, _ := os.ReadFile(path)
	os.WriteFile(path, append(b, old...), 0o600)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "without a checksum after checksummed") {
		t.Fatalf("an old line after new ones: %v", err)
	}
}

// TestTornBatchWhole: a batch of several records torn in its middle loads
// none of them.
func TestTornBatchWhole(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s.Write(ctx, booking.Batch{Bookings: []booking.Record{storetest.Record("a", booking.Held)}})
	if err := s.Write(ctx, booking.Batch{Bookings: []booking.Record{storetest.Record("b1", booking.Held), storetest.Record("b2", booking.Held), storetest.Record("b3", booking.Held)}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	path := filepath.Join(dir, FileName)
	b, _ := os.ReadFile(path)
	cut := bytes.Index(b, []byte(`"booking_id":"b3"`))
	os.Truncate(path, int64(cut))
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Load(ctx)
	s.Close()
	if err != nil || len(st.Bookings) != 1 || st.Bookings[0].Booking.ID != "a" {
		t.Fatalf("%+v %v", st.Bookings, err)
	}
}

// TestSecondOpenInUse: a second store on the same directory (here in the
// same process; flock belongs to the open file) is refused at once, naming
// the directory and the holder's pid; after Close it opens.
func TestSecondOpenInUse(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir)
	var inUse *dirlock.InUse
	if !errors.As(err, &inUse) || inUse.PID != os.Getpid() {
		t.Fatalf("second Open: %v", err)
	}
	if want := fmt.Sprintf("data directory %s is in use by another slotfare (pid %d)", dir, os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Fatalf("%q lacks %q", err, want)
	}
	s.Close()
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}
