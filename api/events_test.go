package api

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"slotfare/booking/boltstore"
)

// eventPage is a page of GET /v1/events.
type eventPage struct {
	Data []struct {
		SpecVersion string          `json:"specversion"`
		ID          string          `json:"id"`
		Type        string          `json:"type"`
		Time        time.Time       `json:"time"`
		Subject     string          `json:"subject"`
		Data        json.RawMessage `json:"data"`
	} `json:"data"`
	HasMore    bool   `json:"has_more"`
	NextCursor string `json:"next_cursor"`
}

// readEvents pages GET /v1/events?query from after, limit at a time, and
// answers "type@subject" of each event with the last cursor.
func readEvents(t *testing.T, e *echo.Echo, key, query, after string, limit int) ([]string, string) {
	t.Helper()
	var got []string
	for range 100 {
		path := fmt.Sprintf("/v1/events?limit=%d&%s", limit, query)
		if after != "" {
			path += "&after=" + url.QueryEscape(after)
		}
		var p eventPage
		if err := json.Unmarshal(call{"GET", path, key, "", nil}.must(t, e, 200).Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		for _, ev := range p.Data {
			if ev.SpecVersion != "1.0" || ev.ID == "" || ev.Time.IsZero() || len(ev.Data) == 0 {
				t.Fatalf("event %+v lacks an attribute", ev)
			}
			got = append(got, ev.Type+"@"+ev.Subject)
		}
		if p.NextCursor == "" {
			t.Fatalf("%s: no next_cursor", path)
		}
		after = p.NextCursor
		if !p.HasMore {
			return got, after
		}
	}
	t.Fatal("the event log does not end")
	return nil, ""
}

// TestEventsOfABookingsLife: a booking held, committed and cancelled over
// HTTP is in the event log in that order with its postings and invoice
// changes, read whole or one event a page; billing reads invoice.updated,
// the provider does not; a type filter keeps its types; a reader at the
// end gets later events with its cursor; the log is there after a restart
// (bbolt); a cursor of another filter is 400 naming after, an unknown type
// 422 naming type, a user 403.
func TestEventsOfABookingsLife(t *testing.T) {
	dir := t.TempDir()
	store := openBolt(t, dir)
	e, svc := newServerOn(t, dir, store)
	_, end := readEvents(t, e, kProv, "", "", 10)
	st := time.Now().UTC().Truncate(24 * time.Hour).Add(3*24*time.Hour + 10*time.Hour)
	body := fmt.Sprintf(`{"resource_id":"RAL","start":%q,"end":%q,"nodes":1,"fare_class":"premium"}`, st.Format(time.RFC3339), st.Add(time.Hour).Format(time.RFC3339))
	var b struct {
		ID string `json:"booking_id"`
	}
	json.Unmarshal(call{"POST", "/v1/bookings", kAlice, body, []string{"Idempotency-Key", "life"}}.must(t, e, 201).Body.Bytes(), &b)
	call{"POST", "/v1/bookings/" + b.ID + "/commit", kAlice, "", nil}.must(t, e, 200)
	call{"POST", "/v1/bookings/" + b.ID + "/cancel", kAlice, "", nil}.must(t, e, 200)

	bk := "bookings/" + b.ID
	wantProv := []string{"booking.held@" + bk, "booking.committed@" + bk, "posting.created@accounts/alice", "booking.cancelled@" + bk}
	for _, limit := range []int{1, 100} {
		got, _ := readEvents(t, e, kProv, "", "", limit)
		if !hasInOrder(got, wantProv) {
			t.Fatalf("provider, %d a page: %v\nwant in order %v", limit, got, wantProv)
		}
		for _, g := range got {
			if strings.HasPrefix(g, "invoice.updated") {
				t.Fatalf("the provider reads %s", g)
			}
		}
	}
	// The reader that stood at the end before the booking gets its
	// events from there.
	if got, _ := readEvents(t, e, kProv, "", end, 2); !hasInOrder(got, wantProv) || strings.HasPrefix(got[0], "booking.held") == false {
		t.Fatalf("from the earlier end: %v", got)
	}
	inv, last := readEvents(t, e, kBill, "type=invoice.updated,booking.cancelled", "", 100)
	if len(inv) < 2 || !strings.HasPrefix(inv[0], "invoice.updated@invoices/inv_") || !hasInOrder(inv, []string{"booking.cancelled@" + bk}) {
		t.Fatalf("billing's invoice updates: %v", inv)
	}
	for _, g := range inv {
		if !strings.HasPrefix(g, "invoice.updated") && !strings.HasPrefix(g, "booking.cancelled") {
			t.Fatalf("type filter let %s through", g)
		}
	}

	call{"GET", "/v1/events?after=" + url.QueryEscape(last), kBill, "", nil}.wantProblem(t, e, 400, "after")
	call{"GET", "/v1/events?type=invoice.updated,booking.cancelled&after=" + url.QueryEscape(last), kProv, "", nil}.wantProblem(t, e, 400, "after")
	call{"GET", "/v1/events?type=booking.booked", kProv, "", nil}.wantProblem(t, e, 422, "type[0]", "booking.booked")
	call{"GET", "/v1/events", kAlice, "", nil}.wantProblem(t, e, 403, "")

	svc.Close()
	store.Close()
	e, _ = newServerOn(t, t.TempDir(), openBolt(t, dir)) // the broker's files stay open in dir
	if got, _ := readEvents(t, e, kProv, "", "", 100); !hasInOrder(got, wantProv) {
		t.Fatalf("after a restart: %v", got)
	}
}

// hasInOrder reports whether want are in got in that order.
func hasInOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// openBolt opens the bbolt store in dir, closed when the test ends.
func openBolt(t *testing.T, dir string) *boltstore.Store {
	t.Helper()
	s, err := boltstore.Open(dir, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
