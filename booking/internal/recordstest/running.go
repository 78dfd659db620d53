package recordstest

import (
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/records"
)

// running: Running sums the nodes of a resource's active bookings that end
// after the instant asked, whatever else is live, and follows them as they
// start, change, complete and are refused a write.
func running(t *testing.T, p records.Port) {
	at := func(h float64) time.Time { return t0.Add(time.Duration(h * float64(time.Hour))) }
	mk := func(id, res string, st booking.Status, nodes int, end time.Time) booking.Record {
		r := rec(id, "alice", res, st, t0)
		r.Booking.Nodes, r.Booking.End = nodes, end
		return r
	}
	write := func(id string, r booking.Record, replaces int64) error {
		return p.Apply(bg, records.Write{Resource: r.Booking.ResourceID, WriteID: id, Changes: []records.Change{{Record: r, Replaces: replaces}}})
	}
	want := func(what, res string, when time.Time, n int) {
		t.Helper()
		got, err := p.Running(bg, res, when)
		must(t, err)
		if got != n {
			t.Fatalf("%s: %d nodes running on %s at %s, want %d", what, got, res, when.Format(time.TimeOnly), n)
		}
	}
	want("nothing stored", "R", at(1), 0)
	must(t, write("c", mk("c", "R", booking.Committed, 3, at(4)), 0))
	must(t, write("h", mk("h", "R", booking.Held, 7, at(4)), 0))
	must(t, write("a1", mk("a1", "R", booking.Active, 2, at(2)), 0))
	must(t, write("a2", mk("a2", "R", booking.Active, 4, at(3)), 0))
	must(t, write("s", mk("s", "S", booking.Active, 5, at(3)), 0))
	want("two active", "R", at(1), 6)
	want("one ending a second later", "R", at(2).Add(-time.Second), 6)
	want("one ending at the instant", "R", at(2), 4)
	want("both ended", "R", at(3), 0)
	want("another resource", "S", at(1), 5)
	want("a resource without bookings", "T", at(1), 0)

	must(t, write("c-start", mk("c", "R", booking.Active, 3, at(4)), 1))
	want("a show started", "R", at(1), 9)
	must(t, write("a1-done", mk("a1", "R", booking.Completed, 2, at(2)), 1))
	want("one completed", "R", at(1), 7)
	must(t, write("a2-extend", mk("a2", "R", booking.Active, 1, at(5)), 1))
	want("one changed while running", "R", at(4), 1)
	want("one changed while running", "R", at(1), 4)
	err := write("a2-stale", mk("a2", "R", booking.Completed, 1, at(5)), 1)
	wantConflict(t, err, "booking_id")
	want("a refused write", "R", at(4), 1)
	must(t, write("a2-cancel", mk("a2", "R", booking.Cancelled, 1, at(5)), 2))
	want("the last one stopped", "R", at(4), 0)
}
