package service_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/service"
	"slotfare/overbook"
)

// reportCase is a resource with every kind of booking a report counts:
// shows and denials of an overbooked start, a no-show, a cancellation with
// a penalty, committed bookings ahead, one checked in early and one held.
type reportCase struct {
	t     *testing.T
	svcs  []*service.Service
	set   func(time.Time)
	tick  func(time.Time)
	owned []ownedBooking
}

type ownedBooking struct {
	p  booking.Principal
	id string
}

func reportConfig() config.Config {
	rc := resourceConfig("S", 4, config.OverbookingConfig{Policy: overbook.Probability, Denial: overbook.DCF})
	rc.Limits.ShowRates = map[string]float64{"peak": 0.5, "off_peak": 0.5, "super_saver": 0.5}
	return testConfig(rc)
}

func (c *reportCase) svc(i int) *service.Service { return c.svcs[i%len(c.svcs)] }

// book holds and (unless heldOnly) commits through two replicas.
func (c *reportCase) book(i int, start time.Time, d time.Duration, nodes int, class string, heldOnly bool) (ownedBooking, bool) {
	c.t.Helper()
	p := []booking.Principal{alice, bob}[i%2]
	b, _, err := c.svc(i).Hold(bg, p, booking.HoldRequest{ResourceID: "S", Start: start, End: start.Add(d), Nodes: nodes, FareClass: class}, booking.Idempotency{})
	if err != nil {
		return ownedBooking{}, false
	}
	if !heldOnly {
		must[booking.Booking](c.t)(c.svc(i+1).Commit(bg, p, b.ID))
	}
	o := ownedBooking{p, b.ID}
	c.owned = append(c.owned, o)
	return o, true
}

func (c *reportCase) play() {
	t := c.t
	start := t0.Add(2 * time.Hour)
	var overbooked []ownedBooking
	for i, cl := range []string{"premium", "business", "budget", "budget", "business", "premium", "budget", "budget"} {
		if o, ok := c.book(i, start, time.Hour, 1, cl, false); ok {
			overbooked = append(overbooked, o)
		}
	}
	if len(overbooked) <= 4 {
		t.Fatalf("only %d bookings on 4 nodes: no overbooking", len(overbooked))
	}
	noShow, _ := c.book(1, t0.Add(3*time.Hour), time.Hour, 2, "budget", false)
	cancelled, _ := c.book(0, t0.Add(6*time.Hour), 2*time.Hour, 1, "premium", false)
	early, _ := c.book(1, t0.Add(4*time.Hour), 3*time.Hour, 1, "business", false)
	c.book(0, t0.Add(26*time.Hour), 5*time.Hour, 3, "budget", false)
	must[booking.Booking](t)(c.svc(0).Cancel(bg, cancelled.p, cancelled.id))
	c.set(start.Add(-time.Minute))
	for i, o := range overbooked {
		must[booking.Booking](t)(c.svc(i).CheckIn(bg, o.p, o.id))
	}
	c.tick(start)
	c.set(t0.Add(3*time.Hour + 20*time.Minute))
	must[booking.Booking](t)(c.svc(0).CheckIn(bg, early.p, early.id))
	c.tick(t0.Add(3*time.Hour + 20*time.Minute))
	if b := must[booking.Booking](t)(c.svc(0).Get(bg, noShow.p, noShow.id)); b.Status != booking.NoShow {
		t.Fatalf("the no-show is %s", b.Status)
	}
	c.book(0, t0.Add(5*time.Hour), time.Hour, 1, "business", true)
}

func (c *reportCase) bookings() []booking.Booking {
	var out []booking.Booking
	for _, o := range c.owned {
		out = append(out, must[booking.Booking](c.t)(c.svc(0).Get(bg, o.p, o.id)))
	}
	return out
}

// countAt is the brute force of an occupancy step: held, committed and
// checked-in nodes of the bookings holding [t, t+1s).
func countAt(bs []booking.Booking, t time.Time) [3]int {
	var n [3]int
	for _, b := range bs {
		if b.Start.After(t) || !b.End.After(t) {
			continue
		}
		switch {
		case b.Status == booking.Held:
			n[0] += b.Nodes
		case b.Status == booking.Committed && !b.CheckedIn:
			n[1] += b.Nodes
		case b.Status == booking.Committed, b.Status == booking.Active, b.Status == booking.Completed, b.Status == booking.Terminated:
			n[2] += b.Nodes
		}
	}
	return n
}

