package api

import (
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"
)

// TestRejectedCoReservationOwesNothing: over HTTP, a co-reservation of RAL
// (budget, a 25% cancellation penalty) and CERN whose CERN part no longer
// fits when it is committed (the provider shrank CERN) is rejected naming
// parts[1], and alice's invoice lines for its bookings sum to 0; the
// co-reservation says what was charged and refunded. Before, RAL's part
// was committed first, then cancelled keeping its penalty (1102.50 of a
// 4410.00 part): alice owed that for a co-reservation that ended rejected.
func TestRejectedCoReservationOwesNothing(t *testing.T) {
	e, _ := newTestServer(t)
	d := coDay()
	body := `{"policy":"earliest","parts":[
		{"resource_id":"RAL","nodes":4,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 13) + `","duration_seconds":3600},
		{"resource_id":"CERN","nodes":4,"earliest_start":"` + hhmm(d, 9) + `","latest_end":"` + hhmm(d, 13) + `","duration_seconds":3600,"same_start_as":0}]}`
	v := coDo(t, e, call{"POST", "/v1/co-reservations", kAlice, body, nil}, 201)
	call{"PUT", "/v1/resources/CERN/limits-config", kProv, `{"method":"emsr-b","min_history":4}`, nil}.must(t, e, 200)
	call{"PUT", "/v1/resources/CERN", kProv, `{"nodes":2,"base_cost":"0.70","currency":"GRD","time_zone":"Europe/Zurich"}`, nil}.must(t, e, 200)
	call{"POST", "/v1/co-reservations/" + v.ID + "/commit", kAlice, "", nil}.wantProblem(t, e, 409, "parts[1]")
	rec := call{"GET", "/v1/co-reservations/" + v.ID, kAlice, "", nil}.must(t, e, 200)
	var g struct {
		Status   string `json:"status"`
		Charged  string `json:"charged"`
		Refunded string `json:"refunded"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil {
		t.Fatal(err)
	}
	if g.Status != "rejected" || g.Charged != g.Refunded {
		t.Fatalf("co-reservation %s", rec.Body)
	}
	inv := call{"GET", "/v1/invoices?account_id=alice", kBill, "", nil}.must(t, e, 200)
	var page struct {
		Data []struct {
			Lines []struct {
				BookingID string `json:"booking_id"`
				Amount    string `json:"amount"`
			} `json:"lines"`
		} `json:"data"`
	}
	if err := json.Unmarshal(inv.Body.Bytes(), &page); err != nil {
		t.Fatal(err)
	}
	owed := decimal.Zero
	for _, in := range page.Data {
		for _, l := range in.Lines {
			if l.BookingID == v.Parts[0].ID || l.BookingID == v.Parts[1].ID {
				owed = owed.Add(decimal.RequireFromString(l.Amount))
			}
		}
	}
	if !owed.IsZero() {
		t.Fatalf("alice owes %s for a rejected co-reservation: %s", owed, inv.Body)
	}
}
