package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestE2ECrashUnderLoad commits bookings from concurrent clients, kills the
// server with SIGKILL in the middle of the load, restarts it on the same
// data directory and checks that every commit the API acknowledged (200) is
// committed with exactly one charge in the ledger, and no booking has two.
func TestE2ECrashUnderLoad(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	base := s.base

	type ack struct{ id, key string }
	var mu sync.Mutex
	var acked []ack
	var stop atomic.Bool
	var seq atomic.Int64
	day0 := nextWeekday(time.Now()).Truncate(24 * time.Hour)
	client := &http.Client{Timeout: 10 * time.Second}
	post := func(path, key, idem string, body any) (int, []byte) {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest("POST", base+path, rd)
		req.Header.Set("Authorization", "Bearer "+key)
		if rd != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if idem != "" {
			req.Header.Set("Idempotency-Key", idem)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, data
	}
	resources := map[string][]string{keyAlice: {"RAL", "Imperial"}, keyBob: {"NorduGrid", "NIKHEF"}}
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			key := keyAlice
			if i%2 == 1 {
				key = keyBob
			}
			for !stop.Load() {
				n := seq.Add(1)
				res := resources[key][n%2]
				st := day0.Add(time.Duration(n%(60*24)) * time.Hour)
				code, body := post("/v1/bookings", key, fmt.Sprintf("crash-%d", n), map[string]any{
					"resource_id": res, "start": st.Format(time.RFC3339), "end": st.Add(time.Hour).Format(time.RFC3339), "nodes": 1, "fare_class": "premium",
				})
				if code != 201 {
					continue
				}
				var b bookingJSON
				if json.Unmarshal(body, &b) != nil {
					continue
				}
				if code, _ := post("/v1/bookings/"+b.ID+"/commit", key, "", nil); code == 200 {
					mu.Lock()
					acked = append(acked, ack{b.ID, key})
					mu.Unlock()
				}
			}
		}(i)
	}
	// Let the load run, then crash the server under it.
	deadline := time.Now().Add(20 * time.Second)
	for {
		time.Sleep(200 * time.Millisecond)
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 200 || time.Now().After(deadline) {
			break
		}
	}
	s.kill()
	stop.Store(true)
	wg.Wait()
	if len(acked) < 20 {
		t.Fatalf("only %d commits acknowledged before the crash", len(acked))
	}

	s2 := startServer(t, dir)
	for _, a := range acked {
		b := getBooking(t, s2.base, a.key, a.id)
		if b.Status != "committed" {
			t.Fatalf("acknowledged commit %s is %s after the crash", a.id, b.Status)
		}
	}
	for _, account := range []string{"alice", "bob"} {
		charges := map[string]int{}
		cursor := ""
		for {
			q := url.Values{"account_id": {account}, "limit": {"1000"}}
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			var page struct {
				Data []struct {
					Kind      string `json:"kind"`
					BookingID string `json:"booking_id"`
				} `json:"data"`
				HasMore    bool    `json:"has_more"`
				NextCursor *string `json:"next_cursor"`
			}
			do(t, s2.base, "GET", "/v1/ledger/entries?"+q.Encode(), keyBilling, nil).want(t, 200).json(t, &page)
			for _, p := range page.Data {
				if p.Kind == "charge" {
					charges[p.BookingID]++
				}
			}
			if !page.HasMore || page.NextCursor == nil {
				break
			}
			cursor = *page.NextCursor
		}
		for id, n := range charges {
			if n != 1 {
				t.Fatalf("booking %s has %d charges", id, n)
			}
		}
		for _, a := range acked {
			if (a.key == keyAlice) == (account == "alice") && charges[a.id] != 1 {
				t.Fatalf("acknowledged commit %s of %s has %d charges after the crash", a.id, account, charges[a.id])
			}
		}
	}
	t.Logf("%d acknowledged commits survived SIGKILL, each with one charge", len(acked))
}
