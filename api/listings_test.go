package api

import (
	"encoding/json"
	"fmt"
	"net/url"
	"testing"
	"time"
)

// bookingPage is a page of GET /v1/bookings.
type bookingPage struct {
	Data []struct {
		ID       string `json:"booking_id"`
		Account  string `json:"account_id"`
		Resource string `json:"resource_id"`
		Status   string `json:"status"`
	} `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

// TestProviderListsBookingsOfAResource: a provider pages through every
// account's bookings on RAL (not those on another resource), by
// /v1/bookings?resource_id= and /v1/resources/RAL/bookings alike, with the
// status filter a user has; without a resource, with an unknown one, or
// with a cursor of another filter it is refused naming the field. Before,
// GET /v1/bookings with a provider key was 403.
func TestProviderListsBookingsOfAResource(t *testing.T) {
	e, _ := newTestServer(t)
	start := time.Now().UTC().Truncate(24 * time.Hour).Add(3*24*time.Hour + 10*time.Hour)
	onRAL := map[string]string{} // booking -> account
	for i, k := range []string{kAlice, kBob, kAlice, kBob, kAlice} {
		st := start.Add(time.Duration(i) * time.Hour)
		res := "RAL"
		if i == 4 {
			res = "NIKHEF"
		}
		body := fmt.Sprintf(`{"resource_id":%q,"start":%q,"end":%q,"nodes":1,"fare_class":"premium"}`, res, st.Format(time.RFC3339), st.Add(time.Hour).Format(time.RFC3339))
		rec := call{"POST", "/v1/bookings", k, body, []string{"Idempotency-Key", fmt.Sprintf("prov-list-%d", i)}}.must(t, e, 201)
		var b struct {
			ID      string `json:"booking_id"`
			Account string `json:"account_id"`
		}
		json.Unmarshal(rec.Body.Bytes(), &b)
		if i < 2 {
			call{"POST", "/v1/bookings/" + b.ID + "/commit", k, "", nil}.must(t, e, 200)
		}
		if res == "RAL" {
			onRAL[b.ID] = b.Account
		}
	}
	for _, first := range []string{"/v1/bookings?resource_id=RAL&limit=2", "/v1/resources/RAL/bookings?limit=2"} {
		seen, accounts := map[string]bool{}, map[string]bool{}
		path := first
		for pages := 0; ; pages++ {
			var p bookingPage
			if err := json.Unmarshal(call{"GET", path, kProv, "", nil}.must(t, e, 200).Body.Bytes(), &p); err != nil || pages > 4 {
				t.Fatalf("GET %s: %v after %d pages", path, err, pages)
			}
			for _, b := range p.Data {
				if seen[b.ID] || onRAL[b.ID] != b.Account || b.Resource != "RAL" {
					t.Fatalf("%s lists %+v: repeated, or not on RAL", path, b)
				}
				seen[b.ID], accounts[b.Account] = true, true
			}
			if !p.HasMore {
				break
			}
			path = first + "&cursor=" + url.QueryEscape(*p.NextCursor)
		}
		if len(seen) != len(onRAL) || len(accounts) != 2 {
			t.Errorf("%s: %d bookings of %d accounts, want %d of 2", first, len(seen), len(accounts), len(onRAL))
		}
	}
	var committed bookingPage
	json.Unmarshal(call{"GET", "/v1/bookings?resource_id=RAL&status=committed", kProv, "", nil}.must(t, e, 200).Body.Bytes(), &committed)
	if len(committed.Data) != 2 {
		t.Errorf("committed on RAL: %+v, want 2", committed.Data)
	}
	// A user's own listing may narrow to a resource too, and stays hers.
	var alice bookingPage
	json.Unmarshal(call{"GET", "/v1/bookings?resource_id=RAL", kAlice, "", nil}.must(t, e, 200).Body.Bytes(), &alice)
	if len(alice.Data) != 2 {
		t.Errorf("alice's bookings on RAL: %+v, want 2", alice.Data)
	}

	call{"GET", "/v1/bookings", kProv, "", nil}.wantProblem(t, e, 422, "resource_id")
	call{"GET", "/v1/bookings?resource_id=NOPE", kProv, "", nil}.wantProblem(t, e, 404, "")
	call{"GET", "/v1/bookings?resource_id=RAL", kBill, "", nil}.wantProblem(t, e, 403, "")
	var p bookingPage
	json.Unmarshal(call{"GET", "/v1/bookings?resource_id=RAL&limit=1", kProv, "", nil}.must(t, e, 200).Body.Bytes(), &p)
	call{"GET", "/v1/bookings?resource_id=NIKHEF&cursor=" + url.QueryEscape(*p.NextCursor), kProv, "", nil}.wantProblem(t, e, 400, "cursor")
	call{"GET", "/v1/bookings?resource_id=RAL&status=held&cursor=" + url.QueryEscape(*p.NextCursor), kProv, "", nil}.wantProblem(t, e, 400, "cursor")
}

// TestBillingListsAccountsAndInvoices: billing pages through the customer
// accounts (the demo's alice and bob) and, without account_id, through
// every account's invoices, one a page, each once; a cursor of another
// period is 400 naming cursor; a user is refused. Before, GET /v1/invoices
// without account_id was 422 and /v1/accounts did not exist.
func TestBillingListsAccountsAndInvoices(t *testing.T) {
	e, _ := newTestServer(t)
	start := time.Now().UTC().Truncate(24 * time.Hour).Add(3*24*time.Hour + 10*time.Hour)
	for i, k := range []string{kAlice, kBob} {
		st := start.Add(time.Duration(i) * time.Hour)
		body := fmt.Sprintf(`{"resource_id":"RAL","start":%q,"end":%q,"nodes":1,"fare_class":"premium"}`, st.Format(time.RFC3339), st.Add(time.Hour).Format(time.RFC3339))
		var b struct {
			ID string `json:"booking_id"`
		}
		json.Unmarshal(call{"POST", "/v1/bookings", k, body, []string{"Idempotency-Key", fmt.Sprintf("bill-%d", i)}}.must(t, e, 201).Body.Bytes(), &b)
		call{"POST", "/v1/bookings/" + b.ID + "/commit", k, "", nil}.must(t, e, 200)
	}
	var accounts []string
	path := "/v1/accounts?limit=1"
	for range 10 {
		var p struct {
			Data []struct {
				ID string `json:"account_id"`
			} `json:"data"`
			HasMore    bool    `json:"has_more"`
			NextCursor *string `json:"next_cursor"`
		}
		json.Unmarshal(call{"GET", path, kBill, "", nil}.must(t, e, 200).Body.Bytes(), &p)
		for _, a := range p.Data {
			accounts = append(accounts, a.ID)
		}
		if !p.HasMore {
			break
		}
		path = "/v1/accounts?limit=1&cursor=" + url.QueryEscape(*p.NextCursor)
	}
	if fmt.Sprint(accounts) != "[alice bob]" {
		t.Fatalf("accounts: %v", accounts)
	}
	period := time.Now().UTC().Format("2006-01")
	seen := map[string]bool{}
	first := "/v1/invoices?limit=1&period=" + period
	path = first
	var cursor string
	for range 10 {
		var p struct {
			Data []struct {
				ID      string `json:"invoice_id"`
				Account string `json:"account_id"`
			} `json:"data"`
			HasMore    bool    `json:"has_more"`
			NextCursor *string `json:"next_cursor"`
		}
		json.Unmarshal(call{"GET", path, kBill, "", nil}.must(t, e, 200).Body.Bytes(), &p)
		for _, inv := range p.Data {
			if seen[inv.ID] {
				t.Fatalf("invoice %s twice", inv.ID)
			}
			seen[inv.ID+"@"+inv.Account] = true
		}
		if !p.HasMore {
			break
		}
		cursor = *p.NextCursor
		path = first + "&cursor=" + url.QueryEscape(cursor)
	}
	if len(seen) != 2 {
		t.Fatalf("invoices of every account: %v", seen)
	}
	call{"GET", "/v1/invoices?period=2020-01&cursor=" + url.QueryEscape(cursor), kBill, "", nil}.wantProblem(t, e, 400, "cursor")
	call{"GET", "/v1/accounts?cursor=" + url.QueryEscape(cursor), kBill, "", nil}.wantProblem(t, e, 400, "cursor")
	call{"GET", "/v1/accounts", kAlice, "", nil}.wantProblem(t, e, 403, "")
}
