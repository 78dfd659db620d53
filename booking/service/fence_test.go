package service_test

import (
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
// and no more than 4 one-node bookings are sold at an instant.
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
			spec := config.ResourceSpec{Nodes: 4, BaseCost: decimal.RequireFromString("0.001"), Currency: "GRD", TimeZone: "UTC"}
			if _, _, err := b.PutResource(bg, provider, "F", spec); err != nil {
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
	})
}
