// Package inventorytest is the contract every inventory.Port implementation
// passes: the same cases, and random operation sequences whose every answer
// must equal the in-process inventory's (the calendar tree's decisions).
package inventorytest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"slotfare"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/calendar"
)

// Run runs the contract on the ports open returns: each call a fresh,
// empty inventory.
func Run(t *testing.T, open func(t *testing.T) inventory.Port) {
	t.Run("NestedGroups", func(t *testing.T) { nestedGroups(t, open(t)) })
	t.Run("RetriesAreSafe", func(t *testing.T) { retriesAreSafe(t, open(t)) })
	t.Run("ShrinkKeepsWhatIsSold", func(t *testing.T) { shrinkKeepsWhatIsSold(t, open(t)) })
	t.Run("SearchAndProfile", func(t *testing.T) { searchAndProfile(t, open(t)) })
	t.Run("BadInput", func(t *testing.T) { badInput(t, open(t)) })
	t.Run("LastNodesRace", func(t *testing.T) { lastNodesRace(t, open(t)) })
	t.Run("DropForgets", func(t *testing.T) { dropForgets(t, open(t)) })
	t.Run("FencedWrites", func(t *testing.T) { fencedWrites(t, open(t)) })
	t.Run("RetiredAdmitsNothing", func(t *testing.T) { retiredAdmitsNothing(t, open(t)) })
	t.Run("SameAsTree", func(t *testing.T) {
		for seed := range uint64(12) {
			sameAsTree(t, open(t), seed, sparse)
		}
	})
	t.Run("SameAsTreeDense", func(t *testing.T) {
		for seed := range uint64(6) {
			sameAsTree(t, open(t), seed, dense)
		}
	})
}

// shape is the kind of calendar sameAsTree makes: how many nodes at most,
// over how long a span, with how many bookings' ids.
type shape struct {
	capacity int
	span     int64
	ids      int
}

var (
	// sparse keeps few breakpoints in a window: small capacities, and
	// bookings that are refused once a few are in.
	sparse = shape{capacity: 6, span: 200, ids: 30}
	// dense packs many bookings of one node or a few onto a short span, so
	// that windows hold dozens of breakpoints: an implementation that reads
	// a window in pieces of some size (Redis's) reads it whole.
	dense = shape{capacity: 40, span: 120, ids: 80}
)

var bg = context.Background() // a test suite's call: no request's

