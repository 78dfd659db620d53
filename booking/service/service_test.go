package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/service"
	"slotfare/ledger"
	"slotfare/overbook"
	"slotfare/pricing"
)

// clock is the fake clock the tests drive the service with.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Monday 30 November 2026, 06:00 UTC: weekday peak runs 06:00-18:00 in UTC.
var t0 = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

var (
	alice    = booking.Principal{AccountID: "alice", Role: booking.RoleUser, VO: "1"}
	bob      = booking.Principal{AccountID: "bob", Role: booking.RoleUser, VO: "2"}
	provider = booking.Principal{AccountID: "provider", Role: booking.RoleProvider}
	billing  = booking.Principal{AccountID: "billing", Role: booking.RoleBilling}
)

func resourceConfig(id string, nodes int, ob config.OverbookingConfig) config.ResourceConfig {
	if ob.ServiceLevel == 0 {
		ob.ServiceLevel = config.DefaultServiceLevel
	}
	return config.ResourceConfig{ID: id, Nodes: nodes, BaseCost: decimal.RequireFromString("0.001"), Currency: "GRD",
		TimeZone: "UTC", SlotSeconds: 300, HoldSeconds: 600, FareClasses: pricing.DemoFareClasses(""),
		RatePeriods: pricing.DemoRatePeriods(), Overbooking: ob,
		Limits: config.LimitsConfig{Method: pricing.EMSRb, MinHistory: 4}}
}

func testConfig(rcs ...config.ResourceConfig) config.Config {
	key := func(plain, role, acct, vo string) config.KeyConfig {
		return config.KeyConfig{KeySHA256: booking.HashKey(plain), Name: plain, Role: booking.Role(role), AccountID: acct, VO: pricing.VO(vo)}
	}
	if len(rcs) == 0 {
		rcs = []config.ResourceConfig{resourceConfig("T", 10, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})}
	}
	return config.Config{Currency: "GRD", HoldSeconds: 600, GraceSeconds: 900, CheckinOpenSeconds: 3600, OfferTTLSeconds: 300,
		BookAheadSeconds: 90 * 24 * 3600,
		Keys: []config.KeyConfig{key("k-alice", "user", "alice", "1"), key("k-bob", "user", "bob", "2"),
			key("k-provider", "provider", "provider", ""), key("k-billing", "billing", "billing", "")},
		Resources: rcs}
}

type harness struct {
	t   *testing.T
	dir string
	clk *clock
	cfg config.Config
	svc *service.Service
	st  *boltstore.Store
	tr  map[[2]booking.Status]int
	mu  sync.Mutex
}

func newHarness(t *testing.T, cfg config.Config) *harness {
	h := &harness{t: t, dir: t.TempDir(), clk: &clock{t: t0}, cfg: cfg, tr: map[[2]booking.Status]int{}}
	h.open()
	return h
}

func (h *harness) open() {
	h.t.Helper()
	st, err := boltstore.Open(h.dir, boltstore.Options{})
	if err != nil {
		h.t.Fatal(err)
	}
	svc, err := service.Open(h.cfg, deploytest.Embedded(h.t, st), service.Options{Now: h.clk.Now, OnTransition: func(from, to booking.Status) {
		h.mu.Lock()
		h.tr[[2]booking.Status{from, to}]++
		h.mu.Unlock()
	}})
	if err != nil {
		h.t.Fatal(err)
	}
	h.svc, h.st = svc, st
	h.t.Cleanup(func() { svc.Close() })
}

func (h *harness) reopen() {
	h.t.Helper()
	if err := h.svc.Close(); err != nil {
		h.t.Fatal(err)
	}
	h.open()
}

var bg = context.Background()

