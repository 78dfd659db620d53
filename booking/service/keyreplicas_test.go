package service_test

import (
	"fmt"
	"sync"
	"testing"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/redisstore/redistest"
	"slotfare/booking/service"
	"slotfare/pricing"
)

// TestReplicasRefuseARevokedKeyAtOnce: a key revoked on one replica is
// refused by another from the moment the revocation returns, with no tick
// between; a key created on one authenticates on the other at once.
func TestReplicasRefuseARevokedKeyAtOnce(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rs := newReplicas(t, 2, testConfig(), ports)
		a, b := rs.svcs[0], rs.svcs[1]
		nk := must[service.NewKey](t)(a.CreateKey(bg, provider, service.KeyRequest{Name: "carol-key", Role: booking.RoleUser, AccountID: "carol", VO: "1"}))
		rs.tickAll(t0)
		if p, err := b.Authenticate(bg, nk.Key); err != nil || p.AccountID != "carol" {
			t.Fatalf("the key on the other replica: %+v, %v", p, err)
		}
		if err := a.RevokeKey(bg, provider, "carol-key"); err != nil {
			t.Fatal(err)
		}
		for i, s := range rs.svcs {
			if p, err := s.Authenticate(bg, nk.Key); slotfare.KindOf(err) != slotfare.Unauthorized {
				t.Fatalf("replica %d after the revocation: %+v, %v", i, p, err)
			}
		}
		if ks := must[[]service.KeyInfo](t)(b.Keys(bg, provider)); len(ks) != 4 {
			t.Fatalf("the other replica lists %d keys, want the file's 4", len(ks))
		}
	})
}

// TestReplicasClaimOneRoleAndVOAnAccount: two replicas make keys of one new
// account at once, with different VOs: one is made, the other is a
// Conflict naming vo, and the one made is what both replicas authenticate.
// A key of the same role and VO (rotation) is then made on either.
func TestReplicasClaimOneRoleAndVOAnAccount(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rs := newReplicas(t, 2, testConfig(), ports)
		for round := range 5 {
			account := fmt.Sprintf("newcomer-%d", round)
			made := make([]service.NewKey, 2)
			errs := make([]error, 2)
			var wg sync.WaitGroup
			gate := make(chan struct{})
			for i, s := range rs.svcs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-gate
					made[i], errs[i] = s.CreateKey(bg, provider, service.KeyRequest{Name: fmt.Sprintf("%s-%d", account, i), Role: booking.RoleUser, AccountID: account, VO: pricing.VO(fmt.Sprint(i + 1))})
				}()
			}
			close(gate)
			wg.Wait()
			won := -1
			for i, err := range errs {
				switch {
				case err == nil && won < 0:
					won = i
				case slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "vo":
					t.Fatalf("round %d: replica %d made %+v, %v; the other %v", round, i, made[i].KeyInfo, err, errs[1-i])
				}
			}
			if won < 0 {
				t.Fatalf("round %d: neither key was made: %v", round, errs)
			}
			rs.tickAll(t0)
			for i, s := range rs.svcs {
				if p, err := s.Authenticate(bg, made[won].Key); err != nil || p.VO != fmt.Sprint(won+1) {
					t.Fatalf("round %d: replica %d authenticates the key made as %+v, %v", round, i, p, err)
				}
			}
			rotated := service.KeyRequest{Name: account + "-rotated", Role: booking.RoleUser, AccountID: account, VO: pricing.VO(fmt.Sprint(won + 1))}
			must[service.NewKey](t)(rs.svcs[1-won].CreateKey(bg, provider, rotated))
		}
	})
}

// BenchmarkAuthenticate is what a request's authentication costs: a key of
// the configuration file (read in memory), and a key made over the API,
// read from the Keys port on every use (memory, one HGET on Redis).
func BenchmarkAuthenticate(b *testing.B) {
	for _, sp := range []struct {
		name  string
		ports func() *service.Ports
	}{
		{"memory", func() *service.Ports { return sharedPorts[0].make(nil) }},
		{"redis", func() *service.Ports { return redisPorts(redistest.Start(b)) }},
	} {
		b.Run(sp.name, func(b *testing.B) {
			svc, err := service.Open(testConfig(), *sp.ports(), service.Options{Now: (&clock{t: t0}).Now})
			if err != nil {
				b.Fatal(err)
			}
			defer svc.Close()
			nk, err := svc.CreateKey(bg, provider, service.KeyRequest{Name: "carol-key", Role: booking.RoleUser, AccountID: "carol", VO: "1"})
			if err != nil {
				b.Fatal(err)
			}
			for _, k := range []struct{ name, key string }{{"file", "k-alice"}, {"api", nk.Key}} {
				b.Run(k.name, func(b *testing.B) {
					for b.Loop() {
						if _, err := svc.Authenticate(bg, k.key); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
