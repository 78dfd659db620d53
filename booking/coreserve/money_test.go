package coreserve

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/service"
)

var (
	provider = booking.Principal{AccountID: "provider", Role: booking.RoleProvider}
	billing  = booking.Principal{AccountID: "billing", Role: booking.RoleBilling}
)

// shrink leaves resource id one node (its fixed protection levels
// dropped first): a part of two nodes held there no longer fits the
// limits in force.
func shrink(t *testing.T, svc *service.Service, id string) {
	t.Helper()
	ctx := context.Background()
	res, err := svc.Resource(ctx, provider, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.PutLimitsConfig(ctx, provider, id, []byte(`{"method":"emsr-b","min_history":4}`)); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"nodes":1,"base_cost":%q,"currency":%q,"time_zone":%q}`, res.BaseCost, res.Currency, res.TimeZone)
	if _, _, err := svc.PutResourceConfig(ctx, provider, id, []byte(body)); err != nil {
		t.Fatal(err)
	}
}

// owes is what alice owes: her balance and the sum of her invoices'
// lines, which must agree.
func owes(t *testing.T, svc *service.Service) decimal.Decimal {
	t.Helper()
	ctx := context.Background()
	bal, err := svc.Balance(ctx, billing, "alice")
	if err != nil {
		t.Fatal(err)
	}
	page, err := svc.Invoices(ctx, billing, "alice", "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	lines := decimal.Zero
	for _, inv := range page.Data {
		for _, l := range inv.Lines {
			lines = lines.Add(l.Amount.Amount)
		}
	}
	if !lines.Equal(bal["GRD"]) {
		t.Fatalf("invoice lines sum to %s, the balance is %s", lines, bal["GRD"])
	}
	return lines
}

// reserveTwo holds 2 nodes on RAL (budget: a 25% cancellation penalty)
// and 2 on CERN.
func reserveTwo(t *testing.T, r *rig) View {
	t.Helper()
	v, err := r.br.Reserve(context.Background(), alice, Request{Policy: Earliest, Parts: []Part{
		part("RAL", 2, r.at(9), r.at(10), time.Hour), part("CERN", 2, r.at(9), r.at(10), time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCommitPreparesEveryPart: the second part's resource no longer takes
// it when the co-reservation is committed. It is found before the first
// part is charged: the co-reservation is rejected naming parts[1], and the
// user owes nothing. Before, the first part was committed, then cancelled
// with its class's penalty (owed 25% of its price).
func TestCommitPreparesEveryPart(t *testing.T) {
	r := newRig(t)
	v := reserveTwo(t, r)
	shrink(t, r.svc, "CERN")
	_, err := r.br.Commit(context.Background(), alice, v.ID)
	if slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "parts[1]" {
		t.Fatalf("commit: %v, want a conflict naming parts[1]", err)
	}
	g, err := r.br.Get(context.Background(), alice, v.ID)
	if err != nil || g.Status != Rejected {
		t.Fatalf("after: %v %s", err, g.Status)
	}
	l, err := r.svc.Ledger(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ps := l.BookingPostings(v.Parts[0].BookingID); len(ps) != 0 {
		t.Fatalf("part 0 has %d postings: it was charged", len(ps))
	}
	if o := owes(t, r.svc); !o.IsZero() {
		t.Fatalf("alice owes %s for a rejected co-reservation", o)
	}
}

// shrinking is Bookings whose second part's resource shrinks after every
// part was prepared, just before that part's commit: a refusal no prepare
// could see.
type shrinking struct {
	Bookings
	t       *testing.T
	svc     *service.Service
	commits int
}

func (s *shrinking) Commit(ctx context.Context, p booking.Principal, id string) (booking.Booking, error) {
	if s.commits++; s.commits == 2 {
		bk, err := s.svc.Get(ctx, p, id)
		if err != nil {
			return booking.Booking{}, err
		}
		shrink(s.t, s.svc, bk.ResourceID)
	}
	return s.Bookings.Commit(ctx, p, id)
}

// TestRollbackRefundsCommittedParts: a part refused at its own commit
// after its sibling was charged rolls the sibling back with all it was
// billed refunded, no penalty: the user owes 0 (ledger and invoice), and
// the co-reservation says what was charged and refunded. Before, the
// sibling kept its class's 25% penalty.
func TestRollbackRefundsCommittedParts(t *testing.T) {
	r := newRig(t)
	r.st.Close()
	r.open(t, &shrinking{Bookings: r.svc, t: t, svc: r.svc})
	v := reserveTwo(t, r)
	view, err := r.br.Commit(context.Background(), alice, v.ID)
	if slotfare.KindOf(err) != slotfare.Conflict || view.Status != Rejected {
		t.Fatalf("commit: %v %s, want a conflict and rejected", err, view.Status)
	}
	var first booking.Booking
	for _, bk := range view.Bookings {
		if bk.Refund != nil && bk.Refund.IsPositive() {
			first = bk
		}
	}
	if first.Status != booking.Cancelled || first.Penalty == nil || !first.Penalty.IsZero() || !first.Refund.Equal(first.Price.Total) {
		t.Fatalf("parts %+v: want the committed one cancelled with its %s refunded", view.Bookings, first.Price.Total)
	}
	if o := owes(t, r.svc); !o.IsZero() {
		t.Fatalf("alice owes %s for a rejected co-reservation", o)
	}
	data, err := json.Marshal(view)
	if err != nil {
		t.Fatal(err)
	}
	var money struct{ Charged, Refunded string }
	if err := json.Unmarshal(data, &money); err != nil {
		t.Fatal(err)
	}
	if money.Charged != first.Price.Total.StringFixed(2) || money.Refunded != money.Charged {
		t.Fatalf("the co-reservation says charged %q, refunded %q; want %s each", money.Charged, money.Refunded, first.Price.Total.StringFixed(2))
	}
}
