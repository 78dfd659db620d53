// Package apikeytest is the contract every apikey.Port implementation
// passes.
package apikeytest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/apikey"
)

var (
	bg = context.Background() // a test suite's call: no request's
	t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
)

// Run runs the contract on fresh ports from open.
func Run(t *testing.T, open func(t *testing.T) apikey.Port) {
	t.Run("CreateFindRevoke", func(t *testing.T) { createFindRevoke(t, open(t)) })
	t.Run("OneRoleAndVOAnAccount", func(t *testing.T) { oneRoleAndVO(t, open(t)) })
	t.Run("RacingClaims", func(t *testing.T) { racingClaims(t, open(t)) })
	t.Run("Adopt", func(t *testing.T) { adopt(t, open(t)) })
}

// Key is a live key named name (its secret is name too) of a user account.
func Key(name, account, vo string) booking.KeyRecord {
	return booking.KeyRecord{Name: name, KeySHA256: booking.HashKey(name), Role: booking.RoleUser, AccountID: account, VO: vo, CreatedAt: t0}
}

func live(t *testing.T, p apikey.Port, name string) (booking.KeyRecord, bool) {
	t.Helper()
	k, ok, err := p.Live(bg, booking.HashKey(name))
	if err != nil {
		t.Fatal(err)
	}
	return k, ok
}

func wantConflict(t *testing.T, err error, field string) {
	t.Helper()
	if slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != field {
		t.Fatalf("want a Conflict naming %s, got %v", field, err)
	}
}

func names(t *testing.T, p apikey.Port) string {
	t.Helper()
	ks, err := p.All(bg)
	if err != nil {
		t.Fatal(err)
	}
	s := ""
	for _, k := range ks {
		s += k.Name + " "
	}
	return s
}

func createFindRevoke(t *testing.T, p apikey.Port) {
	if _, ok := live(t, p, "a"); ok {
		t.Fatal("an empty port found a key")
	}
	a := Key("a", "carol", "1")
	if err := p.Create(bg, a); err != nil {
		t.Fatal(err)
	}
	if err := p.Create(bg, a); err != nil {
		t.Fatalf("a retry: %v", err)
	}
	if got, ok := live(t, p, "a"); !ok || got.AccountID != "carol" || got.VO != "1" || got.Role != booking.RoleUser || !got.CreatedAt.Equal(t0) {
		t.Fatalf("the key as found: %+v %v", got, ok)
	}
	other := a
	other.KeySHA256 = booking.HashKey("another secret")
	wantConflict(t, p.Create(bg, other), "name")
	if err := p.Create(bg, Key("b", "dave", "")); err != nil {
		t.Fatal(err)
	}
	if s := names(t, p); s != "a b " {
		t.Fatalf("live keys: %s", s)
	}
	at := t0.Add(time.Hour)
	rev, err := p.Revoke(bg, "a", at, "req-1")
	if err != nil || rev.RevokedAt == nil || !rev.RevokedAt.Equal(at) || rev.KeySHA256 != a.KeySHA256 {
		t.Fatalf("revoked: %+v, %v", rev, err)
	}
	if _, ok := live(t, p, "a"); ok {
		t.Fatal("a revoked key is found")
	}
	if _, err := p.Revoke(bg, "a", at, "req-1"); err != nil {
		t.Fatalf("a retry of the revocation: %v", err)
	}
	for _, name := range []string{"a", "nobody"} {
		if _, err := p.Revoke(bg, name, at, "req-2"); slotfare.KindOf(err) != slotfare.NotFound {
			t.Fatalf("revoking %s again: %v", name, err)
		}
	}
	if s := names(t, p); s != "b " {
		t.Fatalf("live keys after a revocation: %s", s)
	}
	if err := p.Create(bg, other); err != nil {
		t.Fatalf("the name of a revoked key: %v", err)
	}
	if _, ok := live(t, p, "another secret"); !ok {
		t.Fatal("the new key of a revoked key's name is not found")
	}
}