// books is the service's whole ledger as stored, read now.
func books(t testing.TB, svc *service.Service) *ledger.Ledger {
	t.Helper()
	l, err := svc.Ledger(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func wantKind(t *testing.T, err error, k slotfare.Kind) {
	t.Helper()
	if err == nil || slotfare.KindOf(err) != k {
		t.Fatalf("error %v (kind %v), want kind %v", err, slotfare.KindOf(err), k)
	}
}

// hold books nodes on T over [start, start+d) in class directly.
func (h *harness) hold(p booking.Principal, res string, start time.Time, d time.Duration, nodes int, class string) (booking.Booking, error) {
	b, _, err := h.svc.Hold(bg, p, booking.HoldRequest{ResourceID: res, Start: start, End: start.Add(d), Nodes: nodes, FareClass: class}, booking.Idempotency{})
	return b, err
}

func TestLifeCycleThroughOffers(t *testing.T) {
	h := newHarness(t, testConfig())
	start := t0.Add(4 * time.Hour)
	dur, nodes := int64(7200), 4
	offers := must[[]booking.Offer](t)(h.svc.Offers(bg, alice, booking.OfferQuery{ResourceID: "T", EarliestStart: start,
		LatestEnd: start.Add(6 * time.Hour), DurationSeconds: &dur, Nodes: &nodes, FareClass: "budget"}))
	if len(offers) == 0 || !offers[0].Solution {
		t.Fatalf("offers = %+v", offers)
	}
	o := offers[0]
	if !o.Start.Equal(start) || o.End.Sub(o.Start) != 2*time.Hour || o.Nodes != 4 || o.FareClass != "budget" {
		t.Fatalf("solution %+v", o)
	}
	// Price: Eq. 7.11-7.12 through pricing, rounded to GRD's two places.
	budget, _ := pricing.FareClassByName(pricing.DemoFareClasses(""), "budget")
	cal, _ := pricing.NewRateCalendar(time.UTC, pricing.DemoRatePeriods())
	rp, _ := pricing.PriceReservation(cal, budget, decimal.RequireFromString("0.001"), 4, o.Start, o.End)
	if !o.Price.Base.Equal(rp.Rounded(2)) || !o.Price.Total.Equal(rp.Rounded(2)) || !o.Price.DelayPremium.IsZero() {
		t.Fatalf("price %+v, want base %s", o.Price, rp.Rounded(2))
	}
	b, replayed, err := h.svc.Hold(bg, alice, booking.HoldRequest{OfferID: o.OfferID}, booking.Idempotency{Key: "k1", Fingerprint: "f1"})
	if err != nil || replayed {
		t.Fatal(err, replayed)
	}
	if b.Status != booking.Held || b.HoldExpiresAt == nil || !b.HoldExpiresAt.Equal(t0.Add(600*time.Second)) || !b.Price.Total.Equal(o.Price.Total) {
		t.Fatalf("held %+v", b)
	}
	// Idempotent retry: same booking, nothing held twice; other body: Conflict.
	b2, replayed, err := h.svc.Hold(bg, alice, booking.HoldRequest{OfferID: o.OfferID}, booking.Idempotency{Key: "k1", Fingerprint: "f1"})
	if err != nil || !replayed || b2.ID != b.ID {
		t.Fatalf("replay: %v %v %v", b2.ID, replayed, err)
	}
	_, _, err = h.svc.Hold(bg, alice, booking.HoldRequest{OfferID: o.OfferID}, booking.Idempotency{Key: "k1", Fingerprint: "other"})
	wantKind(t, err, slotfare.Conflict)
	// Bob does not see it, nor can he change it.
	_, err = h.svc.Get(bg, bob, b.ID)
	wantKind(t, err, slotfare.NotFound)
	_, err = h.svc.Commit(bg, bob, b.ID)
	wantKind(t, err, slotfare.NotFound)
	_, _, err = h.svc.Hold(bg, billing, booking.HoldRequest{OfferID: o.OfferID}, booking.Idempotency{})
	wantKind(t, err, slotfare.Forbidden)
	// Bob cannot use Alice's offer.
	_, _, err = h.svc.Hold(bg, bob, booking.HoldRequest{OfferID: o.OfferID}, booking.Idempotency{})
	wantKind(t, err, slotfare.Invalid)

	c := must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	if c.Status != booking.Committed || c.HoldExpiresAt != nil {
		t.Fatalf("committed %+v", c)
	}
	again := must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	if again.Status != booking.Committed {
		t.Fatal(again.Status)
	}
	// A replay after the commit still answers what the first POST did.
	rb, replayed, err := h.svc.Hold(bg, alice, booking.HoldRequest{OfferID: o.OfferID}, booking.Idempotency{Key: "k1", Fingerprint: "f1"})
	if err != nil || !replayed {
		t.Fatal(err)
	}
	j1, _ := json.Marshal(b)
	j2, _ := json.Marshal(rb)
	if string(j1) != string(j2) {
		t.Fatalf("replay after commit:\n%s\nfirst answer:\n%s", j2, j1)
	}
	if ps := books(t, h.svc).BookingPostings(b.ID); len(ps) != 1 || ps[0].Kind != ledger.KindCharge || !ps[0].CustomerAmount().Equal(o.Price.Total) {
		t.Fatalf("postings %+v", ps)
	}
	// Check-in opens an hour before the start.
	_, err = h.svc.CheckIn(bg, alice, b.ID)
	wantKind(t, err, slotfare.Conflict)
	h.clk.Set(start.Add(-30 * time.Minute))
	ci := must[booking.Booking](t)(h.svc.CheckIn(bg, alice, b.ID))
	if !ci.CheckedIn {
		t.Fatal("not checked in")
	}
	// A checked-in booking may still be cancelled before its start.
	cc := must[booking.Booking](t)(h.svc.Cancel(bg, alice, b.ID))
	if cc.Status != booking.Cancelled || cc.Penalty == nil {
		t.Fatalf("cancelled %+v", cc)
	}
	page := must[booking.Page[booking.Booking]](t)(h.svc.List(bg, alice, booking.ListQuery{}))
	if len(page.Data) != 1 || page.Data[0].ID != b.ID || page.HasMore {
		t.Fatalf("list %+v", page)
	}
	if p := must[booking.Page[booking.Booking]](t)(h.svc.List(bg, bob, booking.ListQuery{})); len(p.Data) != 0 {
		t.Fatal("bob sees alice's bookings")
	}
}

// TestStartToCompletion: a checked-in booking becomes active at its start
// and completed at its end; the transitions are reported.
func TestStartToCompletion(t *testing.T) {
	h := newHarness(t, testConfig())
	start := t0.Add(2 * time.Hour)
	b := must[booking.Booking](t)(h.hold(alice, "T", start, time.Hour, 3, "premium"))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	h.clk.Set(start.Add(-10 * time.Minute))
	must[booking.Booking](t)(h.svc.CheckIn(bg, alice, b.ID))
	for _, c := range []struct {
		at   time.Time
		want booking.Status
	}{{start.Add(-time.Second), booking.Committed}, {start, booking.Active}, {start.Add(59 * time.Minute), booking.Active}, {start.Add(time.Hour), booking.Completed}} {
		if err := h.svc.Tick(c.at); err != nil {
			t.Fatal(err)
		}
		if g := must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID)); g.Status != c.want {
			t.Fatalf("at %s: %s, want %s", c.at, g.Status, c.want)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, tr := range [][2]booking.Status{{"", booking.Held}, {booking.Held, booking.Committed}, {booking.Committed, booking.Active}, {booking.Active, booking.Completed}} {
		if h.tr[tr] != 1 {
			t.Errorf("transition %v seen %d times", tr, h.tr[tr])
		}
	}
}

func TestCancelPenaltyAndHoldRelease(t *testing.T) {
	h := newHarness(t, testConfig())
	start := t0.Add(3 * time.Hour)
	budget, _ := pricing.FareClassByName(pricing.DemoFareClasses(""), "budget")
	b := must[booking.Booking](t)(h.hold(alice, "T", start, 2*time.Hour, 10, "budget"))
	// The resource is full while the hold lives.
	_, err := h.hold(bob, "T", start, time.Hour, 1, "premium")
	wantKind(t, err, slotfare.NoCapacity)
	// Cancelling a hold costs nothing and frees the nodes.
	c := must[booking.Booking](t)(h.svc.Cancel(bg, alice, b.ID))
	if c.Status != booking.Cancelled || c.Penalty == nil || !c.Penalty.IsZero() || !c.Refund.IsZero() || len(books(t, h.svc).BookingPostings(b.ID)) != 0 {
		t.Fatalf("cancelled hold %+v", c)
	}
	b = must[booking.Booking](t)(h.hold(alice, "T", start, 2*time.Hour, 10, "budget"))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	c = must[booking.Booking](t)(h.svc.Cancel(bg, alice, b.ID))
	pen, _, _ := pricing.SettleCancellation(budget, b.Price.Total, 2)
	if c.Penalty == nil || !c.Penalty.Equal(pen) || !c.Refund.Equal(b.Price.Total) || pen.IsZero() { // all billed is credited back, the penalty billed apart
		t.Fatalf("penalty %v refund %v, want %s %s", c.Penalty, c.Refund, pen, b.Price.Total)
	}
	if bal := books(t, h.svc).Balance(ledger.CustomerAccount("alice"))["GRD"]; !bal.Equal(pen) {
		t.Fatalf("alice owes %s, want the penalty %s", bal, pen)
	}
	// Terminal: a second cancel is idempotent, a commit is a Conflict.
	must[booking.Booking](t)(h.svc.Cancel(bg, alice, b.ID))
	_, err = h.svc.Commit(bg, alice, b.ID)
	wantKind(t, err, slotfare.Conflict)
	must[booking.Booking](t)(h.hold(bob, "T", start, time.Hour, 10, "premium"))
}

func TestHoldExpiry(t *testing.T) {
	h := newHarness(t, testConfig())
	start := t0.Add(3 * time.Hour)
	b := must[booking.Booking](t)(h.hold(alice, "T", start, time.Hour, 10, "budget"))
	if err := h.svc.Tick(t0.Add(599 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if g := must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID)); g.Status != booking.Held {
		t.Fatal(g.Status)
	}
	if err := h.svc.Tick(t0.Add(600 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if g := must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID)); g.Status != booking.Expired {
		t.Fatal(g.Status)
	}
	_, err := h.svc.Commit(bg, alice, b.ID)
	wantKind(t, err, slotfare.Conflict)
	must[booking.Booking](t)(h.hold(bob, "T", start, time.Hour, 10, "premium"))
	// A commit after the expiry but before the sweep expires it too.
	b2 := must[booking.Booking](t)(h.hold(alice, "T", start.Add(time.Hour), time.Hour, 1, "budget"))
	h.clk.Set(t0.Add(20 * time.Minute))
	_, err = h.svc.Commit(bg, alice, b2.ID)
	wantKind(t, err, slotfare.Conflict)
	if g := must[booking.Booking](t)(h.svc.Get(bg, alice, b2.ID)); g.Status != booking.Expired {
		t.Fatal(g.Status)
	}
}

func TestNoShowPenalty(t *testing.T) {
	h := newHarness(t, testConfig())
	start := t0.Add(2 * time.Hour)
	business, _ := pricing.FareClassByName(pricing.DemoFareClasses(""), "business")
	b := must[booking.Booking](t)(h.hold(alice, "T", start, time.Hour, 2, "business"))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	if err := h.svc.Tick(start.Add(899 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if g := must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID)); g.Status != booking.Committed {
		t.Fatal(g.Status)
	}
	if err := h.svc.Tick(start.Add(900 * time.Second)); err != nil {
		t.Fatal(err)
	}
	g := must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID))
	pen, _, _ := pricing.SettleCancellation(business, b.Price.Total, 2)
	if g.Status != booking.NoShow || g.Penalty == nil || !g.Penalty.Equal(pen) || !g.Refund.Equal(b.Price.Total) {
		t.Fatalf("%+v, want penalty %s", g, pen)
	}
	kinds := map[ledger.Kind]int{}
	for _, p := range books(t, h.svc).BookingPostings(b.ID) {
		kinds[p.Kind]++
	}
	if kinds[ledger.KindCharge] != 1 || kinds[ledger.KindRefund] != 1 || kinds[ledger.KindNoShowPenalty] != 1 {
		t.Fatalf("postings %v", kinds)
	}
}

