package service_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/inventory"
	"slotfare/booking/service"
	"slotfare/overbook"
)

// limitedConfig is testConfig with one resource L of nodes and the given
// hold limits.
func limitedConfig(nodes int, hl config.HoldLimits) config.Config {
	rc := resourceConfig("L", nodes, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
	rc.HoldLimits = hl
	return testConfig(rc)
}

// wantHoldLimit asserts err is a hold limit refusal of kind k naming limit
// and returns its details.
func wantHoldLimit(t *testing.T, err error, k slotfare.Kind, limit string) *service.HoldLimitError {
	t.Helper()
	wantKind(t, err, k)
	var hl *service.HoldLimitError
	if !errors.As(err, &hl) {
		t.Fatalf("%v: no HoldLimitError in the chain", err)
	}
	if hl.Limit != limit {
		t.Fatalf("%v: limit %q, want %q", err, hl.Limit, limit)
	}
	return hl
}

// TestHoldLimitCount: an account may have max_holds holds on a resource at
// once; the next is LimitExceeded with when one expires. Other accounts are
// not affected, and a hold that is cancelled, committed, expired (swept or
// not) or rejected stops counting.
func TestHoldLimitCount(t *testing.T) {
	h := newHarness(t, limitedConfig(10, config.HoldLimits{MaxHolds: 3}))
	start := t0.Add(3 * time.Hour)
	slot := func(i int) time.Time { return start.Add(time.Duration(i) * time.Hour) }
	var held []booking.Booking
	for i := range 3 {
		h.clk.Set(t0.Add(time.Duration(i) * 100 * time.Second)) // expire at t0+600, +700, +800
		held = append(held, must[booking.Booking](t)(h.hold(alice, "L", slot(i), time.Hour, 1, "budget")))
	}
	h.clk.Set(t0.Add(300 * time.Second))
	_, err := h.hold(alice, "L", slot(3), time.Hour, 1, "budget")
	hl := wantHoldLimit(t, err, slotfare.LimitExceeded, "max_holds")
	if slotfare.FieldOf(err) != "hold_limits.max_holds" || hl.ResourceID != "L" || hl.Max != 3 || hl.Held != 3 || hl.Requested != 1 || hl.RetryAfter != 300 {
		t.Fatalf("refusal %+v field %q, want 3 of 3 held, retry in 300 s (the first expires at t0+600)", hl, slotfare.FieldOf(err))
	}
	// Per account: bob holds freely.
	must[booking.Booking](t)(h.hold(bob, "L", slot(3), time.Hour, 1, "budget"))

	// Cancelled: room for one.
	must[booking.Booking](t)(h.svc.Cancel(bg, alice, held[0].ID))
	held[0] = must[booking.Booking](t)(h.hold(alice, "L", slot(4), time.Hour, 1, "budget"))
	_, err = h.hold(alice, "L", slot(5), time.Hour, 1, "budget")
	wantHoldLimit(t, err, slotfare.LimitExceeded, "max_holds")
	// Committed: paid for, no longer a hold.
	must[booking.Booking](t)(h.svc.Commit(bg, alice, held[1].ID))
	held[1] = must[booking.Booking](t)(h.hold(alice, "L", slot(5), time.Hour, 1, "budget"))
	_, err = h.hold(alice, "L", slot(6), time.Hour, 1, "budget")
	wantHoldLimit(t, err, slotfare.LimitExceeded, "max_holds")
	// Past its expiry (t0+800 for held[2]) it no longer counts, swept or not.
	h.clk.Set(t0.Add(800 * time.Second))
	must[booking.Booking](t)(h.hold(alice, "L", slot(6), time.Hour, 1, "budget"))
	_, err = h.hold(alice, "L", slot(7), time.Hour, 1, "budget")
	wantHoldLimit(t, err, slotfare.LimitExceeded, "max_holds")
	if err := h.svc.Tick(t0.Add(800 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if g := must[booking.Booking](t)(h.svc.Get(bg, alice, held[2].ID)); g.Status != booking.Expired {
		t.Fatalf("held[2] is %s", g.Status)
	}
	_, err = h.hold(alice, "L", slot(7), time.Hour, 1, "budget")
	wantHoldLimit(t, err, slotfare.LimitExceeded, "max_holds")

	// Rejected: the provider shrinks L below a hold, whose commit fails.
	if _, _, err := putSpec(h.svc, bg, provider, "L", resourceSpec{Nodes: 10, BaseCost: decimal.RequireFromString("0.001"),
		Currency: "GRD", TimeZone: "UTC", HoldLimits: &config.HoldLimits{MaxHolds: 3}}); err != nil {
		t.Fatal(err)
	}
	h.clk.Set(t0.Add(2000 * time.Second)) // every hold so far has expired
	var wide booking.Booking
	for i := range 3 {
		b := must[booking.Booking](t)(h.hold(alice, "L", slot(10+i), time.Hour, 1+7*(i%2), "premium"))
		if i == 1 {
			wide = b // 8 nodes
		}
	}
	if _, _, err := putSpec(h.svc, bg, provider, "L", resourceSpec{Nodes: 5, BaseCost: decimal.RequireFromString("0.001"),
		Currency: "GRD", TimeZone: "UTC"}); err != nil {
		t.Fatal(err)
	}
	_, err = h.hold(alice, "L", slot(20), time.Hour, 1, "premium")
	wantHoldLimit(t, err, slotfare.LimitExceeded, "max_holds")
	_, err = h.svc.Commit(bg, alice, wide.ID)
	wantKind(t, err, slotfare.NoCapacity)
	must[booking.Booking](t)(h.hold(alice, "L", slot(20), time.Hour, 1, "premium"))
}

// TestHoldLimitNodeSeconds: the node-seconds an account holds at once are
// bounded, by default nodes x 24 h (the whole resource for a day). The
// issue's abuse, a free hold of 18 nodes over 89 days, is refused as larger
// than the limit on its own (Invalid: no wait makes it fit); within the
// limit, the next hold waits for enough holds to expire (LimitExceeded).
func TestHoldLimitNodeSeconds(t *testing.T) {
	h := newHarness(t, limitedConfig(18, config.HoldLimits{}))
	start := t0.Add(2 * time.Hour)
	_, err := h.hold(alice, "L", start, 89*24*time.Hour, 18, "premium")
	hl := wantHoldLimit(t, err, slotfare.Invalid, "max_held_node_seconds")
	if slotfare.FieldOf(err) != "nodes" || hl.Max != 18*86400 || hl.Requested != 18*89*86400 || hl.RetryAfter != 0 {
		t.Fatalf("refusal %+v field %q", hl, slotfare.FieldOf(err))
	}
	// Half a day of the whole resource, then a quarter: 3/4 of the limit.
	h.clk.Set(t0)
	must[booking.Booking](t)(h.hold(alice, "L", start, 12*time.Hour, 18, "premium"))
	h.clk.Set(t0.Add(60 * time.Second))
	must[booking.Booking](t)(h.hold(alice, "L", start.Add(12*time.Hour), 6*time.Hour, 18, "premium"))
	// Another half day does not fit until the first hold expires (t0+600):
	// the second one alone leaves room.
	h.clk.Set(t0.Add(100 * time.Second))
	_, err = h.hold(alice, "L", start.Add(24*time.Hour), 12*time.Hour, 18, "premium")
	hl = wantHoldLimit(t, err, slotfare.LimitExceeded, "max_held_node_seconds")
	if slotfare.FieldOf(err) != "hold_limits.max_held_node_seconds" || hl.Held != 18*18*3600 || hl.Requested != 18*12*3600 || hl.RetryAfter != 500 {
		t.Fatalf("refusal %+v field %q, want 18 h x 18 nodes held, retry in 500 s", hl, slotfare.FieldOf(err))
	}
	// A whole day does not fit until both have expired (t0+660).
	_, err = h.hold(alice, "L", start.Add(24*time.Hour), 24*time.Hour, 18, "premium")
	if hl = wantHoldLimit(t, err, slotfare.LimitExceeded, "max_held_node_seconds"); hl.RetryAfter != 560 {
		t.Fatalf("refusal %+v, want retry in 560 s", hl)
	}
	// What still fits is admitted: a quarter day exactly fills the limit.
	must[booking.Booking](t)(h.hold(alice, "L", start.Add(24*time.Hour), 6*time.Hour, 18, "premium"))
	// Bob has his own allowance.
	must[booking.Booking](t)(h.hold(bob, "L", start.Add(48*time.Hour), 24*time.Hour, 18, "premium"))
	// Once the first hold has expired, the half day fits.
	h.clk.Set(t0.Add(600 * time.Second))
	must[booking.Booking](t)(h.hold(alice, "L", start.Add(72*time.Hour), 12*time.Hour, 18, "premium"))
}

// TestHoldLimitsPerResource: each resource has its own limits, set in its
// configuration or by PutResource, shown by Resource with the defaults
// filled in, and kept across a restart.
func TestHoldLimitsPerResource(t *testing.T) {
	a := resourceConfig("A", 10, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
	a.HoldLimits = config.HoldLimits{MaxHolds: 1}
	b := resourceConfig("B", 10, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
	h := newHarness(t, testConfig(a, b))
	if r := must[config.Resource](t)(h.svc.Resource(bg, alice, "A")); r.HoldLimits != (config.HoldLimits{MaxHolds: 1, MaxHeldNodeSeconds: 10 * 86400}) {
		t.Fatalf("A's hold limits %+v", r.HoldLimits)
	}
	if r := must[config.Resource](t)(h.svc.Resource(bg, alice, "B")); r.HoldLimits != (config.HoldLimits{MaxHolds: config.DefaultMaxHolds, MaxHeldNodeSeconds: 10 * 86400}) {
		t.Fatalf("B's hold limits %+v", r.HoldLimits)
	}
	start := t0.Add(2 * time.Hour)
	must[booking.Booking](t)(h.hold(alice, "A", start, time.Hour, 1, "budget"))
	_, err := h.hold(alice, "A", start, time.Hour, 1, "budget")
	wantHoldLimit(t, err, slotfare.LimitExceeded, "max_holds")
	// Holds on A do not count on B.
	must[booking.Booking](t)(h.hold(alice, "B", start, time.Hour, 1, "budget"))
	must[booking.Booking](t)(h.hold(alice, "B", start, time.Hour, 1, "budget"))

	// The provider tightens B: 2 holds are there, the limit is now 2.
	spec := resourceSpec{Nodes: 10, BaseCost: decimal.RequireFromString("0.001"), Currency: "GRD", TimeZone: "UTC",
		HoldLimits: &config.HoldLimits{MaxHolds: 2, MaxHeldNodeSeconds: 5 * 3600}}
	r, _, err := putSpec(h.svc, bg, provider, "B", spec)
	if err != nil || r.HoldLimits != *spec.HoldLimits {
		t.Fatalf("PutResource: %v, hold limits %+v", err, r.HoldLimits)
	}
	_, err = h.hold(alice, "B", start, time.Hour, 1, "budget")
	wantHoldLimit(t, err, slotfare.LimitExceeded, "max_holds")
	// A PUT without hold_limits keeps them; a zero field is the default.
	r = must[config.Resource](t)(func() (config.Resource, error) {
		r, _, err := putSpec(h.svc, bg, provider, "B", resourceSpec{Nodes: 12, BaseCost: decimal.RequireFromString("0.001"), Currency: "GRD", TimeZone: "UTC"})
		return r, err
	}())
	if r.HoldLimits != *spec.HoldLimits {
		t.Fatalf("hold limits after a PUT without them: %+v", r.HoldLimits)
	}
	_, _, err = putSpec(h.svc, bg, provider, "B", resourceSpec{Nodes: 12, BaseCost: decimal.RequireFromString("0.001"), Currency: "GRD", TimeZone: "UTC",
		HoldLimits: &config.HoldLimits{MaxHolds: -1}})
	wantKind(t, err, slotfare.Invalid)
	if f := slotfare.FieldOf(err); f != "hold_limits.max_holds" {
		t.Fatalf("field %q", f)
	}
	h.reopen()
	if r := must[config.Resource](t)(h.svc.Resource(bg, alice, "B")); r.HoldLimits != *spec.HoldLimits {
		t.Fatalf("B's hold limits after a restart %+v", r.HoldLimits)
	}
	r, _, err = putSpec(h.svc, bg, provider, "B", resourceSpec{Nodes: 12, BaseCost: decimal.RequireFromString("0.001"), Currency: "GRD", TimeZone: "UTC",
		HoldLimits: &config.HoldLimits{MaxHolds: 7}})
	if err != nil || r.HoldLimits != (config.HoldLimits{MaxHolds: 7, MaxHeldNodeSeconds: 12 * 86400}) {
		t.Fatalf("PutResource: %v, hold limits %+v", err, r.HoldLimits)
	}
}

// TestHoldLimitConcurrent: many goroutines of one account racing for holds
// never get more than the limit between them, round after round (the
// limit is checked and the hold taken in one critical section); capacity is
// ample, so only the limit refuses.
func TestHoldLimitConcurrent(t *testing.T) {
	for _, c := range []struct {
		name  string
		hl    config.HoldLimits
		nodes int
		want  int
		limit string
	}{
		{"max_holds", config.HoldLimits{MaxHolds: 5}, 1, 5, "max_holds"},
		{"max_held_node_seconds", config.HoldLimits{MaxHeldNodeSeconds: 7 * 2 * 3600}, 2, 7, "max_held_node_seconds"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, limitedConfig(1000, c.hl))
			const workers = 48
			for round := range 5 {
				// Each round starts once every earlier hold has expired.
				h.clk.Set(t0.Add(time.Duration(round) * 700 * time.Second))
				start := t0.Add(time.Duration(4+round) * time.Hour)
				var wg sync.WaitGroup
				var mu sync.Mutex
				ok, refused := 0, 0
				for w := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						_, err := h.hold(alice, "L", start.Add(time.Duration(w)*time.Minute), time.Hour, c.nodes, "budget")
						mu.Lock()
						defer mu.Unlock()
						var hl *service.HoldLimitError
						switch {
						case err == nil:
							ok++
						case slotfare.KindOf(err) == slotfare.LimitExceeded && errors.As(err, &hl) && hl.Limit == c.limit:
							refused++
						default:
							t.Error(err)
						}
					}()
				}
				wg.Wait()
				if ok != c.want || refused != workers-c.want {
					t.Fatalf("round %d: %d holds admitted and %d refused, want %d and %d", round, ok, refused, c.want, workers-c.want)
				}
			}
		})
	}
}

// TestHoldLimitAfterRestart: what an account holds is derived from the
// stored bookings, so a restart neither forgets holds nor invents any.
func TestHoldLimitAfterRestart(t *testing.T) {
	h := newHarness(t, limitedConfig(10, config.HoldLimits{MaxHolds: 3}))
	start := t0.Add(3 * time.Hour)
	var ids []string
	for i := range 3 {
		ids = append(ids, must[booking.Booking](t)(h.hold(alice, "L", start.Add(time.Duration(i)*time.Hour), time.Hour, 1, "budget")).ID)
	}
	h.reopen()
	_, err := h.hold(alice, "L", start, time.Hour, 1, "budget")
	if hl := wantHoldLimit(t, err, slotfare.LimitExceeded, "max_holds"); hl.Held != 3 {
		t.Fatalf("after restart: %+v", hl)
	}
	must[booking.Booking](t)(h.svc.Cancel(bg, alice, ids[0]))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, ids[1]))
	h.reopen()
	must[booking.Booking](t)(h.hold(alice, "L", start, time.Hour, 1, "budget"))
	must[booking.Booking](t)(h.hold(alice, "L", start.Add(5*time.Hour), time.Hour, 1, "budget"))
	_, err = h.hold(alice, "L", start.Add(6*time.Hour), time.Hour, 1, "budget")
	if hl := wantHoldLimit(t, err, slotfare.LimitExceeded, "max_holds"); hl.Held != 3 {
		t.Fatalf("after the second restart: %+v", hl)
	}
}