func checkOccupancy(t *testing.T, occ service.Occupancy, bs []booking.Booking, from, to time.Time) {
	t.Helper()
	if len(occ.Steps) == 0 || !occ.Steps[0].Start.Equal(from) || !occ.Steps[len(occ.Steps)-1].End.Equal(to) {
		t.Fatalf("steps do not cover [%s, %s): %+v", from, to, occ.Steps)
	}
	seen := 0
	for _, st := range occ.Steps {
		for at := st.Start; at.Before(st.End); at = at.Add(time.Minute) {
			if got, want := [3]int{st.Held, st.Committed, st.CheckedIn}, countAt(bs, at); got != want {
				t.Fatalf("at %s the step says held/committed/checked in %v, the bookings %v", at, got, want)
			}
			seen += st.Held + st.Committed + st.CheckedIn
		}
		if st.Capacity != 4 || st.OverbookingLimit < 4 {
			t.Fatalf("step %+v: capacity 4 with an overbooking limit above", st)
		}
	}
	if seen == 0 {
		t.Fatal("no nodes occupied anywhere")
	}
}

func checkRevenue(t *testing.T, rev service.RevenueReport, bs []booking.Booking, from, to time.Time) {
	t.Helper()
	var want service.RevenueFigures
	for _, b := range bs {
		if b.Start.Before(from) || !b.Start.Before(to) || b.Status == booking.Held {
			continue
		}
		want.Charges = want.Charges.Add(b.Price.Total)
		for _, f := range []struct {
			into *decimal.Decimal
			v    *decimal.Decimal
		}{{&want.Penalties, b.Penalty}, {&want.Refunds, b.Refund}, {&want.Compensation, b.Compensation}} {
			if f.v != nil {
				*f.into = f.into.Add(*f.v)
			}
		}
	}
	want.Net = want.Charges.Add(want.Penalties).Sub(want.Refunds).Sub(want.Compensation)
	got := rev.Total
	for _, p := range [][2]decimal.Decimal{{got.Charges, want.Charges}, {got.Penalties, want.Penalties}, {got.Refunds, want.Refunds},
		{got.Compensation, want.Compensation}, {got.Net, want.Net}} {
		if !p[0].Equal(p[1]) {
			t.Fatalf("revenue %+v, the bookings say %+v", got, want)
		}
	}
	if !want.Penalties.IsPositive() || !want.Compensation.IsPositive() {
		t.Fatalf("the case has no penalty or no compensation: %+v", want)
	}
	sum := decimal.Zero
	for _, r := range rev.Rows {
		sum = sum.Add(r.Net)
	}
	if !sum.Equal(got.Net) || !rev.LastWeek.Net.IsZero() {
		t.Fatalf("rows sum to %s, total %s; last week %s", sum, got.Net, rev.LastWeek.Net)
	}
}

func checkDenials(t *testing.T, den service.DenialReport, bs []booking.Booking) {
	t.Helper()
	want := map[[2]string][2]int{}
	for _, b := range bs {
		k := [2]string{b.Start.Format(time.DateOnly), b.FareClass}
		c := want[k]
		switch b.Status {
		case booking.Denied:
			c[0]++
		case booking.NoShow:
			c[1]++
		default:
			continue
		}
		want[k] = c
	}
	got := map[[2]string][2]int{}
	for _, r := range den.Rows {
		if r.Denied+r.NoShows > 0 {
			got[[2]string{r.Date, r.Class}] = [2]int{r.Denied, r.NoShows}
		}
	}
	if want[[2]string{"2026-11-30", "budget"}] != [2]int{4, 1} || !equalMaps(got, want) || den.Strategy != "dcf" {
		t.Fatalf("denials and no-shows %v (strategy %s), the bookings say %v", got, den.Strategy, want)
	}
}