func TestModifyReprices(t *testing.T) {
	h := newHarness(t, testConfig())
	start := t0.Add(2 * time.Hour)
	b := must[booking.Booking](t)(h.hold(alice, "T", start, time.Hour, 2, "budget"))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	n := 4
	m := must[booking.Booking](t)(h.svc.Modify(bg, alice, b.ID, booking.ModifyRequest{Nodes: &n}))
	if m.Nodes != 4 || !m.Price.Total.Equal(b.Price.Total.Mul(decimal.NewFromInt(2))) || m.Status != booking.Committed {
		t.Fatalf("modified %+v (was %s)", m, b.Price.Total)
	}
	if bal := books(t, h.svc).Balance(ledger.CustomerAccount("alice"))["GRD"]; !bal.Equal(m.Price.Total) {
		t.Fatalf("billed %s, want %s", bal, m.Price.Total)
	}
	// Too big: nothing changes.
	must[booking.Booking](t)(h.hold(bob, "T", start, time.Hour, 6, "premium"))
	n = 5
	_, err := h.svc.Modify(bg, alice, b.ID, booking.ModifyRequest{Nodes: &n})
	wantKind(t, err, slotfare.NoCapacity)
	if g := must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID)); g.Nodes != 4 {
		t.Fatal(g.Nodes)
	}
	_, err = h.hold(bob, "T", start, time.Hour, 1, "premium")
	wantKind(t, err, slotfare.NoCapacity)
}

func TestBadInput(t *testing.T) {
	h := newHarness(t, testConfig())
	start := t0.Add(time.Hour)
	cases := []struct {
		req   booking.HoldRequest
		field string
	}{
		{booking.HoldRequest{ResourceID: "T", Start: start, End: start, Nodes: 1, FareClass: "budget"}, "end"},
		{booking.HoldRequest{ResourceID: "T", Start: t0.Add(-time.Hour), End: start, Nodes: 1, FareClass: "budget"}, "start"},
		{booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 0, FareClass: "budget"}, "nodes"},
		{booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 11, FareClass: "budget"}, "nodes"},
		{booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "economy"}, "fare_class"},
		{booking.HoldRequest{ResourceID: "X", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "budget"}, "resource_id"},
		{booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(100 * 24 * time.Hour), Nodes: 1, FareClass: "budget"}, "end"},
		{booking.HoldRequest{OfferID: "of_garbage.sig"}, "offer_id"},
		{booking.HoldRequest{OfferID: "x", ResourceID: "T"}, "offer_id"},
	}
	for _, c := range cases {
		_, _, err := h.svc.Hold(bg, alice, c.req, booking.Idempotency{})
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != c.field {
			t.Errorf("%+v: %v, want Invalid on %s", c.req, err, c.field)
		}
	}
	if p := must[booking.Page[booking.Booking]](t)(h.svc.List(bg, alice, booking.ListQuery{})); len(p.Data) != 0 {
		t.Fatal("bad input held something")
	}
	_, err := h.svc.List(bg, alice, booking.ListQuery{Cursor: "!!"})
	if slotfare.FieldOf(err) != "cursor" {
		t.Fatal(err)
	}
	// A tampered offer id.
	d, n := int64(3600), 1
	offers := must[[]booking.Offer](t)(h.svc.Offers(bg, alice, booking.OfferQuery{ResourceID: "T", EarliestStart: start, LatestEnd: start.Add(2 * time.Hour), DurationSeconds: &d, Nodes: &n, FareClass: "premium"}))
	id := []byte(offers[0].OfferID)
	id[5] ^= 1
	_, _, err = h.svc.Hold(bg, alice, booking.HoldRequest{OfferID: string(id)}, booking.Idempotency{})
	if slotfare.FieldOf(err) != "offer_id" {
		t.Fatal(err)
	}
	// An expired one.
	h.clk.Set(t0.Add(301 * time.Second))
	_, _, err = h.svc.Hold(bg, alice, booking.HoldRequest{OfferID: offers[0].OfferID}, booking.Idempotency{})
	wantKind(t, err, slotfare.Conflict)
}

