package service_test

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/ledger"
	"slotfare/overbook"
)

// TestRandomLifeCycles drives random operations (hold, commit, cancel,
// check-in, modify, the provider resizing the resource or changing its
// currency mid-flight, commits just before, at and after a hold's start)
// and clock steps with Tick on a small overbooked resource, and checks the
// invariants after every step:
//   - whatever a step admitted (a new hold, or the part of a modified
//     booking that grew) fits the overbooking limit in force at every
//     instant where it was admitted: nothing is admitted on top of a
//     limit, even one lowered below what is already sold;
//   - a refused modification leaves the booking exactly as it was;
//   - the active bookings never hold more than the most physical nodes the
//     resource has had;
//   - a commit succeeds only up to the hold's start;
//   - every customer's receivable, per currency, equals what its bookings'
//     statuses say it owes: the price of a committed, active or completed
//     booking, the penalty of a cancelled or no-show one, minus the
//     compensation of a denied one, plus every penalty a booking shows
//     (what reductions kept among them) — so no event
//     posts twice or is lost, and nothing mixes currencies;
//   - every reopen rebuilds the same state.
func TestRandomLifeCycles(t *testing.T) {
	for seed := range uint64(8) {
		t.Run("", func(t *testing.T) { randomLifeCycles(t, seed) })
	}
}

// lifeCycleRun is one random run's state as the test knows it.
type lifeCycleRun struct {
	t       *testing.T
	h       *harness
	rng     *rand.Rand
	now     time.Time
	owner   map[string]booking.Principal
	ids     []string
	kept    map[string]map[string]decimal.Decimal // account -> currency -> reductions' penalties
	rates   map[string]decimal.Decimal            // fare class -> penalty rate
	maxPhys int
	seen    map[string]int // what the run exercised, by outcome
}

func randomLifeCycles(t *testing.T, seed uint64) {
	rc := resourceConfig("R", 6, config.OverbookingConfig{Policy: overbook.Probability, Denial: []overbook.DenialStrategy{overbook.Lottery, overbook.DCF, overbook.LCDCF}[seed%3]})
	rc.Limits.ShowRates = map[string]float64{"peak": 0.75, "off_peak": 0.75, "super_saver": 0.75}
	run := &lifeCycleRun{t: t, h: newHarness(t, testConfig(rc)), rng: rand.New(rand.NewPCG(seed, 7)), now: t0,
		owner: map[string]booking.Principal{}, kept: map[string]map[string]decimal.Decimal{}, rates: map[string]decimal.Decimal{}, maxPhys: 6,
		seen: map[string]int{}}
	for _, c := range rc.FareClasses {
		run.rates[c.Name] = c.PenaltyRate
	}
	for step := range 500 {
		run.step(step)
	}
	t.Logf("seed %d: %v", seed, run.seen)
}

