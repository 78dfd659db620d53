package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/idem"
	"slotfare/booking/inventory"
	"slotfare/booking/records"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
)

// lostStep loses the answer of the next guarded step it is armed for: as
// if the connection broke before Redis ran it (before) or after (after:
// run, its answer lost).
type lostStep struct{ mode atomic.Int32 }

const (
	stepLostBefore = 1
	stepLostAfter  = 2
)

func (l *lostStep) DialHook(next redis.DialHook) redis.DialHook { return next }

func (l *lostStep) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (l *lostStep) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		a := cmd.Args()
		if len(a) < 2 || !strings.EqualFold(fmt.Sprint(a[0]), "fcall") || !strings.HasSuffix(fmt.Sprint(a[1]), "_guarded") {
			return next(ctx, cmd)
		}
		mode := l.mode.Swap(0)
		if mode == stepLostAfter {
			_ = next(ctx, cmd) // its answer is what is lost
		}
		if mode != 0 {
			err := errors.New("connection reset by peer")
			cmd.SetErr(err)
			return err
		}
		return next(ctx, cmd)
	}
}

// TestClusterHoldSettlesItsKey: on a cluster a hold's Idempotency-Key is
// claimed before its step, in the key's slot. A step whose answer is lost
// settles the key from what it did: not run, the key is free for a retry;
// run, the key names its booking, and the same request again holds
// nothing.
func TestClusterHoldSettlesItsKey(t *testing.T) {
	rdb := redistest.StartCluster(t)
	lost := &lostStep{}
	rdb.AddHook(lost)
	ctx := context.Background()
	_, recs := laidOut(t, rdb, "ck", 1, 10)
	keys := redisstore.NewKeys(rdb, "ck")
	now := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	hold := func(id, key string) error {
		r := guardedRec(id, booking.Held)
		r.Account, r.IdemKey, r.Fingerprint = "alice", key, "fp"
		w := records.Write{Resource: "R", WriteID: "w-" + id, Changes: []records.Change{{Record: r}}, KeyTTL: time.Hour}
		c := records.HoldClaim{Resource: "R", Account: "alice", BookingID: id, Expires: now.Add(10 * time.Minute),
			NodeSeconds: 1, MaxHolds: 100, MaxNodeSeconds: 1 << 40, Now: now}
		ok, counted, err := recs.AdmitApply(ctx, "R", id, 1, inventory.Terms{Start: 100, End: 200, Nodes: 1}, w, c)
		if err == nil && !ok {
			return fmt.Errorf("over the hold limits: %v", counted)
		}
		return err
	}
	lost.mode.Store(stepLostBefore)
	if err := hold("b1", "k1"); slotfare.KindOf(err) != slotfare.Unavailable {
		t.Fatalf("a step lost before it ran: %v", err)
	}
	if c, err := keys.Claim(ctx, "alice", "k1", "fp", time.Minute, now); err != nil || c.State != idem.Claimed {
		t.Fatalf("k1 after a step that never ran: %+v, %v", c, err)
	}
	if err := keys.Abandon(ctx, "alice", "k1", "fp"); err != nil {
		t.Fatal(err)
	}
	lost.mode.Store(stepLostAfter)
	if err := hold("b2", "k2"); slotfare.KindOf(err) != slotfare.Unavailable {
		t.Fatalf("a step whose answer was lost: %v", err)
	}
	if c, err := keys.Claim(ctx, "alice", "k2", "fp", time.Minute, now); err != nil || c.State != idem.Done || c.Result != "b2" {
		t.Fatalf("k2 after a step that ran: %+v, %v", c, err)
	}
	var done *records.KeyDone
	if err := hold("b3", "k2"); !errors.As(err, &done) || done.Booking != "b2" {
		t.Fatalf("the same request again: %v", err)
	}
}
