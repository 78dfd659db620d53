package main

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// TestE2EHoldLimits runs issue 9's hold abuse against the real binary: the
// free hold of 18 nodes over 89 days on NIKHEF is refused (422 naming nodes,
// larger than the default nodes x 24 h on its own); on Torino, configured in
// the file with hold_limits.max_holds 2, a third hold of one account is 429
// with Retry-After, also after a restart (the count comes from the stored
// holds), while another account holds freely and a cancel frees room.
func TestE2EHoldLimits(t *testing.T) {
	dir := t.TempDir()
	cfgPath := configWith(t, dir, func(cfg map[string]any) {
		for _, r := range cfg["resources"].([]any) {
			if r := r.(map[string]any); r["id"] == "Torino" {
				r["hold_limits"] = map[string]any{"max_holds": 2}
			}
		}
	})
	s := startServer(t, dir+"/data", "--config", cfgPath)
	start := time.Now().UTC().Truncate(time.Hour).Add(26 * time.Hour)

	soon := time.Now().UTC().Truncate(time.Hour).Add(2 * time.Hour)
	p := holdDirect(t, s.base, keyAlice, "NIKHEF", "premium", soon, soon.Add(89*24*time.Hour), 18, "abuse").want(t, 422).problem(t)
	if len(p.Errors) != 1 || p.Errors[0].Field != "nodes" {
		t.Fatalf("18 nodes x 89 days: %+v", p)
	}

	slot := func(i int) time.Time { return start.Add(time.Duration(i) * time.Hour) }
	hold := func(key string, i int) reply {
		return holdDirect(t, s.base, key, "Torino", "premium", slot(i), slot(i+1), 1, fmt.Sprintf("%s-%d", key, i))
	}
	var first bookingJSON
	hold(keyAlice, 0).want(t, 201).json(t, &first)
	hold(keyAlice, 1).want(t, 201)
	third := func() {
		t.Helper()
		r := hold(keyAlice, 2).want(t, 429)
		p := r.problem(t)
		if len(p.Errors) != 1 || p.Errors[0].Field != "hold_limits.max_holds" {
			t.Fatalf("third hold: %s", r.body)
		}
		if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 || ra > 601 {
			t.Fatalf("Retry-After %q", r.header.Get("Retry-After"))
		}
	}
	third()
	hold(keyBob, 2).want(t, 201)

	s.stop()
	s = startServer(t, dir+"/data", "--config", cfgPath)
	third()
	act(t, s.base, keyAlice, first.ID, "cancel", 200)
	hold(keyAlice, 2).want(t, 201)
}
