package service_test

import (
	"encoding/json"
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/events"
	"slotfare/booking/lease"
	"slotfare/booking/service"
	"slotfare/overbook"
)

// limitsPublished are the limits.published events of resource res as p
// reads them, oldest first, with their data.
func limitsPublished(t *testing.T, svc *service.Service, p booking.Principal, res string) []service.LimitsPublished {
	t.Helper()
	var out []service.LimitsPublished
	after := ""
	for {
		page, err := svc.Events(bg, p, service.EventQuery{After: after, Types: []string{events.LimitsPublished}, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Data {
			if e.Type != events.LimitsPublished {
				t.Fatalf("type filter let %s through", e.Type)
			}
			var d service.LimitsPublished
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatal(err)
			}
			if e.Subject != "resources/"+d.ResourceID {
				t.Fatalf("subject %s of resource %s's limits", e.Subject, d.ResourceID)
			}
			if d.ResourceID == res {
				out = append(out, d)
			}
		}
		if !page.HasMore {
			return out
		}
		after = page.NextCursor
	}
}

// overbooked is resource id of nodes nodes whose overbooking limit is
// above them (a show rate of 0.5): its limits are not its nodes.
func overbooked(id string, nodes int) config.ResourceConfig {
	rc := resourceConfig(id, nodes, config.OverbookingConfig{Policy: overbook.Probability, Denial: overbook.DCF})
	rc.Limits.ShowRates = map[string]float64{"peak": 0.5, "off_peak": 0.5, "super_saver": 0.5}
	return rc
}

// wantLimits checks an event's data: the demo's three classes nested
// under the overbooking limit, above nodes, in every period of the layout.
func wantLimits(t *testing.T, d service.LimitsPublished, nodes int) {
	t.Helper()
	if d.Method != "emsr-b" || d.PieceCount < 1 || len(d.Periods) == 0 || !d.To.After(d.From) {
		t.Fatalf("limits published %+v", d)
	}
	if len(d.Pieces) > 16 || (d.PieceCount <= 16 && len(d.Pieces) != d.PieceCount) {
		t.Fatalf("%d pieces listed of %d", len(d.Pieces), d.PieceCount)
	}
	for _, p := range d.Periods {
		if p.OverbookingLimit <= nodes || len(p.FareClasses) != 3 || p.FareClasses[0].BookingLimit != p.OverbookingLimit || p.Source == "" {
			t.Fatalf("period %+v, want an overbooking limit above %d nodes over 3 classes", p, nodes)
		}
		for i := 1; i < len(p.FareClasses); i++ {
			if p.FareClasses[i].BookingLimit > p.FareClasses[i-1].BookingLimit {
				t.Fatalf("period %+v: limits not nested", p)
			}
		}
	}
}

// TestLimitsPublishedOnceAChange (bbolt, the embedded deployment): the
// layout at start publishes one limits.published event per resource,
// which providers read and billing does not; ticks that lay the same
// limits out again publish none, the horizon moving on by a day publishes
// one reaching a day further, and a restart, which lays the resource out
// anew, one more.
func TestLimitsPublishedOnceAChange(t *testing.T) {
	h := newHarness(t, testConfig(overbooked("T", 10)))
	got := limitsPublished(t, h.svc, provider, "T")
	if len(got) != 1 {
		t.Fatalf("%d events at start, want 1", len(got))
	}
	wantLimits(t, got[0], 10)
	if b := limitsPublished(t, h.svc, billing, "T"); len(b) != 0 {
		t.Fatalf("billing reads %d limits.published events", len(b))
	}
	for _, d := range []time.Duration{time.Second, 61 * time.Second, 2 * time.Hour, 17 * time.Hour} {
		h.clk.Set(t0.Add(d))
		if err := h.svc.Tick(t0.Add(d)); err != nil {
			t.Fatal(err)
		}
	}
	if got := limitsPublished(t, h.svc, provider, "T"); len(got) != 1 {
		t.Fatalf("%d events after ticks that changed no limit, want 1", len(got))
	}
	next := t0.Add(19 * time.Hour) // a new day: the horizon moves on
	h.clk.Set(next)
	if err := h.svc.Tick(next); err != nil {
		t.Fatal(err)
	}
	got = limitsPublished(t, h.svc, provider, "T")
	if len(got) != 2 || got[1].To.Sub(got[0].To) != 24*time.Hour {
		t.Fatalf("after a day: %+v, want a second event reaching a day further", got)
	}
	wantLimits(t, got[1], 10)
	h.reopen()
	if got := limitsPublished(t, h.svc, provider, "T"); len(got) != 3 {
		t.Fatalf("%d events after a restart, want 3", len(got))
	}
}

// TestLimitsPublishedByTheLeaseHolder: on shared ports the replica
// holding a resource's ticker lease publishes its limits; the replica
// that takes the lease over lays the same limits out again and publishes
// nothing.
func TestLimitsPublishedByTheLeaseHolder(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rs := newReplicas(t, 2, testConfig(overbooked("F", 8)), func(t *testing.T) *service.Ports {
			p := ports(t)
			p.Lease = lease.NewMemory() // leases expire on the test's clock
			return p
		})
		a, b := rs.svcs[0], rs.svcs[1]
		rs.tickAll(t0)
		got := limitsPublished(t, b, provider, "F")
		if len(got) != 1 {
			t.Fatalf("%d events after the first tick, want 1", len(got))
		}
		wantLimits(t, got[0], 8)
		later := t0.Add(time.Minute) // A's lease ran out
		rs.clk.Set(later)
		if err := b.Tick(later); err != nil {
			t.Fatal(err)
		}
		rs.tickAll(later.Add(time.Second))
		if got := limitsPublished(t, a, provider, "F"); len(got) != 1 {
			t.Fatalf("%d events after the lease passed on, want 1", len(got))
		}
	})
}
