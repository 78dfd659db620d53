package ledger_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"slotfare"
	"slotfare/ledger"
	"slotfare/ledger/recordlog"
)

func openStore(t *testing.T, path string) *ledger.FileStore {
	t.Helper()
	s, err := ledger.OpenFileStore(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// snapshot is everything a reader can see of a ledger, as JSON.
func snapshot(t *testing.T, l *ledger.Ledger) string {
	t.Helper()
	var b strings.Builder
	for _, a := range l.Accounts() {
		page, err := l.Entries(a, "", ledger.MaxLimit)
		if err != nil {
			t.Fatal(err)
		}
		bal, _ := json.Marshal(l.Balance(a))
		ent, _ := json.Marshal(page)
		b.WriteString(string(a) + " " + string(bal) + " " + string(ent) + "\n")
	}
	for _, c := range []string{"alice", "bob"} {
		inv, _ := l.Invoices(ledger.InvoiceQuery{Account: c}, at("2027-01-01T00:00:00Z"))
		j, _ := json.Marshal(inv)
		b.Write(j)
	}
	return b.String()
}

func TestReplayRebuildsTheLedger(t *testing.T) {
	path := filepath.Join(t.TempDir(), "postings.jsonl")
	s := openStore(t, path)
	l := newLedger(t, ledger.Options{Store: s, Currencies: ledger.Currencies{"EUR": {Scale: 3}}})
	for _, p := range samplePostings(t) {
		mustAppend(t, l, p)
	}
	// The service's path: prepare, persist in its own transaction, and
	// crash before Commit. The posting is durable, so it is back after
	// the restart even though this process never showed it.
	p, _ := l.Charge(ref("bk9"), dec("9.99"), at("2026-12-24T12:00:00Z"))
	pend, err := l.Prepare(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendPostings(context.Background(), pend.ToPersist()); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, l)
	if err := pend.Commit(); err != nil {
		t.Fatal(err)
	}
	want := snapshot(t, l)
	if before == want {
		t.Fatal("commit changed nothing visible")
	}
	s.Close()

	restarted := newLedger(t, ledger.Options{Currencies: ledger.Currencies{"EUR": {Scale: 3}}})
	if err := restarted.Replay(context.Background(), openStore(t, path)); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, restarted); got != want {
		t.Fatalf("replayed ledger differs:\n got %s\nwant %s", got, want)
	}
	// Replaying again into a ledger that has postings is refused.
	err = restarted.Replay(context.Background(), openStore(t, path))
	wantErr(t, err, slotfare.Conflict, "")
	// The replayed ledger enforces the history: bk1 is settled.
	_, err = restarted.Cancellation("bk1", dec("0"), at("2027-01-01T00:00:00Z"))
	wantErr(t, err, slotfare.Conflict, "booking_id")
}

// TestFileStoreDropsTornBatch: a batch cut short by a crash (no newline)
// is dropped when the file is opened; the batches before it survive and
// the store keeps working.
func TestFileStoreDropsTornBatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "postings.jsonl")
	s := openStore(t, path)
	l := newLedger(t, ledger.Options{Store: s})
	charge(t, l, ref("bk1"), "10", t0)
	s.Close()

	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`[{"id":"bk2/charge","time":"2026-11-0`)
	f.Close()

	s = openStore(t, path)
	l = newLedger(t, ledger.Options{Store: s})
	if err := l.Replay(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if l.Len() != 1 {
		t.Fatalf("Len %d after dropping the torn batch", l.Len())
	}
	charge(t, l, ref("bk2"), "20", t0)
	s.Close()
	l = newLedger(t, ledger.Options{})
	if err := l.Replay(context.Background(), openStore(t, path)); err != nil || l.Len() != 2 {
		t.Fatalf("after reopening: len %d, %v", l.Len(), err)
	}
}