// TestDenialAtStart: a 4-node resource sold beyond capacity under a
// probability policy (show rate 0.5 in every period); everyone shows, so
// the start is overbooked and each strategy denies whole bookings until the
// shows fit; the denied are refunded and compensated DeniedServiceCost.
func TestDenialAtStart(t *testing.T) {
	for _, strat := range []overbook.DenialStrategy{overbook.Lottery, overbook.DCF, overbook.LCDCF} {
		t.Run(string(strat), func(t *testing.T) {
			rc := resourceConfig("S", 4, config.OverbookingConfig{Policy: overbook.Probability, Denial: strat})
			rc.Limits.ShowRates = map[string]float64{"peak": 0.5, "off_peak": 0.5, "super_saver": 0.5}
			h := newHarness(t, testConfig(rc))
			start := t0.Add(2 * time.Hour)
			var ids []booking.Booking
			classes := []string{"premium", "business", "budget", "budget", "business", "premium", "budget", "budget"}
			for i, c := range classes {
				p := alice
				if i%2 == 1 {
					p = bob
				}
				b, err := h.hold(p, "S", start, time.Hour, 1, c)
				if err != nil {
					break
				}
				must[booking.Booking](t)(h.svc.Commit(bg, p, b.ID))
				ids = append(ids, b)
			}
			if len(ids) <= 4 {
				t.Fatalf("only %d bookings admitted on 4 nodes: no overbooking", len(ids))
			}
			h.clk.Set(start.Add(-time.Minute))
			for i, b := range ids {
				p := alice
				if i%2 == 1 {
					p = bob
				}
				must[booking.Booking](t)(h.svc.CheckIn(bg, p, b.ID))
			}
			if err := h.svc.Tick(start); err != nil {
				t.Fatal(err)
			}
			active, denied := 0, 0
			all := books(t, h.svc)
			for i, b := range ids {
				p := alice
				if i%2 == 1 {
					p = bob
				}
				g := must[booking.Booking](t)(h.svc.Get(bg, p, b.ID))
				switch g.Status {
				case booking.Active:
					active += g.Nodes
				case booking.Denied:
					denied++
					cls, _ := pricing.FareClassByName(pricing.DemoFareClasses(""), g.FareClass)
					want, _ := pricing.DeniedServiceCost(cls, b.Price.Total)
					want = pricing.RoundMoney(want, 2)
					if g.Compensation == nil || !g.Compensation.Equal(want) || !g.Refund.Equal(b.Price.Total) {
						t.Errorf("%s denied: compensation %v refund %v, want %s %s", g.FareClass, g.Compensation, g.Refund, want, b.Price.Total)
					}
					if strat != overbook.Lottery && g.FareClass == "premium" {
						t.Errorf("%s denied a premium booking while budget ones showed", strat)
					}
				default:
					t.Errorf("status %s", g.Status)
				}
			}
			if active != 4 || denied != len(ids)-4 {
				t.Fatalf("active nodes %d, denied %d of %d", active, denied, len(ids))
			}
			_ = all
		})
	}
}

// TestConcurrentAdmission: many clients race for a small resource while
// Tick runs; at no instant do the admitted bookings exceed the limit (the
// capacity, or the overbooking limit of the probability policy).
func TestConcurrentAdmission(t *testing.T) {
	ob := must[int](t)(overbook.ProbabilityLimit(7, 0.8))
	if ob <= 7 {
		t.Fatalf("probability limit %d does not overbook", ob)
	}
	for _, c := range []struct {
		name  string
		pol   overbook.Policy
		limit int
	}{{"none", overbook.None, 7}, {"probability", overbook.Probability, ob}} {
		t.Run(c.name, func(t *testing.T) {
			rc := resourceConfig("C", 7, config.OverbookingConfig{Policy: c.pol, Denial: overbook.DCF})
			rc.Limits.ShowRates = map[string]float64{"peak": 0.8, "off_peak": 0.8, "super_saver": 0.8}
			h := newHarness(t, testConfig(rc))
			base := t0.Add(time.Hour)
			var wg sync.WaitGroup
			var mu sync.Mutex
			var got []booking.Booking
			stop := make(chan struct{})
			ticked := make(chan struct{})
			go func() {
				defer close(ticked)
				for {
					select {
					case <-stop:
						return
					default:
						if err := h.svc.Tick(t0); err != nil {
							t.Error(err)
						}
					}
				}
			}()
			for w := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					p := alice
					if w%2 == 1 {
						p = bob
					}
					for i := range 25 {
						start := base.Add(time.Duration((w*7+i*13)%24) * 10 * time.Minute)
						b, err := h.hold(p, "C", start, time.Duration(1+(i+w)%5)*15*time.Minute, 1+(i*w)%4, []string{"premium", "business", "budget"}[i%3])
						if err != nil {
							if slotfare.KindOf(err) != slotfare.NoCapacity {
								t.Error(err)
							}
							continue
						}
						if i%4 == 0 {
							if _, err := h.svc.Cancel(bg, p, b.ID); err != nil {
								t.Error(err)
							}
							continue
						}
						if _, err := h.svc.Commit(bg, p, b.ID); err != nil {
							t.Error(err)
							continue
						}
						mu.Lock()
						got = append(got, b)
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			close(stop)
			<-ticked // the service closes at cleanup: no Tick may run after that
			if len(got) < 5 {
				t.Fatalf("only %d admitted", len(got))
			}
			peak := 0
			// Usage is highest at some booking's start: check them all.
			for _, x := range got {
				sum := 0
				for _, y := range got {
					if !y.Start.After(x.Start) && y.End.After(x.Start) {
						sum += y.Nodes
					}
				}
				peak = max(peak, sum)
			}
			if peak > c.limit {
				t.Fatalf("%d nodes admitted at one instant, limit %d", peak, c.limit)
			}
			if peak < c.limit/2 {
				t.Fatalf("peak %d far below the limit %d: admission too strict?", peak, c.limit)
			}
		})
	}
}

// TestReopen: everything acknowledged is there after Close and reopen; the
// ledger replays; the calendars are rebuilt (capacity still taken).
func TestReopen(t *testing.T) {
	h := newHarness(t, testConfig())
	start := t0.Add(3 * time.Hour)
	b := must[booking.Booking](t)(h.hold(alice, "T", start, time.Hour, 6, "budget"))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	held, _, err := h.svc.Hold(bg, bob, booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 4, FareClass: "premium"}, booking.Idempotency{Key: "kb", Fingerprint: "fb"})
	if err != nil {
		t.Fatal(err)
	}
	h.reopen()
	g := must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID))
	if g.Status != booking.Committed || !g.Price.Total.Equal(b.Price.Total) {
		t.Fatalf("%+v", g)
	}
	if len(books(t, h.svc).BookingPostings(b.ID)) != 1 {
		t.Fatal("charge lost")
	}
	_, err = h.hold(alice, "T", start, time.Hour, 1, "premium")
	wantKind(t, err, slotfare.NoCapacity)
	rb, replayed, err := h.svc.Hold(bg, bob, booking.HoldRequest{}, booking.Idempotency{Key: "kb", Fingerprint: "fb"})
	if err != nil || !replayed || rb.ID != held.ID {
		t.Fatalf("replay after reopen: %v %v %v", rb.ID, replayed, err)
	}
	// Commit again after reopen: no second charge.
	must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	if len(books(t, h.svc).BookingPostings(b.ID)) != 1 {
		t.Fatal("charged twice")
	}
}

