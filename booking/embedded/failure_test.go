package embedded_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/embedded"
	"slotfare/booking/idem"
	"slotfare/booking/records"
	"slotfare/ledger"
)

// TestClosedStoreChangesNothing: once the store refuses every write (it
// was closed under the ports, as a disk gone away), each mutation returns
// the store's error and memory stays as the store last acknowledged it;
// the store opened again holds the same.
func TestClosedStoreChangesNothing(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			place := k.newPlace(t)
			st, err := k.open(place)
			must(t, err)
			p := openPorts(t, st, embedded.Options{})
			held := rec("bk1", "alice", "R", booking.Held, t0)
			must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "hold", Changes: []records.Change{{Record: held}}}))
			_, err = p.Catalog.Put(bg, "RAL", ral, 0)
			must(t, err)
			must(t, st.Close())

			committed := held
			committed.Booking.Status = booking.Committed
			commit := records.Write{Resource: "R", WriteID: "commit", Changes: []records.Change{{Record: committed, Replaces: 1}},
				Postings: []ledger.Posting{charge(t, "bk1", "alice", "R")}}
			for range 2 { // the retry is refused too: the write was not applied
				if err := p.Records.Apply(bg, commit); err == nil || slotfare.KindOf(err) != slotfare.Unavailable {
					t.Fatalf("a commit on a closed store: %v", err)
				}
			}
			if s := get(t, p, "bk1"); s.Version != 1 || s.Record.Booking.Status != booking.Held {
				t.Fatalf("a refused commit changed bk1: %+v", s)
			}
			if ps, err := p.Records.Postings(bg, "alice"); err != nil || len(ps) != 0 {
				t.Fatalf("a refused commit posted: %v %v", ps, err)
			}
			if live, _ := p.Records.Live(bg, "R"); len(live) != 1 {
				t.Fatalf("live after a refused commit: %+v", live)
			}
			k2 := keyed("bk2")
			if err := p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "hold2", Changes: []records.Change{{Record: k2}}, NoWait: true}); err == nil {
				t.Fatal("a hold on a closed store was acknowledged")
			}
			if _, ok, _ := p.Records.Get(bg, "bk2"); ok {
				t.Fatal("a refused hold is stored")
			}
			if page, _, _ := p.Records.OfAccount(bg, "alice", "", 10); len(page) != 1 {
				t.Fatalf("alice's bookings after a refused hold: %d", len(page))
			}
			if c, _ := p.Idem.Claim(bg, "alice", "k", "fp", time.Hour, time.Now()); c.State != idem.Claimed {
				t.Fatalf("a refused hold's key: %+v", c)
			}

			if _, err := p.Catalog.Put(bg, "RAL", ralV2, 1); err == nil {
				t.Fatal("a catalog change on a closed store was acknowledged")
			}
			if docs, v, _ := p.Catalog.All(bg); v != 1 || len(docs) != 1 || docs[0].Version != 1 || !bytes.Equal(docs[0].Body, ral) {
				t.Fatalf("a refused change moved the catalog: %d %+v", v, docs)
			}
			for range 2 { // no secret is kept: the next call tries again
				if s, err := p.Catalog.Secret(bg, secret); err == nil || s != nil {
					t.Fatalf("a secret on a closed store: %x %v", s, err)
				}
			}

			p = openPorts(t, openStore(t, k, place), embedded.Options{})
			if s := get(t, p, "bk1"); s.Record.Booking.Status != booking.Held {
				t.Fatalf("bk1 stored: %+v", s)
			}
			if _, ok, _ := p.Records.Get(bg, "bk2"); ok {
				t.Fatal("a refused hold was stored")
			}
			if docs, _, _ := p.Catalog.All(bg); len(docs) != 1 || !bytes.Equal(docs[0].Body, ral) {
				t.Fatalf("catalog stored: %+v", docs)
			}
			s, err := p.Catalog.Secret(bg, bytes.Repeat([]byte{3}, 32))
			must(t, err)
			if bytes.Equal(s, secret) {
				t.Fatal("a refused secret was stored")
			}
		})
	}
}

// refusing is a real bbolt store that refuses every batch touching one
// booking, as a disk that fails one write and not the next.
type refusing struct {
	booking.Store
	mu sync.Mutex
	id string
}

func (f *refusing) refuse(id string) {
	f.mu.Lock()
	f.id = id
	f.mu.Unlock()
}

func (f *refusing) Write(ctx context.Context, b booking.Batch) error {
	f.mu.Lock()
	id := f.id
	f.mu.Unlock()
	for _, r := range b.Bookings {
		if r.Booking.ID == id {
			return errors.New("injected: the disk refuses booking " + id)
		}
	}
	return f.Store.Write(ctx, b)
}

// TestRefusedWriteLeavesTheOthers: of concurrent commits, the one the
// store refuses returns its error and changes nothing, the others are
// applied; nothing of the refused one stays reserved, so it goes through
// once the store takes it.
func TestRefusedWriteLeavesTheOthers(t *testing.T) {
	bolt, err := boltstore.Open(t.TempDir(), boltstore.Options{})
	must(t, err)
	t.Cleanup(func() { must(t, bolt.Close()) })
	st := &refusing{Store: bolt}
	p := openPorts(t, st, embedded.Options{})
	commits := make([]records.Write, 8)
	for i := range commits {
		r := rec(fmt.Sprintf("bk%d", i), "alice", "R", booking.Held, t0)
		must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "h" + r.Booking.ID, Changes: []records.Change{{Record: r}}}))
		r.Booking.Status = booking.Committed
		commits[i] = records.Write{Resource: "R", WriteID: "c" + r.Booking.ID, Changes: []records.Change{{Record: r, Replaces: 1}},
			Postings: []ledger.Posting{charge(t, r.Booking.ID, "alice", "R")}}
	}
	st.refuse("bk3")
	errs := make([]error, len(commits))
	var wg sync.WaitGroup
	for i, w := range commits {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = p.Records.Apply(bg, w) }()
	}
	wg.Wait()
	for i, err := range errs {
		s := get(t, p, fmt.Sprintf("bk%d", i))
		if i == 3 {
			if err == nil || s.Version != 1 || s.Record.Booking.Status != booking.Held {
				t.Fatalf("the refused commit: %v, then %+v", err, s)
			}
			continue
		}
		if err != nil || s.Version != 2 || s.Record.Booking.Status != booking.Committed {
			t.Fatalf("commit %d: %v, then %+v", i, err, s)
		}
	}
	if ps, _ := p.Records.Postings(bg, "alice"); len(ps) != 7 {
		t.Fatalf("%d postings after 7 commits", len(ps))
	}
	st.refuse("")
	must(t, p.Records.Apply(bg, commits[3]))
	if ps, _ := p.Records.Postings(bg, "alice"); len(ps) != 8 {
		t.Fatalf("%d postings after 8 commits", len(ps))
	}
}
