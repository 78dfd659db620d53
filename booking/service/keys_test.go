package service_test

import (
	"testing"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/service"
)

// TestKeysSurviveRestart: a created key authenticates after a restart (its
// hash is stored, never the secret), and a revoked one stays revoked.
func TestKeysSurviveRestart(t *testing.T) {
	h := newHarness(t, testConfig())
	k := must[service.NewKey](t)(h.svc.CreateKey(bg, provider, service.KeyRequest{Name: "ops", Role: booking.RoleBilling, AccountID: "ops"}))
	gone := must[service.NewKey](t)(h.svc.CreateKey(bg, provider, service.KeyRequest{Name: "temp", Role: booking.RoleUser, AccountID: "temp"}))
	if err := h.svc.RevokeKey(bg, provider, "temp"); err != nil {
		t.Fatal(err)
	}
	h.reopen()
	p, err := h.svc.Authenticate(k.Key)
	if err != nil || p != (booking.Principal{AccountID: "ops", Role: booking.RoleBilling}) {
		t.Fatalf("created key after a restart: %+v, %v", p, err)
	}
	_, err = h.svc.Authenticate(gone.Key)
	wantKind(t, err, slotfare.Unauthorized)
	if _, err := h.svc.Authenticate("k-alice"); err != nil {
		t.Errorf("a file key after a restart: %v", err)
	}
	ks := must[[]service.KeyInfo](t)(h.svc.Keys(bg, provider))
	names := ""
	for _, k := range ks {
		names += k.Name + "/" + k.Source + " "
	}
	if names != "k-alice/file k-billing/file k-bob/file k-provider/file ops/api " {
		t.Errorf("keys listed: %s", names)
	}
	// The name of a revoked key is free again.
	must[service.NewKey](t)(h.svc.CreateKey(bg, provider, service.KeyRequest{Name: "temp", Role: booking.RoleUser, AccountID: "temp"}))
}
