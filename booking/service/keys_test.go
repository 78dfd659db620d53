package service_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/service"
	"slotfare/pricing"
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
	p, err := h.svc.Authenticate(bg, k.Key)
	if err != nil || p != (booking.Principal{AccountID: "ops", Role: booking.RoleBilling}) {
		t.Fatalf("created key after a restart: %+v, %v", p, err)
	}
	_, err = h.svc.Authenticate(bg, gone.Key)
	wantKind(t, err, slotfare.Unauthorized)
	if _, err := h.svc.Authenticate(bg, "k-alice"); err != nil {
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

// TestKeysClaimOneRoleAndVOOnBbolt: the embedded store keeps an account to
// one role and VO as the shared ports do: of keys of one new account made
// at once with two VOs, those of one VO are made and the rest are a
// Conflict naming vo (another role, naming role); the claim holds after a
// restart, a key of the account's role and VO is made (rotation), and a
// revoked key is refused at once and after the restart.
func TestKeysClaimOneRoleAndVOOnBbolt(t *testing.T) {
	h := newHarness(t, testConfig())
	const n = 8
	made := make([]service.NewKey, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			made[i], errs[i] = h.svc.CreateKey(bg, provider, service.KeyRequest{Name: fmt.Sprintf("k%d", i), Role: booking.RoleUser, AccountID: "newcomer", VO: pricing.VO(fmt.Sprint(1 + i%2))})
		}()
	}
	wg.Wait()
	vo, won := "", 0
	for i, err := range errs {
		if err != nil {
			if slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "vo" {
				t.Fatalf("key %d: %v", i, err)
			}
			continue
		}
		if vo != "" && string(made[i].VO) != vo {
			t.Fatalf("keys of VO %s and %s were made", vo, made[i].VO)
		}
		vo, won = string(made[i].VO), won+1
	}
	if won != n/2 {
		t.Fatalf("%d keys made, want %d", won, n/2)
	}
	billing := service.KeyRequest{Name: "b", Role: booking.RoleBilling, AccountID: "newcomer"}
	_, err := h.svc.CreateKey(bg, provider, billing)
	if slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "role" {
		t.Fatalf("another role: %v", err)
	}
	first := made[slices.IndexFunc(errs, func(err error) bool { return err == nil })]
	if err := h.svc.RevokeKey(bg, provider, first.Name); err != nil {
		t.Fatal(err)
	}
	_, err = h.svc.Authenticate(bg, first.Key)
	wantKind(t, err, slotfare.Unauthorized)
	h.reopen()
	_, err = h.svc.Authenticate(bg, first.Key)
	wantKind(t, err, slotfare.Unauthorized)
	other := "2"
	if vo == "2" {
		other = "1"
	}
	_, err = h.svc.CreateKey(bg, provider, service.KeyRequest{Name: "late", Role: booking.RoleUser, AccountID: "newcomer", VO: pricing.VO(other)})
	if slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "vo" {
		t.Fatalf("another VO after a restart: %v", err)
	}
	must[service.NewKey](t)(h.svc.CreateKey(bg, provider, service.KeyRequest{Name: "late", Role: booking.RoleUser, AccountID: "newcomer", VO: pricing.VO(vo)}))
}

// TestKeysOfFileAccounts: a key of an account of the configuration file
// keeps the file's role and VO.
func TestKeysOfFileAccounts(t *testing.T) {
	h := newHarness(t, testConfig())
	_, err := h.svc.CreateKey(bg, provider, service.KeyRequest{Name: "alice-2", Role: booking.RoleUser, AccountID: "alice", VO: "2"})
	if slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "vo" {
		t.Fatalf("another VO for a file account: %v", err)
	}
	_, err = h.svc.CreateKey(bg, provider, service.KeyRequest{Name: "k-alice", Role: booking.RoleUser, AccountID: "alice", VO: "1"})
	if slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "name" {
		t.Fatalf("a file key's name: %v", err)
	}
	k := must[service.NewKey](t)(h.svc.CreateKey(bg, provider, service.KeyRequest{Name: "alice-2", Role: booking.RoleUser, AccountID: "alice", VO: "1"}))
	if p, err := h.svc.Authenticate(bg, k.Key); err != nil || p != alice {
		t.Fatalf("alice's second key: %+v, %v", p, err)
	}
}
