package embedded_test

import (
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/embedded"
	"slotfare/booking/internal/apikeytest"
)

// TestAPIKeysRestart: what the keys' port stored is what it answers after
// the store is opened again: live keys found, revoked ones not, and each
// account's claim rebuilt from its live keys.
func TestAPIKeysRestart(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			place := k.newPlace(t)
			st, err := k.open(place)
			must(t, err)
			p := openPorts(t, st, embedded.Options{}).APIKeys
			must(t, p.Create(bg, apikeytest.Key("a", "carol", "1")))
			must(t, p.Create(bg, apikeytest.Key("b", "dave", "")))
			_, err = p.Revoke(bg, "b", t0.Add(time.Hour), "revoke b")
			must(t, err)
			must(t, st.Close())

			p = openPorts(t, openStore(t, k, place), embedded.Options{}).APIKeys
			if got, ok, err := p.Live(bg, booking.HashKey("a")); err != nil || !ok || got.VO != "1" {
				t.Fatalf("a live key after a restart: %+v %v %v", got, ok, err)
			}
			if _, ok, err := p.Live(bg, booking.HashKey("b")); err != nil || ok {
				t.Fatalf("a revoked key after a restart: %v %v", ok, err)
			}
			err = p.Create(bg, apikeytest.Key("c", "carol", "2"))
			if slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "vo" {
				t.Fatalf("another VO for an account after a restart: %v", err)
			}
			must(t, p.Create(bg, apikeytest.Key("d", "dave", "2")))
		})
	}
}
