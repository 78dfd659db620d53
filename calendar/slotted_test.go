package calendar

import (
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
