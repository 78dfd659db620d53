package ledger_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"slotfare"
	"slotfare/ledger"
)

// walk pages through an account's entries and returns the ids in order.
func walk(t *testing.T, l *ledger.Ledger, a ledger.AccountID, limit int, between func()) []ledger.Posting {
	t.Helper()
	var out []ledger.Posting
	cursor := ""
	for {
		page, err := l.Entries(a, cursor, limit)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Data...)
		if !page.HasMore {
			return out
		}
		if len(page.Data) != limit {
			t.Fatalf("a page of %d before the end (limit %d)", len(page.Data), limit)
		}
		cursor = page.NextCursor
		if between != nil {
			between()
		}
	}
}

func TestEntriesOrderAndPages(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	// 25 charges, appended out of time order, five sharing each instant.
	for i := 24; i >= 0; i-- {
		charge(t, l, ref(fmt.Sprintf("bk%02d", i)), "1", t0.Add(time.Duration(i/5)*time.Minute))
	}
	got := walk(t, l, ledger.CustomerAccount("alice"), 10, nil)
	if len(got) != 25 {
		t.Fatalf("%d entries", len(got))
	}
	for i, p := range got {
		if want := fmt.Sprintf("bk%02d/charge", i); p.ID != want {
			t.Fatalf("entry %d is %s, want %s", i, p.ID, want)
		}
	}
	// The resource's revenue account lists the same postings.
	if rev := walk(t, l, ledger.Account(ledger.Revenue, "RAL"), 1000, nil); len(rev) != 25 {
		t.Fatalf("revenue entries %d", len(rev))
	}
	// Unknown account: an empty first page.
	page, err := l.Entries(ledger.CustomerAccount("nobody"), "", 0)
	if err != nil || len(page.Data) != 0 || page.HasMore {
		t.Fatalf("unknown account %+v %v", page, err)
	}
}

func TestEntriesValidation(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	charge(t, l, ref("bk1"), "1", t0)
	charge(t, l, ref("bk2"), "1", t0)
	_, err := l.Entries("alice", "", 0)
	wantErr(t, err, slotfare.Invalid, "account_id")
	for _, n := range []int{-1, 1001} {
		_, err = l.Entries(ledger.CustomerAccount("alice"), "", n)
		wantErr(t, err, slotfare.Invalid, "limit")
	}
	page, _ := l.Entries(ledger.CustomerAccount("alice"), "", 1)
	_, err = l.Entries(ledger.CustomerAccount("bob"), page.NextCursor, 1)
	wantErr(t, err, slotfare.Invalid, "cursor")
	for _, bad := range []string{"x", "!!", "ZTEAYQ"} {
		_, err = l.Entries(ledger.CustomerAccount("alice"), bad, 1)
		wantErr(t, err, slotfare.Invalid, "cursor")
	}
}

// TestEntriesWhileAppending walks an account page by page while other
// goroutines append postings before, among and after the existing ones.
// Every posting present when the walk began comes back exactly once, no
// posting comes back twice, and the order never goes backwards.
func TestEntriesWhileAppending(t *testing.T) {
	l := newLedger(t, ledger.Options{})
	const before = 300
	existing := map[string]bool{}
	for i := 0; i < before; i++ {
		p := charge(t, l, ref(fmt.Sprintf("old%03d", i)), "1", t0.Add(time.Duration(i)*time.Second))
		existing[p.ID] = true
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				select {
				case <-stop:
					return
				default:
				}
				// Spread new postings over the same span and beyond it.
				when := t0.Add(time.Duration((i*37+w*11)%(before+50)) * time.Second)
				p, err := l.Charge(ref(fmt.Sprintf("new%d-%d", w, i)), dec("1"), when)
				if err == nil {
					_, err = l.Append(p)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	got := walk(t, l, ledger.CustomerAccount("alice"), 7, func() { time.Sleep(50 * time.Microsecond) })
	close(stop)
	wg.Wait()

	seen := map[string]int{}
	for i, p := range got {
		seen[p.ID]++
		if seen[p.ID] > 1 {
			t.Fatalf("%s returned twice", p.ID)
		}
		if i > 0 {
			prev := got[i-1]
			if p.Time.Before(prev.Time) || (p.Time.Equal(prev.Time) && p.ID <= prev.ID) {
				t.Fatalf("order goes backwards at %d: %s %s after %s %s", i, p.Time, p.ID, prev.Time, prev.ID)
			}
		}
	}
	for id := range existing {
		if seen[id] != 1 {
			t.Fatalf("existing posting %s returned %d times", id, seen[id])
		}
	}
	if len(got) <= before {
		t.Logf("no concurrent posting was seen (walk of %d)", len(got))
	}
}
