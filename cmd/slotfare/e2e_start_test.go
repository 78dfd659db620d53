package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/overbook"
	"slotfare/pricing"
)

// tinyResource is a copy of the demo's RAL with few nodes, no protection
// (every class may book up to the overbooking limit) and a low show rate, so
// that the overbooking limit is well above the nodes.
func tinyResource(t *testing.T, cfg map[string]any, id string, nodes int, policy, denial string) map[string]any {
	t.Helper()
	var ral map[string]any
	for _, r := range cfg["resources"].([]any) {
		if r.(map[string]any)["id"] == "RAL" {
			ral = r.(map[string]any)
		}
	}
	data, _ := json.Marshal(ral)
	var r map[string]any
	json.Unmarshal(data, &r)
	r["id"] = id
	r["nodes"] = nodes
	r["vo"] = nil
	r["tags"] = []string{"test"}
	r["overbooking"] = map[string]any{"policy": policy, "service_level": 0.01, "denial": denial}
	r["limits"] = map[string]any{
		"method":            "emsr-b",
		"protection_levels": map[string]any{"peak": []int{0, 0}, "off_peak": []int{0, 0}, "super_saver": []int{0, 0}},
		"show_rates":        map[string]any{"peak": 0.5, "off_peak": 0.5, "super_saver": 0.5},
	}
	return r
}

func holdDirect(t *testing.T, base, key, resource, class string, start, end time.Time, nodes int, idem string) reply {
	t.Helper()
	return do(t, base, "POST", "/v1/bookings", key, map[string]any{
		"resource_id": resource, "start": start.Format(time.RFC3339), "end": end.Format(time.RFC3339), "nodes": nodes, "fare_class": class,
	}, "Idempotency-Key", idem)
}

type fullBooking struct {
	bookingJSON
	CreatedAt string `json:"created_at"`
	CheckedIn bool   `json:"checked_in"`
}

func getBooking(t *testing.T, base, key, id string) fullBooking {
	t.Helper()
	var b fullBooking
	do(t, base, "GET", "/v1/bookings/"+id, key, nil).want(t, 200).json(t, &b)
	return b
}

