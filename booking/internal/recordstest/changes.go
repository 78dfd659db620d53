package recordstest

import (
	"fmt"
	"testing"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/records"
	"slotfare/ledger"
)

// changesPage reads one page of resource's change log after after.
func changesPage(t *testing.T, p records.Port, resource string, after int64, limit int) records.ChangePage {
	t.Helper()
	page, err := p.Changes(bg, resource, after, limit)
	must(t, err)
	return page
}

// changedIDs are a page's bookings as "id@version".
func changedIDs(page records.ChangePage) string {
	out := make([]string, len(page.Bookings))
	for i, st := range page.Bookings {
		out[i] = fmt.Sprintf("%s@%d", st.Record.Booking.ID, st.Version)
	}
	return fmt.Sprint(out)
}

// changes: every write that changes bookings logs them on their resource,
// each once at its newest change, with its record as stored now; a write
// refused or sent again, one of postings alone and one on another
// resource log nothing there; a cursor ahead of the log is lost.
func changes(t *testing.T, p records.Port) {
	if c, err := p.ChangeCursor(bg, "R"); err != nil || c != 0 {
		t.Fatalf("cursor of an empty log: %d, %v", c, err)
	}
	if page := changesPage(t, p, "R", 0, 5); len(page.Bookings) != 0 || page.Next != 0 || page.More || page.Lost {
		t.Fatalf("an empty log: %+v", page)
	}
	one, two := rec("bk1", "alice", "R", booking.Held, t0), rec("bk2", "bob", "R", booking.Held, t0)
	w := records.Write{Resource: "R", WriteID: "w1", Changes: []records.Change{{Record: one}, {Record: two}}}
	must(t, p.Apply(bg, w))
	must(t, p.Apply(bg, w)) // a retry
	cur, err := p.ChangeCursor(bg, "R")
	must(t, err)
	must(t, p.Apply(bg, records.Write{Resource: "S", WriteID: "w2", Changes: []records.Change{{Record: rec("bk3", "alice", "S", booking.Held, t0)}}}))
	one.Booking.Status = booking.Committed
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "w3", Changes: []records.Change{{Record: one, Replaces: 1}},
		Postings: []ledger.Posting{charge(t, "bk1", "alice", "R")}}))
	wantConflict(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "w4", Changes: []records.Change{{Record: two, Replaces: 7}}}), "booking_id")
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "w5", Postings: []ledger.Posting{charge(t, "bk2", "bob", "R")}}))

	if page := changesPage(t, p, "R", cur, 5); changedIDs(page) != "[bk1@2]" || page.More || page.Lost {
		t.Fatalf("after the cursor taken after the holds: %s, more %v, lost %v", changedIDs(page), page.More, page.Lost)
	}
	first := changesPage(t, p, "R", 0, 1)
	if changedIDs(first) != "[bk2@1]" || !first.More || first.Lost || first.Next <= 0 {
		t.Fatalf("first page of one: %s, next %d, more %v, lost %v", changedIDs(first), first.Next, first.More, first.Lost)
	}
	second := changesPage(t, p, "R", first.Next, 1)
	if changedIDs(second) != "[bk1@2]" || second.Lost || second.Next <= first.Next {
		t.Fatalf("second page of one: %s, next %d, lost %v", changedIDs(second), second.Next, second.Lost)
	}
	last, err := p.ChangeCursor(bg, "R")
	must(t, err)
	if second.Next != last {
		t.Fatalf("the last change is at %d, the cursor at %d", second.Next, last)
	}
	if page := changesPage(t, p, "R", last, 5); len(page.Bookings) != 0 || page.Next != last || page.More || page.Lost {
		t.Fatalf("after the newest change: %+v", page)
	}
	if page := changesPage(t, p, "S", 0, 5); changedIDs(page) != "[bk3@1]" {
		t.Fatalf("resource S: %s", changedIDs(page))
	}
	if page := changesPage(t, p, "R", last+100, 5); !page.Lost {
		t.Fatalf("a cursor ahead of the log: %+v", page)
	}
	for _, bad := range []struct {
		res   string
		after int64
		limit int
		field string
	}{{"", 0, 1, "resource"}, {"R", -1, 1, "after"}, {"R", 0, 0, "limit"}} {
		if _, err := p.Changes(bg, bad.res, bad.after, bad.limit); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != bad.field {
			t.Errorf("Changes(%q, %d, %d): %v, want Invalid %s", bad.res, bad.after, bad.limit, err, bad.field)
		}
	}
}

// changesTrimmed: a log keeps its newest bookings; a cursor older than
// what it keeps is lost, one within it reads on.
func changesTrimmed(t *testing.T, p records.Port) {
	p.KeepChanges(4)
	for i := 1; i <= 10; i++ {
		r := rec(fmt.Sprintf("bk%02d", i), "alice", "R", booking.Held, t0)
		must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: fmt.Sprintf("w%d", i), Changes: []records.Change{{Record: r}}}))
	}
	last, err := p.ChangeCursor(bg, "R")
	must(t, err)
	if page := changesPage(t, p, "R", 0, 20); !page.Lost || len(page.Bookings) != 0 {
		t.Fatalf("from the start of a trimmed log: %+v", page)
	}
	if page := changesPage(t, p, "R", last-5, 20); !page.Lost {
		t.Fatalf("from five changes back, four kept: %s, lost %v", changedIDs(page), page.Lost)
	}
	if page := changesPage(t, p, "R", last-4, 20); page.Lost || changedIDs(page) != "[bk07@1 bk08@1 bk09@1 bk10@1]" {
		t.Fatalf("from four changes back: %s, lost %v", changedIDs(page), page.Lost)
	}
}