func oneRoleAndVO(t *testing.T, p apikey.Port) {
	if err := p.Create(bg, Key("c1", "carol", "1")); err != nil {
		t.Fatal(err)
	}
	wantConflict(t, p.Create(bg, Key("c2", "carol", "2")), "vo")
	wantConflict(t, p.Create(bg, Key("c2", "carol", "")), "vo")
	billing := Key("c2", "carol", "1")
	billing.Role = booking.RoleBilling
	wantConflict(t, p.Create(bg, billing), "role")
	if _, ok := live(t, p, "c2"); ok {
		t.Fatal("a refused key is found")
	}
	if err := p.Create(bg, Key("c2", "carol", "1")); err != nil {
		t.Fatalf("a second key of the same role and VO (rotation): %v", err)
	}
	for _, name := range []string{"c1", "c2"} {
		if _, err := p.Revoke(bg, name, t0, "revoke "+name); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Create(bg, Key("c3", "carol", "2")); err != nil {
		t.Fatalf("an account whose keys are all revoked claims anew: %v", err)
	}
}

// racingClaims: keys of one new account, half of VO 1 and half of VO 2,
// are created at once: every key made has the VO of the first, every
// other is a Conflict naming vo.
func racingClaims(t *testing.T, p apikey.Port) {
	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.Create(bg, Key(fmt.Sprintf("k%d", i), "newcomer", fmt.Sprint(1+i%2)))
		}()
	}
	wg.Wait()
	won := map[string]int{}
	for i, err := range errs {
		if err == nil {
			won[fmt.Sprint(1+i%2)]++
			continue
		}
		wantConflict(t, err, "vo")
	}
	if len(won) != 1 {
		t.Fatalf("keys made by VO: %v", won)
	}
	ks, err := p.All(bg)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		if won[k.VO] != n/2 {
			t.Fatalf("live key %s of VO %q, keys made by VO %v", k.Name, k.VO, won)
		}
	}
	if len(ks) != n/2 {
		t.Fatalf("%d live keys, want %d", len(ks), n/2)
	}
}

func adopt(t *testing.T, p apikey.Port) {
	if err := p.Create(bg, Key("kept", "erin", "1")); err != nil {
		t.Fatal(err)
	}
	gone := Key("gone", "frank", "")
	at := t0.Add(time.Minute)
	gone.RevokedAt = &at
	clash := Key("kept", "erin", "1")
	clash.KeySHA256 = booking.HashKey("an old secret")
	old := []booking.KeyRecord{gone, Key("old", "erin", "2"), clash}
	for range 2 { // a second adoption changes nothing
		if err := p.Adopt(bg, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := live(t, p, "gone"); ok {
		t.Fatal("an adopted revoked key is found")
	}
	if _, ok := live(t, p, "an old secret"); ok {
		t.Fatal("an adopted key took a known name")
	}
	if k, ok := live(t, p, "old"); !ok || k.VO != "2" {
		t.Fatalf("an adopted live key: %+v %v", k, ok)
	}
	if s := names(t, p); s != "kept old " {
		t.Fatalf("live keys: %s", s)
	}
	if _, err := p.Revoke(bg, "gone", t0, "revoke gone"); slotfare.KindOf(err) != slotfare.NotFound {
		t.Fatalf("revoking an adopted revoked key: %v", err)
	}
	// The claim holds while either of erin's keys is live.
	if _, err := p.Revoke(bg, "old", t0, "revoke old"); err != nil {
		t.Fatal(err)
	}
	wantConflict(t, p.Create(bg, Key("new", "erin", "2")), "vo")
	if _, err := p.Revoke(bg, "kept", t0, "revoke kept"); err != nil {
		t.Fatal(err)
	}
	if err := p.Create(bg, Key("new", "erin", "2")); err != nil {
		t.Fatal(err)
	}
}
