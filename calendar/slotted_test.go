package calendar

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"slotfare"
)

// TestSlottedRounding: GarQ holds every slot a reservation touches (seed
// 000, Sec. 4), so it refuses what continuous time would take.
func TestSlottedRounding(t *testing.T) {
	c, err := NewSlotted(2, 0, 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Add(Reservation{ID: "a", Start: 5, End: 15, Nodes: 2}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Fits(15, 20, 1); ok {
		t.Error("[15,20) fits although slot [10,20) is full")
	}
	if ok, _ := c.Fits(20, 25, 2); !ok {
		t.Error("[20,25) does not fit in an empty slot")
	}
	if got, ok, err := c.NextFree(12, 60, 15, 2); err != nil || !ok || got != 20 {
		t.Errorf("NextFree = %d, %v, %v; want 20 (the next slot boundary)", got, ok, err)
	}
	tr, _ := NewTree(2)
	_ = tr.Add(Reservation{ID: "a", Start: 5, End: 15, Nodes: 2})
	if ok, _ := tr.Fits(15, 20, 1); !ok {
		t.Error("tree: [15,20) should fit in continuous time")
	}
}

// TestSlottedBookAhead: the ring holds slots*delta of time; the window moves
// on only over empty buckets, and what lies outside it is Invalid.
func TestSlottedBookAhead(t *testing.T) {
	c, _ := NewSlotted(2, 0, 10, 10) // holds [0, 100)
	if _, err := c.Fits(-5, 5, 1); slotfare.FieldOf(err) != "start" {
		t.Errorf("before origin: %v, want Invalid on start", err)
	}
	if err := c.Add(Reservation{ID: "a", Start: 0, End: 20, Nodes: 1}); err != nil {
		t.Fatal(err)
	}
	// [95,105) needs slot 10, which reuses bucket 0, still in use.
	if _, err := c.Fits(95, 105, 1); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "end" {
		t.Errorf("beyond book-ahead: %v, want Invalid on end", err)
	}
	if err := c.Add(Reservation{ID: "b", Start: 95, End: 105, Nodes: 1}); slotfare.FieldOf(err) != "end" {
		t.Errorf("Add beyond book-ahead: %v, want Invalid on end", err)
	}
	if _, err := c.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.Fits(95, 105, 2); err != nil || !ok {
		t.Errorf("after delete: %v, %v; want fits", ok, err)
	}
	if err := c.Add(Reservation{ID: "b", Start: 95, End: 105, Nodes: 2}); err != nil {
		t.Fatalf("Add after delete: %v", err)
	}
	// The window now holds [10, 110).
	if _, err := c.Fits(0, 5, 1); slotfare.FieldOf(err) != "start" {
		t.Errorf("after the window moved: %v, want Invalid on start", err)
	}
	if ok, err := c.Fits(100, 110, 1); err != nil || ok {
		t.Errorf("slot 10 should be full: %v, %v", ok, err)
	}
	if ok, err := c.Fits(10, 95, 2); err != nil || ok {
		t.Errorf("slot 9 should be full: %v, %v", ok, err)
	}
	if ok, err := c.Fits(10, 90, 2); err != nil || !ok {
		t.Errorf("reused buckets should be empty: %v, %v", ok, err)
	}
	if _, err := NewSlotted(2, 0, 0, 10); slotfare.FieldOf(err) != "delta" {
		t.Errorf("delta 0: %v", err)
	}
	if _, err := NewSlotted(2, 0, 10, 0); slotfare.FieldOf(err) != "slots" {
		t.Errorf("slots 0: %v", err)
	}
}

// TestSlottedMovingWindow replays a random forward-moving book on a small
// ring, deleting what ended before "now" as the bench does, on slot-aligned
// times: the ring must keep reusing its buckets without ever refusing a
// request within its book-ahead, and decide exactly as the tree does.
func TestSlottedMovingWindow(t *testing.T) {
	const delta, slots = 10, 16
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 99))
		capacity := 1 + rng.IntN(5)
		s, _ := NewSlotted(capacity, 0, delta, slots)
		tr, _ := NewTree(capacity)
		type live struct {
			id  string
			end int64
		}
		var book []live
		now := int64(0)
		for i := range 400 {
			now += delta * rng.Int64N(3)
			kept := book[:0]
			for _, l := range book {
				if l.end < now {
					if _, err := s.Delete(l.id); err != nil {
						t.Fatal(err)
					}
					if _, err := tr.Delete(l.id); err != nil {
						t.Fatal(err)
					}
					continue
				}
				kept = append(kept, l)
			}
			book = kept
			// Leads and runs keep every request within half the ring.
			start := now + delta*rng.Int64N(4)
			end := start + delta*(1+rng.Int64N(4))
			n := 1 + rng.IntN(capacity)
			f1, err := s.Fits(start, end, n)
			if err != nil {
				t.Fatalf("seed %d step %d: slotted refused [%d,%d): %v", seed, i, start, end, err)
			}
			f2, _ := tr.Fits(start, end, n)
			if f1 != f2 {
				t.Fatalf("seed %d step %d: Fits(%d,%d,%d) slotted %v, tree %v", seed, i, start, end, n, f1, f2)
			}
			if !f1 {
				t1, ok1, err := s.NextFree(start, start+3*delta, end-start, n)
				t2, ok2, _ := tr.NextFree(start, start+3*delta, end-start, n)
				if err != nil || ok1 != ok2 || t1 != t2 {
					t.Fatalf("seed %d step %d: NextFree slotted %d %v %v, tree %d %v", seed, i, t1, ok1, err, t2, ok2)
				}
				if !ok1 {
					continue
				}
				end, start = t1+(end-start), t1
			}
			r := Reservation{ID: fmt.Sprint(i), Start: start, End: end, Nodes: n}
			if err := s.Add(r); err != nil {
				t.Fatalf("seed %d step %d: slotted Add: %v", seed, i, err)
			}
			if err := tr.Add(r); err != nil {
				t.Fatalf("seed %d step %d: tree Add: %v", seed, i, err)
			}
			book = append(book, live{r.ID, end})
		}
		p1, _ := s.Profile(now, now+8*delta)
		p2, _ := tr.Profile(now, now+8*delta)
		if !slices.Equal(p1, p2) {
			t.Fatalf("seed %d: profiles differ: %v / %v", seed, p1, p2)
		}
	}
}
