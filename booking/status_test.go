package booking

import (
	"testing"

	"slotfare"
)

func TestStateMachine(t *testing.T) {
	legal := map[[2]Status]bool{
		{Held, Committed}: true, {Held, Expired}: true, {Held, Cancelled}: true, {Held, Rejected}: true,
		{Committed, Active}: true, {Committed, Cancelled}: true, {Committed, NoShow}: true, {Committed, Denied}: true,
		{Active, Completed}: true, {Active, Terminated}: true,
	}
	n := 0
	for _, from := range Statuses {
		for _, to := range Statuses {
			want := legal[[2]Status{from, to}]
			if got := CanTransition(from, to); got != want {
				t.Errorf("CanTransition(%s, %s) = %v, want %v", from, to, got, want)
			}
			err := CheckTransition("op", from, to)
			if want {
				n++
				if err != nil {
					t.Errorf("CheckTransition(%s, %s) = %v", from, to, err)
				}
			} else if slotfare.KindOf(err) != slotfare.Conflict {
				t.Errorf("CheckTransition(%s, %s) kind %v, want Conflict", from, to, slotfare.KindOf(err))
			}
		}
	}
	if n != len(legal) {
		t.Errorf("%d legal transitions seen, want %d", n, len(legal))
	}
	for _, s := range []Status{Completed, Cancelled, Expired, Rejected, NoShow, Denied, Terminated} {
		if !s.Final() {
			t.Errorf("%s not final", s)
		}
	}
	for _, s := range []Status{Held, Committed, Active} {
		if s.Final() || !s.Holding() {
			t.Errorf("%s: final %v holding %v", s, s.Final(), s.Holding())
		}
	}
	if CanTransition("bogus", Committed) || Status("bogus").Valid() || Status("bogus").Final() {
		t.Error("unknown status accepted")
	}
}

func TestParseStatus(t *testing.T) {
	for _, s := range Statuses {
		if got, err := ParseStatus(string(s)); err != nil || got != s {
			t.Errorf("ParseStatus(%s) = %v, %v", s, got, err)
		}
	}
	if got, err := ParseStatus(""); err != nil || got != "" {
		t.Errorf("ParseStatus(\"\") = %v, %v", got, err)
	}
	_, err := ParseStatus("HELD")
	if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "status" {
		t.Errorf("ParseStatus(HELD) = %v", err)
	}
}