// TestReplayRefusesBadHistory: a store holding what the ledger would never
// have accepted fails the replay, and the ledger stays empty.
func TestReplayRefusesBadHistory(t *testing.T) {
	cp := func(id string, amount string) ledger.Posting { return chargePosting(id, amount) }
	unbalanced := cp("x/charge", "10")
	unbalanced.Lines[1].Amount = dec("9")
	conflicting := cp("bk1/charge", "11")
	tests := []struct {
		name  string
		batch []ledger.Posting
	}{
		{"unbalanced", []ledger.Posting{unbalanced}},
		{"two charges", []ledger.Posting{cp("bk1/charge", "10"), cp("bk1/charge-2", "10")}},
		{"same id, other content", []ledger.Posting{cp("bk1/charge", "10"), conflicting}},
		{"needs rounding", []ledger.Posting{cp("bk1/charge", "10.005")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.jsonl")
			s := openStore(t, path)
			if err := s.AppendPostings(context.Background(), tt.batch); err != nil {
				t.Fatal(err)
			}
			l := newLedger(t, ledger.Options{})
			err := l.Replay(context.Background(), s)
			wantErr(t, err, slotfare.Other, "")
			if l.Len() != 0 || len(l.Accounts()) != 0 {
				t.Fatal("a failed replay left postings behind")
			}
		})
	}
	// An identical duplicate (a store that retried a write) is harmless.
	path := filepath.Join(t.TempDir(), "dup.jsonl")
	s := openStore(t, path)
	l := newLedger(t, ledger.Options{Store: s})
	p := charge(t, l, ref("bk1"), "10", t0)
	s.AppendPostings(context.Background(), []ledger.Posting{p})
	l = newLedger(t, ledger.Options{})
	if err := l.Replay(context.Background(), s); err != nil || l.Len() != 1 {
		t.Fatalf("duplicate: len %d, %v", l.Len(), err)
	}
}

// TestReplayAfterScaleChange: raising a currency's scale keeps stored
// postings valid; lowering it below their digits is refused.
func TestReplayAfterScaleChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.jsonl")
	s := openStore(t, path)
	l := newLedger(t, ledger.Options{Store: s, Currencies: ledger.Currencies{"GRD": {Scale: 3}}})
	charge(t, l, ref("bk1"), "10.125", t0)
	up := newLedger(t, ledger.Options{Currencies: ledger.Currencies{"GRD": {Scale: 4}}})
	if err := up.Replay(context.Background(), s); err != nil {
		t.Fatalf("scale raised: %v", err)
	}
	down := newLedger(t, ledger.Options{})
	wantErr(t, down.Replay(context.Background(), s), slotfare.Other, "")
}

// damagedStore writes 60 one-charge batches (bk00..bk59), closes the store
// and returns the file with change applied (and written back).
func damagedStore(t *testing.T, change func(b []byte) []byte) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.jsonl")
	s := openStore(t, path)
	for i := range 60 {
		p := chargePosting(fmt.Sprintf("bk%02d/charge", i), "10.25")
		p.BookingID = fmt.Sprintf("bk%02d", i)
		if err := s.AppendPostings(context.Background(), []ledger.Posting{p}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = change(b)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, b
}

// TestFileStoreRefusesDamage: a flipped byte in an early batch (one that
// still decodes: 10.25 becomes 10.24) and a zero-filled block are refused
// on open with the file and the offset of the damaged line; the file is not
// changed. The old store loaded the flipped amount, or dropped every batch
// after the block.
func TestFileStoreRefusesDamage(t *testing.T) {
	cases := map[string]func([]byte) []byte{
		"flipped byte": func(b []byte) []byte {
			i := bytes.Index(b, []byte(`"bk05/charge"`))
			j := i + bytes.Index(b[i:], []byte("10.25"))
			b[j+4] ^= 0x01
			return b
		},
		"zero-filled block": func(b []byte) []byte {
			i := bytes.Index(b, []byte(`"bk30/charge"`)) &^ 4095
			clear(b[i : i+4096])
			return b
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			path, want := damagedStore(t, change)
			_, err := ledger.OpenFileStore(path)
			var d *recordlog.Damage
			if !errors.As(err, &d) || d.Offset <= 0 || !strings.Contains(err.Error(), fmt.Sprintf("%s is damaged at byte offset %d", path, d.Offset)) {
				t.Fatalf("open: %v", err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
				t.Fatal("opening changed the damaged file")
			}
		})
	}
}

// TestFileStoreCutsTornTailWhole: the last batch cut in its middle (no
// newline, or zeros where its blocks were never written) is dropped whole,
// and the 59 before it load.
func TestFileStoreCutsTornTailWhole(t *testing.T) {
	for name, change := range map[string]func([]byte) []byte{
		"cut short":   func(b []byte) []byte { return b[:bytes.Index(b, []byte(`"bk59/charge"`))+5] },
		"zeroed tail": func(b []byte) []byte { i := bytes.Index(b, []byte(`"bk59/charge"`)); clear(b[i : len(b)-1]); return b },
	} {
		t.Run(name, func(t *testing.T) {
			path, _ := damagedStore(t, change)
			l := newLedger(t, ledger.Options{})
			if err := l.Replay(context.Background(), openStore(t, path)); err != nil || l.Len() != 59 {
				t.Fatalf("len %d, %v", l.Len(), err)
			}
		})
	}
}
