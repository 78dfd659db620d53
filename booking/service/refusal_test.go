package service_test

import (
	"encoding/json"
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/booking/service"
	"slotfare/overbook"
)

// refusalScenario books business demand on T over Monday to Wednesday's
// peak instances while the initial protection levels hold business to 4
// nodes; with refuse, Monday's business is full and an offer moves a
// business query up to premium (EventRefused: censored demand, seed 004
// Sec. 7.3). On Thursday the forecast takes over; it returns Thursday's
// limits report and the harness.
func refusalScenario(t *testing.T, refuse bool) (*harness, control.LimitsReport) {
	rc := resourceConfig("T", 10, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
	rc.Limits.ProtectionLevels = map[string][]float64{"peak": {6, 8}} // business <= 4, budget <= 2
	rc.Limits.MinHistory = 3
	h := newHarness(t, testConfig(rc))
	h.clk.Set(t0.Add(-time.Hour)) // Monday 05:00, before the first peak instance
	h.reopen()
	day := 24 * time.Hour
	for d, nodes := range []int{4, 2, 3} {
		h.clk.Set(t0.Add(time.Duration(d)*day - time.Hour))
		start := t0.Add(time.Duration(d)*day + time.Hour)
		b := must[booking.Booking](h.t)(h.hold(alice, "T", start, time.Hour, nodes, "business"))
		must[booking.Booking](h.t)(h.svc.Commit(bg, alice, b.ID))
		if d == 0 && refuse {
			dur, one, class := int64(3600), 1, "business"
			offs := must[[]booking.Offer](h.t)(h.svc.Offers(bg, alice, booking.OfferQuery{ResourceID: "T",
				EarliestStart: start, LatestEnd: start.Add(time.Hour), DurationSeconds: &dur, Nodes: &one, FareClass: class}))
			if len(offs) == 0 || offs[0].FareClass != "premium" {
				t.Fatalf("business is full on Monday: want offers moved up to premium, got %+v", offs)
			}
		}
		if err := h.svc.Tick(h.clk.Now()); err != nil {
			t.Fatal(err)
		}
	}
	// Thursday 05:00: three peak instances ended. Two ticks: the first
	// settles Wednesday's no-show, the second recomputes with it (a tick
	// recomputes before it settles).
	h.clk.Set(t0.Add(3*day - time.Hour))
	for range 2 {
		if err := h.svc.Tick(h.clk.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return h, h.limits(t0.Add(3*day - 6*time.Hour))
}

func (h *harness) limits(from time.Time) control.LimitsReport {
	h.t.Helper()
	return must[control.LimitsReport](h.t)(h.svc.Limits(bg, provider, "T", from, from.Add(24*time.Hour)))
}

func reportJSON(t *testing.T, r control.LimitsReport) string {
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRefusalsSurviveRestart is issue 9 #13 (second half): the refusal
// flags an offer sets in booking control were never stored, so after a
// restart the forecast forgot that Monday's business demand was censored
// and the limits changed. They are stored now and replayed on start.
func TestRefusalsSurviveRestart(t *testing.T) {
	h, before := refusalScenario(t, true)
	for _, p := range before.Periods {
		if p.Period == "peak" && p.Source != "forecast" {
			t.Fatalf("the scenario wants peak limits from the forecast on Thursday, got %q", p.Source)
		}
	}
	// The refusal matters: without it the same bookings give other limits.
	_, uncensored := refusalScenario(t, false)
	if reportJSON(t, before) == reportJSON(t, uncensored) {
		t.Fatalf("the refusal changed nothing, the test shows nothing: %s", reportJSON(t, before))
	}
	h.reopen()
	if got, want := reportJSON(t, h.limits(before.From)), reportJSON(t, before); got != want {
		t.Errorf("limits after a restart:\n%s\nbefore:\n%s", got, want)
	}
	// A reconfiguration rebuilds booking control too, from the same record.
	spec := config.OverbookingSpec{Policy: "none", Denial: "dcf"}
	must[config.OverbookingSpec](t)(h.svc.PutOverbooking(bg, provider, "T", spec))
	if got, want := reportJSON(t, h.limits(before.From)), reportJSON(t, before); got != want {
		t.Errorf("limits after a reconfiguration:\n%s\nbefore:\n%s", got, want)
	}
}

// refusalOnReplicas is refusalScenario on two replicas sharing ports: the
// bookings and the offer that meets closed business are made on the replica
// that does not hold T's ticker lease; it returns the holder's limits on
// Thursday.
func refusalOnReplicas(t *testing.T, ports func(t *testing.T) *service.Ports, refuse bool) control.LimitsReport {
	rep, _ := refusalOnReplicasHolder(t, ports, refuse)
	return rep
}

// refusalOnReplicasHolder is refusalOnReplicas, with the replica holding
// T's ticker lease.
func refusalOnReplicasHolder(t *testing.T, ports func(t *testing.T) *service.Ports, refuse bool) (control.LimitsReport, *service.Service) {
	rc := resourceConfig("T", 10, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
	rc.Limits.ProtectionLevels = map[string][]float64{"peak": {6, 8}}
	rc.Limits.MinHistory = 3
	rs := newReplicas(t, 2, testConfig(rc), ports)
	holder, other := rs.svcs[0], rs.svcs[1]
	tick := func() {
		t.Helper()
		for _, s := range rs.svcs {
			if err := s.Tick(rs.clk.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	rs.clk.Set(t0.Add(-time.Hour))
	tick() // the holder, first, takes the lease
	day := 24 * time.Hour
	for d, nodes := range []int{4, 2, 3} {
		rs.clk.Set(t0.Add(time.Duration(d)*day - time.Hour))
		start := t0.Add(time.Duration(d)*day + time.Hour)
		b, _, err := other.Hold(bg, alice, booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: nodes, FareClass: "business"}, booking.Idempotency{})
		if err != nil {
			t.Fatal(err)
		}
		must[booking.Booking](t)(other.Commit(bg, alice, b.ID))
		if d == 0 && refuse {
			dur, one := int64(3600), 1
			offs := must[[]booking.Offer](t)(other.Offers(bg, alice, booking.OfferQuery{ResourceID: "T",
				EarliestStart: start, LatestEnd: start.Add(time.Hour), DurationSeconds: &dur, Nodes: &one, FareClass: "business"}))
			if len(offs) == 0 || offs[0].FareClass != "premium" {
				t.Fatalf("business is full on Monday: want offers moved up to premium, got %+v", offs)
			}
		}
		tick()
	}
	rs.clk.Set(t0.Add(3*day - time.Hour))
	tick()
	tick()
	from := t0.Add(3*day - 6*time.Hour)
	return must[control.LimitsReport](t)(holder.Limits(bg, provider, "T", from, from.Add(24*time.Hour))), holder
}

// TestReplicasShareRefusals: a refusal seen on one replica is booking
// control's state on the replica that computes the limits: with several
// replicas, the holder's limits are those one process computes from the
// same bookings and refusal, not those of the bookings alone.
func TestReplicasShareRefusals(t *testing.T) {
	_, single := refusalScenario(t, true)
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		censored, uncensored := refusalOnReplicas(t, ports, true), refusalOnReplicas(t, ports, false)
		if reportJSON(t, censored) == reportJSON(t, uncensored) {
			t.Fatalf("the refusal seen on another replica changed nothing on the holder: %s", reportJSON(t, censored))
		}
		if got, want := reportJSON(t, censored), reportJSON(t, single); got != want {
			t.Fatalf("limits on replicas:\n%s\none process:\n%s", got, want)
		}
	})
}