func TestProviderAndBilling(t *testing.T) {
	h := newHarness(t, testConfig())
	_, _, err := putSpec(h.svc, bg, alice, "N", resourceSpec{Nodes: 2, BaseCost: decimal.New(1, -3), Currency: "GRD", TimeZone: "UTC"})
	wantKind(t, err, slotfare.Forbidden)
	r, created, err := putSpec(h.svc, bg, provider, "N", resourceSpec{Nodes: 2, BaseCost: decimal.New(1, -3), Currency: "GRD", TimeZone: "Europe/Paris"})
	if err != nil || !created || r.Nodes != 2 || len(r.FareClasses) != 3 {
		t.Fatalf("%+v %v %v", r, created, err)
	}
	_, err = h.svc.PutOverbooking(bg, provider, "N", config.OverbookingSpec{Policy: "risk", Denial: "lc-dcf"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.svc.PutFareClasses(bg, provider, "N", []byte(`[{"name":"only","rank":1,"tau":{"peak":"2"},"penalty_rate":"0","denied_cost_factor":"3","vo":null}]`))
	if slotfare.KindOf(err) != slotfare.Invalid {
		t.Fatalf("classes missing periods accepted: %v", err)
	}
	start := t0.Add(5 * time.Hour)
	b := must[booking.Booking](t)(h.hold(alice, "N", start, time.Hour, 2, "premium"))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	// Shrinking the resource keeps the booking.
	_, created, err = putSpec(h.svc, bg, provider, "N", resourceSpec{Nodes: 1, BaseCost: decimal.New(1, -3), Currency: "GRD", TimeZone: "Europe/Paris"})
	if err != nil || created {
		t.Fatal(err, created)
	}
	h.reopen()
	r = must[config.Resource](t)(h.svc.Resource(bg, bob, "N"))
	if r.Nodes != 1 || r.Overbooking.Denial != "lc-dcf" || r.TimeZone != "Europe/Paris" {
		t.Fatalf("%+v", r)
	}
	if g := must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID)); g.Status != booking.Committed {
		t.Fatal(g.Status)
	}
	_, err = h.svc.Invoices(bg, alice, "alice", "", "", 0)
	wantKind(t, err, slotfare.Forbidden)
	inv := must[ledger.Page[ledger.Invoice]](t)(h.svc.Invoices(bg, billing, "alice", "2026-11", "", 0))
	if len(inv.Data) != 1 || len(inv.Data[0].Lines) != 1 || inv.Data[0].Lines[0].Kind != ledger.KindCharge || !inv.Data[0].Total.Amount.Equal(b.Price.Total) {
		t.Fatalf("invoices %+v", inv)
	}
	bal := must[map[ledger.Currency]decimal.Decimal](t)(h.svc.Balance(bg, billing, "alice"))
	if !bal["GRD"].Equal(b.Price.Total) {
		t.Fatalf("balance %v", bal)
	}
	ent := must[ledger.Page[ledger.Posting]](t)(h.svc.LedgerEntries(bg, billing, "revenue:N", "", 0))
	if len(ent.Data) != 1 {
		t.Fatalf("entries %+v", ent)
	}
	if _, err := h.svc.Authenticate(bg, "k-alice"); err != nil {
		t.Fatal(err)
	}
	_, err = h.svc.Authenticate(bg, "nope")
	wantKind(t, err, slotfare.Unauthorized)
	if !errors.Is(err, err) {
		t.Fatal()
	}
}

