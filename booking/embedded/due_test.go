package embedded_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/records"
)

// TestDueIsTheLiveSetFiltered: the ports keep each live booking's due
// instant beside it; Due answers what records.DueOf finds in Live, in id
// order, as bookings are held (with and without a hold expiry), moved,
// committed, started, ended and cancelled, at instants before, between
// and after their due times.
func TestDueIsTheLiveSetFiltered(t *testing.T) {
	p := fresh(t, kinds[1])
	r := rand.New(rand.NewPCG(11, 3))
	next := map[booking.Status]booking.Status{booking.Held: booking.Committed, booking.Committed: booking.Active, booking.Active: booking.Completed}
	var ids []string
	for step := range 400 {
		var rc booking.Record
		var replaces int64
		if len(ids) < 5 || r.IntN(3) == 0 {
			id := fmt.Sprintf("bk%03d", r.IntN(1000))
			rc = rec(id, "alice", "R", booking.Held, t0)
			if _, found, _ := p.Records.Get(bg, id); found {
				continue
			}
			ids = append(ids, id)
		} else {
			st := get(t, p, ids[r.IntN(len(ids))])
			if !st.Record.Booking.Status.Holding() {
				continue
			}
			rc, replaces = st.Record, st.Version
			switch r.IntN(4) {
			case 0:
				rc.Booking.Status = booking.Cancelled
			case 1:
				rc.Booking.Status = next[rc.Booking.Status]
			}
		}
		rc.Booking.Start = t0.Add(time.Duration(r.IntN(48)) * time.Hour)
		rc.Booking.End = rc.Booking.Start.Add(time.Duration(1+r.IntN(5)) * time.Hour)
		rc.Booking.HoldExpiresAt = nil
		if rc.Booking.Status == booking.Held && r.IntN(2) == 0 {
			at := t0.Add(time.Duration(r.IntN(48)) * time.Hour)
			rc.Booking.HoldExpiresAt = &at
		}
		must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: fmt.Sprintf("w%d", step), Changes: []records.Change{{Record: rc, Replaces: replaces}}}))
		live, err := p.Records.Live(bg, "R")
		must(t, err)
		for _, h := range []int{-1, 0, 5, 12, 24, 47, 60} {
			until := t0.Add(time.Duration(h) * time.Hour)
			got, err := p.Records.Due(bg, "R", until)
			must(t, err)
			if g, w := stIDs(got), stIDs(records.DueOf(live, until)); g != w {
				t.Fatalf("step %d, due by %s: %s, want %s", step, until, g, w)
			}
		}
	}
	if len(ids) < 50 {
		t.Fatalf("%d bookings made: the test proves little", len(ids))
	}
}

// stIDs are the ids and versions of sts, in their order.
func stIDs(sts []*records.Stored) string {
	out := ""
	for _, st := range sts {
		out += fmt.Sprintf("%s@%d ", st.Record.Booking.ID, st.Version)
	}
	return out
}
