package control

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/booking"
	"slotfare/forecast"
)

// TestControlRestateEqualsReplay: a Control kept up to date by restating
// the bookings changed since its last refresh (in any order, some twice,
// some told first as the holder's own events) counts what a Control
// replaying every stored booking counts: the same demand, settled
// bookings, pending bookings and limits.
func TestControlRestateEqualsReplay(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rc := tinyResource(t, 10, 2)
			r := rand.New(rand.NewPCG(seed, 11))
			store := map[string]booking.Booking{}
			now := monday
			for i := 0; i < 20; i++ {
				changeStore(r, store, now, 1)
			}
			inc := newControl(t, rc)
			replayAll(t, inc, store)
			if _, err := inc.Recompute(now); err != nil {
				t.Fatal(err)
			}
			changed := map[string]bool{}
			for step := 1; step <= 30*24; step++ {
				now = now.Add(time.Hour)
				for _, id := range changeStore(r, store, now, 3) {
					changed[id] = true
					if r.IntN(2) == 0 {
						tellOwn(t, inc, store[id], now)
					}
				}
				if step%6 != 0 {
					continue
				}
				ids := make([]string, 0, len(changed))
				for id := range changed {
					ids = append(ids, id)
				}
				sort.Strings(ids)
				r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
				for _, id := range ids {
					for range 1 + r.IntN(2) {
						if err := inc.Restate(store[id]); err != nil {
							t.Fatalf("step %d: restate %+v: %v", step, store[id], err)
						}
					}
				}
				clear(changed)
				if _, err := inc.Recompute(now); err != nil {
					t.Fatal(err)
				}
			}
			full := newControl(t, rc)
			replayAll(t, full, store)
			if _, err := full.Recompute(now); err != nil {
				t.Fatal(err)
			}
			sameCount(t, inc, full)
		})
	}
}

// TestControlRestateForgetsEndedBookings: a booking settled long ago is
// remembered no more, and restating it (a late completion) counts nothing
// twice.
func TestControlRestateForgetsEndedBookings(t *testing.T) {
	c := newControl(t, tinyResource(t, 10, 1))
	b := booking.Booking{ID: "x", ResourceID: "tiny", FareClass: "gold", Nodes: 4, Start: monday.Add(time.Hour), End: monday.Add(2 * time.Hour),
		CreatedAt: monday, UpdatedAt: monday.Add(time.Hour), Status: booking.Active}
	if err := c.Restate(b); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Recompute(monday.AddDate(0, 0, 5)); err != nil {
		t.Fatal(err)
	}
	if len(c.counted) != 0 {
		t.Fatalf("%d bookings remembered five days after the last ended", len(c.counted))
	}
	before := demandOf(c)
	b.Status, b.UpdatedAt = booking.Completed, monday.AddDate(0, 0, 5)
	if err := c.Restate(b); err != nil {
		t.Fatal(err)
	}
	if got := demandOf(c); !reflect.DeepEqual(got, before) || len(c.settled["all"]) != 1 {
		t.Errorf("a late completion counted again: demand %v (was %v), %d settled", got, before, len(c.settled["all"]))
	}
}

// changeStore makes n new holds at now and moves about a fifth of the other
// bookings on, as replicas would; it answers the ids it changed.
func changeStore(r *rand.Rand, store map[string]booking.Booking, now time.Time, n int) []string {
	var ids []string
	for id, b := range store {
		if r.IntN(5) != 0 {
			continue
		}
		if next, ok := moveOn(r, b, now); ok {
			store[id] = next
			ids = append(ids, id)
		}
	}
	for range n {
		id := fmt.Sprintf("b%d", len(store))
		start := now.Add(time.Duration(1+r.IntN(5*24)) * time.Hour)
		store[id] = booking.Booking{ID: id, ResourceID: "tiny", FareClass: []string{"gold", "silver", "bronze"}[r.IntN(3)],
			Nodes: 1 + r.IntN(4), Start: start, End: start.Add(time.Duration(1+r.IntN(12)) * time.Hour),
			CreatedAt: now, UpdatedAt: now, Status: booking.Held}
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// moveOn is b's next state at now, if it has one.
func moveOn(r *rand.Rand, b booking.Booking, now time.Time) (booking.Booking, bool) {
	b.UpdatedAt = now
	charge := decimal.NewFromInt(int64(r.IntN(2)))
	switch {
	case b.Status == booking.Held && now.Before(b.Start):
		b.Status = []booking.Status{booking.Committed, booking.Committed, booking.Expired, booking.Cancelled}[r.IntN(4)]
	case b.Status == booking.Committed && now.Before(b.Start):
		switch r.IntN(3) {
		case 0:
			b.Nodes = 1 + r.IntN(4)
			b.Start = now.Add(time.Duration(1+r.IntN(5*24)) * time.Hour)
			b.End = b.Start.Add(time.Duration(1+r.IntN(12)) * time.Hour)
		case 1:
			b.FareClass = []string{"gold", "silver", "bronze"}[r.IntN(3)]
		default:
			pen := decimal.NewFromInt(1)
			b.Status, b.Penalty, b.Refund = booking.Cancelled, &pen, &charge
		}
	case b.Status == booking.Committed:
		b.Status = []booking.Status{booking.Active, booking.NoShow, booking.Denied}[r.IntN(3)]
	case b.Status == booking.Active && !now.Before(b.End):
		b.Status = booking.Completed
	default:
		return b, false
	}
	return b, true
}

// tellOwn observes the event the replica that made b's change tells its
// own control, as the service does.
func tellOwn(t *testing.T, c *Control, b booking.Booking, now time.Time) {
	ev := Event{BookingID: b.ID, Class: b.FareClass, Nodes: b.Nodes, Start: b.Start, End: b.End, At: now}
	switch b.Status {
	case booking.Committed:
		ev.Kind, ev.At = EventBooked, b.CreatedAt // made when held
		if _, ok := c.counted[b.ID]; ok {
			ev.Kind, ev.At = EventModified, now
		}
	case booking.Cancelled:
		ev.Kind = EventCancelled
	case booking.Active, booking.Denied:
		ev.Kind = EventShow
	case booking.NoShow:
		ev.Kind = EventNoShow
	default:
		return
	}
	if err := c.Observe(ev); err != nil && ev.Kind != EventModified {
		t.Fatalf("tell %v: %v", ev, err)
	}
}

// replayAll replays every stored booking, oldest first, as the service
// does on a new control.
func replayAll(t *testing.T, c *Control, store map[string]booking.Booking) {
	all := make([]booking.Booking, 0, len(store))
	for _, b := range store {
		all = append(all, b)
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].CreatedAt.Equal(all[j].CreatedAt) {
			return all[i].CreatedAt.Before(all[j].CreatedAt)
		}
		return all[i].ID < all[j].ID
	})
	for _, b := range all {
		for _, ev := range History(b) {
			mustObserve(t, c, ev)
		}
	}
}

