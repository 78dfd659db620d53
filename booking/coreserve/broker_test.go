package coreserve

import (
	"context"

	"github.com/shopspring/decimal"

	"sync"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/config"
	"slotfare/booking/service"
)

var alice = booking.Principal{AccountID: "alice", Role: booking.RoleUser, VO: "1"}

// clock is a settable clock shared by the service and the broker.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// rig is the real booking service on the demo configuration and a bbolt
// store in dir, with a broker whose records are in mem (kept across a
// reopen, as a file would be: the stores' own durability is their
// contract's, booking/internal/coreservetest).
type rig struct {
	dir string
	clk *clock
	svc *service.Service
	mem *Memory
	st  Store
	br  *Broker
	day time.Time // 00:00 UTC of a Tuesday two weeks ahead
}

func newRig(t *testing.T) *rig {
	t.Helper()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	day := clk.t.Truncate(24*time.Hour).AddDate(0, 0, 14)
	for day.Weekday() != time.Tuesday {
		day = day.AddDate(0, 0, 1)
	}
	r := &rig{dir: t.TempDir(), clk: clk, day: day, mem: NewMemory()}
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	store, err := boltstore.Open(r.dir, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.svc, err = service.Open(cfg, embeddedOn(t, store), service.Options{Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.svc.Close() })
	r.open(t, r.svc)
	return r
}

// open (re)opens the broker over b, on the records of the rig's store.
func (r *rig) open(t *testing.T, b Bookings) {
	t.Helper()
	r.st = r.mem
	r.br = New(b, r.st, Options{Now: r.clk.now, RecoverAfter: -1})
}

func (r *rig) at(h int) time.Time { return r.day.Add(time.Duration(h) * time.Hour) }

func part(res string, nodes int, from, to time.Time, d time.Duration) Part {
	return Part{ResourceID: res, Nodes: nodes, EarliestStart: from, LatestEnd: to, Duration: d}
}

func intp(i int) *int { return &i }

func (r *rig) statuses(t *testing.T, v View) []booking.Status {
	t.Helper()
	var out []booking.Status
	for _, pr := range v.Parts {
		bk, err := r.svc.Get(context.Background(), alice, pr.BookingID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bk.Status)
	}
	return out
}

func all(ss []booking.Status, want booking.Status) bool {
	for _, s := range ss {
		if s != want {
			return false
		}
	}
	return len(ss) > 0
}

// liveHolds counts alice's bookings held now.
func (r *rig) liveHolds(t *testing.T) int {
	t.Helper()
	page, err := r.svc.List(context.Background(), alice, booking.ListQuery{Status: booking.Held, Limit: booking.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Data)
}

func TestReserveSameStartThenCommit(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	req := Request{Policy: Earliest, FareClass: "", Parts: []Part{
		part("RAL", 4, r.at(9), r.at(13), time.Hour),
		{Tags: []string{"vo-3"}, Nodes: 4, EarliestStart: r.at(9), LatestEnd: r.at(13), Duration: time.Hour, SameStartAs: intp(0)},
	}}
	v, err := r.br.Reserve(ctx, alice, req)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != Held || len(v.Bookings) != 2 || !all(r.statuses(t, v), booking.Held) {
		t.Fatalf("reserve: %+v", v)
	}
	if !v.Bookings[0].Start.Equal(r.at(9)) || !v.Bookings[1].Start.Equal(v.Bookings[0].Start) {
		t.Fatalf("starts %v %v, want both %v", v.Bookings[0].Start, v.Bookings[1].Start, r.at(9))
	}
	if res := v.Bookings[1].ResourceID; res != "Lyon" && res != "CERN" {
		t.Fatalf("part 1 on %s, not a vo-3 resource", res)
	}
	c, err := r.br.Commit(ctx, alice, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != Committed || !all(r.statuses(t, c), booking.Committed) {
		t.Fatalf("commit: %s %v", c.Status, r.statuses(t, c))
	}
	again, err := r.br.Commit(ctx, alice, v.ID)
	if err != nil || again.Status != Committed || again.Version != c.Version {
		t.Fatalf("second commit: %v %+v", err, again)
	}
	if _, err := r.br.Get(ctx, booking.Principal{AccountID: "bob", Role: booking.RoleUser}, v.ID); slotfare.KindOf(err) != slotfare.NotFound {
		t.Fatalf("bob reads alice's co-reservation: %v", err)
	}
}

func TestReserveChained(t *testing.T) {
	r := newRig(t)
	req := Request{Policy: Cheapest, FareClass: "", Parts: []Part{
		part("RAL", 4, r.at(8), r.at(14), 2*time.Hour),
		{ResourceID: "CERN", Nodes: 8, EarliestStart: r.at(8), LatestEnd: r.at(20), Duration: time.Hour,
			After: &After{Part: 0, MaxGap: 30 * time.Minute}},
	}}
	v, err := r.br.Reserve(context.Background(), alice, req)
	if err != nil {
		t.Fatal(err)
	}
	a, b := v.Bookings[0], v.Bookings[1]
	if b.Start.Before(a.End) || b.Start.After(a.End.Add(30*time.Minute)) {
		t.Fatalf("B starts %v, A ends %v: not within 30 min after", b.Start, a.End)
	}
	if b.End.Sub(b.Start) != time.Hour || b.Nodes != 8 {
		t.Fatalf("B is %v x %d", b.End.Sub(b.Start), b.Nodes)
	}
}

// fill holds every node of res over [from, to) for bob.
func (r *rig) fill(t *testing.T, res string, nodes int, from, to time.Time) {
	t.Helper()
	bob := booking.Principal{AccountID: "bob", Role: booking.RoleUser}
	if _, _, err := r.svc.Hold(context.Background(), bob, booking.HoldRequest{ResourceID: res, Start: from, End: to, Nodes: nodes, FareClass: "premium"}, booking.Idempotency{}); err != nil {
		t.Fatal(err)
	}
}

func TestInfeasiblePartHoldsNothing(t *testing.T) {
	r := newRig(t)
	r.fill(t, "Torino", 2, r.at(0), r.at(24))
	req := Request{Policy: Earliest, FareClass: "", Parts: []Part{
		part("RAL", 4, r.at(9), r.at(13), time.Hour),
		part("Torino", 1, r.at(9), r.at(13), time.Hour),
	}}
	_, err := r.br.Reserve(context.Background(), alice, req)
	if slotfare.KindOf(err) != slotfare.NoCapacity || slotfare.FieldOf(err) != "parts[1]" {
		t.Fatalf("err %v (kind %v, field %q), want NoCapacity on parts[1]", err, slotfare.KindOf(err), slotfare.FieldOf(err))
	}
	if n := r.liveHolds(t); n != 0 {
		t.Fatalf("%d holds left after a failed co-reservation", n)
	}
}

// racing is Bookings whose Hold of the second part first lets another
// account take the capacity: the probe's candidate is stale when held, as
// under contention.
type racing struct {
	Bookings
	r     *rig
	t     *testing.T
	once  sync.Once
	holds int
}

func (x *racing) Hold(ctx context.Context, p booking.Principal, req booking.HoldRequest, idem booking.Idempotency) (booking.Booking, bool, error) {
	x.holds++
	if x.holds == 2 {
		x.once.Do(func() { x.r.fill(x.t, "Torino", 2, x.r.at(9), x.r.at(10)) })
	}
	return x.Bookings.Hold(ctx, p, req, idem)
}

func TestHoldFailureRollsBackAndRetries(t *testing.T) {
	r := newRig(t)
	x := &racing{Bookings: r.svc, r: r, t: t}
	r.br = New(x, r.st, Options{Now: r.clk.now})
	req := Request{Policy: Earliest, FareClass: "", Parts: []Part{
		part("RAL", 4, r.at(9), r.at(13), time.Hour),
		part("Torino", 1, r.at(9), r.at(13), time.Hour),
	}}
	v, err := r.br.Reserve(context.Background(), alice, req)
	if err != nil {
		t.Fatal(err)
	}
	if v.Attempts != 2 || !v.Bookings[1].Start.After(r.at(9)) {
		t.Fatalf("attempts %d, part 1 at %v: want the second candidate after 09:00", v.Attempts, v.Bookings[1].Start)
	}
	if n := r.liveHolds(t); n != 2 {
		t.Fatalf("%d holds, want the 2 parts (the first attempt's hold cancelled)", n)
	}
}

func TestHoldsExpireAndFreeCapacity(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	req := Request{Policy: Earliest, FareClass: "", Parts: []Part{
		part("Torino", 2, r.at(9), r.at(10), time.Hour),
		part("Milano", 5, r.at(9), r.at(10), time.Hour),
	}}
	v, err := r.br.Reserve(ctx, alice, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.br.Reserve(ctx, alice, req); slotfare.KindOf(err) != slotfare.NoCapacity {
		t.Fatalf("a second co-reservation of the same nodes: %v, want NoCapacity", err)
	}
	r.clk.add(11 * time.Minute) // past hold_seconds (600)
	if err := r.svc.Tick(r.clk.now()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.br.Commit(ctx, alice, v.ID); slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "parts[0]" {
		t.Fatalf("commit after expiry: %v", err)
	}
	g, err := r.br.Get(ctx, alice, v.ID)
	if err != nil || g.Status != Expired || g.Failed == nil || !all(r.statuses(t, g), booking.Expired) {
		t.Fatalf("after expiry: %v %+v", err, g)
	}
	if _, err := r.br.Reserve(ctx, alice, req); err != nil {
		t.Fatalf("the freed nodes cannot be co-reserved again: %v", err)
	}
}

func TestOneLapsedHoldExpiresTheWhole(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	reserve := func() View {
		t.Helper()
		v, err := r.br.Reserve(ctx, alice, Request{Policy: Earliest, FareClass: "", Parts: []Part{
			part("RAL", 2, r.at(9), r.at(10), time.Hour), part("CERN", 2, r.at(9), r.at(10), time.Hour)}})
		if err != nil {
			t.Fatal(err)
		}
		// The user gives one part up on its own.
		if _, err := r.svc.Cancel(ctx, alice, v.Parts[1].BookingID); err != nil {
			t.Fatal(err)
		}
		return v
	}
	read, ticked := reserve(), reserve()
	// A tick reads only what is due by time: neither is yet.
	if n, err := r.br.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("recover before the holds' time: %d %v", n, err)
	}
	// Read, one is expired as a whole at once, its other hold released.
	g, err := r.br.Get(ctx, alice, read.ID)
	if err != nil || g.Status != Expired || g.Failed.Part != 1 || g.Bookings[0].Status != booking.Cancelled {
		t.Fatalf("read: %v %s %+v", err, g.Status, g.Failed)
	}
	// The other is expired by the tick at its holds' time.
	r.clk.add(10 * time.Minute)
	if n, err := r.br.Recover(ctx); err != nil || n != 1 {
		t.Fatalf("recover at the holds' time: %d %v", n, err)
	}
	rec, _, err := r.st.Get(ctx, ticked.ID)
	if err != nil || rec.Status != Expired {
		t.Fatalf("after recover: %v %s", err, rec.Status)
	}
}

func TestCancelAll(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	v, err := r.br.Reserve(ctx, alice, Request{Policy: Earliest, FareClass: "", Parts: []Part{
		part("RAL", 2, r.at(9), r.at(10), time.Hour), part("CERN", 2, r.at(9), r.at(10), time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.br.Commit(ctx, alice, v.ID); err != nil {
		t.Fatal(err)
	}
	c, err := r.br.Cancel(ctx, alice, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != Cancelled {
		t.Fatalf("status %s", c.Status)
	}
	// RAL sells alice budget, which keeps 25% (thesis Table 7.9); CERN
	// sells her premium, which keeps nothing.
	want := []decimal.Decimal{c.Bookings[0].Price.Total.Div(mustDec("4")), decimal.Zero}
	for i, bk := range c.Bookings {
		if bk.Status != booking.Cancelled || bk.Penalty == nil || !bk.Penalty.Equal(want[i]) {
			t.Fatalf("part %d (%s): %s penalty %v of %s, want %s", i, bk.FareClass, bk.Status, bk.Penalty, bk.Price.Total, want[i])
		}
	}
}
