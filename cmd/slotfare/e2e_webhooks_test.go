package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestServeDeliversWebhooks: serve --webhooks-allow-private delivers a
// booking's events to a receiver on loopback by itself (its delivery loop
// and lease), and after kill -9 and a restart on the same data directory
// it goes on with the next booking's: every event is received, each id
// first seen in the log's order, duplicates only with the same id.
func TestServeDeliversWebhooks(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string // type@subject, in arrival order, ids first seen only
	seen := map[string]bool{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var e struct{ ID, Type, Subject string }
		json.Unmarshal(body, &e)
		mu.Lock()
		if !seen[r.Header.Get("webhook-id")] && e.ID == r.Header.Get("webhook-id") && r.Header.Get("webhook-signature") != "" {
			seen[e.ID] = true
			got = append(got, e.Type+"@"+e.Subject)
		}
		mu.Unlock()
	}))
	defer recv.Close()
	dir := t.TempDir()
	srv := startServer(t, dir, "--webhooks-allow-private")
	do(t, srv.base, "POST", "/v1/webhooks", "demo-billing", map[string]any{"url": recv.URL, "event_types": []string{"booking.held", "booking.committed"}}).want(t, 201)
	book := func(base string, h int) []string {
		st := time.Now().UTC().Truncate(24 * time.Hour).Add(3*24*time.Hour + time.Duration(h)*time.Hour)
		var b struct {
			ID string `json:"booking_id"`
		}
		do(t, base, "POST", "/v1/bookings", keyAlice, fmt.Sprintf(`{"resource_id":"RAL","start":%q,"end":%q,"nodes":1,"fare_class":"premium"}`,
			st.Format(time.RFC3339), st.Add(time.Hour).Format(time.RFC3339)), "Idempotency-Key", fmt.Sprintf("e2e-wh-%d", h)).want(t, 201).json(t, &b)
		do(t, base, "POST", "/v1/bookings/"+b.ID+"/commit", keyAlice, nil).want(t, 200)
		return []string{"booking.held@bookings/" + b.ID, "booking.committed@bookings/" + b.ID}
	}
	waitFor := func(want []string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			have := strings.Join(got, " ")
			mu.Unlock()
			if have == strings.Join(want, " ") {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("received %s\nwant %s", have, strings.Join(want, " "))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	first := book(srv.base, 10)
	waitFor(first)
	srv.kill()
	srv = startServer(t, dir, "--webhooks-allow-private")
	second := book(srv.base, 12)
	waitFor(append(first, second...))
}