func wantKind(t *testing.T, err error, k slotfare.Kind) {
	t.Helper()
	if err == nil || slotfare.KindOf(err) != k {
		t.Fatalf("error %v, want kind %v", err, k)
	}
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func terms(s, e int64, n int) inventory.Terms { return inventory.Terms{Start: s, End: e, Nodes: n} }

// nestedGroups: a booking of class index k must fit on groups 0..k.
func nestedGroups(t *testing.T, p inventory.Port) {
	ok(t, p.Ensure(bg, "R", 3, 10))
	ok(t, p.SetCapacity(bg, "R", lease.Fence{}, 1, 0, 100, 6))
	ok(t, p.SetCapacity(bg, "R", lease.Fence{}, 2, 0, 100, 3))
	ok(t, p.Admit(bg, "R", "low", 3, terms(10, 20, 3)))
	wantKind(t, p.Admit(bg, "R", "low2", 3, terms(15, 25, 1)), slotfare.NoCapacity) // group 2 full
	ok(t, p.Admit(bg, "R", "mid", 2, terms(15, 25, 3)))                             // groups 0, 1: 6 of 6
	wantKind(t, p.Admit(bg, "R", "mid2", 2, terms(15, 16, 1)), slotfare.NoCapacity)
	ok(t, p.Admit(bg, "R", "top", 1, terms(15, 16, 4))) // group 0: 10 of 10
	wantKind(t, p.Admit(bg, "R", "top2", 1, terms(15, 16, 1)), slotfare.NoCapacity)
	ok(t, p.Admit(bg, "R", "top3", 1, terms(16, 17, 4)))
	if fits, err := p.Fits(bg, "R", 0, 15, 16, 1); err != nil || fits {
		t.Fatalf("Fits on a full group 0 = %v, %v", fits, err)
	}
	ok(t, p.Release(bg, "R", "low"))
	ok(t, p.Admit(bg, "R", "low2", 3, terms(15, 25, 1))) // group 2 has room again, 0 and 1 too? 0: 3+4+1=8
	if h, found, err := p.Get(bg, "R", "mid"); err != nil || !found || h.Groups != 2 || h.Terms != terms(15, 25, 3) {
		t.Fatalf("Get(mid) = %+v, %v, %v", h, found, err)
	}
	if _, found, err := p.Get(bg, "R", "low"); err != nil || found {
		t.Fatalf("Get(low) after release = %v, %v", found, err)
	}
}

// retriesAreSafe: a step run twice decides once.
func retriesAreSafe(t *testing.T, p inventory.Port) {
	ok(t, p.Ensure(bg, "R", 1, 2))
	ok(t, p.Ensure(bg, "R", 1, 2))
	wantKind(t, p.Ensure(bg, "R", 2, 2), slotfare.Conflict)
	ok(t, p.Admit(bg, "R", "a", 1, terms(0, 10, 2)))
	ok(t, p.Admit(bg, "R", "a", 1, terms(0, 10, 2))) // the retry: nothing more held
	wantKind(t, p.Admit(bg, "R", "a", 1, terms(0, 10, 1)), slotfare.Conflict)
	ok(t, p.Replace(bg, "R", "a", terms(0, 10, 1)))
	ok(t, p.Replace(bg, "R", "a", terms(0, 10, 1)))
	ok(t, p.Admit(bg, "R", "b", 1, terms(5, 10, 1)))
	ok(t, p.Release(bg, "R", "a"))
	ok(t, p.Release(bg, "R", "a"))
	wantKind(t, p.Replace(bg, "R", "a", terms(0, 10, 1)), slotfare.NotFound)
	_, err := p.Within(bg, "R", "a")
	wantKind(t, err, slotfare.NotFound)
	wantKind(t, p.Admit(bg, "nope", "a", 1, terms(0, 10, 1)), slotfare.NotFound)
	if fits, err := p.Fits(bg, "R", 0, 0, 10, 1); err != nil || !fits {
		t.Fatalf("after the releases: %v, %v", fits, err)
	}
}

// shrinkKeepsWhatIsSold is issue 9's defect 1 at the port: a refused
// change leaves the booking held; nothing is admitted over a lowered limit;
// a reduction still fits.
func shrinkKeepsWhatIsSold(t *testing.T, p inventory.Port) {
	ok(t, p.Ensure(bg, "R", 1, 4))
	ok(t, p.Admit(bg, "R", "a", 1, terms(0, 3600, 2)))
	ok(t, p.Admit(bg, "R", "b", 1, terms(0, 3600, 2)))
	ok(t, p.SetCapacity(bg, "R", lease.Fence{}, 0, inventory.MinTime, inventory.MaxTime, 3))
	wantKind(t, p.Replace(bg, "R", "a", terms(0, 3600, 3)), slotfare.NoCapacity)
	if h, _, err := p.Get(bg, "R", "a"); err != nil || h.Terms != terms(0, 3600, 2) {
		t.Fatalf("after a refused change: %+v %v", h, err)
	}
	wantKind(t, p.Admit(bg, "R", "c", 1, terms(0, 3600, 1)), slotfare.NoCapacity)
	if w, err := p.Within(bg, "R", "a"); err != nil || w {
		t.Fatalf("Within over an excess = %v, %v", w, err)
	}
	ok(t, p.SetCapacity(bg, "R", lease.Fence{}, 0, inventory.MinTime, inventory.MaxTime, 1))
	ok(t, p.Replace(bg, "R", "a", terms(0, 3600, 1))) // 3 on 1: a reduction
	wantKind(t, p.Replace(bg, "R", "a", terms(0, 7200, 2)), slotfare.NoCapacity)
	ok(t, p.Replace(bg, "R", "a", terms(1800, 5400, 1))) // grows only where there is room
	if w, err := p.Within(bg, "R", "a"); err != nil || w {
		t.Fatalf("Within = %v, %v", w, err)
	}
	ok(t, p.Release(bg, "R", "b"))
	if w, err := p.Within(bg, "R", "a"); err != nil || !w {
		t.Fatalf("Within after the excess went = %v, %v", w, err)
	}
}

func searchAndProfile(t *testing.T, p inventory.Port) {
	ok(t, p.Ensure(bg, "R", 1, 4))
	ok(t, p.Admit(bg, "R", "a", 1, terms(10, 20, 3)))
	ok(t, p.Admit(bg, "R", "b", 1, terms(25, 30, 4)))
	for _, c := range []struct {
		from, limit, dur int64
		nodes            int
		t                int64
		found            bool
	}{
		{0, 100, 5, 2, 0, true},
		{5, 100, 10, 2, 30, true},
		{5, 100, 5, 1, 5, true},
		{21, 100, 5, 1, 30, true},
		{5, 18, 10, 2, 0, false},
		{0, 100, 5, 5, 0, false},
	} {
		got, found, err := p.NextFree(bg, "R", 0, c.from, c.limit, c.dur, c.nodes)
		if err != nil || found != c.found || (found && got != c.t) {
			t.Fatalf("NextFree(%d,%d,%d,%d) = %d, %v, %v; want %d, %v", c.from, c.limit, c.dur, c.nodes, got, found, err, c.t, c.found)
		}
	}
	steps, err := p.Profile(bg, "R", 0, 0, 40)
	ok(t, err)
	want := fmt.Sprint([]any{[]int64{0, 10, 4}, []int64{10, 20, 1}, []int64{20, 25, 4}, []int64{25, 30, 0}, []int64{30, 40, 4}})
	var got []any
	for _, s := range steps {
		got = append(got, []int64{s.Start, s.End, int64(s.Free)})
	}
	if fmt.Sprint(got) != want {
		t.Fatalf("Profile = %v, want %v", got, want)
	}
}

// fencedWrites: a capacity write whose lease token is older than the
// newest the resource has seen is refused (Fenced) and changes nothing, on
// one piece or many; an equal or newer token is taken; the zero fence (no
// lease) is never refused and moves no token; tokens are kept per resource
// and per lease.
func fencedWrites(t *testing.T, p inventory.Port) {
	ok(t, p.Ensure(bg, "R", 2, 10))
	ok(t, p.Ensure(bg, "S", 1, 10))
	holder := func(token int64) lease.Fence { return lease.Fence{Name: "tick:R", Token: token} }
	free := func(g int) string {
		t.Helper()
		steps, err := p.Profile(bg, "R", g, 0, 100)
		ok(t, err)
		return fmt.Sprint(steps)
	}
	set := func(f lease.Fence, g, nodes int) error { return p.SetCapacity(bg, "R", f, g, 0, 100, nodes) }
	ok(t, set(holder(2), 0, 6))
	ok(t, set(holder(2), 1, 4))
	before0, before1 := free(0), free(1)
	if want := fmt.Sprint([]calendar.Step{{Start: 0, End: 100, Free: 6}}); before0 != want {
		t.Fatalf("group 0 = %s, want %s", before0, want)
	}
	wantKind(t, set(holder(1), 0, 9), slotfare.Fenced)
	stale := []inventory.Capacity{{Group: 0, From: 0, To: 50, Nodes: 9}, {Group: 1, From: 50, To: 100, Nodes: 9}}
	wantKind(t, inventory.SetCapacities(bg, p, "R", holder(1), stale), slotfare.Fenced)
	if a, b := free(0), free(1); a != before0 || b != before1 {
		t.Fatalf("refused writes changed the capacities: %s %s, were %s %s", a, b, before0, before1)
	}
	ok(t, set(holder(2), 0, 5)) // the holder's own token again
	ok(t, inventory.SetCapacities(bg, p, "R", holder(3), stale))
	wantKind(t, set(holder(2), 0, 1), slotfare.Fenced) // 3 seen now
	ok(t, set(lease.Fence{}, 1, 7))                    // no lease: taken, and 3 stays the newest
	wantKind(t, set(holder(2), 0, 1), slotfare.Fenced)
	ok(t, set(holder(3), 0, 8))
	ok(t, set(lease.Fence{Name: "other", Token: 1}, 0, 8))                             // another lease's tokens
	ok(t, p.SetCapacity(bg, "S", lease.Fence{Name: "tick:R", Token: 1}, 0, 0, 100, 8)) // another resource's
	want := []string{
		fmt.Sprint([]calendar.Step{{Start: 0, End: 100, Free: 8}}),
		fmt.Sprint([]calendar.Step{{Start: 0, End: 100, Free: 7}}),
	}
	if a, b := free(0), free(1); a != want[0] || b != want[1] {
		t.Fatalf("capacities %s %s, want %s %s", a, b, want[0], want[1])
	}
	for _, f := range []lease.Fence{{Name: "tick:R", Token: -1}, {Name: "", Token: 4}, {Name: "tick:R", Token: 0}} {
		err := set(f, 0, 1)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "fence" {
			t.Fatalf("fence %+v: %v, want Invalid on fence", f, err)
		}
	}
}

func badInput(t *testing.T, p inventory.Port) {
	ok(t, p.Ensure(bg, "R", 2, 4))
	for _, c := range []struct {
		err   error
		field string
	}{
		{p.Admit(bg, "R", "a", 1, terms(10, 10, 1)), "end"},
		{p.Admit(bg, "R", "a", 1, terms(10, 20, 0)), "nodes"},
		{p.Admit(bg, "R", "", 1, terms(10, 20, 1)), "id"},
		{p.Admit(bg, "R", "a", 0, terms(10, 20, 1)), "groups"},
		{p.Admit(bg, "R", "a", 1, terms(inventory.MinTime-1, 20, 1)), "start"},
		{p.SetCapacity(bg, "R", lease.Fence{}, 2, 0, 10, 1), "group"},
		{p.SetCapacity(bg, "R", lease.Fence{}, 0, 0, 10, -1), "nodes"},
		{p.Ensure(bg, "S", 0, 1), "groups"},
	} {
		if slotfare.KindOf(c.err) != slotfare.Invalid || slotfare.FieldOf(c.err) != c.field {
			t.Fatalf("%v: want Invalid on %s", c.err, c.field)
		}
	}
	wantKind(t, p.Admit(bg, "R", "a", 3, terms(10, 20, 1)), slotfare.Invalid) // more groups than it has
	if _, found, err := p.Get(bg, "R", "a"); err != nil || found {
		t.Fatalf("bad input left %v, %v", found, err)
	}
}

// dropForgets: a dropped resource is gone with what it held, a second drop
// is nil, and the name can be ensured anew with another number of groups.
func dropForgets(t *testing.T, p inventory.Port) {
	ok(t, p.Ensure(bg, "R", 2, 4))
	ok(t, p.Admit(bg, "R", "a", 2, terms(10, 20, 4)))
	ok(t, p.Ensure(bg, "S", 1, 4))
	ok(t, p.Admit(bg, "S", "b", 1, terms(10, 20, 3)))
	ok(t, p.Drop(bg, "R"))
	ok(t, p.Drop(bg, "R"))
	_, _, err := p.Get(bg, "R", "a")
	wantKind(t, err, slotfare.NotFound)
	ok(t, p.Ensure(bg, "R", 3, 4))
	ok(t, p.Admit(bg, "R", "c", 3, terms(10, 20, 4))) // nothing of "a" is left
	if h, found, err := p.Get(bg, "S", "b"); err != nil || !found || h.Terms.Nodes != 3 {
		t.Fatalf("dropping R touched S: %+v, %v, %v", h, found, err)
	}
}

// retiredAdmitsNothing: a resource holding a booking is not retired (the
// count says why); once its bookings are gone it is, and admits nothing
// until reinstated, while another resource goes on.
func retiredAdmitsNothing(t *testing.T, p inventory.Port) {
	r := p
	ok(t, p.Ensure(bg, "R", 2, 4))
	ok(t, p.Ensure(bg, "S", 1, 4))
	ok(t, p.Admit(bg, "R", "a", 1, terms(10, 20, 1)))
	ok(t, p.Admit(bg, "R", "b", 2, terms(30, 40, 1)))
	if n, err := r.Retire(bg, "R"); err != nil || n != 2 {
		t.Fatalf("retiring R holding two bookings: %d, %v; want 2 and nothing retired", n, err)
	}
	ok(t, p.Admit(bg, "R", "c", 1, terms(50, 60, 1))) // not retired
	for _, id := range []string{"a", "b", "c"} {
		ok(t, p.Release(bg, "R", id))
	}
	for range 2 { // retired again harmlessly
		if n, err := r.Retire(bg, "R"); err != nil || n != 0 {
			t.Fatalf("retiring an empty R: %d, %v", n, err)
		}
	}
	wantKind(t, p.Admit(bg, "R", "d", 1, terms(10, 20, 1)), slotfare.NotFound)
	if _, found, err := p.Get(bg, "R", "d"); err != nil || found {
		t.Fatalf("a retired resource holds d: %v, %v", found, err)
	}
	ok(t, p.Admit(bg, "S", "e", 1, terms(10, 20, 1)))
	ok(t, r.Reinstate(bg, "R"))
	ok(t, r.Reinstate(bg, "R"))
	ok(t, p.Admit(bg, "R", "d", 2, terms(10, 20, 4)))
	_, err := r.Retire(bg, "nowhere")
	wantKind(t, err, slotfare.NotFound)
}

// lastNodesRace: many clients racing for the last nodes get exactly them.
func lastNodesRace(t *testing.T, p inventory.Port) {
	ok(t, p.Ensure(bg, "R", 2, 7))
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := p.Admit(bg, "R", fmt.Sprintf("c%d", i), 1+i%2, terms(100, 200+int64(i), 1))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case slotfare.KindOf(err) != slotfare.NoCapacity:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if won != 7 {
		t.Fatalf("%d of 64 racing admissions won 7 nodes", won)
	}
}

// sameAsTree drives random operations and requires every answer to be the
// in-process inventory's.
func sameAsTree(t *testing.T, p inventory.Port, seed uint64, sh shape) {
	r := &treeRun{t: t, p: p, ref: inventory.NewMemory(), seed: seed, sh: sh}
	r.rng = rand.New(rand.NewPCG(seed, 11))
	r.res = fmt.Sprintf("R%d", seed)
	r.groups = 1 + r.rng.IntN(3)
	r.capacity = 1 + r.rng.IntN(sh.capacity)
	if sh.capacity > sparse.capacity {
		r.capacity = sh.capacity/2 + r.rng.IntN(sh.capacity/2)
	}
	ok(t, r.ref.Ensure(bg, r.res, r.groups, r.capacity))
	ok(t, p.Ensure(bg, r.res, r.groups, r.capacity))
	for range 300 {
		id := fmt.Sprintf("b%d", r.rng.IntN(sh.ids))
		switch op := r.rng.IntN(100); {
		case op < 35:
			r.admit(id)
		case op < 50:
			r.log = append(r.log, "Release("+id+")")
			a, b := r.ref.Release(bg, r.res, id), p.Release(bg, r.res, id)
			if kind(a) != kind(b) {
				r.fail("Release(%s) = %v, tree says %v", id, b, a)
			}
		case op < 70:
			r.replace(id)
		case op < 78:
			r.setCapacity()
		case op < 84:
			wa, ea := r.ref.Within(bg, r.res, id)
			wb, eb := p.Within(bg, r.res, id)
			if kind(ea) != kind(eb) || wa != wb {
				r.fail("Within(%s) = %v, %v; tree says %v, %v", id, wb, eb, wa, ea)
			}
		case op < 90:
			r.fits()
		case op < 95:
			r.nextFree()
		default:
			r.profile()
		}
	}
}

// treeRun is one sameAsTree sequence: the port under test, the tree it is
// compared with, the random source (each operation draws its arguments in
// a fixed order, so a seed replays the same sequence) and the operations
// so far, for the failure message.
type treeRun struct {
	t                *testing.T
	p, ref           inventory.Port
	seed             uint64
	sh               shape
	rng              *rand.Rand
	res              string
	groups, capacity int
	log              []string
}

// nodes is a booking's size: in a dense calendar mostly one node or a few,
// so that many fit at once.
func (r *treeRun) nodes() int {
	if r.sh.capacity > sparse.capacity && r.rng.IntN(4) > 0 {
		return 1 + r.rng.IntN(3)
	}
	return 1 + r.rng.IntN(r.capacity+1)
}

func (r *treeRun) interval() (int64, int64) {
	s := r.rng.Int64N(r.sh.span)
	return s, s + 1 + r.rng.Int64N(r.sh.span/4)
}

func (r *treeRun) fail(format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("seed %d: %s\nlast ops: %v", r.seed, fmt.Sprintf(format, args...), r.log[max(0, len(r.log)-20):])
}

// kind is what sameAsTree compares of an error: its kind, or "ok".
func kind(err error) string {
	if err == nil {
		return "ok"
	}
	return slotfare.KindOf(err).String()
}

func (r *treeRun) admit(id string) {
	s, e := r.interval()
	g := 1 + r.rng.IntN(r.groups)
	tm := terms(s, e, r.nodes())
	r.log = append(r.log, fmt.Sprintf("Admit(%s,%d,%v)", id, g, tm))
	a, b := r.ref.Admit(bg, r.res, id, g, tm), r.p.Admit(bg, r.res, id, g, tm)
	if kind(a) != kind(b) {
		r.fail("Admit(%s, %d, %v) = %v, tree says %v", id, g, tm, b, a)
	}
}

func (r *treeRun) replace(id string) {
	s, e := r.interval()
	tm := terms(s, e, r.nodes())
	r.log = append(r.log, fmt.Sprintf("Replace(%s,%v)", id, tm))
	a, b := r.ref.Replace(bg, r.res, id, tm), r.p.Replace(bg, r.res, id, tm)
	if kind(a) != kind(b) {
		r.fail("Replace(%s, %v) = %v, tree says %v", id, tm, b, a)
	}
}

func (r *treeRun) setCapacity() {
	s, e := r.interval()
	g := r.rng.IntN(r.groups)
	n := r.rng.IntN(r.capacity + 2)
	r.log = append(r.log, fmt.Sprintf("SetCapacity(%d,%d,%d,%d)", g, s, e, n))
	a, b := r.ref.SetCapacity(bg, r.res, lease.Fence{}, g, s, e, n), r.p.SetCapacity(bg, r.res, lease.Fence{}, g, s, e, n)
	if kind(a) != kind(b) {
		r.fail("SetCapacity = %v, tree says %v", b, a)
	}
}

func (r *treeRun) fits() {
	s, e := r.interval()
	g, n := r.rng.IntN(r.groups), 1+r.rng.IntN(r.capacity+1)
	fa, ea := r.ref.Fits(bg, r.res, g, s, e, n)
	fb, eb := r.p.Fits(bg, r.res, g, s, e, n)
	if kind(ea) != kind(eb) || fa != fb {
		r.fail("Fits(%d,%d,%d,%d) = %v, %v; tree says %v, %v", g, s, e, n, fb, eb, fa, ea)
	}
}

func (r *treeRun) nextFree() {
	from := r.rng.Int64N(r.sh.span)
	g, n, d := r.rng.IntN(r.groups), 1+r.rng.IntN(r.capacity), 1+r.rng.Int64N(r.sh.span/5)
	limit := from + r.rng.Int64N(r.sh.span/2)
	ta, fa, ea := r.ref.NextFree(bg, r.res, g, from, limit, d, n)
	tb, fb, eb := r.p.NextFree(bg, r.res, g, from, limit, d, n)
	if kind(ea) != kind(eb) || fa != fb || (fa && ta != tb) {
		r.fail("NextFree(%d,%d,%d,%d,%d) = %d, %v, %v; tree says %d, %v, %v", g, from, limit, d, n, tb, fb, eb, ta, fa, ea)
	}
}

func (r *treeRun) profile() {
	s, e := r.interval()
	g := r.rng.IntN(r.groups)
	pa, ea := r.ref.Profile(bg, r.res, g, s, e)
	pb, eb := r.p.Profile(bg, r.res, g, s, e)
	if kind(ea) != kind(eb) || !slices.Equal(pa, pb) {
		r.fail("Profile(%d,%d,%d) = %v, %v; tree says %v, %v", g, s, e, pb, eb, pa, ea)
	}
}
