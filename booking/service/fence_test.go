package service_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/lease"
	"slotfare/booking/service"
	"slotfare/overbook"
)

// TestPausedHolderCannotOverwriteTheLimits: replica A takes resource F's
// ticker lease and pauses before it lays F's limits out (a slow history
// read). Meanwhile a provider lowers F from 8 nodes to 4 through replica B,
// A's lease runs out, and B takes it over and lays its limits out. A
// resumes with its limits of 8: their write is refused for its older
// token, A stops acting as the holder, the inventory keeps B's capacity
// and no more than 4 one-node bookings are sold at an instant; the one
// limits.published event is B's.
func TestPausedHolderCannotOverwriteTheLimits(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rc := resourceConfig("F", 8, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
		rs := newReplicas(t, 2, testConfig(rc), func(t *testing.T) *service.Ports {
			p := ports(t)
			p.Lease = lease.NewMemory() // leases expire on the test's clock, not Redis's
			return p
		})
		a, b := rs.svcs[0], rs.svcs[1]    // A opened first: it took F's lease
		now := t0.Add(61 * time.Second)   // A's lease ran out and its limits are a minute old
		later := now.Add(6 * time.Second) // past the lease A took at now (5 s)
		paused := false
		a.PauseAfterLease(func(res string) {
			if res != "F" || paused {
				return
			}
			paused = true
			spec := resourceSpec{Nodes: 4, BaseCost: decimal.RequireFromString("0.001"), Currency: "GRD", TimeZone: "UTC"}
			if _, _, err := putSpec(b, bg, provider, "F", spec); err != nil {
				t.Fatal(err)
			}
			rs.clk.Set(later)
			if err := b.Tick(later); err != nil { // B takes the lease A let run out
				t.Fatal(err)
			}
		})
		rs.clk.Set(now)
		if err := a.Tick(now); err != nil {
			t.Fatal(err)
		}
		if !paused {
			t.Fatal("A did not take the lease anew")
		}
		steps, err := rs.ports.Inventory.Profile(bg, "F", 0, later.Unix(), later.Add(60*24*time.Hour).Unix())
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range steps {
			if st.Free != 4 {
				t.Errorf("capacity %d over [%s, %s), B laid out 4", st.Free, time.Unix(st.Start, 0).UTC(), time.Unix(st.End, 0).UTC())
				break
			}
		}
		rs.tickAll(later.Add(time.Second)) // A no longer ticks F: B holds its lease
		start := later.Add(3 * time.Hour)
		sold := 0
		for i := 0; i < 10; i++ {
			s := rs.svcs[i%2]
			h, _, err := s.Hold(bg, alice, booking.HoldRequest{ResourceID: "F", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "premium"}, booking.Idempotency{})
			if err != nil {
				wantKind(t, err, slotfare.NoCapacity)
				break
			}
			must[booking.Booking](t)(s.Commit(bg, alice, h.ID))
			sold++
		}
		if sold != 4 {
			t.Fatalf("%d one-node bookings committed on 4 nodes", sold)
		}
		// B's limits are published (the layout its change made anew); A's
		// refused write published nothing, nor did B's layout of the same
		// limits under the lease.
		got := limitsPublished(t, b, provider, "F")
		if len(got) != 1 || got[0].Periods[0].OverbookingLimit != 4 {
			t.Fatalf("limits published %+v, want B's once (4 nodes)", got)
		}
	})
}

// TestPausedHolderCannotStoreItsTransitions: replica A, holding T's
// ticker lease, pauses in the middle of a tick, after it decided that
// booking X completes and hold Y expires (its run recorder is slow).
// Meanwhile A's lease runs out and B takes it over: B expires Y but leaves
// X active (B's run recorder is down). A resumes: its transitions carry its
// older token and are refused whole, so it neither completes X nor retries
// step by step; B completes X once its recorder is back.
func TestPausedHolderCannotStoreItsTransitions(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		clk := &clock{t: t0}
		shared := ports(t)
		shared.Lease = lease.NewMemory() // leases expire on the test's clock, not Redis's
		var pause func()
		recorderDown := true
		completedBy := map[string]string{}
		open := func(name string, onComplete func(b booking.Booking) error) *service.Service {
			s, err := service.Open(testConfig(), *shared, service.Options{Now: clk.Now,
				OnComplete: func(ctx context.Context, b booking.Booking) error {
					if err := onComplete(b); err != nil {
						return err
					}
					completedBy[b.ID] = name
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
		a := open("A", func(b booking.Booking) error { // opened first: A holds T's lease
			if p := pause; p != nil {
				pause = nil
				p()
			}
			return nil
		})
		b := open("B", func(booking.Booking) error {
			if recorderDown {
				return errors.New("runs store down")
			}
			return nil
		})
		start := t0.Add(2 * time.Hour)
		x, _, err := a.Hold(bg, alice, booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "premium", Profile: "blast"}, booking.Idempotency{})
		if err != nil {
			t.Fatal(err)
		}
		must[booking.Booking](t)(a.Commit(bg, alice, x.ID))
		clk.Set(start.Add(-10 * time.Minute))
		must[booking.Booking](t)(a.CheckIn(bg, alice, x.ID))
		tick := func(s *service.Service, at time.Time) {
			t.Helper()
			clk.Set(at)
			if err := s.Tick(at); err != nil {
				t.Fatal(err)
			}
		}
		tick(a, start.Add(5*time.Second))
		if got := must[booking.Booking](t)(b.Get(bg, alice, x.ID)); got.Status != booking.Active {
			t.Fatalf("X is %s at its start", got.Status)
		}
		end := start.Add(time.Hour + time.Second) // X is due to complete
		clk.Set(end.Add(-650 * time.Second))
		y, _, err := b.Hold(bg, bob, booking.HoldRequest{ResourceID: "T", Start: start.Add(3 * time.Hour), End: start.Add(4 * time.Hour), Nodes: 1, FareClass: "premium"}, booking.Idempotency{})
		if err != nil {
			t.Fatal(err)
		}
		pause = func() { tick(b, end.Add(6*time.Second)) } // past A's 5 s lease
		tick(a, end)
		if pause != nil {
			t.Fatal("A did not decide X's completion")
		}
		if got := must[booking.Booking](t)(b.Get(bg, bob, y.ID)); got.Status != booking.Expired {
			t.Fatalf("Y is %s, B expired it", got.Status)
		}
		if got := must[booking.Booking](t)(b.Get(bg, alice, x.ID)); got.Status != booking.Active {
			t.Fatalf("X is %s (completed by %s) after A lost the lease, want active", got.Status, completedBy[x.ID])
		}
		recorderDown = false
		tick(a, end.Add(7*time.Second)) // A no longer holds the lease: nothing
		tick(b, end.Add(7*time.Second))
		if got := must[booking.Booking](t)(a.Get(bg, alice, x.ID)); got.Status != booking.Completed || completedBy[x.ID] != "B" {
			t.Fatalf("X is %s, completed by %q, want completed by B", got.Status, completedBy[x.ID])
		}
	})
}
