// Package webhookstest is the contract suite of booking/webhooks' Port,
// run on every implementation (Memory in booking/webhooks,
// booking/boltstore.Webhooks, booking/redisstore.Webhooks on a server and
// on a Cluster) by their own tests.
package webhookstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/webhooks"
)

// Open opens a port for a test, and a function that opens it again over
// what the first wrote (another process, or a replica of the same Redis).
type Open func(t *testing.T) (p webhooks.Port, reopen func() webhooks.Port)

// Contract runs the Port's contract: hooks created are listed in id
// order, whole; Save replaces a stored hook and leaves a deleted one
// deleted; Delete says whether there was one; all of it outlives a reopen.
func Contract(t *testing.T, open Open) {
	ctx := context.Background()
	p, reopen := open(t)
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	hook := func(id string) webhooks.Hook {
		return webhooks.Hook{ID: id, URL: "https://example.org/" + id, Types: []string{"booking.*"}, Account: "prov",
			Role: booking.RoleProvider, Secret: "whsec_" + id, CreatedAt: t0}
	}
	list := func(want string) []webhooks.Hook {
		t.Helper()
		hs, err := p.List(ctx)
		got := ""
		for _, h := range hs {
			got += fmt.Sprintf("%s:%s:%d ", h.ID, h.Cursor, h.Attempts)
		}
		if err != nil || got != want {
			t.Fatalf("list: %q %v, want %q", got, err, want)
		}
		return hs
	}
	list("")
	for _, id := range []string{"wh_b", "wh_a", "wh_c"} {
		if err := p.Create(ctx, hook(id)); err != nil {
			t.Fatal(err)
		}
	}
	if hs := list("wh_a::0 wh_b::0 wh_c::0 "); hs[0].URL != "https://example.org/wh_a" || hs[0].Role != booking.RoleProvider ||
		!hs[0].CreatedAt.Equal(t0) || len(hs[0].Types) != 1 || hs[0].Secret != "whsec_wh_a" {
		t.Fatalf("a listed hook: %+v", hs[0])
	}
	b := hook("wh_b")
	b.Cursor, b.Attempts = "c42", 2
	if ok, err := p.Save(ctx, b); err != nil || !ok {
		t.Fatalf("save a stored hook: %v %v", ok, err)
	}
	if found, err := p.Delete(ctx, "wh_c"); err != nil || !found {
		t.Fatalf("delete a stored hook: %v %v", found, err)
	}
	if found, err := p.Delete(ctx, "wh_c"); err != nil || found {
		t.Fatalf("delete it again: %v %v", found, err)
	}
	// A delivery saving its progress after the hook was deleted does not
	// bring it back.
	if ok, err := p.Save(ctx, hook("wh_c")); err != nil || ok {
		t.Fatalf("save a deleted hook: %v %v", ok, err)
	}
	list("wh_a::0 wh_b:c42:2 ")
	p = reopen()
	list("wh_a::0 wh_b:c42:2 ")
}
