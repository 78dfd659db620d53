package service_test

import (
	"testing"

	"slotfare/booking/service"
)

// TestDemandRecordsReachTheHolder: the offer query that meets business
// closed on Monday and is offered premium is counted in T's demand
// records, one request refused closed, no buy-up (the hold is not of that
// offer); stored at the tick, it is what booking control's sell-up counts
// after a restart (bbolt) and on the replica holding the ticker lease when
// another replica saw the query (memory, redis-server, Cluster). Without
// the query, nothing is refused.
func TestDemandRecordsReachTheHolder(t *testing.T) {
	check := func(t *testing.T, s *service.Service, refused float64) {
		t.Helper()
		su, err := s.SellUp("T", 4)
		if err != nil {
			t.Fatal(err)
		}
		b := su["business"]
		if b.Refused != refused || b.BoughtUp != 0 || b.Probability != 0 {
			t.Errorf("business sell-up %+v, want %v refused closed, none bought up", b, refused)
		}
		if p := su["premium"]; p.Refused != 0 || p.Probability != 0 {
			t.Errorf("premium sell-up %+v, want nothing counted", p)
		}
	}
	h, _ := refusalScenario(t, true)
	h.reopen()
	check(t, h.svc, 1)
	h, _ = refusalScenario(t, false)
	check(t, h.svc, 0)
	if _, err := h.svc.SellUp("T", -1); err == nil {
		t.Error("a weight of -1 was taken")
	}
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		_, holder := refusalOnReplicasHolder(t, ports, true)
		check(t, holder, 1)
	})
}
