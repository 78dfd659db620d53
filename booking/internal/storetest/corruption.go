package storetest

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
	"slotfare/ledger/recordlog"
)

// Damaged says what a store's file looks like for RunCorruption.
type Damaged struct {
	// File is the store's file in its directory.
	File string
	// CutsTornTail: a file cut short in its last batch is a crash's torn
	// write, cut off on open with every earlier batch kept (a log); when
	// false a short file is damage (bbolt, which never leaves one).
	CutsTornTail bool
}

// Batches and per batch: what fill writes.
const (
	fillBatches = 120
	perBatch    = 3
)

// RunCorruption checks what the store does with a damaged file: a flipped
// byte in an early record and a zero-filled block each make opening and
// loading fail with a *recordlog.Damage naming the file, without changing a
// byte of it and without panicking; a torn tail is cut whole (no record of
// the torn batch loads) or refused, as d says.
func RunCorruption(t *testing.T, open Opener, d Damaged) {
	t.Run("FlippedByte", func(t *testing.T) {
		dir := fill(t, open)
		damage(t, dir, d.File, func(b []byte) {
			for _, i := range occurrences(b, `"booking_id":"d010b"`) {
				b[i+len(`"booking_id":"d0`)] ^= 0x01 // d010b -> d000b: still valid JSON
			}
		})
		refused(t, open, dir, d.File)
	})
	t.Run("ZeroFilledBlock", func(t *testing.T) {
		dir := fill(t, open)
		damage(t, dir, d.File, func(b []byte) {
			for _, i := range occurrences(b, `"booking_id":"d040b"`) {
				start := i &^ 4095
				clear(b[start:min(start+4096, len(b))])
			}
		})
		refused(t, open, dir, d.File)
	})
	t.Run("TornTail", func(t *testing.T) {
		dir := fill(t, open)
		last := fmt.Sprintf(`"booking_id":"d%03db"`, fillBatches-1)
		var cut int
		damage(t, dir, d.File, func(b []byte) {
			occ := occurrences(b, last)
			if len(occ) == 0 {
				t.Fatal("the last batch is not in the file")
			}
			cut = occ[len(occ)-1]
		})
		path := filepath.Join(dir, d.File)
		if err := os.Truncate(path, int64(cut)); err != nil {
			t.Fatal(err)
		}
		if !d.CutsTornTail {
			refused(t, open, dir, d.File)
			return
		}
		st, err := openLoad(open, dir)
		if err != nil {
			t.Fatalf("a torn tail was refused: %v", err)
		}
		if got, want := len(st.Bookings), (fillBatches-1)*perBatch; got != want {
			t.Fatalf("loaded %d bookings, want %d (every batch but the torn one, none of its records)", got, want)
		}
		for _, r := range st.Bookings {
			if strings.HasPrefix(r.Booking.ID, fmt.Sprintf("d%03d", fillBatches-1)) {
				t.Fatalf("a record of the torn batch loaded: %s", r.Booking.ID)
			}
		}
	})
}

// fill writes fillBatches batches of perBatch bookings (d000a, d000b, ...)
// and closes the store.
func fill(t *testing.T, open Opener) string {
	t.Helper()
	dir := t.TempDir()
	s, err := open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range fillBatches {
		var b booking.Batch
		for _, c := range "abc"[:perBatch] {
			b.Bookings = append(b.Bookings, Record(fmt.Sprintf("d%03d%c", i, c), booking.Held))
		}
		if err := s.Write(context.Background(), b); err != nil { // a test suite's call: no request's
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// damage rewrites the store's file through change.
func damage(t *testing.T, dir, file string, change func([]byte)) {
	t.Helper()
	path := filepath.Join(dir, file)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before := bytes.Clone(b)
	change(b)
	if bytes.Equal(b, before) {
		return // a truncation follows
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// occurrences are the offsets of every copy of s in b (a copy-on-write
// B+tree keeps old copies of a page, and the live one must be among them).
func occurrences(b []byte, s string) []int {
	var at []int
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(s))
		if j < 0 {
			return at
		}
		at = append(at, i+j)
		i += j + 1
	}
}

// refused checks that opening and loading dir fails with a Damage naming
// the file, and that the file is byte for byte as it was.
func refused(t *testing.T, open Opener, dir, file string) {
	t.Helper()
	path := filepath.Join(dir, file)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := openLoad(open, dir)
	if err == nil {
		t.Fatalf("a damaged store opened and loaded %d bookings", len(st.Bookings))
	}
	t.Logf("refused: %v", err)
	var d *recordlog.Damage
	if !errors.As(err, &d) {
		t.Fatalf("error is not a *recordlog.Damage: %v", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Fatalf("error does not name %s: %v", path, err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatal("opening a damaged store changed its file")
	}
}

// openLoad opens the store in dir, loads it and closes it, recovering a
// panic as an error (a damaged file must not crash the service).
func openLoad(open Opener, dir string) (st booking.State, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	s, err := open(dir)
	if err != nil {
		return booking.State{}, err
	}
	defer s.Close()
	return s.Load(context.Background()) // a test suite's call: no request's
}