func (run *lifeCycleRun) step(step int) {
	t, h, rng := run.t, run.h, run.rng
	users := []booking.Principal{alice, bob}
	classes := []string{"premium", "business", "budget"}
	var admitted []booking.Booking // what this step admitted, with the terms it replaced
	var replaced []*booking.Booking
	switch op := rng.IntN(12); {
	case op < 4:
		p := users[rng.IntN(2)]
		start := run.now.Add(time.Duration(1+rng.IntN(36)) * 10 * time.Minute).Truncate(time.Minute)
		b, err := h.hold(p, "R", start, time.Duration(1+rng.IntN(6))*10*time.Minute, 1+rng.IntN(3), classes[rng.IntN(3)])
		run.seen["hold "+kindName(err)]++
		if err != nil {
			if k := slotfare.KindOf(err); k != slotfare.NoCapacity && !(k == slotfare.Invalid && slotfare.FieldOf(err) == "nodes") {
				t.Fatalf("step %d hold: %v", step, err)
			}
			break
		}
		run.owner[b.ID] = p
		run.ids = append(run.ids, b.ID)
		admitted, replaced = append(admitted, b), append(replaced, nil)
	case op == 10:
		// The provider resizes the resource, now and then in another
		// currency, while bookings are live.
		n := 2 + rng.IntN(7)
		cur := []string{"GRD", "GRD", "GRD", "EUR"}[rng.IntN(4)]
		h.putNodes("R", n, cur)
		run.maxPhys = max(run.maxPhys, n)
	case op == 11:
		run.commitAroundStart(step)
	case len(run.ids) == 0:
	default:
		id := run.ids[len(run.ids)-1-rng.IntN(min(len(run.ids), 4))] // mostly recent ones
		p := run.owner[id]
		var err error
		switch op {
		case 4, 5:
			_, err = h.svc.Commit(bg, p, id)
		case 6:
			_, err = h.svc.Cancel(bg, p, id)
		case 7:
			// Most users whose start is near turn up.
			for _, id := range run.ids {
				b := must[booking.Booking](t)(h.svc.Get(bg, run.owner[id], id))
				if b.Status == booking.Committed && !b.CheckedIn && b.Start.Sub(run.now) < time.Hour && rng.IntN(5) > 0 {
					if _, err := h.svc.CheckIn(bg, run.owner[id], id); err != nil && slotfare.KindOf(err) != slotfare.Conflict {
						t.Fatal(err)
					}
				}
			}
		case 8, 9:
			// Mostly a committed booking, the one kind that can change.
			for _, c := range run.ids {
				if b := must[booking.Booking](t)(h.svc.Get(bg, run.owner[c], c)); b.Status == booking.Committed && rng.IntN(3) > 0 {
					id, p = c, run.owner[c]
				}
			}
			before := must[booking.Booking](t)(h.svc.Get(bg, p, id))
			var req booking.ModifyRequest
			switch rng.IntN(3) {
			case 0:
				n := 1 + rng.IntN(3)
				req.Nodes = &n
			case 1:
				shift := time.Duration(rng.IntN(13)-6) * 10 * time.Minute
				s, e := before.Start.Add(shift), before.End.Add(shift)
				req.Start, req.End = &s, &e
			default:
				e := before.Start.Add(time.Duration(1+rng.IntN(6)) * 10 * time.Minute)
				req.End = &e
			}
			var after booking.Booking
			after, err = h.svc.Modify(bg, p, id, req)
			run.seen["modify "+kindName(err)]++
			if err != nil {
				now := must[booking.Booking](t)(h.svc.Get(bg, p, id))
				if !sameTerms(now, before) || now.Status != before.Status {
					t.Fatalf("step %d: a refused modification (%v) changed %+v into %+v", step, err, before, now)
				}
				if k := slotfare.KindOf(err); k == slotfare.Invalid {
					err = nil // a shift into the past or beyond a booking's length
				}
				break
			}
			if before.Status == booking.Committed && after.Price.Total.LessThan(before.Price.Total) {
				pen := run.rates[after.FareClass].Mul(before.Price.Total.Sub(after.Price.Total)).RoundBank(2)
				run.addKept(after.AccountID, after.Price.Currency, pen)
			}
			admitted, replaced = append(admitted, after), append(replaced, &before)
		}
		if k := slotfare.KindOf(err); err != nil && k != slotfare.Conflict && k != slotfare.NoCapacity {
			t.Fatalf("step %d op %d: %v", step, op, err)
		}
	}
	run.checkAdmitted(step, admitted, replaced)
	if rng.IntN(4) == 0 {
		run.advance(run.now.Add(time.Duration(1+rng.IntN(15)) * time.Minute))
	}
	if step%100 == 99 {
		h.reopen()
	}
	run.checkBooks(step)
}

// sameTerms reports whether two views of a booking have the same terms.
func sameTerms(a, b booking.Booking) bool {
	return a.Start.Equal(b.Start) && a.End.Equal(b.End) && a.Nodes == b.Nodes && a.Price.Total.Equal(b.Price.Total) && a.Price.Currency == b.Price.Currency
}

func (run *lifeCycleRun) addKept(account, currency string, d decimal.Decimal) {
	if run.kept[account] == nil {
		run.kept[account] = map[string]decimal.Decimal{}
	}
	run.kept[account][currency] = run.kept[account][currency].Add(d)
}

// advance moves the clock and ticks.
func (run *lifeCycleRun) advance(to time.Time) {
	run.now = to
	run.h.clk.Set(to)
	if err := run.h.svc.Tick(to); err != nil {
		run.t.Fatal(err)
	}
}

// commitAroundStart takes a hold, moves the clock to a second before, at
// or a second after its start, and commits: only up to the start may it
// succeed.
func (run *lifeCycleRun) commitAroundStart(step int) {
	t, h := run.t, run.h
	p := []booking.Principal{alice, bob}[run.rng.IntN(2)]
	start := run.now.Add(time.Duration(2+run.rng.IntN(8)) * time.Minute).Truncate(time.Second)
	if nb, err := h.hold(p, "R", start, 20*time.Minute, 1, "premium"); err == nil {
		run.owner[nb.ID] = p
		run.ids = append(run.ids, nb.ID)
		run.checkAdmitted(step, []booking.Booking{nb}, []*booking.Booking{nil})
	}
	for i := len(run.ids) - 1; i >= 0; i-- {
		id := run.ids[i]
		b := must[booking.Booking](t)(h.svc.Get(bg, run.owner[id], id))
		if b.Status != booking.Held || b.Start.Sub(run.now) > 10*time.Minute || !b.Start.After(run.now.Add(time.Second)) {
			continue
		}
		at := b.Start.Add(time.Duration(run.rng.IntN(3)-1) * time.Second)
		run.now = at
		h.clk.Set(at) // no Tick: the commit itself must refuse a late hold
		c, err := h.svc.Commit(bg, run.owner[id], id)
		run.seen["commit at start"+at.Sub(b.Start).String()+" "+kindName(err)]++
		switch {
		case at.After(b.Start) && err == nil:
			t.Fatalf("step %d: hold %s committed at %s, after its start %s", step, id, at, b.Start)
		case at.After(b.Start):
			if slotfare.KindOf(err) != slotfare.Conflict {
				t.Fatalf("step %d: late commit: %v", step, err)
			}
		case b.HoldExpiresAt != nil && !at.Before(*b.HoldExpiresAt):
			wantKind(t, err, slotfare.Conflict)
		case err != nil && slotfare.KindOf(err) != slotfare.NoCapacity:
			t.Fatalf("step %d: commit at %s of a hold starting %s: %v", step, at, b.Start, err)
		case err == nil && c.Status != booking.Committed:
			t.Fatalf("step %d: %+v", step, c)
		}
		return
	}
}

