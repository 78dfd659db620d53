// Package idemtest is the contract every idem.Port implementation passes.
package idemtest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking/idem"
)

var bg = context.Background() // a test suite's call: no request's

// Run runs the contract on fresh ports from open.
func Run(t *testing.T, open func(t *testing.T) idem.Port) {
	t.Run("LifeOfAKey", func(t *testing.T) { lifeOfAKey(t, open(t)) })
	t.Run("SameKeyEverywhereAtOnce", func(t *testing.T) { sameKeyAtOnce(t, open(t)) })
	t.Run("PendingClaimExpires", func(t *testing.T) { pendingExpires(t, open(t)) })
}

func claim(t *testing.T, p idem.Port, acct, key, fp string, now time.Time) idem.Claim {
	t.Helper()
	c, err := p.Claim(bg, acct, key, fp, time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func lifeOfAKey(t *testing.T, p idem.Port) {
	now := time.Now()
	if c := claim(t, p, "alice", "k1", "fpA", now); c.State != idem.Claimed {
		t.Fatalf("first claim: %+v", c)
	}
	if c := claim(t, p, "alice", "k1", "fpA", now); c.State != idem.Pending {
		t.Fatalf("while running: %+v", c)
	}
	if c := claim(t, p, "alice", "k1", "fpB", now); c.State != idem.Mismatch {
		t.Fatalf("another request: %+v", c)
	}
	if c := claim(t, p, "bob", "k1", "fpB", now); c.State != idem.Claimed {
		t.Fatalf("another account's key: %+v", c)
	}
	if err := p.Finish(bg, "alice", "k1", "fpB", "bk_x", time.Hour, now); slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("finish with another fingerprint: %v", err)
	}
	for range 2 { // the second is a retry
		if err := p.Finish(bg, "alice", "k1", "fpA", "bk_1", time.Hour, now); err != nil {
			t.Fatal(err)
		}
	}
	if c := claim(t, p, "alice", "k1", "fpA", now); c.State != idem.Done || c.Result != "bk_1" {
		t.Fatalf("after finish: %+v", c)
	}
	if err := p.Abandon(bg, "alice", "k1", "fpA"); err != nil {
		t.Fatal(err)
	}
	if c := claim(t, p, "alice", "k1", "fpA", now); c.State != idem.Done {
		t.Fatalf("a finished key abandoned: %+v", c)
	}
	if err := p.Abandon(bg, "bob", "k1", "fpB"); err != nil {
		t.Fatal(err)
	}
	if c := claim(t, p, "bob", "k1", "fpC", now); c.State != idem.Claimed {
		t.Fatalf("after abandon: %+v", c)
	}
	if _, err := p.Claim(bg, "alice", "", "fp", time.Hour, now); slotfare.FieldOf(err) != "Idempotency-Key" {
		t.Fatalf("empty key: %v", err)
	}
}

// sameKeyAtOnce: one claim wins among many replicas.
func sameKeyAtOnce(t *testing.T, p idem.Port) {
	now := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	states := map[idem.State]int{}
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := p.Claim(bg, "alice", "race", "fp", time.Hour, now)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			states[c.State]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if states[idem.Claimed] != 1 || states[idem.Pending] != 31 {
		t.Fatalf("claims: %v", fmt.Sprint(states))
	}
}

// pendingExpires: a claimer that died frees its key when the ttl ends.
func pendingExpires(t *testing.T, p idem.Port) {
	now := time.Now()
	if c, err := p.Claim(bg, "alice", "k", "fp", time.Second, now); err != nil || c.State != idem.Claimed {
		t.Fatalf("%+v %v", c, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		now = now.Add(time.Second)
		c, err := p.Claim(bg, "alice", "k", "fp", time.Second, now)
		if err != nil {
			t.Fatal(err)
		}
		if c.State == idem.Claimed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a dead claim never expired: %+v", c)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
