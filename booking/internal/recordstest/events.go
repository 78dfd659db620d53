package recordstest

import (
	"slices"
	"strings"
	"testing"

	"slotfare/booking"
	"slotfare/booking/events"
	"slotfare/booking/records"
	"slotfare/ledger"
)

// readAll pages a port's whole event log over streams, limit at a time.
func readAll(t *testing.T, p records.Port, streams []string, limit int) []events.Logged {
	t.Helper()
	r, ok := p.(events.Reader)
	if !ok {
		t.Fatalf("%T keeps no event log (events.Reader)", p)
	}
	var all []events.Logged
	var c events.Cursor
	for range 1000 {
		page, err := r.ReadEvents(bg, streams, c, limit)
		must(t, err)
		if len(page) == 0 {
			return all
		}
		for _, l := range page {
			c = c.Advance(l)
		}
		all = append(all, page...)
	}
	t.Fatal("the event log does not end")
	return nil
}

func eventTypes(ls []events.Logged) string {
	var ts []string
	for _, l := range ls {
		ts = append(ts, l.Event.Type+"@"+l.Event.Subject)
	}
	return strings.Join(ts, " ")
}

// eventLog: each write's events are in the log when it is applied, in the
// order of the writes, read back page by page across resources; a retry
// of an applied write and a refused write add none; a change that keeps
// its status is booking.modified; ids repeat nothing.
func eventLog(t *testing.T, p records.Port) {
	held := rec("bk1", "alice", "R", booking.Held, t0)
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "ev-hold", Changes: []records.Change{{Record: held}}}))
	committed := rec("bk1", "alice", "R", booking.Committed, t0)
	commit := records.Write{Resource: "R", WriteID: "ev-commit", Changes: []records.Change{{Record: committed, Replaces: 1, From: booking.Held}},
		Postings: []ledger.Posting{charge(t, "bk1", "alice", "R")}}
	must(t, p.Apply(bg, commit))
	must(t, p.Apply(bg, commit)) // a retry
	wantConflict(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "ev-stale",
		Changes: []records.Change{{Record: rec("bk1", "alice", "R", booking.Cancelled, t0), Replaces: 1, From: booking.Committed}}}), "booking_id")
	must(t, p.Apply(bg, records.Write{Resource: "S", WriteID: "ev-other", Changes: []records.Change{{Record: rec("bk2", "bob", "S", booking.Held, t0)}}}))
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "ev-modify",
		Changes: []records.Change{{Record: committed, Replaces: 2, From: booking.Committed}}}))

	want := "booking.held@bookings/bk1 booking.committed@bookings/bk1 posting.created@accounts/alice invoice.updated@invoices/" +
		ledger.InvoiceID("alice", ledger.PeriodOf(t0), "GRD") + " booking.held@bookings/bk2 booking.modified@bookings/bk1"
	for _, limit := range []int{1, 2, 100} {
		got := readAll(t, p, []string{"R", "S", ""}, limit)
		// Across resources the order is the log's where it is one
		// sequence, and per resource on Redis: compare per subject.
		if bySubject(got) != bySubject(parse(want)) || len(got) != 6 {
			t.Fatalf("events read %d at a time:\n%s\nwant\n%s", limit, eventTypes(got), want)
		}
		ids := map[string]bool{}
		for _, l := range got {
			e := l.Event
			if ids[e.ID] || e.SpecVersion != "1.0" || e.Source == "" || e.Time.IsZero() || len(e.Data) == 0 {
				t.Fatalf("event %+v: id repeated or an attribute missing", e)
			}
			ids[e.ID] = true
		}
	}
}

// parse is want as Logged events of its types and subjects.
func parse(want string) []events.Logged {
	var out []events.Logged
	for _, f := range strings.Fields(want) {
		typ, subj, _ := strings.Cut(f, "@")
		out = append(out, events.Logged{Event: events.Event{Type: typ, Subject: subj}})
	}
	return out
}

// bySubject is each subject's event types in order, subjects sorted.
func bySubject(ls []events.Logged) string {
	m := map[string][]string{}
	var subs []string
	for _, l := range ls {
		if m[l.Event.Subject] == nil {
			subs = append(subs, l.Event.Subject)
		}
		m[l.Event.Subject] = append(m[l.Event.Subject], l.Event.Type)
	}
	var b strings.Builder
	slices.Sort(subs)
	for _, s := range subs {
		b.WriteString(s + ":" + strings.Join(m[s], ",") + ";")
	}
	return b.String()
}