// holdingAt is what the holding bookings hold together at instant x.
func holdingAt(all []booking.Booking, x time.Time) (holding, active int) {
	for _, y := range all {
		if y.Start.After(x) || !y.End.After(x) {
			continue
		}
		if y.Status == booking.Active {
			active += y.Nodes
		}
		if y.Status.Holding() {
			holding += y.Nodes
		}
	}
	return holding, active
}

// nodesAt is what one booking's terms hold at instant x (nil: nothing).
func nodesAt(b *booking.Booking, x time.Time) int {
	if b == nil || b.Start.After(x) || !b.End.After(x) {
		return 0
	}
	return b.Nodes
}

// checkAdmitted: wherever a step raised what a booking holds, the total
// held fits the overbooking limit in force there now.
func (run *lifeCycleRun) checkAdmitted(step int, admitted []booking.Booking, replaced []*booking.Booking) {
	if len(admitted) == 0 {
		return
	}
	t, h := run.t, run.h
	all := run.all()
	rep := must[control.LimitsReport](t)(h.svc.Limits(bg, provider, "R", run.now, run.now.Add(24*time.Hour)))
	limitAt := func(x time.Time) int {
		for _, p := range rep.Periods {
			if !x.Before(p.Start) && x.Before(p.End) {
				return p.OverbookingLimit
			}
		}
		t.Fatalf("step %d: no limit at %s", step, x)
		return 0
	}
	for i, b := range admitted {
		points := []time.Time{b.Start}
		for _, y := range all {
			for _, x := range []time.Time{y.Start, y.End} {
				if x.After(b.Start) && x.Before(b.End) {
					points = append(points, x)
				}
			}
		}
		sort.Slice(points, func(a, c int) bool { return points[a].Before(points[c]) })
		for _, x := range points {
			if nodesAt(&b, x) <= nodesAt(replaced[i], x) {
				continue // it did not grow here
			}
			if held, _ := holdingAt(all, x); held > limitAt(x) {
				t.Fatalf("step %d: %s admitted to %d nodes held at %s, over the limit %d", step, b.ID, held, x, limitAt(x))
			}
		}
	}
}

func (run *lifeCycleRun) all() []booking.Booking {
	var all []booking.Booking
	for _, id := range run.ids {
		all = append(all, must[booking.Booking](run.t)(run.h.svc.Get(bg, run.owner[id], id)))
	}
	return all
}

// checkBooks checks the physical bound and the receivables.
func (run *lifeCycleRun) checkBooks(step int) {
	t, h := run.t, run.h
	all := run.all()
	for _, x := range all {
		if _, active := holdingAt(all, x.Start); active > run.maxPhys {
			t.Fatalf("step %d at %s: %d active nodes on at most %d", step, x.Start, active, run.maxPhys)
		}
	}
	owes := map[string]map[string]decimal.Decimal{}
	add := func(acct, cur string, d decimal.Decimal) {
		if owes[acct] == nil {
			owes[acct] = map[string]decimal.Decimal{}
		}
		owes[acct][cur] = owes[acct][cur].Add(d)
	}
	penalties := map[string]map[string]decimal.Decimal{}
	for _, b := range all {
		cur := b.Price.Currency
		pen := decimal.Zero
		if b.Penalty != nil {
			pen = *b.Penalty
		}
		if penalties[b.AccountID] == nil {
			penalties[b.AccountID] = map[string]decimal.Decimal{}
		}
		penalties[b.AccountID][cur] = penalties[b.AccountID][cur].Add(pen)
		switch b.Status {
		case booking.Committed, booking.Active, booking.Completed:
			add(b.AccountID, cur, b.Price.Total.Add(pen))
		case booking.Cancelled, booking.NoShow:
			add(b.AccountID, cur, pen)
		case booking.Denied:
			add(b.AccountID, cur, pen.Sub(*b.Compensation))
		}
	}
	for acct, m := range run.kept {
		for cur, d := range m {
			if penalties[acct][cur].LessThan(d) {
				t.Fatalf("step %d: %s's bookings show penalties of %s %s, less than the %s their reductions kept", step, acct, penalties[acct][cur], cur, d)
			}
		}
	}
	for _, u := range []booking.Principal{alice, bob} {
		got := books(t, h.svc).Balance(ledger.CustomerAccount(u.AccountID))
		for _, cur := range []string{"GRD", "EUR"} {
			if g, w := got[ledger.Currency(cur)], owes[u.AccountID][cur]; !g.Equal(w) {
				t.Fatalf("step %d: %s's receivable %s %s, bookings say %s", step, u.AccountID, g, cur, w)
			}
		}
	}
}

func kindName(err error) string {
	if err == nil {
		return "ok"
	}
	return slotfare.KindOf(err).String()
}
