package main

import (
	"fmt"
	"sync"
	"testing"
)

// TestReplicasShareKeyChangesAtOnce: two serve processes on one Redis. A
// key made on one authenticates on the other at once; once its DELETE has
// answered 204 on one, the very next request with it is 401 on both. Keys
// of one new account made on both at once with two VOs: one is 201, the
// other 409 naming vo.
func TestReplicasShareKeyChangesAtOnce(t *testing.T) {
	rds := durableRedis(t)
	rs := startReplicas(t, 2, rds.URL(), "--config", raceConfig(t, t.TempDir()))
	a, b := rs[0].base, rs[1].base
	var made struct {
		Key string `json:"key"`
	}
	do(t, a, "POST", "/v1/keys", keyProvider, map[string]any{"name": "carol", "role": "user", "account_id": "carol", "vo": "1"}).want(t, 201).json(t, &made)
	do(t, b, "GET", "/v1/bookings", made.Key, nil).want(t, 200)
	do(t, b, "DELETE", "/v1/keys/carol", keyProvider, nil).want(t, 204)
	do(t, a, "GET", "/v1/bookings", made.Key, nil).want(t, 401)
	do(t, b, "GET", "/v1/bookings", made.Key, nil).want(t, 401)

	for round := range 5 {
		account := fmt.Sprintf("newcomer-%d", round)
		answers := make([]reply, 2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for i, s := range rs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate
				body := map[string]any{"name": fmt.Sprintf("%s-%d", account, i), "role": "user", "account_id": account, "vo": fmt.Sprint(i + 1)}
				answers[i], errs[i] = send(s.base, "POST", "/v1/keys", keyProvider, body)
			}()
		}
		close(gate)
		wg.Wait()
		got := map[int]int{}
		for i, r := range answers {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			got[r.status]++
			if r.status == 409 {
				if p := r.problem(t); len(p.Errors) != 1 || p.Errors[0].Field != "vo" {
					t.Fatalf("round %d: the refusal names %+v, want vo", round, p.Errors)
				}
			}
		}
		if got[201] != 1 || got[409] != 1 {
			t.Fatalf("round %d: answers by status %v, want one 201 and one 409", round, got)
		}
	}
}