// demandOf is c's demand without the instances where none is counted.
func demandOf(c *Control) map[int64][]float64 {
	out := map[int64][]float64{}
	for k, d := range c.demand {
		for _, x := range d {
			if x != 0 {
				out[k] = d
				break
			}
		}
	}
	return out
}

// sameCount fails unless a and b count the same bookings the same way.
func sameCount(t *testing.T, a, b *Control) {
	t.Helper()
	if da, db := demandOf(a), demandOf(b); !reflect.DeepEqual(da, db) {
		t.Errorf("demand differs: %d instances with demand against %d", len(da), len(db))
		for k := range db {
			if !reflect.DeepEqual(da[k], db[k]) {
				t.Errorf("instance %s: %v, want %v", time.Unix(0, k).UTC(), da[k], db[k])
			}
		}
	}
	if !reflect.DeepEqual(a.settled, b.settled) {
		t.Errorf("settled differ: %d against %d", len(a.settled["all"]), len(b.settled["all"]))
	}
	pending := func(c *Control) map[string]controlBooking {
		out := map[string]controlBooking{}
		for id, cb := range c.counted {
			if cb.outcome == 0 {
				out[id] = *cb
			}
		}
		return out
	}
	if pa, pb := pending(a), pending(b); !reflect.DeepEqual(pa, pb) {
		t.Errorf("pending differ: %d against %d", len(pa), len(pb))
	}
	for _, c := range []*Control{a, b} {
		// pending is the counted bookings of no outcome, the same pointers
		idx := map[string]*controlBooking{}
		for id, cb := range c.counted {
			if cb.outcome == 0 {
				idx[id] = cb
			}
		}
		if !maps.Equal(idx, c.pending) {
			t.Errorf("pending index holds %d bookings, counted %d pending", len(c.pending), len(idx))
		}
		// the pending records kept as bookings come and settle are those
		// of the pending bookings, sorted
		recs := map[string][]forecast.BookingRecord{}
		for _, cb := range idx {
			r := c.settledRecord(*cb)
			recs[r.Key.Period] = append(recs[r.Key.Period], r)
		}
		for p, rs := range recs {
			slices.SortFunc(rs, settledOrder)
			if got := c.pendingRecords()[p]; !reflect.DeepEqual(got, rs) {
				t.Errorf("period %s: %d pending records kept, %d pending bookings", p, len(got), len(rs))
			}
		}
		for p, rs := range c.pendingRecords() {
			if len(rs) != len(recs[p]) {
				t.Errorf("period %s: %d pending records kept, %d pending bookings", p, len(rs), len(recs[p]))
			}
		}
		// the marks kept with them give EstimateShowRate's curve
		at := c.lastNow.Add(30 * 24 * time.Hour) // after every record's start
		for p, settled := range c.settled {
			if len(settled) == 0 {
				continue
			}
			// showAt is the latest instant in the records, or now
			latest := c.lastNow
			for _, r := range slices.Concat(settled, c.pendingRecords()[p]) {
				latest = maxTime(maxTime(latest, r.Start), maxTime(r.Booked, r.CancelledAt))
			}
			if got := c.showAt(p, c.lastNow); !got.Equal(latest) {
				t.Errorf("period %s: show rate as of %s, the latest instant in its records is %s", p, got, latest)
			}
			want, err := forecast.EstimateShowRate(slices.Concat(settled, c.pendingRecords()[p]), at)
			if err != nil {
				t.Fatal(err)
			}
			got, err := forecast.EstimateShowRateMarked(settled, c.pendingRecords()[p], c.marks[p], at)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("period %s: the kept marks give %+v (err %v), the records %+v", p, got, err, want)
			}
		}
		for id, cb := range c.counted {
			if cb.outcome != 0 && cb.end.Before(c.forgetBefore) {
				t.Errorf("%s settled, ended %s, still counted after forgetting what ended before %s", id, cb.end, c.forgetBefore)
			}
		}
	}
	if !a.origin.Equal(b.origin) {
		t.Errorf("origin %s, want %s", a.origin, b.origin)
	}
	for _, p := range b.periods {
		if la, lb := a.Limits(p), b.Limits(p); !equalLimits(la, lb) {
			t.Errorf("period %s: limits %+v, want %+v", p, la, lb)
		}
	}
	if len(b.settled["all"]) == 0 || len(demandOf(b)) == 0 {
		t.Errorf("nothing settled or demanded: the comparison proves nothing")
	}
}
