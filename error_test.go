package slotfare

import (
	"errors"
	"io"
	"testing"
)

func TestE(t *testing.T) {
	inner := E("calendar.Add", NoCapacity, "does not fit")
	outer := E("booking.Hold", inner)
	if got := KindOf(outer); got != NoCapacity {
		t.Fatalf("KindOf = %v, want %v", got, NoCapacity)
	}
	if got := outer.Error(); got != "booking.Hold: calendar.Add: does not fit" {
		t.Fatalf("Error() = %q", got)
	}
	bad := Errorf("limits", "capacity", "must be > 0, got %d", -3)
	if KindOf(bad) != Invalid || FieldOf(bad) != "capacity" {
		t.Fatalf("Errorf: kind %v field %q", KindOf(bad), FieldOf(bad))
	}
	if got := MessageOf(E("op", bad)); got != "must be > 0, got -3" {
		t.Fatalf("MessageOf = %q", got)
	}
	wrapped := E("store.Put", Unavailable, io.ErrUnexpectedEOF)
	if !errors.Is(wrapped, io.ErrUnexpectedEOF) {
		t.Fatal("errors.Is does not see the cause")
	}
	if k := KindOf(E("store.Load", Other, "corrupt record", inner)); k != Other {
		t.Fatalf("explicit Other overridden by the cause's kind: %v", k)
	}
	if KindOf(io.EOF) != Other {
		t.Fatal("plain error should be Other")
	}
	if Kind(200).String() != "kind(200)" {
		t.Fatal("unknown kind string")
	}
}