// waitStatus polls a booking until it leaves the given statuses.
func waitStatus(t *testing.T, base, key, id string, until time.Time, from ...string) fullBooking {
	t.Helper()
	for {
		b := getBooking(t, base, key, id)
		still := false
		for _, f := range from {
			still = still || b.Status == f
		}
		if !still || time.Now().After(until) {
			return b
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestE2EStartOfService runs the start of service through the real binary
// and its one-second ticker: a checked-in booking becomes active and then
// completed; one that does not check in becomes a no-show and pays its
// class's penalty (grace_seconds 1); and on three tiny overbooked resources
// more shows than nodes are resolved by each denial strategy, the denied
// refunded and compensated, and billing sees it all on the invoice.
func TestE2EStartOfService(t *testing.T) {
	t.Parallel() // waits on real tickers and child processes, not on the CPU
	dir := t.TempDir()
	strategies := map[string]string{"TINY-LOT": "lottery", "TINY-DCF": "dcf", "TINY-LCDCF": "lc-dcf"}
	cfgPath := configWith(t, dir, func(cfg map[string]any) {
		cfg["grace_seconds"] = 1
		rs := cfg["resources"].([]any)
		rs = append(rs, tinyResource(t, cfg, "TINY-NS", 4, "none", "dcf"))
		for id, st := range strategies {
			rs = append(rs, tinyResource(t, cfg, id, 4, "risk", st))
		}
		cfg["resources"] = rs
	})
	s := startServer(t, dir+"/data", "--config", cfgPath)
	base := s.base

	start := time.Now().UTC().Truncate(time.Second).Add(12 * time.Second)
	end := start.Add(4 * time.Second)
	n := 0
	book := func(resource, class string, nodes int) bookingJSON {
		t.Helper()
		n++
		var b bookingJSON
		holdDirect(t, base, keyAlice, resource, class, start, end, nodes, fmt.Sprintf("start-%d", n)).want(t, 201).json(t, &b)
		if c := act(t, base, keyAlice, b.ID, "commit", 200); c.Status != "committed" {
			t.Fatalf("commit: %+v", c)
		}
		return b
	}

	// Show and no-show on a resource without overbooking.
	show := book("TINY-NS", "premium", 2)
	noShow := book("TINY-NS", "budget", 1)
	if c := act(t, base, keyAlice, show.ID, "checkin", 200); c.Status != "committed" {
		t.Fatalf("check-in before start: %+v", c)
	}

	// Overbooked resources: 7 nodes committed on 4, all check in.
	shows := map[string][]bookingJSON{}
	for id := range strategies {
		for _, x := range []struct {
			class string
			nodes int
		}{{"premium", 1}, {"business", 2}, {"premium", 1}, {"business", 1}, {"premium", 2}} {
			shows[id] = append(shows[id], book(id, x.class, x.nodes))
		}
		// The overbooking limit is reached: one node more does not fit.
		r := holdDirect(t, base, keyAlice, id, "premium", start, end, 1, "over-"+id)
		if r.status != 409 {
			t.Fatalf("%s: an 8th node on 4 nodes with limit 7: status %d %s", id, r.status, r.body)
		}
		r.problem(t)
		for _, b := range shows[id] {
			act(t, base, keyAlice, b.ID, "checkin", 200)
		}
	}
	if time.Now().After(start) {
		t.Fatalf("setup took too long: start %s passed", start)
	}

	deadline := start.Add(10 * time.Second)
	if b := waitStatus(t, base, keyAlice, show.ID, deadline, "committed"); b.Status != "active" {
		t.Fatalf("checked-in booking after start: %s", b.Status)
	}
	ns := waitStatus(t, base, keyAlice, noShow.ID, deadline, "committed")
	if ns.Status != "no_show" || ns.Penalty == nil {
		t.Fatalf("booking not checked in after start+grace: %+v", ns)
	}
	classes := fareClasses(t, base, "TINY-NS")
	classOf := func(name string) pricing.FareClass {
		for _, c := range classes {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("no class %q", name)
		return pricing.FareClass{}
	}
	wantPen, _ := pricing.Penalty(classOf(ns.FareClass), dec(t, ns.Price.Total))
	if !dec(t, *ns.Penalty).Equal(pricing.RoundMoney(wantPen, 2)) || wantPen.IsZero() {
		t.Fatalf("no-show penalty %s, want %s (%s of %s)", *ns.Penalty, wantPen, classOf(ns.FareClass).PenaltyRate, ns.Price.Total)
	}

	compensation := map[string]decimal.Decimal{}
	for id, strat := range strategies {
		var active, denied []fullBooking
		var ss []overbook.Show
		for _, b := range shows[id] {
			got := waitStatus(t, base, keyAlice, b.ID, deadline, "committed")
			c := classOf(got.FareClass)
			cost, err := pricing.DeniedServiceCost(c, dec(t, got.Price.Total))
			if err != nil {
				t.Fatal(err)
			}
			created, _ := time.Parse(time.RFC3339Nano, got.CreatedAt)
			ss = append(ss, overbook.Show{ID: got.ID, ClassRank: c.Rank, Nodes: got.Nodes, DeniedCost: cost, BookedAt: created})
			switch got.Status {
			case "active":
				active = append(active, got)
			case "denied":
				denied = append(denied, got)
				if got.Compensation == nil || got.Refund == nil {
					t.Fatalf("%s: denied booking without compensation/refund: %+v", id, got)
				}
				if !dec(t, *got.Compensation).Equal(pricing.RoundMoney(cost, 2)) || !dec(t, *got.Refund).Equal(dec(t, got.Price.Total)) {
					t.Fatalf("%s: denied %s: compensation %s refund %s, want %s and %s", id, got.ID, *got.Compensation, *got.Refund, cost, got.Price.Total)
				}
				compensation[got.ID] = dec(t, *got.Compensation)
			default:
				t.Fatalf("%s: booking %s is %s after start", id, got.ID, got.Status)
			}
		}
		activeNodes := 0
		for _, b := range active {
			activeNodes += b.Nodes
		}
		if activeNodes > 4 || len(denied) == 0 {
			t.Fatalf("%s (%s): %d nodes active on 4, %d denied", id, strat, activeNodes, len(denied))
		}
		if strat == "lottery" {
			continue
		}
		// The deterministic strategies deny exactly what the thesis's
		// algorithm (overbook.Deny) picks for these shows.
		want, err := overbook.Deny(overbook.DenialStrategy(strat), 4, ss, overbook.DenialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var wantIDs, gotIDs []string
		for _, d := range want.Denied {
			wantIDs = append(wantIDs, d.ID)
		}
		for _, d := range denied {
			gotIDs = append(gotIDs, d.ID)
		}
		sort.Strings(wantIDs)
		sort.Strings(gotIDs)
		if strings.Join(wantIDs, ",") != strings.Join(gotIDs, ",") {
			t.Fatalf("%s (%s): denied %v, the algorithm denies %v", id, strat, gotIDs, wantIDs)
		}
	}

	// Completion at the end.
	if b := waitStatus(t, base, keyAlice, show.ID, end.Add(10*time.Second), "active"); b.Status != "completed" {
		t.Fatalf("active booking after its end: %s", b.Status)
	}

	// Billing: compensation lines (negative for the customer) and the
	// no-show penalty are on alice's invoice.
	var inv struct {
		Data []invoiceJSON `json:"data"`
	}
	do(t, base, "GET", "/v1/invoices?account_id=alice", keyBilling, nil).want(t, 200).json(t, &inv)
	seen := map[string]decimal.Decimal{}
	for _, in := range inv.Data {
		for _, l := range in.Lines {
			seen[l.Kind+" "+l.BookingID] = seen[l.Kind+" "+l.BookingID].Add(dec(t, l.Amount))
		}
	}
	for id, c := range compensation {
		if got := seen["compensation "+id]; !got.Equal(c.Neg()) {
			t.Errorf("invoice compensation line for %s = %s, want %s", id, got, c.Neg())
		}
	}
	if got := seen["no_show_penalty "+noShow.ID]; !got.Equal(dec(t, *ns.Penalty)) {
		t.Errorf("invoice no-show penalty line = %s, want %s", got, *ns.Penalty)
	}
	m := string(do(t, base, "GET", "/metrics", "", nil).want(t, 200).body)
	for _, want := range []string{`slotfare_booking_transitions_total{from="committed",to="denied"}`, `slotfare_booking_transitions_total{from="committed",to="no_show"} 1`, `slotfare_booking_transitions_total{from="active",to="completed"}`} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