// TestDemoConfig: the service opens on the demo configuration and sells
// every demo resource to Alice.
func TestDemoConfig(t *testing.T) {
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, cfg)
	p, err := h.svc.Authenticate(bg, "demo-alice")
	if err != nil {
		t.Fatal(err)
	}
	rs := must[[]config.Resource](t)(h.svc.Resources(bg, p))
	if len(rs) != 10 {
		t.Fatalf("%d demo resources", len(rs))
	}
	d, n := int64(3600), 1
	start := t0.Add(24 * time.Hour)
	offers := must[[]booking.Offer](t)(h.svc.Offers(bg, p, booking.OfferQuery{EarliestStart: start, LatestEnd: start.Add(4 * time.Hour), DurationSeconds: &d, Nodes: &n, FareClass: "premium"}))
	seen := map[string]bool{}
	for _, o := range offers {
		seen[o.ResourceID] = true
		if !o.Price.Total.IsPositive() {
			t.Fatalf("offer %+v", o)
		}
	}
	if len(seen) != 10 || !offers[0].Solution {
		t.Fatalf("offers from %d resources: %+v", len(seen), offers[0])
	}
	b, _, err := h.svc.Hold(bg, p, booking.HoldRequest{OfferID: offers[0].OfferID}, booking.Idempotency{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Commit(bg, p, b.ID); err != nil {
		t.Fatal(err)
	}
}

// TestDelayPremium: with a queue snapshot PUT, an offer's delay_premium is
// seed 001's premium at the offer's start on the snapshot's clock, in money
// at base cost x the class's tau (pricing.DelayPremiumAmount).
func TestDelayPremium(t *testing.T) {
	h := newHarness(t, testConfig())
	n0 := t0.Unix()
	snap := fmt.Sprintf(`{"nodes":10,"now":%d,"policy":"easy","running":[{"id":"A","nodes":5,"end":%d}],"queued":[{"id":"B","nodes":8,"runtime":3600}]}`, n0, n0+3600)
	if err := h.svc.PutQueue(bg, alice, "T", []byte(snap)); slotfare.KindOf(err) != slotfare.Forbidden {
		t.Fatal(err)
	}
	if err := h.svc.PutQueue(bg, provider, "T", []byte(`{"nodes":10,"now":1,"bogus":2}`)); slotfare.KindOf(err) != slotfare.Invalid {
		t.Fatal(err)
	}
	if err := h.svc.PutQueue(bg, provider, "T", []byte(snap)); err != nil {
		t.Fatal(err)
	}
	start := t0.Add(30 * time.Minute)
	d, nodes := int64(7200), 4
	offers := must[[]booking.Offer](t)(h.svc.Offers(bg, alice, booking.OfferQuery{ResourceID: "T", EarliestStart: start, LatestEnd: start.Add(2 * time.Hour), DurationSeconds: &d, Nodes: &nodes, FareClass: "business"}))
	if len(offers) == 0 || !offers[0].Start.Equal(start) {
		t.Fatalf("offers %+v", offers)
	}
	q, err := pricing.ReadQueueSnapshot(strings.NewReader(snap))
	if err != nil {
		t.Fatal(err)
	}
	dp := must[*pricing.DelayPricer](t)(pricing.NewDelayPricer(q))
	prem := must[pricing.DelayPremium](t)(dp.Premium(4, 7200, start.Unix()))
	business, _ := pricing.FareClassByName(pricing.DemoFareClasses(""), "business")
	tau, _ := business.TauFor("peak")
	want := must[decimal.Decimal](t)(pricing.DelayPremiumAmount(prem.Premium, decimal.RequireFromString("0.001"), tau, 2))
	o := offers[0]
	if !prem.Premium.IsPositive() || !o.Price.DelayPremium.Equal(want) || !o.Price.Total.Equal(o.Price.Base.Add(want)) {
		t.Fatalf("price %+v, want delay premium %s (premium %s node-s)", o.Price, want, prem.Premium)
	}
	// The hold keeps the quoted price; the premium survives a reopen.
	b, _, err := h.svc.Hold(bg, alice, booking.HoldRequest{OfferID: o.OfferID}, booking.Idempotency{})
	if err != nil || !b.Price.Total.Equal(o.Price.Total) {
		t.Fatal(err, b.Price)
	}
	h.reopen()
	if r := must[config.Resource](t)(h.svc.Resource(bg, alice, "T")); !r.HasQueue {
		t.Fatal("queue lost on reopen")
	}
}

// TestClassClosedOffersHigherClass: on the demo's RAL, budget may hold at
// most its nested limit b_3 at any instant of a peak period (Table 7.10's
// initial protection levels); once it is full, a budget hold is refused and a
// budget offer comes in the next higher open class (seed 004 Sec. 7.4).
func TestClassClosedOffersHigherClass(t *testing.T) {
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, cfg)
	start := t0.Add(2 * time.Hour) // 08:00 London, a Monday: peak
	_, err = h.svc.Limits(bg, alice, "RAL", start, start.Add(time.Hour))
	wantKind(t, err, slotfare.Forbidden)
	rep := must[control.LimitsReport](t)(h.svc.Limits(bg, provider, "RAL", start, start.Add(time.Hour)))
	if len(rep.Periods) != 1 || rep.Periods[0].Period != "peak" {
		t.Fatalf("report %+v", rep)
	}
	lp := rep.Periods[0]
	b1, b2, b3 := lp.BookingLimits["premium"], lp.BookingLimits["business"], lp.BookingLimits["budget"]
	if b1 != lp.OverbookingLimit || b1 < 41 || b2 > b1 || b3 > b2 || b3 <= 0 || b3 > 41 {
		t.Fatalf("limits %+v", lp)
	}
	b := must[booking.Booking](t)(h.hold(alice, "RAL", start, time.Hour, b3, "budget"))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	_, err = h.hold(alice, "RAL", start.Add(30*time.Minute), time.Hour, 1, "budget")
	wantKind(t, err, slotfare.NoCapacity)
	d, n := int64(3600), 1
	offers := must[[]booking.Offer](t)(h.svc.Offers(bg, alice, booking.OfferQuery{ResourceID: "RAL", EarliestStart: start, LatestEnd: start.Add(time.Hour), DurationSeconds: &d, Nodes: &n, FareClass: "budget"}))
	if len(offers) == 0 || offers[0].FareClass != "business" {
		t.Fatalf("offers %+v, want business", offers)
	}
	// The upgraded offer is priced in business and can be booked.
	bb, _, err := h.svc.Hold(bg, alice, booking.HoldRequest{OfferID: offers[0].OfferID}, booking.Idempotency{})
	if err != nil || bb.FareClass != "business" {
		t.Fatal(err, bb.FareClass)
	}
	rep = must[control.LimitsReport](t)(h.svc.Limits(bg, provider, "RAL", start, start.Add(time.Hour)))
	if got := rep.Periods[0].Bookings; got["budget"] != b3 || got["business"] != 1 {
		t.Fatalf("bookings %+v, want budget %d business 1", got, b3)
	}
	// Off the peak (18:00-24:00 London is off_peak) budget is open again.
	must[booking.Booking](t)(h.hold(alice, "RAL", t0.Add(13*time.Hour), time.Hour, 1, "budget"))
}

// TestIllegalTransitions: every operation on a booking in a status that
// does not allow it is a Conflict and changes nothing.
func TestIllegalTransitions(t *testing.T) {
	h := newHarness(t, testConfig())
	start := t0.Add(2 * time.Hour)
	mk := func(to booking.Status) booking.Booking {
		b := must[booking.Booking](t)(h.hold(alice, "T", start, time.Hour, 1, "premium"))
		switch to {
		case booking.Cancelled:
			must[booking.Booking](t)(h.svc.Cancel(bg, alice, b.ID))
		case booking.Committed:
			must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
		}
		return must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID))
	}
	n := 2
	ops := map[string]func(id string) error{
		"commit":  func(id string) error { _, err := h.svc.Commit(bg, alice, id); return err },
		"checkin": func(id string) error { _, err := h.svc.CheckIn(bg, alice, id); return err },
		"modify": func(id string) error {
			_, err := h.svc.Modify(bg, alice, id, booking.ModifyRequest{Nodes: &n})
			return err
		},
		"cancel": func(id string) error { _, err := h.svc.Cancel(bg, alice, id); return err },
	}
	cases := []struct {
		status booking.Status
		op     string
	}{
		{booking.Held, "checkin"}, {booking.Held, "modify"},
		{booking.Cancelled, "commit"}, {booking.Cancelled, "checkin"}, {booking.Cancelled, "modify"},
	}
	for _, c := range cases {
		b := mk(c.status)
		err := ops[c.op](b.ID)
		if slotfare.KindOf(err) != slotfare.Conflict {
			t.Errorf("%s on %s: %v, want Conflict", c.op, c.status, err)
		}
		if g := must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID)); g.Status != b.Status || g.Nodes != b.Nodes {
			t.Errorf("%s on %s changed it: %+v", c.op, c.status, g)
		}
	}
	// After the start: no cancel, no modify of a committed booking.
	b := mk(booking.Committed)
	h.clk.Set(start.Add(time.Minute))
	for _, op := range []string{"cancel", "modify"} {
		if err := ops[op](b.ID); slotfare.KindOf(err) != slotfare.Conflict {
			t.Errorf("%s after start: %v", op, err)
		}
	}
	if ps := books(t, h.svc).BookingPostings(b.ID); len(ps) != 1 {
		t.Fatalf("postings %d", len(ps))
	}
}

