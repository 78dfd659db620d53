package service_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/config"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/service"
	"slotfare/overbook"
	"slotfare/pricing"
)

// quoteWorld is what the quote tests need of a deployment: the service a
// quote is made on and the one that honours it (another replica, or the
// same data reopened), on one clock.
type quoteWorld struct {
	clk           *clock
	quoter, later *service.Service
	// reopen, when set, makes later (the embedded store reopened).
	reopen func() *service.Service
}

// quoteConfig is resource Q of 4 nodes whose budget class keeps 25% of a
// cancellation a day or more ahead and all of it closer in.
func quoteConfig() config.Config {
	rc := resourceConfig("Q", 4, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
	rc.FareClasses = pricing.DemoFareClasses("")
	rc.FareClasses[2].Cancellation = []pricing.CancellationStep{
		{BeforeStartSeconds: 86400, PenaltyRate: decimal.RequireFromString("0.25")}, {BeforeStartSeconds: 0, PenaltyRate: decimal.NewFromInt(1)}}
	return testConfig(rc)
}

// TestQuotesHonouredElsewhere: a cancellation quote made on one replica
// (or before a restart of the embedded store) is honoured on another
// after the lead time crossed into the next step: the quoted 25% is
// posted, not the 100% a cancel without it keeps; a modification quote is
// made at the quoted price after the provider raised the class's fares.
// An expired, foreign or forged quote, or one that no longer holds, is
// refused naming quote_id and posts nothing.
func TestQuotesHonouredElsewhere(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rs := newReplicas(t, 2, quoteConfig(), ports)
		rs.tickAll(t0)
		checkQuotes(t, quoteWorld{clk: rs.clk, quoter: rs.svcs[0], later: rs.svcs[1]})
	})
	t.Run("embedded", func(t *testing.T) {
		dir, clk := t.TempDir(), &clock{t: t0}
		open := func() *service.Service {
			st, err := boltstore.Open(dir, boltstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			svc, err := service.Open(quoteConfig(), deploytest.Embedded(t, st), service.Options{Now: clk.Now})
			if err != nil {
				t.Fatal(err)
			}
			return svc
		}
		first := open()
		w := quoteWorld{clk: clk, quoter: first}
		w.reopen = func() *service.Service {
			first.Close()
			w.later = open()
			t.Cleanup(func() { w.later.Close() })
			return w.later
		}
		checkQuotes(t, w)
	})
}

func checkQuotes(t *testing.T, w quoteWorld) {
	t.Helper()
	s := t0.Add(24*time.Hour + 100*time.Second) // a day and 100 s ahead: 25%
	book := func(start time.Time) booking.Booking {
		t.Helper()
		b, _, err := w.quoter.Hold(bg, alice, booking.HoldRequest{ResourceID: "Q", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "budget"}, booking.Idempotency{})
		if err != nil {
			t.Fatal(err)
		}
		if b, err = w.quoter.Commit(bg, alice, b.ID); err != nil {
			t.Fatal(err)
		}
		return b
	}
	b1, b2, b3, b4 := book(s), book(s.Add(time.Hour)), book(s.Add(3*time.Hour)), book(s.Add(-time.Hour))
	q1, err := w.quoter.CancellationQuote(bg, alice, b1.ID)
	if err != nil {
		t.Fatal(err)
	}
	quarter := b1.Price.Total.Div(decimal.NewFromInt(4)).RoundBank(2)
	if !q1.Penalty.Equal(quarter) || !q1.Refund.Equal(b1.Price.Total) || !q1.ValidUntil.Equal(t0.Add(300*time.Second)) {
		t.Fatalf("quote %+v, want penalty %s, refund %s, valid 300 s", q1, quarter, b1.Price.Total)
	}
	q2, err := w.quoter.CancellationQuote(bg, alice, b2.ID)
	if err != nil {
		t.Fatal(err)
	}
	newEnd := b3.End.Add(time.Hour)
	q3, err := w.quoter.ModificationQuote(bg, alice, b3.ID, booking.ModifyRequest{End: &newEnd})
	if err != nil {
		t.Fatal(err)
	}
	if !q3.Difference.Equal(q3.Price.Total.Sub(b3.Price.Total)) || !q3.Difference.IsPositive() {
		t.Fatalf("modification quote %+v of a booking priced %s", q3, b3.Price.Total)
	}
	_, err = w.quoter.CancellationQuote(bg, bob, b1.ID)
	wantKind(t, err, slotfare.NotFound)

	later := w.later
	if w.reopen != nil {
		later = w.reopen()
	}
	w.clk.Set(t0.Add(200 * time.Second)) // 100 s less than a day ahead of b1: the 100% step
	doubleFares(t, later)

	got, err := later.CancelQuoted(bg, alice, b1.ID, q1.ID)
	if err != nil || !got.Penalty.Equal(q1.Penalty) || !got.Refund.Equal(q1.Refund) {
		t.Fatalf("cancel with the quote on the other side: %+v, %v; want the quoted %s kept", got, err, q1.Penalty)
	}
	if got, err := later.Cancel(bg, alice, b4.ID); err != nil || !got.Penalty.Equal(got.Price.Total) {
		t.Fatalf("cancel without a quote less than a day ahead: %+v, %v; want all kept", got, err)
	}
	if got, err := later.Modify(bg, alice, b3.ID, booking.ModifyRequest{QuoteID: q3.ID}); err != nil || !got.Price.Total.Equal(q3.Price.Total) || !got.End.Equal(newEnd) {
		t.Fatalf("modify with the quote after the fares doubled: %+v, %v; want %s", got, err, q3.Price.Total)
	}
	for _, c := range []struct {
		id   string
		kind slotfare.Kind
	}{{q1.ID, slotfare.Invalid}, {"qt_e30.AAAA", slotfare.Invalid}, {q1.ID[:len(q1.ID)-2] + "AA", slotfare.Invalid}, {q3.ID, slotfare.Invalid}} {
		_, err := later.CancelQuoted(bg, alice, b2.ID, c.id)
		if slotfare.KindOf(err) != c.kind || slotfare.FieldOf(err) != "quote_id" {
			t.Errorf("cancel of %s with quote %.20s...: %v, want %v naming quote_id", b2.ID, c.id, err, c.kind)
		}
	}
	w.clk.Set(t0.Add(300 * time.Second))
	_, err = later.CancelQuoted(bg, alice, b2.ID, q2.ID)
	if slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "quote_id" {
		t.Errorf("cancel with an expired quote: %v, want a Conflict naming quote_id", err)
	}
	if b, err := later.Get(bg, alice, b2.ID); err != nil || b.Status != booking.Committed || b.Penalty != nil {
		t.Errorf("after the refused cancels booking %s is %+v, %v; want committed, nothing posted", b2.ID, b, err)
	}
}

// doubleFares doubles every class's tau on Q.
func doubleFares(t *testing.T, s *service.Service) {
	t.Helper()
	classes := quoteConfig().Resources[0].FareClasses
	for _, c := range classes {
		for p, tau := range c.Tau {
			c.Tau[p] = tau.Mul(decimal.NewFromInt(2))
		}
	}
	body, _ := json.Marshal(classes)
	if _, err := s.PutFareClasses(bg, provider, "Q", body); err != nil {
		t.Fatal(err)
	}
}
