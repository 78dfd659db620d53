package booking_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/ledger"
	"slotfare/overbook"
)

// TestRandomLifeCycles drives random operations (hold, commit, cancel,
// check-in, modify) and clock steps with Tick on a small overbooked resource
// and checks the invariants after every step:
//   - the active bookings never hold more than the physical nodes;
//   - held + committed + active bookings never exceed the limit at any
//     instant (the overbooking limit; nested limits are all b_1 here);
//   - every customer's receivable equals what its bookings' statuses say it
//     owes: the price of a committed, active or completed booking, the
//     penalty of a cancelled or no-show one, minus the compensation of a
//     denied one — so no event posts twice or is lost;
//   - every reopen rebuilds the same state.
func TestRandomLifeCycles(t *testing.T) {
	for seed := range uint64(6) {
		t.Run("", func(t *testing.T) { randomLifeCycles(t, seed) })
	}
}

func randomLifeCycles(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	rc := resourceConfig("R", 6, booking.OverbookingConfig{Policy: overbook.Probability, Denial: []overbook.DenialStrategy{overbook.Lottery, overbook.DCF, overbook.LCDCF}[seed%3]})
	rc.Limits.ShowRates = map[string]float64{"peak": 0.75, "off_peak": 0.75, "super_saver": 0.75}
	h := newHarness(t, testConfig(rc))
	users := []booking.Principal{alice, bob}
	owner := map[string]booking.Principal{}
	var ids []string
	classes := []string{"premium", "business", "budget"}
	ob := 0
	now := t0
	for step := range 400 {
		p := users[rng.IntN(2)]
		switch op := rng.IntN(10); {
		case op < 4:
			start := now.Add(time.Duration(1+rng.IntN(36)) * 10 * time.Minute).Truncate(time.Minute)
			b, err := h.hold(p, "R", start, time.Duration(1+rng.IntN(6))*10*time.Minute, 1+rng.IntN(3), classes[rng.IntN(3)])
			if err != nil {
				if slotfare.KindOf(err) != slotfare.NoCapacity {
					t.Fatalf("step %d hold: %v", step, err)
				}
				continue
			}
			owner[b.ID] = p
			ids = append(ids, b.ID)
		case len(ids) == 0:
		default:
			id := ids[len(ids)-1-rng.IntN(min(len(ids), 4))] // mostly recent ones
			p := owner[id]
			var err error
			switch op {
			case 4, 5, 6:
				_, err = h.svc.Commit(bg, p, id)
			case 7:
				_, err = h.svc.Cancel(bg, p, id)
			case 8:
				// Most users whose start is near turn up.
				for _, id := range ids {
					b := must[booking.Booking](t)(h.svc.Get(bg, owner[id], id))
					if b.Status == booking.Committed && !b.CheckedIn && b.Start.Sub(now) < time.Hour && rng.IntN(5) > 0 {
						if _, err := h.svc.CheckIn(bg, owner[id], id); err != nil && slotfare.KindOf(err) != slotfare.Conflict {
							t.Fatal(err)
						}
					}
				}
			case 9:
				n := 1 + rng.IntN(3)
				_, err = h.svc.Modify(bg, p, id, booking.ModifyRequest{Nodes: &n})
			}
			if k := slotfare.KindOf(err); err != nil && k != slotfare.Conflict && k != slotfare.NoCapacity {
				t.Fatalf("step %d op %d: %v", step, op, err)
			}
		}
		if rng.IntN(4) == 0 {
			now = now.Add(time.Duration(1+rng.IntN(15)) * time.Minute)
			h.clk.Set(now)
			if err := h.svc.Tick(now); err != nil {
				t.Fatal(err)
			}
		}
		if step%100 == 99 {
			h.reopen()
		}
		// Invariants.
		var all []booking.Booking
		for _, id := range ids {
			all = append(all, must[booking.Booking](t)(h.svc.Get(bg, owner[id], id)))
		}
		// Booking control may raise the limit as it observes no-shows;
		// bookings admitted under a higher limit stay when it falls. So
		// the bound is the highest limit seen so far.
		rep := must[booking.LimitsReport](t)(h.svc.Limits(bg, provider, "R", now, now.Add(24*time.Hour)))
		for _, lp := range rep.Periods {
			ob = max(ob, lp.OverbookingLimit)
		}
		if ob <= 6 {
			t.Fatalf("no overbooking: %d", ob)
		}
		for _, x := range all {
			active, holding := 0, 0
			for _, y := range all {
				if y.Start.After(x.Start) || !y.End.After(x.Start) {
					continue
				}
				if y.Status == booking.Active {
					active += y.Nodes
				}
				if y.Status.Holding() {
					holding += y.Nodes
				}
			}
			if active > 6 || holding > ob {
				t.Fatalf("step %d at %s: %d active nodes, %d holding (limit %d)", step, x.Start, active, holding, ob)
			}
		}
		owes := map[string]decimal.Decimal{}
		for _, b := range all {
			switch b.Status {
			case booking.Committed, booking.Active, booking.Completed:
				owes[b.AccountID] = owes[b.AccountID].Add(b.Price.Total)
			case booking.Cancelled, booking.NoShow:
				if b.Penalty != nil {
					owes[b.AccountID] = owes[b.AccountID].Add(*b.Penalty)
				}
			case booking.Denied:
				owes[b.AccountID] = owes[b.AccountID].Sub(*b.Compensation)
			}
		}
		for _, u := range users {
			got := h.svc.Ledger().Balance(ledger.CustomerAccount(u.AccountID))["GRD"]
			if !got.Equal(owes[u.AccountID]) {
				t.Fatalf("step %d: %s's receivable %s, bookings say %s", step, u.AccountID, got, owes[u.AccountID])
			}
		}
	}
	seen := map[booking.Status]int{}
	for _, id := range ids {
		seen[must[booking.Booking](t)(h.svc.Get(bg, owner[id], id)).Status]++
	}
	t.Logf("seed %d: %v", seed, seen)
}