// TestHoldRejectedWhenLimitsShrink: a provider shrinks the resource under a
// live hold; the hold is kept until its commit, which rejects it.
func TestHoldRejectedWhenLimitsShrink(t *testing.T) {
	h := newHarness(t, testConfig())
	start := t0.Add(2 * time.Hour)
	b := must[booking.Booking](t)(h.hold(alice, "T", start, time.Hour, 8, "premium"))
	if _, _, err := putSpec(h.svc, bg, provider, "T", resourceSpec{Nodes: 5, BaseCost: decimal.RequireFromString("0.001"), Currency: "GRD", TimeZone: "UTC"}); err != nil {
		t.Fatal(err)
	}
	_, err := h.svc.Commit(bg, alice, b.ID)
	wantKind(t, err, slotfare.NoCapacity)
	g := must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID))
	if g.Status != booking.Rejected || len(books(t, h.svc).BookingPostings(b.ID)) != 0 {
		t.Fatalf("%+v", g)
	}
	must[booking.Booking](t)(h.hold(alice, "T", start, time.Hour, 5, "premium"))
}

// TestNoShowsRaiseOverbookingLimit: booking control learns the show rate
// from no-shows (seed 004 Sec. 7.3) and the probability policy's limit C/q
// rises; after the Tick that recomputes it, more than C nodes are admitted
// at one instant of the period.
func TestNoShowsRaiseOverbookingLimit(t *testing.T) {
	rc := resourceConfig("Q", 4, config.OverbookingConfig{Policy: overbook.Probability, Denial: overbook.DCF})
	h := newHarness(t, testConfig(rc))
	tuesday := t0.Add(26 * time.Hour) // Tuesday 08:00 UTC, peak
	b := must[booking.Booking](t)(h.hold(alice, "Q", tuesday, time.Hour, 4, "premium"))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	_, err := h.hold(alice, "Q", tuesday, time.Hour, 1, "premium")
	wantKind(t, err, slotfare.NoCapacity) // q = 1: ob = C
	for hr := range 10 {
		for range 4 {
			b := must[booking.Booking](t)(h.hold(bob, "Q", t0.Add(time.Duration(hr)*time.Hour), time.Hour, 1, "premium"))
			must[booking.Booking](t)(h.svc.Commit(bg, bob, b.ID))
		}
	}
	h.clk.Set(t0.Add(11 * time.Hour))
	if err := h.svc.Tick(h.clk.Now()); err != nil {
		t.Fatal(err)
	}
	if p := must[booking.Page[booking.Booking]](t)(h.svc.List(bg, bob, booking.ListQuery{Status: booking.NoShow})); len(p.Data) != 40 {
		t.Fatalf("%d no-shows", len(p.Data))
	}
	if err := h.svc.Tick(h.clk.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	rep := must[control.LimitsReport](t)(h.svc.Limits(bg, provider, "Q", tuesday, tuesday.Add(time.Hour)))
	lp := rep.Periods[0]
	if lp.ShowRate >= 1 || lp.OverbookingLimit <= 4 {
		t.Fatalf("after 40 no-shows: %+v", lp)
	}
	must[booking.Booking](t)(h.hold(alice, "Q", tuesday, time.Hour, lp.OverbookingLimit-4, "premium"))
	_, err = h.hold(alice, "Q", tuesday, time.Hour, 1, "premium")
	wantKind(t, err, slotfare.NoCapacity)
}

// TestWholeSecondStamps: a clock with nanoseconds gives whole-second
// timestamps, the hold's expiry rounded up.
func TestWholeSecondStamps(t *testing.T) {
	h := newHarness(t, testConfig())
	h.clk.Set(t0.Add(1500 * time.Millisecond))
	b := must[booking.Booking](t)(h.hold(alice, "T", t0.Add(time.Hour), time.Hour, 1, "premium"))
	if !b.CreatedAt.Equal(t0.Add(time.Second)) || !b.HoldExpiresAt.Equal(t0.Add(602*time.Second)) {
		t.Fatalf("created %s expires %s", b.CreatedAt, b.HoldExpiresAt)
	}
	c := must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	if c.UpdatedAt.Nanosecond() != 0 {
		t.Fatal(c.UpdatedAt)
	}
}

// TestVORestrictedClass: on the demo's RAL (VO 1) business and budget are
// for VO 1 only (Table 7.1): Bob (VO 2) may not be offered or hold them, and
// with no class asked gets the cheapest class open to him, premium.
func TestVORestrictedClass(t *testing.T) {
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, cfg)
	start := t0.Add(3 * time.Hour)
	d, n := int64(3600), 1
	q := booking.OfferQuery{ResourceID: "RAL", EarliestStart: start, LatestEnd: start.Add(2 * time.Hour), DurationSeconds: &d, Nodes: &n, FareClass: "budget"}
	_, err = h.svc.Offers(bg, bob, q)
	wantKind(t, err, slotfare.Forbidden)
	_, err = h.hold(bob, "RAL", start, time.Hour, 1, "budget")
	wantKind(t, err, slotfare.Forbidden)
	if offs := must[[]booking.Offer](t)(h.svc.Offers(bg, alice, q)); len(offs) == 0 || offs[0].FareClass != "budget" {
		t.Fatalf("alice: %+v", offs)
	}
	q.FareClass = ""
	offs := must[[]booking.Offer](t)(h.svc.Offers(bg, bob, q))
	if len(offs) == 0 || offs[0].FareClass != "premium" {
		t.Fatalf("bob, no class: %+v", offs)
	}
	if offs := must[[]booking.Offer](t)(h.svc.Offers(bg, alice, q)); offs[0].FareClass != "budget" {
		t.Fatalf("alice, no class: %+v", offs[0])
	}
}

// TestReconfigureUnderLoad: providers change a resource while users book
// and Tick runs (run with -race); bookings survive every rebuild.
func TestReconfigureUnderLoad(t *testing.T) {
	h := newHarness(t, testConfig())
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		pols := []string{"none", "probability", "risk"}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := h.svc.PutOverbooking(bg, provider, "T", config.OverbookingSpec{Policy: pols[i%3], Denial: "dcf"}); err != nil {
				t.Error(err)
				return
			}
			if err := h.svc.Tick(t0); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var committed []booking.Booking
	var cmu sync.Mutex
	var users sync.WaitGroup
	for w := range 4 {
		users.Add(1)
		go func() {
			defer users.Done()
			for i := w * 15; i < (w+1)*15; i++ {
				start := t0.Add(time.Duration(1+i%6) * time.Hour)
				b, err := h.hold(alice, "T", start, time.Hour, 1+i%3, "premium")
				if err != nil {
					if slotfare.KindOf(err) != slotfare.NoCapacity {
						t.Error(err)
					}
					continue
				}
				c, err := h.svc.Commit(bg, alice, b.ID)
				if err != nil {
					if slotfare.KindOf(err) != slotfare.NoCapacity {
						t.Error(err)
					}
					continue
				}
				cmu.Lock()
				committed = append(committed, c)
				cmu.Unlock()
			}
		}()
	}
	users.Wait()
	close(stop)
	wg.Wait()
	if len(committed) == 0 {
		t.Fatal("nothing committed")
	}
	// No rebuild lost a booking's capacity: never more than the 10 nodes
	// (show rate 1: every policy's limit is the capacity) at any instant.
	all := must[booking.Page[booking.Booking]](t)(h.svc.List(bg, alice, booking.ListQuery{Limit: 1000})).Data
	for _, x := range all {
		sum := 0
		for _, y := range all {
			if y.Status.Holding() && !y.Start.After(x.Start) && y.End.After(x.Start) {
				sum += y.Nodes
			}
		}
		if sum > 10 {
			t.Fatalf("%d nodes held at %s on 10", sum, x.Start)
		}
	}
	h.reopen()
	for _, b := range committed {
		if g := must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID)); g.Status != booking.Committed {
			t.Fatalf("%s is %s", b.ID, g.Status)
		}
	}
}

