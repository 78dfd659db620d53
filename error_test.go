package slotfare

import (
	"errors"
	"io"
	"testing"
)

func TestE(t *testing.T) {
	inner := E(Op("calendar.Add"), NoCapacity, "does not fit")
	outer := E(Op("booking.Hold"), inner)
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
	if got := MessageOf(E(Op("op"), bad)); got != "must be > 0, got -3" {
		t.Fatalf("MessageOf = %q", got)
	}
	wrapped := E(Op("store.Put"), Unavailable, io.ErrUnexpectedEOF)
	if !errors.Is(wrapped, io.ErrUnexpectedEOF) {
		t.Fatal("errors.Is does not see the cause")
	}
	if k := KindOf(E(Op("store.Load"), Other, "corrupt record", inner)); k != Other {
		t.Fatalf("explicit Other overridden by the cause's kind: %v", k)
	}
	if KindOf(io.EOF) != Other {
		t.Fatal("plain error should be Other")
	}
	if Kind(200).String() != "kind(200)" {
		t.Fatal("unknown kind string")
	}
}

// TestJoinListsEveryField: several invalid inputs travel as one error
// whose fields are all listed, first first.
func TestJoinListsEveryField(t *testing.T) {
	if Join(nil, nil) != nil {
		t.Fatal("Join of nothing is an error")
	}
	one := Errorf("op", "nodes", "must be positive")
	if Join(nil, one) != one {
		t.Fatal("Join of one error is not that error")
	}
	err := Join(one, nil, Errorf("op", "end", "must be after start"), E(Op("op"), Invalid, Field("tags[1]"), "appears twice"))
	if KindOf(err) != Invalid || FieldOf(err) != "nodes" {
		t.Fatalf("kind %v field %q", KindOf(err), FieldOf(err))
	}
	got := FieldsOf(err)
	if len(got) != 3 || got[0].Field != "nodes" || got[1].Field != "end" || got[2] != (FieldMessage{"tags[1]", "appears twice"}) {
		t.Fatalf("FieldsOf = %v", got)
	}
	if want := "op: nodes: must be positive; end: must be after start; tags[1]: appears twice"; err.Error() != want {
		t.Fatalf("Error() = %q, want %q", err.Error(), want)
	}
}

// TestJoinedFieldsSurviveWrapping: an operation that wraps a joined error
// (E(op, err)) still lists every field.
func TestJoinedFieldsSurviveWrapping(t *testing.T) {
	err := E(Op("outer"), Join(Errorf("op", "a", "bad"), Errorf("op", "b", "bad too")))
	if got := FieldsOf(err); len(got) != 2 || got[0].Field != "a" || got[1].Field != "b" {
		t.Fatalf("FieldsOf = %v", got)
	}
}

// TestEMessageIsNeverTheOp: a string given to E is the message wherever it
// stands, also when no Op is given; only an Op names the operation.
func TestEMessageIsNeverTheOp(t *testing.T) {
	noOp := E(NotFound, Field("id"), "no such id")
	var e *Error
	if !errors.As(noOp, &e) || e.Op != "" || e.Msg != "no such id" {
		t.Fatalf("E(kind, field, msg) = %#v, want no op and the message", noOp)
	}
	if got := MessageOf(noOp); got != "no such id" {
		t.Fatalf("MessageOf = %q, want the message", got)
	}
	if got := noOp.Error(); got != "id: no such id" {
		t.Fatalf("Error() = %q", got)
	}
	late := E(Invalid, "must be positive", Op("pricing.Check"))
	if !errors.As(late, &e) || e.Op != "pricing.Check" || e.Msg != "must be positive" {
		t.Fatalf("E(kind, msg, op) = %#v", late)
	}
}
