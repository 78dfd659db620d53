// Package leasetest is the contract every lease.Port implementation passes.
package leasetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking/lease"
)

var bg = context.Background() // a test suite's call: no request's

// Run runs the contract on fresh ports from open.
func Run(t *testing.T, open func(t *testing.T) lease.Port) {
	t.Run("OneHolderAtATime", func(t *testing.T) { oneHolder(t, open(t)) })
	t.Run("ExpiryHandsOver", func(t *testing.T) { expiryHandsOver(t, open(t)) })
	t.Run("RacingReplicas", func(t *testing.T) { racing(t, open(t)) })
	t.Run("ConsecutiveTokens", func(t *testing.T) { consecutive(t, open(t)) })
	t.Run("BadInput", func(t *testing.T) {
		p := open(t)
		_, _, err := p.Acquire(bg, "", "a", time.Second, time.Now())
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "name" {
			t.Fatalf("empty name: %v", err)
		}
		_, _, err = p.Acquire(bg, "r", "a", 0, time.Now())
		if slotfare.FieldOf(err) != "ttl" {
			t.Fatalf("zero ttl: %v", err)
		}
	})
}

func oneHolder(t *testing.T, p lease.Port) {
	now := time.Now()
	a, ok, err := p.Acquire(bg, "R", "a", time.Minute, now)
	if err != nil || !ok || a.Token < 1 {
		t.Fatalf("first acquire: %+v %v %v", a, ok, err)
	}
	if _, ok, err := p.Acquire(bg, "R", "b", time.Minute, now); err != nil || ok {
		t.Fatalf("b took a held lease: %v %v", ok, err)
	}
	again, ok, err := p.Acquire(bg, "R", "a", time.Minute, now) // a retry: same token
	if err != nil || !ok || again.Token != a.Token {
		t.Fatalf("re-acquire: %+v %v %v, want token %d", again, ok, err, a.Token)
	}
	if ok, err := p.Renew(bg, "R", "a", a.Token, time.Minute, now); err != nil || !ok {
		t.Fatalf("renew: %v %v", ok, err)
	}
	if ok, err := p.Renew(bg, "R", "b", a.Token, time.Minute, now); err != nil || ok {
		t.Fatalf("b renewed a's lease: %v %v", ok, err)
	}
	if _, ok, err := p.Acquire(bg, "other", "b", time.Minute, now); err != nil || !ok {
		t.Fatalf("another name: %v %v", ok, err)
	}
	if err := p.Release(bg, "R", "b", a.Token); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := p.Acquire(bg, "R", "b", time.Minute, now); ok {
		t.Fatal("b's release of a's lease freed it")
	}
	if err := p.Release(bg, "R", "a", a.Token); err != nil {
		t.Fatal(err)
	}
	b, ok, err := p.Acquire(bg, "R", "b", time.Minute, now)
	if err != nil || !ok || b.Token <= a.Token {
		t.Fatalf("after release: %+v %v %v; tokens must grow past %d", b, ok, err, a.Token)
	}
	if ok, err := p.Renew(bg, "R", "a", a.Token, time.Minute, now); err != nil || ok {
		t.Fatalf("a renewed a lease it released: %v %v", ok, err)
	}
}

// expiryHandsOver: once a holder stops renewing, another takes over with a
// larger token. The clock moves both as the caller's now and in real time
// (a Redis lease expires on the server's clock); the wait ends as soon as
// the lease is taken, bounded by a deadline.
func expiryHandsOver(t *testing.T, p lease.Port) {
	now := time.Now()
	ttl := 50 * time.Millisecond
	a, ok, err := p.Acquire(bg, "R", "a", ttl, now)
	if err != nil || !ok {
		t.Fatalf("acquire: %v %v", ok, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		now = now.Add(ttl)
		b, ok, err := p.Acquire(bg, "R", "b", ttl, now)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if b.Token <= a.Token {
				t.Fatalf("token %d after %d", b.Token, a.Token)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an unrenewed lease was never handed over")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ok, err := p.Renew(bg, "R", "a", a.Token, ttl, now); err != nil || ok {
		t.Fatalf("the old holder renewed after losing it: %v %v", ok, err)
	}
}

// racing: many replicas asking at once, one wins.
func racing(t *testing.T, p lease.Port) {
	now := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, ok, err := p.Acquire(bg, "R", fmt.Sprintf("replica%d", i), time.Minute, now)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Fatalf("%d replicas hold one lease", won)
	}
}

// consecutive: a lease's grants have consecutive tokens, so a holder
// granted it again knows from its token alone whether another holder had
// it between (lease.Fence.Follows).
func consecutive(t *testing.T, p lease.Port) {
	now := time.Now()
	grant := func(holder string) lease.Fence {
		t.Helper()
		g, ok, err := p.Acquire(bg, "R", holder, time.Minute, now)
		if err != nil || !ok {
			t.Fatalf("%s's acquire: %v %v", holder, ok, err)
		}
		return lease.Fence{Name: "R", Token: g.Token}
	}
	release := func(holder string, f lease.Fence) {
		t.Helper()
		if err := p.Release(bg, "R", holder, f.Token); err != nil {
			t.Fatal(err)
		}
	}
	a1 := grant("a")
	if again := grant("a"); again != a1 || !again.Follows(a1) {
		t.Fatalf("a renewed by acquiring: %+v after %+v", again, a1)
	}
	release("a", a1)
	a2 := grant("a")
	if !a2.Follows(a1) || a2.Token != a1.Token+1 {
		t.Fatalf("a granted again with no one between: token %d after %d", a2.Token, a1.Token)
	}
	release("a", a2)
	b := grant("b")
	release("b", b)
	a3 := grant("a")
	if a3.Follows(a2) || a3.Token != a2.Token+2 {
		t.Fatalf("a granted after b's token %d: token %d after %d, follows %v", b.Token, a3.Token, a2.Token, a3.Follows(a2))
	}
	if (lease.Fence{Name: "S", Token: a3.Token}).Follows(a3) {
		t.Fatal("a grant of another lease follows")
	}
}
