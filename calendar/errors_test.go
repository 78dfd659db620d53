package calendar

import (
	"slices"
	"testing"

	"slotfare"
)

// TestErrors checks the typed errors of every implementation and that a
// failed call leaves the calendar as it was.
func TestErrors(t *testing.T) {
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			if _, err := im.new(0); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "capacity" {
				t.Errorf("new(0) = %v, want Invalid on capacity", err)
			}
			c, err := im.new(4)
			if err != nil {
				t.Fatal(err)
			}
			tm := func(x int64) int64 { return im.origin + x*im.unit }
			if err := c.Add(Reservation{ID: "a", Start: tm(0), End: tm(10), Nodes: 3}); err != nil {
				t.Fatal(err)
			}
			before, _ := c.Profile(tm(0), tm(20))
			adds := []struct {
				r     Reservation
				kind  slotfare.Kind
				field string
			}{
				{Reservation{ID: "", Start: tm(0), End: tm(1), Nodes: 1}, slotfare.Invalid, "id"},
				{Reservation{ID: "b", Start: tm(5), End: tm(5), Nodes: 1}, slotfare.Invalid, "end"},
				{Reservation{ID: "b", Start: tm(5), End: tm(4), Nodes: 1}, slotfare.Invalid, "end"},
				{Reservation{ID: "b", Start: tm(0), End: tm(1), Nodes: 0}, slotfare.Invalid, "nodes"},
				{Reservation{ID: "b", Start: tm(0), End: tm(1), Nodes: 5}, slotfare.Invalid, "nodes"},
				{Reservation{ID: "b", Start: MinTime - 1, End: tm(1), Nodes: 1}, slotfare.Invalid, "start"},
				{Reservation{ID: "a", Start: tm(12), End: tm(13), Nodes: 1}, slotfare.Conflict, "id"},
				{Reservation{ID: "b", Start: tm(9), End: tm(12), Nodes: 2}, slotfare.NoCapacity, ""},
			}
			for _, tc := range adds {
				err := c.Add(tc.r)
				if slotfare.KindOf(err) != tc.kind || slotfare.FieldOf(err) != tc.field {
					t.Errorf("Add(%+v) = %v, want %v on %q", tc.r, err, tc.kind, tc.field)
				}
			}
			if _, err := c.Delete("zz"); slotfare.KindOf(err) != slotfare.NotFound {
				t.Errorf("Delete(zz) = %v, want NotFound", err)
			}
			if _, err := c.Fits(tm(3), tm(2), 1); slotfare.FieldOf(err) != "end" {
				t.Errorf("Fits reversed = %v, want Invalid on end", err)
			}
			if _, _, err := c.NextFree(tm(0), tm(5), 0, 1); slotfare.FieldOf(err) != "duration" {
				t.Errorf("NextFree duration 0 = %v, want Invalid on duration", err)
			}
			if _, _, err := c.NextFree(tm(5), tm(4), im.unit, 1); slotfare.FieldOf(err) != "end" {
				t.Errorf("NextFree limit before from = %v, want Invalid on end", err)
			}
			if err := c.SetCapacity(tm(0), tm(5), -1); slotfare.FieldOf(err) != "capacity" {
				t.Errorf("SetCapacity(-1) = %v, want Invalid on capacity", err)
			}
			after, _ := c.Profile(tm(0), tm(20))
			if !slices.Equal(before, after) || c.Len() != 1 {
				t.Errorf("failed calls changed the calendar: %v -> %v, len %d", before, after, c.Len())
			}
		})
	}
}

// TestCapacityKeepsReservations lowers the capacity under a reservation: it
// stays, nothing overlapping the excess fits, and raising it back restores
// the free nodes.
func TestCapacityKeepsReservations(t *testing.T) {
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			tm := func(x int64) int64 { return im.origin + x*im.unit }
			c, _ := im.new(4)
			if err := c.Add(Reservation{ID: "a", Start: tm(0), End: tm(10), Nodes: 3}); err != nil {
				t.Fatal(err)
			}
			if err := c.SetCapacity(tm(5), tm(8), 2); err != nil {
				t.Fatal(err)
			}
			if _, ok := c.Get("a"); !ok || c.Len() != 1 {
				t.Fatal("reservation lost")
			}
			if ok, _ := c.Fits(tm(7), tm(9), 1); ok {
				t.Error("fits over the excess")
			}
			if ok, _ := c.Fits(tm(8), tm(9), 1); !ok {
				t.Error("does not fit after the excess")
			}
			if got := c.Capacity(tm(6)); got != 2 {
				t.Errorf("Capacity = %d, want 2", got)
			}
			p, _ := c.Profile(tm(0), tm(12))
			// the excess shows as 0 free
			want := []Step{{tm(0), tm(5), 1}, {tm(5), tm(8), 0}, {tm(8), tm(10), 1}, {tm(10), tm(12), 4}}
			if !slices.Equal(p, want) {
				t.Errorf("Profile = %v, want %v", p, want)
			}
			if _, err := c.Delete("a"); err != nil {
				t.Fatal(err)
			}
			if ok, _ := c.Fits(tm(5), tm(8), 2); !ok {
				t.Error("2 nodes do not fit under capacity 2 once empty")
			}
			if err := c.SetCapacity(tm(0), tm(20), 6); err != nil || c.MaxCapacity() != 6 {
				t.Errorf("raise: %v, MaxCapacity %d", err, c.MaxCapacity())
			}
			if ok, _ := c.Fits(tm(0), tm(20), 6); !ok {
				t.Error("6 nodes do not fit after raising the capacity")
			}
		})
	}
}