func equalMaps[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func checkControl(t *testing.T, rep service.ControlReport, bs []booking.Booking) {
	t.Helper()
	booked := 0
	for _, in := range rep.Instances {
		for _, cc := range in.Classes {
			peak, sold := 0, 0
			var mine []booking.Booking
			for _, b := range bs {
				if b.FareClass == cc.Class && b.End.After(in.Start) && b.Start.Before(in.End) {
					mine = append(mine, b)
					if b.Status != booking.Held && b.Status != booking.Expired {
						sold++
					}
				}
			}
			for at := in.Start; at.Before(in.End); at = at.Add(time.Minute) {
				n := countAt(mine, at)
				peak = max(peak, n[0]+n[1]+n[2])
			}
			if cc.Bookings != peak {
				t.Fatalf("%s %s at %s: bookings %d, the bookings' peak %d", in.Period, cc.Class, in.Start, cc.Bookings, peak)
			}
			last := 0
			if len(cc.Curve) > 0 {
				last = cc.Curve[len(cc.Curve)-1].Bookings
			}
			if last != sold || cc.BookingLimit > in.OverbookingLimit {
				t.Fatalf("%s %s at %s: curve ends at %d, sold %d; limit %d of %d", in.Period, cc.Class, in.Start, last, sold, cc.BookingLimit, in.OverbookingLimit)
			}
			booked += cc.Bookings
		}
	}
	if booked == 0 {
		t.Fatal("no class holds anything")
	}
}

// checkReports compares every report of each service with a brute-force
// count over the bookings, and answers them as JSON to compare, with or
// without booking control's limits.
func (c *reportCase) checkReports(s *service.Service, withoutLimits bool) string {
	t := c.t
	t.Helper()
	from, to := t0.Truncate(24*time.Hour), t0.Truncate(24*time.Hour).Add(3*24*time.Hour)
	bs := c.bookings()
	occ := must[service.Occupancy](t)(s.Occupancy(bg, provider, "S", from, to))
	checkOccupancy(t, occ, bs, from, to)
	rev := must[service.RevenueReport](t)(s.Revenue(bg, provider, "S", from, to))
	checkRevenue(t, rev, bs, from, to)
	den := must[service.DenialReport](t)(s.Denials(bg, provider, "S", from, to))
	checkDenials(t, den, bs)
	ctl := must[service.ControlReport](t)(s.BookingControl(bg, provider, "S", from, to))
	checkControl(t, ctl, bs)
	if !withoutLimits {
		out, err := json.Marshal([]any{occ, rev, den, ctl})
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	for i := range occ.Steps {
		occ.Steps[i].OverbookingLimit = 0
	}
	for i := range ctl.Instances {
		in := &ctl.Instances[i]
		in.OverbookingLimit, in.ShowRate, in.Source = 0, 0, ""
		for j := range in.Classes {
			c := &in.Classes[j]
			c.BookingLimit, c.ProtectionLevel, c.ForecastMean, c.ForecastSD = 0, 0, nil, nil
		}
	}
	out, err := json.Marshal([]any{occ, rev, den, ctl})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestReportsEqualBruteForceEmbedded: on the embedded store (bbolt), the
// occupancy, revenue, denials and booking-control reports equal counts
// made booking by booking, and survive a restart unchanged.
func TestReportsEqualBruteForceEmbedded(t *testing.T) {
	h := newHarness(t, reportConfig())
	c := &reportCase{t: t, svcs: []*service.Service{h.svc}, set: h.clk.Set, tick: func(now time.Time) {
		if err := h.svc.Tick(now); err != nil {
			t.Fatal(err)
		}
	}}
	c.play()
	// A restart replays the history into booking control at another
	// point of its life, which may move the show rate a little: the
	// figures of the bookings must stay.
	before := c.checkReports(h.svc, true)
	h.reopen()
	c.svcs = []*service.Service{h.svc}
	if after := c.checkReports(h.svc, true); after != before {
		t.Fatalf("the reports changed across a restart:\n%s\n%s", before, after)
	}
}

// TestReportsEqualBruteForceReplicas: two replicas sharing ports (memory,
// a redis-server, a Redis Cluster) answer every report the same, limits
// included (the replica without the ticker lease too), equal to counts
// made booking by booking.
func TestReportsEqualBruteForceReplicas(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rs := newReplicas(t, 2, reportConfig(), ports)
		rs.tickAll(t0)
		c := &reportCase{t: t, svcs: rs.svcs, set: rs.clk.Set, tick: rs.tickAll}
		c.play()
		a, b := c.checkReports(rs.svcs[0], false), c.checkReports(rs.svcs[1], false)
		if a != b {
			t.Fatalf("replicas answer differently:\n%s\n%s", a, b)
		}
	})
}

// TestReportsRefuse: a user may not read them; a window that is empty,
// too long or unknown resource is refused naming what is wrong.
func TestReportsRefuse(t *testing.T) {
	h := newHarness(t, reportConfig())
	_, err := h.svc.Occupancy(bg, alice, "S", t0, t0.Add(time.Hour))
	wantKind(t, err, slotfare.Forbidden)
	_, err = h.svc.Revenue(bg, provider, "S", t0, t0)
	wantKind(t, err, slotfare.Invalid)
	_, err = h.svc.Denials(bg, provider, "S", t0, t0.Add(100*24*time.Hour))
	wantKind(t, err, slotfare.Invalid)
	_, err = h.svc.BookingControl(bg, provider, "nope", t0, t0.Add(time.Hour))
	wantKind(t, err, slotfare.NotFound)
}
