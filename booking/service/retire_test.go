package service_test

import (
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
)

// TestRetireSurvivesRestart: DELETE's retirement is stored. After a
// restart the configuration file's resource stays retired (the store's
// record overrides the file), takes no holds, is not listed, and its
// bookings stay readable; a PUT then puts a new resource in service under
// the id, which also survives a restart.
func TestRetireSurvivesRestart(t *testing.T) {
	h := newHarness(t, testConfig())
	b := must[booking.Booking](t)(h.hold(alice, "T", t0.Add(4*time.Hour), time.Hour, 2, "budget"))
	err := h.svc.DeleteResource(bg, provider, "T")
	wantKind(t, err, slotfare.Conflict)
	wantKind(t, h.svc.DeleteResource(bg, alice, "T"), slotfare.Forbidden)
	must[booking.Booking](t)(h.svc.Cancel(bg, alice, b.ID))
	if err := h.svc.DeleteResource(bg, provider, "T"); err != nil {
		t.Fatal(err)
	}
	check := func() {
		t.Helper()
		_, err := h.svc.Resource(bg, alice, "T")
		wantKind(t, err, slotfare.NotFound)
		if rs := must[[]config.Resource](t)(h.svc.Resources(bg, alice)); len(rs) != 0 {
			t.Errorf("listed: %+v", rs)
		}
		_, err = h.hold(alice, "T", t0.Add(6*time.Hour), time.Hour, 1, "budget")
		wantKind(t, err, slotfare.Invalid)
		if got := must[booking.Booking](t)(h.svc.Get(bg, alice, b.ID)); got.Status != booking.Cancelled {
			t.Errorf("booking after retirement: %+v", got)
		}
	}
	check()
	h.reopen()
	check()
	if _, created, err := putSpec(h.svc, bg, provider, "T", resourceSpec{Nodes: 3, BaseCost: resourceConfig("T", 3, config.OverbookingConfig{}).BaseCost,
		Currency: "EUR", TimeZone: "UTC"}); err != nil || !created {
		t.Fatalf("PUT on a retired id: created %v, %v", created, err)
	}
	h.reopen()
	r := must[config.Resource](t)(h.svc.Resource(bg, alice, "T"))
	if r.Nodes != 3 || r.Currency != "EUR" {
		t.Errorf("the new T after a restart: %+v", r)
	}
	must[booking.Booking](t)(h.hold(alice, "T", t0.Add(6*time.Hour), time.Hour, 1, "budget"))
}
