package boltstore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/events"
	"slotfare/booking/internal/webhookstest"
	"slotfare/booking/records"
	"slotfare/booking/webhooks"
)

// TestWebhooksContract runs booking/webhooks' Port contract on a bbolt
// file, reopening it as another process would.
func TestWebhooksContract(t *testing.T) {
	webhookstest.Contract(t, func(t *testing.T) (webhooks.Port, func() webhooks.Port) {
		dir := t.TempDir()
		p, err := boltstore.OpenWebhooks(dir)
		if err != nil {
			t.Fatal(err)
		}
		return p, func() webhooks.Port {
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			p2, err := boltstore.OpenWebhooks(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p2.Close() })
			return p2
		}
	})
}

// TestDeliveryInFlightSurvivesACrash: the receiver acknowledges the first
// event, but the process dies before it stores that (the webhooks' bbolt
// file is closed under it, as kill -9 would leave it); a process started
// again on the same file sends that event again, under the same
// webhook-id, then the others: none is lost, the duplicate is
// recognisable.
func TestDeliveryInFlightSurvivesACrash(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	log := records.NewMemory()
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	for i, st := range []booking.Status{booking.Held, booking.Committed, booking.Cancelled} {
		rec := booking.Record{Booking: booking.Booking{ID: "bk1", AccountID: "alice", ResourceID: "R", Status: st,
			Start: t0.Add(time.Hour), End: t0.Add(2 * time.Hour), Nodes: 1, FareClass: "premium",
			Price:     booking.Price{Base: decimal.NewFromInt(1), DelayPremium: decimal.Zero, Total: decimal.NewFromInt(1), Currency: "GRD"},
			CreatedAt: t0, UpdatedAt: t0.Add(time.Duration(i) * time.Minute)}, Groups: 1}
		from := booking.Status("")
		if i > 0 {
			from = booking.Held
		}
		if err := log.Apply(ctx, records.Write{Resource: "R", WriteID: string(st), Changes: []records.Change{{Record: rec, Replaces: int64(i), From: from}}}); err != nil {
			t.Fatal(err)
		}
	}
	source := func(ctx context.Context, p booking.Principal, after string, types []string, limit int) ([]events.Event, string, error) {
		c, err := events.DecodeCursor("test", "", after)
		if err != nil {
			return nil, "", err
		}
		ls, err := log.ReadEvents(ctx, nil, c, limit)
		var out []events.Event
		for _, l := range ls {
			c = c.Advance(l)
			out = append(out, l.Event)
		}
		return out, events.EncodeCursor("", c), err
	}

	var mu sync.Mutex
	var ids []string
	var crash func()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ids = append(ids, r.Header.Get("webhook-id"))
		c := crash
		crash = nil
		mu.Unlock()
		if c != nil {
			c() // the process dies with the answer on its way
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()

	port, err := boltstore.OpenWebhooks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := port.Create(ctx, webhooks.Hook{ID: "wh_1", URL: srv.URL, Types: []string{"*"}, Account: "billing", Role: booking.RoleBilling,
		Secret: webhooks.NewSecret(), CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	crash = func() { port.Close() }
	first := webhooks.New(port, source, func(context.Context, []events.Event) error { return nil }, webhooks.Options{AllowPrivate: true})
	if err := first.Step(ctx, t0); err == nil {
		t.Fatal("the step whose store died answered nil")
	}

	port, err = boltstore.OpenWebhooks(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer port.Close()
	again := webhooks.New(port, source, func(context.Context, []events.Event) error { return nil }, webhooks.Options{AllowPrivate: true})
	if err := again.Step(ctx, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	want := []string{"evt_bk1_v1", "evt_bk1_v1", "evt_bk1_v2", "evt_bk1_v3"}
	mu.Lock()
	defer mu.Unlock()
	if len(ids) != len(want) {
		t.Fatalf("webhook-ids received %v, want %v", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("webhook-ids received %v, want %v", ids, want)
		}
	}
}