// TestRestartLaysOutTheLiveBookings: the inventory is laid out from the
// records on start, so after a restart it holds exactly the bookings that
// hold capacity, with their stored terms: a hold and a committed booking,
// not a cancelled one.
func TestRestartLaysOutTheLiveBookings(t *testing.T) {
	h := newHarness(t, limitedConfig(10, config.HoldLimits{MaxHolds: 5}))
	start := t0.Add(3 * time.Hour)
	var bs []booking.Booking
	for i := range 3 {
		bs = append(bs, must[booking.Booking](t)(h.hold(alice, "L", start.Add(time.Duration(i)*time.Hour), time.Hour, i+1, "budget")))
	}
	must[booking.Booking](t)(h.svc.Commit(bg, alice, bs[0].ID))
	must[booking.Booking](t)(h.svc.Cancel(bg, alice, bs[1].ID))
	h.reopen()
	for i, b := range bs {
		held, found, err := h.svc.InventoryHeld(bg, "L", b.ID)
		if err != nil {
			t.Fatal(err)
		}
		if found != (i != 1) {
			t.Fatalf("%s (booking %d) held on the inventory after a restart: %v", b.ID, i, found)
		}
		want := inventory.Terms{Start: b.Start.Unix(), End: b.End.Unix(), Nodes: b.Nodes}
		if found && (held.Terms != want || held.Groups < 1) {
			t.Fatalf("%s after a restart: %+v, want terms %+v", b.ID, held, want)
		}
	}
}