// TestResourceDroppedFromConfig: restarting on a configuration without a
// resource keeps its bookings readable; changing them is a Conflict.
func TestResourceDroppedFromConfig(t *testing.T) {
	h := newHarness(t, testConfig(resourceConfig("A", 4, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF}),
		resourceConfig("B", 4, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})))
	b := must[booking.Booking](t)(h.hold(alice, "A", t0.Add(time.Hour), time.Hour, 1, "premium"))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	h.cfg.Resources = h.cfg.Resources[1:]
	h.reopen()
	if g := must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID)); g.Status != booking.Committed {
		t.Fatal(g.Status)
	}
	_, err := h.svc.Cancel(bg, alice, b.ID)
	wantKind(t, err, slotfare.Conflict)
	if err := h.svc.Tick(t0.Add(3 * time.Hour)); err != nil {
		t.Fatal(err)
	}
}

// TestInvoiceLineOrder: a cancellation within the second of its commit
// lists the charge first, then the refund and the penalty (postings keep the
// clock's full precision; only the booking's own stamps are whole seconds).
func TestInvoiceLineOrder(t *testing.T) {
	h := newHarness(t, testConfig())
	h.clk.Set(t0.Add(100 * time.Millisecond))
	b := must[booking.Booking](t)(h.hold(alice, "T", t0.Add(time.Hour), time.Hour, 1, "budget"))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	h.clk.Set(t0.Add(200 * time.Millisecond))
	must[booking.Booking](t)(h.svc.Cancel(bg, alice, b.ID))
	inv := must[ledger.Page[ledger.Invoice]](t)(h.svc.Invoices(bg, billing, "alice", "", "", 0))
	var kinds []ledger.Kind
	for _, l := range inv.Data[0].Lines {
		kinds = append(kinds, l.Kind)
	}
	if len(kinds) != 3 || kinds[0] != ledger.KindCharge {
		t.Fatalf("lines %v", kinds)
	}
}

// TestDenialCountsRunningBookings: the nodes free for the shows at a start
// are the physical nodes less those of bookings already running; a late
// check-in within the grace is a show at the next Tick.
func TestDenialCountsRunningBookings(t *testing.T) {
	rc := resourceConfig("D", 4, config.OverbookingConfig{Policy: overbook.Probability, Denial: overbook.DCF})
	rc.Limits.ShowRates = map[string]float64{"peak": 0.5, "off_peak": 0.5, "super_saver": 0.5}
	h := newHarness(t, testConfig(rc))
	s1, s2 := t0.Add(2*time.Hour), t0.Add(3*time.Hour)
	a := must[booking.Booking](t)(h.hold(alice, "D", s1, 2*time.Hour, 3, "budget"))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, a.ID))
	b := must[booking.Booking](t)(h.hold(bob, "D", s2, time.Hour, 1, "premium"))
	must[booking.Booking](t)(h.svc.Commit(bg, bob, b.ID))
	c := must[booking.Booking](t)(h.hold(bob, "D", s2, time.Hour, 2, "business"))
	must[booking.Booking](t)(h.svc.Commit(bg, bob, c.ID))
	h.clk.Set(s1.Add(-time.Minute))
	must[booking.Booking](t)(h.svc.CheckIn(bg, alice, a.ID))
	if err := h.svc.Tick(s1); err != nil {
		t.Fatal(err)
	}
	// At s2, A (3 nodes) runs: 1 node is free. B checks in on time, C late.
	h.clk.Set(s2.Add(-time.Minute))
	must[booking.Booking](t)(h.svc.CheckIn(bg, bob, b.ID))
	if err := h.svc.Tick(s2); err != nil {
		t.Fatal(err)
	}
	if g := must[booking.Booking](t)(h.svc.Get(bg, bob, b.ID)); g.Status != booking.Active {
		t.Fatalf("B %s", g.Status)
	}
	h.clk.Set(s2.Add(5 * time.Minute))
	must[booking.Booking](t)(h.svc.CheckIn(bg, bob, c.ID))
	if err := h.svc.Tick(s2.Add(5 * time.Minute)); err != nil {
		t.Fatal(err)
	}
	g := must[booking.Booking](t)(h.svc.Get(bg, bob, c.ID))
	if g.Status != booking.Denied || g.Compensation == nil || !g.Compensation.IsPositive() {
		t.Fatalf("C %+v", g)
	}
	if g := must[booking.Booking](t)(h.svc.Get(bg, alice, a.ID)); g.Status != booking.Active {
		t.Fatalf("A %s", g.Status)
	}
}

// TestTerminate: a provider stops an active booking; its nodes are free
// at once; users may not terminate; only active bookings can be.
func TestTerminate(t *testing.T) {
	h := newHarness(t, testConfig())
	start := t0.Add(time.Hour)
	b := must[booking.Booking](t)(h.hold(alice, "T", start, 2*time.Hour, 10, "premium"))
	must[booking.Booking](t)(h.svc.Commit(bg, alice, b.ID))
	_, err := h.svc.Terminate(bg, provider, b.ID)
	wantKind(t, err, slotfare.Conflict)
	h.clk.Set(start.Add(-time.Minute))
	must[booking.Booking](t)(h.svc.CheckIn(bg, alice, b.ID))
	if err := h.svc.Tick(start); err != nil {
		t.Fatal(err)
	}
	_, err = h.svc.Terminate(bg, alice, b.ID)
	wantKind(t, err, slotfare.Forbidden)
	h.clk.Set(start.Add(time.Minute))
	g := must[booking.Booking](t)(h.svc.Terminate(bg, provider, b.ID))
	if g.Status != booking.Terminated {
		t.Fatal(g.Status)
	}
	must[booking.Booking](t)(h.hold(bob, "T", start.Add(30*time.Minute), time.Hour, 10, "premium"))
	if ps := books(t, h.svc).BookingPostings(b.ID); len(ps) != 1 {
		t.Fatalf("postings %d", len(ps))
	}
}
