package embedded_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/embedded"
	"slotfare/booking/idem"
	"slotfare/booking/records"
	"slotfare/ledger"
)

// clock is a settable time for the WriteID window.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestWriteIDsBounded: under many writes Records keeps no more WriteIDs
// than its cap, and none older than its window; a retry within both still
// answers nil without applying twice, and one past them answers a
// Conflict, still without applying twice.
func TestWriteIDsBounded(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			c := &clock{t: t0}
			const max = 100
			p := openPorts(t, openStore(t, k, k.newPlace(t)), embedded.Options{WriteIDTTL: time.Minute, MaxWriteIDs: max, Now: c.now})
			charged := func(id string) records.Write {
				return records.Write{Resource: "R", WriteID: "w-" + id, Changes: []records.Change{{Record: rec(id, "alice", "R", booking.Committed, t0)}},
					Postings: []ledger.Posting{charge(t, id, "alice", "R")}}
			}
			first := charged("first")
			must(t, p.Records.Apply(bg, first))
			c.add(30 * time.Second)
			must(t, p.Records.Apply(bg, first)) // within the window
			for i := range 1000 {
				c.add(10 * time.Millisecond)
				must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: fmt.Sprintf("h%d", i),
					Changes: []records.Change{{Record: rec(fmt.Sprintf("bk%d", i), "alice", "R", booking.Held, t0)}}, NoWait: true}))
				if n := p.Records.WriteIDsKept(); n > max {
					t.Fatalf("after %d writes %d WriteIDs are kept, cap %d", i+1, n, max)
				}
			}
			if n := p.Records.WriteIDsKept(); n != max {
				t.Fatalf("%d WriteIDs kept after the churn, want the cap %d", n, max)
			}
			last := charged("last")
			must(t, p.Records.Apply(bg, last))
			c.add(59 * time.Second)
			must(t, p.Records.Apply(bg, last)) // within both bounds
			// first is past the cap: checked again, refused.
			if err := p.Records.Apply(bg, first); slotfare.KindOf(err) != slotfare.Conflict {
				t.Fatalf("a retry past the cap: %v, want a Conflict", err)
			}
			c.add(2 * time.Second)
			// last is past the window now.
			if err := p.Records.Apply(bg, last); slotfare.KindOf(err) != slotfare.Conflict {
				t.Fatalf("a retry past the window: %v, want a Conflict", err)
			}
			must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "after", Changes: []records.Change{{Record: rec("bkAfter", "alice", "R", booking.Held, t0)}}}))
			if n := p.Records.WriteIDsKept(); n != 1 {
				t.Fatalf("%d WriteIDs kept a window after the churn, want 1", n)
			}
			for _, id := range []string{"first", "last"} {
				st, ps, ok, err := p.Records.Booking(bg, id)
				if err != nil || !ok || st.Version != 1 || len(ps) != 1 {
					t.Fatalf("%s after its retries: %+v, %d postings, %v, %v", id, st, len(ps), ok, err)
				}
			}
			ps, err := p.Records.Postings(bg, "alice")
			must(t, err)
			if len(ps) != 2 {
				t.Fatalf("alice has %d postings, want 2", len(ps))
			}
		})
	}
}

// TestIdemKeysBounded: under a churn of keys, each claimed and then
// finished or left pending, the table stays bounded; a key still alive
// keeps answering, a key rebuilt from its stored booking (kept for good)
// too, and an expired pending claim is gone.
func TestIdemKeysBounded(t *testing.T) {
	p := fresh(t, kinds[0])
	must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "h", Changes: []records.Change{{Record: keyed("bkKept")}}, NoWait: true}))
	now := t0
	ttl := time.Second
	const n = 20000
	peak := 0
	for i := range n {
		now = now.Add(10 * time.Millisecond)
		key := fmt.Sprintf("k%d", i)
		if c, err := p.Idem.Claim(bg, "bob", key, "fp", ttl, now); err != nil || c.State != idem.Claimed {
			t.Fatalf("claim %s: %+v %v", key, c, err)
		}
		if i%3 != 0 { // one in three claimers dies and leaves its claim pending
			must(t, p.Idem.Finish(bg, "bob", key, "fp", "bk"+key, ttl, now))
		}
		peak = max(peak, p.Idem.KeysKept())
	}
	// About 100 keys are alive at once (a second of claims): the table
	// never grows past the sweep's floor, where without the sweep it
	// would hold all n.
	if peak > 1024+1 {
		t.Fatalf("the key table reached %d keys under churn", peak)
	}
	if c, err := p.Idem.Claim(bg, "bob", fmt.Sprintf("k%d", n-2), "fp", ttl, now); err != nil || c.State != idem.Pending { // (n-2)%3 == 0
		t.Fatalf("the last claim, still alive: %+v %v", c, err)
	}
	if c, err := p.Idem.Claim(bg, "bob", fmt.Sprintf("k%d", n-1), "fp", ttl, now); err != nil || c.State != idem.Done || c.Result != fmt.Sprintf("bkk%d", n-1) {
		t.Fatalf("a key finished lately: %+v %v", c, err)
	}
	if c, err := p.Idem.Claim(bg, "alice", "k", "fp", ttl, now); err != nil || c.State != idem.Done || c.Result != "bkKept" {
		t.Fatalf("the key of a stored booking after the churn: %+v %v", c, err)
	}
	// k0 was left pending and has long expired: swept, so its late
	// Finish is refused (as on Redis, which expires it itself).
	if err := p.Idem.Finish(bg, "bob", "k0", "fp", "bkk0", ttl, now); slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("finishing a claim swept long ago: %v", err)
	}
}
