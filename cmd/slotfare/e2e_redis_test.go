package main

// Several replicas of the real binary on one real redis-server (issue 11):
// the invariants hold across processes because Redis enforces them.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"slotfare/booking/redisstore/redistest"
)

// durableRedis starts a redis-server set as serve requires: every write
// logged and synced before it is answered.
func durableRedis(t *testing.T, args ...string) *redistest.Server {
	t.Helper()
	return redistest.NewServer(t, append([]string{"--appendonly", "yes", "--appendfsync", "always"}, args...)...)
}

// startReplicas runs n serve processes on one Redis, each with its own
// --data directory, one after another.
func startReplicas(t *testing.T, n int, redisURL string, extra ...string) []*server {
	t.Helper()
	var rs []*server
	for i := range n {
		args := append([]string{"--redis", redisURL}, extra...)
		rs = append(rs, startServer(t, fmt.Sprintf("%s/replica-%d", t.TempDir(), i), args...))
	}
	return rs
}

// send is do for goroutines: it returns what went wrong instead of failing
// the test, which only the test's goroutine may do.
func send(base, method, path, key string, body any, hdr ...string) (reply, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return reply{}, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, err
	}
	return reply{resp.StatusCode, resp.Header, data}, nil
}

// raceConfig is the demo's keys with only the resources the replica tests
// book: OFF (6 nodes, no overbooking), ON (4 nodes, overbooked up to a
// limit above 4), and WIDE (60 nodes, for tests that are not about
// capacity). Few resources keep each replica's start short.
func raceConfig(t *testing.T, dir string) string {
	t.Helper()
	return configWith(t, dir, func(cfg map[string]any) {
		cfg["resources"] = []any{tinyResource(t, cfg, "OFF", 6, "none", "dcf"), tinyResource(t, cfg, "ON", 4, "risk", "dcf"),
			tinyResource(t, cfg, "WIDE", 60, "none", "dcf")}
	})
}

// allBookings lists every booking of the key's account, page by page.
func allBookings(t *testing.T, base, key string) []bookingJSON {
	t.Helper()
	var all []bookingJSON
	cursor := ""
	for {
		var page struct {
			Data       []bookingJSON `json:"data"`
			HasMore    bool          `json:"has_more"`
			NextCursor *string       `json:"next_cursor"`
		}
		do(t, base, "GET", "/v1/bookings?limit=1000&cursor="+url.QueryEscape(cursor), key, nil).want(t, 200).json(t, &page)
		all = append(all, page.Data...)
		if !page.HasMore || page.NextCursor == nil {
			return all
		}
		cursor = *page.NextCursor
	}
}

// ledgerKinds counts an account's ledger entries by kind and booking
// ("charge bk_...").
func ledgerKinds(t *testing.T, base, account string) map[string]int {
	t.Helper()
	kinds := map[string]int{}
	cursor := ""
	for {
		var page struct {
			Data []struct {
				Kind      string `json:"kind"`
				BookingID string `json:"booking_id"`
			} `json:"data"`
			HasMore    bool    `json:"has_more"`
			NextCursor *string `json:"next_cursor"`
		}
		do(t, base, "GET", "/v1/ledger/entries?limit=1000&account_id="+account+"&cursor="+url.QueryEscape(cursor), keyBilling, nil).want(t, 200).json(t, &page)
		for _, p := range page.Data {
			kinds[p.Kind+" "+p.BookingID]++
		}
		if !page.HasMore || page.NextCursor == nil {
			return kinds
		}
		cursor = *page.NextCursor
	}
}

// TestReplicasRaceForTheLastNodes is issue 11's race: three replicas on one
// Redis, 120 concurrent clients spread over them, each holding and
// committing one node of the same hour of one resource, of which three are
// left. Exactly the capacity is committed without overbooking (OFF), and
// exactly the overbooking limit with it (ON: 4 nodes, a limit of 7); no
// client gets a 5xx.
func TestReplicasRaceForTheLastNodes(t *testing.T) {
	rds := durableRedis(t)
	rs := startReplicas(t, 3, rds.URL(), "--config", raceConfig(t, t.TempDir()))
	t.Run("OFF", func(t *testing.T) { raceForLastNodes(t, rs, "OFF", false) })
	t.Run("ON", func(t *testing.T) { raceForLastNodes(t, rs, "ON", true) })
}

// raceForLastNodes runs the race on resource: all but three of the nodes
// that may be committed at one hour (the capacity, or the overbooking limit
// when overbook) are committed first, then 120 clients spread over the
// replicas race for the rest. Exactly that many are committed, as the
// answers and the stored bookings say, and no answer is a 5xx.
func raceForLastNodes(t *testing.T, rs []*server, resource string, overbook bool) {
	t.Helper()
	start := nextWeekday(time.Now())
	end := start.Add(time.Hour)
	// The most that may be committed at that hour, as booking
	// control reports it.
	var lim struct {
		Periods []struct {
			Capacity         int `json:"capacity"`
			OverbookingLimit int `json:"overbooking_limit"`
		} `json:"periods"`
	}
	do(t, rs[0].base, "GET", "/v1/resources/"+resource+"/limits?from="+start.Format(time.RFC3339)+"&to="+end.Format(time.RFC3339), keyProvider, nil).want(t, 200).json(t, &lim)
	if len(lim.Periods) != 1 {
		t.Fatalf("limits of one hour in one period: %+v", lim)
	}
	want := lim.Periods[0].Capacity
	if overbook {
		want = lim.Periods[0].OverbookingLimit
		if want <= lim.Periods[0].Capacity {
			t.Fatalf("overbooking limit %d is not above the capacity %d: the case would not test overbooking", want, lim.Periods[0].Capacity)
		}
	} else if lim.Periods[0].OverbookingLimit != want {
		t.Fatalf("without overbooking the limit %d should be the capacity %d", lim.Periods[0].OverbookingLimit, want)
	}
	// All but three nodes are taken before the race, on one replica.
	pre := holdDirect(t, rs[0].base, keyAlice, resource, "premium", start, end, want-3, "pre-"+resource).want(t, 201)
	var b bookingJSON
	pre.json(t, &b)
	act(t, rs[0].base, keyAlice, b.ID, "commit", 200)

	const clients = 120
	type outcome struct {
		hold, commit int
		id           string
		err          error
	}
	out := make([]outcome, clients)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range clients {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			base := rs[i%len(rs)].base
			key := []string{keyAlice, keyBob}[i%2]
			<-gate
			r, err := send(base, "POST", "/v1/bookings", key, map[string]any{
				"resource_id": resource, "start": start.Format(time.RFC3339), "end": end.Format(time.RFC3339), "nodes": 1, "fare_class": "premium",
			}, "Idempotency-Key", fmt.Sprintf("race-%s-%d", resource, i))
			if err != nil {
				out[i].err = err
				return
			}
			out[i].hold = r.status
			if r.status != 201 {
				return
			}
			var h bookingJSON
			if err := json.Unmarshal(r.body, &h); err != nil {
				out[i].err = err
				return
			}
			out[i].id = h.ID
			r, err = send(base, "POST", "/v1/bookings/"+h.ID+"/commit", key, nil)
			if err != nil {
				out[i].err = err
				return
			}
			out[i].commit = r.status
			if r.status != 200 {
				out[i].err = fmt.Errorf("commit %s: %d %s", h.ID, r.status, r.body)
			}
		}(i)
	}
	close(gate)
	wg.Wait()
	committed := want - 3
	statuses := map[int]int{}
	for i, o := range out {
		if o.err != nil {
			t.Errorf("client %d: %v", i, o.err)
		}
		statuses[o.hold]++
		if o.hold >= 500 || o.commit >= 500 {
			t.Errorf("client %d: a 5xx (hold %d, commit %d)", i, o.hold, o.commit)
		}
		if o.hold != 201 && o.hold != 409 {
			t.Errorf("client %d: hold answered %d, want 201 or 409 (no room)", i, o.hold)
		}
		if o.commit == 200 {
			committed++
		}
	}
	if committed != want {
		t.Errorf("%d nodes committed at %s, want exactly %d (hold statuses %v)", committed, start.Format(time.RFC3339), want, statuses)
	}
	// What the store holds, read through another replica.
	stored := 0
	for _, key := range []string{keyAlice, keyBob} {
		for _, b := range allBookings(t, rs[2].base, key) {
			if b.ResourceID == resource && b.Status == "committed" {
				stored += b.Nodes
			}
		}
	}
	if stored != want {
		t.Errorf("the replicas list %d committed nodes on %s, want %d", stored, resource, want)
	}
}

// TestReplicasShareIdempotencyKeys sends one hold with one Idempotency-Key
// to three replicas at once, ten times: each time one booking is made, every
// successful answer names it, and a later retry replays it.
func TestReplicasShareIdempotencyKeys(t *testing.T) {
	rds := durableRedis(t)
	dir := t.TempDir()
	rs := startReplicas(t, 3, rds.URL(), "--config", raceConfig(t, dir))
	day := nextWeekday(time.Now())
	made := map[string]bool{}
	for round := range 10 {
		start := day.Add(time.Duration(round) * time.Hour)
		body := map[string]any{"resource_id": "WIDE", "start": start.Format(time.RFC3339), "end": start.Add(time.Hour).Format(time.RFC3339), "nodes": 1, "fare_class": "premium"}
		key := fmt.Sprintf("same-key-%d", round)
		answers := make([]reply, len(rs))
		errs := make([]error, len(rs))
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for i, s := range rs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate
				answers[i], errs[i] = send(s.base, "POST", "/v1/bookings", keyAlice, body, "Idempotency-Key", key)
			}()
		}
		close(gate)
		wg.Wait()
		ids := map[string]bool{}
		for i, a := range answers {
			if errs[i] != nil {
				t.Fatalf("round %d, replica %d: %v", round, i, errs[i])
			}
			switch a.status {
			case 201:
				var b bookingJSON
				a.json(t, &b)
				ids[b.ID] = true
			case 409:
				// The key is being used by the same request elsewhere:
				// the client retries.
				a.problem(t)
			default:
				t.Fatalf("round %d, replica %d: status %d: %s", round, i, a.status, a.body)
			}
		}
		if len(ids) != 1 {
			t.Fatalf("round %d: the answers name bookings %v, want exactly one", round, ids)
		}
		var id string
		for id = range ids {
		}
		// A retry, once all have answered, replays the booking on any replica.
		for i, s := range rs {
			var b bookingJSON
			r := do(t, s.base, "POST", "/v1/bookings", keyAlice, body, "Idempotency-Key", key).want(t, 201)
			r.json(t, &b)
			if b.ID != id || r.header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("round %d: retry on replica %d gave %s (replayed %q), want %s replayed", round, i, b.ID, r.header.Get("Idempotent-Replayed"), id)
			}
		}
		made[id] = true
	}
	// The account has exactly the ten bookings on WIDE, one per key.
	n := 0
	for _, b := range allBookings(t, rs[1].base, keyAlice) {
		if b.ResourceID == "WIDE" {
			n++
			if !made[b.ID] {
				t.Errorf("booking %s was made but no answer named it", b.ID)
			}
		}
	}
	if n != len(made) {
		t.Errorf("alice has %d bookings on WIDE, want %d", n, len(made))
	}
}

// TestReplicaRidesOutRedisDown kills the redis-server under a running
// replica: requests get 503 problem+json with Retry-After and /readyz
// fails; what was attempted meanwhile is not half-written. Redis restarts
// from its append-only file and the same process serves again, with the
// bookings acknowledged before.
func TestReplicaRidesOutRedisDown(t *testing.T) {
	t.Parallel() // waits on real tickers and child processes, not on the CPU
	rds := durableRedis(t)
	dir := t.TempDir()
	s := startReplicas(t, 1, rds.URL(), "--config", raceConfig(t, dir))[0]
	start := nextWeekday(time.Now())
	var before, held bookingJSON
	holdDirect(t, s.base, keyAlice, "WIDE", "premium", start, start.Add(time.Hour), 2, "before-down").want(t, 201).json(t, &before)
	act(t, s.base, keyAlice, before.ID, "commit", 200)
	holdDirect(t, s.base, keyAlice, "WIDE", "premium", start, start.Add(time.Hour), 1, "held-before-down").want(t, 201).json(t, &held)

	rds.Kill()
	down := []struct {
		name, method, path, key string
		body                    any
		hdr                     []string
	}{
		{"hold", "POST", "/v1/bookings", keyAlice, map[string]any{"resource_id": "WIDE", "start": start.Format(time.RFC3339), "end": start.Add(time.Hour).Format(time.RFC3339), "nodes": 3, "fare_class": "premium"}, []string{"Idempotency-Key", "during-down"}},
		{"commit", "POST", "/v1/bookings/" + held.ID + "/commit", keyAlice, nil, nil},
		{"get", "GET", "/v1/bookings/" + before.ID, keyAlice, nil, nil},
		{"offers", "POST", "/v1/offers", keyAlice, map[string]any{"resource_id": "WIDE", "earliest_start": start.Format(time.RFC3339), "latest_end": start.Add(2 * time.Hour).Format(time.RFC3339), "duration_seconds": 3600, "nodes": 1, "fare_class": "premium"}, nil},
	}
	for _, d := range down {
		r, err := send(s.base, d.method, d.path, d.key, d.body, d.hdr...)
		if err != nil {
			t.Fatalf("%s with Redis down: %v", d.name, err)
		}
		if r.status != 503 {
			t.Fatalf("%s with Redis down: status %d, want 503: %s", d.name, r.status, r.body)
		}
		r.problem(t)
		if r.header.Get("Retry-After") == "" {
			t.Errorf("%s with Redis down: 503 without Retry-After", d.name)
		}
	}
	do(t, s.base, "GET", "/readyz", "", nil).want(t, 503).problem(t)
	do(t, s.base, "GET", "/healthz", "", nil).want(t, 200)

	rds.Restart()
	deadline := time.Now().Add(15 * time.Second)
	for {
		r, err := send(s.base, "GET", "/readyz", "", nil)
		if err == nil && r.status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz did not recover within 15 s of Redis's return: %v %d %s", err, r.status, r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// What was acknowledged is there; what failed left nothing.
	if b := getBooking(t, s.base, keyAlice, before.ID); b.Status != "committed" {
		t.Errorf("booking committed before Redis went down reads %s", b.Status)
	}
	if b := getBooking(t, s.base, keyAlice, held.ID); b.Status != "held" {
		t.Errorf("the hold whose commit got a 503 reads %s, want held", b.Status)
	}
	kinds := ledgerKinds(t, s.base, "alice")
	if kinds["charge "+held.ID] != 0 || kinds["charge "+before.ID] != 1 {
		t.Errorf("ledger after the outage: %v; want one charge for %s and none for %s", kinds, before.ID, held.ID)
	}
	n := 0
	for _, b := range allBookings(t, s.base, keyAlice) {
		if b.ResourceID == "WIDE" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("alice has %d bookings on WIDE after the outage, want the 2 made before it", n)
	}
	// And the same process serves again: the refused requests now succeed.
	var late bookingJSON
	holdDirect(t, s.base, keyAlice, "WIDE", "premium", start, start.Add(time.Hour), 3, "during-down").want(t, 201).json(t, &late)
	act(t, s.base, keyAlice, late.ID, "commit", 200)
	act(t, s.base, keyAlice, held.ID, "commit", 200)
}

// TestServeRedisDurability: serve refuses, with exit 2 and the redis.conf
// lines, a Redis that does not sync every write; starts on it with
// --redis-unsafe, saying what it accepted; where CONFIG is disabled
// starts, saying what it could not check; and refuses a Redis that will
// not load its function library.
func TestServeRedisDurability(t *testing.T) {
	t.Parallel() // waits on real tickers and child processes, not on the CPU
	bin := slotfareBinary(t)
	lax := redistest.NewServer(t) // appendonly no
	out, err := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--redis", lax.URL()).CombinedOutput()
	var ee *exec.ExitError
	if err == nil || !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("serve on a Redis without appendonly: %v, want exit 2\n%s", err, out)
	}
	for _, want := range []string{"refusing to start", "appendonly yes", "appendfsync always", "--redis-unsafe"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}

	// The URL given out of sight of ps: by a file, or by the environment.
	secret := filepath.Join(t.TempDir(), "redis-url")
	if err := os.WriteFile(secret, []byte("# the shared Redis\n"+lax.URL()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A serve that ignored them would start on the embedded store and run
	// until killed: the context ends it so that the test fails, not hangs.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fromFile := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--redis-file", secret)
	fromEnv := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir())
	fromEnv.Env = append(os.Environ(), "SLOTFARE_REDIS_URL="+lax.URL())
	for _, c := range []*exec.Cmd{fromFile, fromEnv} {
		if out, err := c.CombinedOutput(); !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "refusing to start") {
			t.Errorf("%v (env %v) did not reach the Redis it names: %v\n%s", c.Args, c.Env[len(c.Env)-1:], err, out)
		}
	}

	s := startServer(t, t.TempDir(), "--redis", lax.URL(), "--redis-unsafe")
	if !strings.Contains(s.stderr.String(), "warning") || !strings.Contains(s.stderr.String(), "appendonly") {
		t.Errorf("--redis-unsafe started without saying what it accepted:\n%s", s.stderr)
	}
	s.stop()

	managed := durableRedis(t, "--rename-command", "CONFIG", "")
	m := startServer(t, t.TempDir(), "--redis", managed.URL())
	if !strings.Contains(m.stderr.String(), "could not check durability") {
		t.Errorf("serve on a Redis without CONFIG did not say what it could not check:\n%s", m.stderr)
	}

	// A Redis that will not load slotfare's function library (as one
	// before 7.0 would not): refused at start, saying what it needs.
	noFunctions := durableRedis(t, "--rename-command", "FUNCTION", "")
	out, err = exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--redis", noFunctions.URL()).CombinedOutput()
	if err == nil || !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("serve on a Redis without FUNCTION: %v, want exit 2\n%s", err, out)
	}
	for _, want := range []string{"refusing to start", "function library", "Redis 7.0"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
}

// TestServeRedisCluster runs two replicas on a real three-master Redis
// Cluster, named by repeating --redis: a hold on one replica is committed
// on the other, on resources whose keys live on different masters.
func TestServeRedisCluster(t *testing.T) {
	t.Parallel() // waits on real tickers and child processes, not on the CPU
	cluster := redistest.StartCluster(t)
	var args []string
	for _, a := range cluster.Options().Addrs {
		args = append(args, "--redis", "redis://"+a)
	}
	// The test cluster does not sync every write; durability is
	// TestServeRedisDurability's.
	args = append(args, "--redis-unsafe")
	a := startServer(t, t.TempDir(), args...)
	b := startServer(t, t.TempDir(), args...)
	start := nextWeekday(time.Now())
	for i, res := range []string{"RAL", "CERN", "Bologna", "Lyon"} {
		var h bookingJSON
		holdDirect(t, a.base, keyAlice, res, "premium", start, start.Add(time.Hour), 1, fmt.Sprintf("cluster-%d", i)).want(t, 201).json(t, &h)
		if c := act(t, b.base, keyAlice, h.ID, "commit", 200); c.Status != "committed" {
			t.Fatalf("commit on the other replica: %+v", c)
		}
	}
	do(t, b.base, "GET", "/readyz", "", nil).want(t, 200)
	if got := ledgerKinds(t, a.base, "alice"); len(got) != 4 {
		t.Errorf("ledger on the cluster: %v, want 4 charges", got)
	}

	// A node of the cluster named alone is refused with the way to name it.
	out, err := exec.Command(slotfareBinary(t), "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--redis", "redis://"+cluster.Options().Addrs[0], "--redis-unsafe").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "repeat") && !strings.Contains(string(out), "each master") {
		t.Errorf("serve on one cluster node: %v\n%s", err, out)
	}
}

// TestServeRedisUnixSocket: replicas on Redis's host may reach it through its
// Unix socket (unix:// URL; README "Redis"), the durability check and the
// whole flow included: a hold on one replica commits on the other.
func TestServeRedisUnixSocket(t *testing.T) {
	sock := t.TempDir() + "/redis.sock"
	durableRedis(t, "--unixsocket", sock, "--unixsocketperm", "700")
	a := startServer(t, t.TempDir(), "--redis", "unix://"+sock)
	b := startServer(t, t.TempDir(), "--redis", "unix://"+sock)
	start := nextWeekday(time.Now())
	var h bookingJSON
	holdDirect(t, a.base, keyAlice, "RAL", "premium", start, start.Add(time.Hour), 1, "unix-1").want(t, 201).json(t, &h)
	if c := act(t, b.base, keyAlice, h.ID, "commit", 200); c.Status != "committed" {
		t.Fatalf("commit on the other replica: %+v", c)
	}
	if got := ledgerKinds(t, a.base, "alice"); len(got) != 1 || got["charge "+h.ID] != 1 {
		t.Errorf("ledger over the socket: %v, want one charge of %s", got, h.ID)
	}
}

// TestBenchAPIOnRedisReplicas runs bench api briefly with three in-process
// replicas on a real Redis: flows complete without errors, the target names
// the three replicas, Redis's share of a flow is reported (its CPU, and at
// least the scripts of a hold's and a commit's steps, with the commands
// of the offer's read beside them), and the run's keys are gone afterwards.
func TestBenchAPIOnRedisReplicas(t *testing.T) {
	rds := durableRedis(t)
	var out, errb bytes.Buffer
	if code := run([]string{"bench", "api", "--redis", rds.URL(), "--replicas", "3", "--clients", "6", "--duration", "1s"}, &out, &errb); code != 0 {
		t.Fatalf("bench api --redis --replicas 3: exit %d: %s", code, errb.String())
	}
	var r apiBenchResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("bench api printed %q: %v", out.String(), err)
	}
	if r.Flows < 1 || r.Errors != 0 || r.P99ms < r.P50ms || !strings.HasPrefix(r.Target, "3 in-process replicas") {
		t.Fatalf("bench api on 3 replicas: %s", out.String())
	}
	if n := strings.Count(r.Target, "http://"); n != 3 {
		t.Errorf("target names %d replicas: %s", n, r.Target)
	}
	if r.RedisCPUusPerFlow <= 0 || r.RedisScriptsPerFlow < 2 || r.RedisCommandsPerFlow < r.RedisScriptsPerFlow+4 {
		t.Errorf("Redis's share of a flow: %s", out.String())
	}
	rdb := redistest.Connect(t, rds.Addr)
	keys, err := rdb.Keys(t.Context(), "sfbench*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 0 {
		t.Errorf("%d keys of the run left in Redis, e.g. %s", len(keys), keys[0])
	}
}

// TestReplicasCommitRacesCancel holds a booking on one replica, then
// commits it on a second while a third cancels it, twelve times. The answers
// and the stored outcome agree (every replica reads the same status), no
// answer is a 5xx, and the ledger has at most one charge per booking: one
// exactly when the commit was acknowledged. The ledger is read from the
// account's postings, which two replicas may index out of a booking's order.
func TestReplicasCommitRacesCancel(t *testing.T) {
	rds := durableRedis(t)
	dir := t.TempDir()
	rs := startReplicas(t, 3, rds.URL(), "--config", raceConfig(t, dir))
	day := nextWeekday(time.Now())
	type round struct {
		id             string
		commit, cancel int
	}
	var rounds []round
	for i := range 12 {
		start := day.Add(time.Duration(i) * time.Hour)
		var b bookingJSON
		holdDirect(t, rs[0].base, keyAlice, "WIDE", "premium", start, start.Add(time.Hour), 1, fmt.Sprintf("race-cc-%d", i)).want(t, 201).json(t, &b)
		var commit, cancel reply
		var commitErr, cancelErr error
		var wg sync.WaitGroup
		gate := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-gate
			commit, commitErr = send(rs[1].base, "POST", "/v1/bookings/"+b.ID+"/commit", keyAlice, nil)
		}()
		go func() {
			defer wg.Done()
			<-gate
			cancel, cancelErr = send(rs[2].base, "POST", "/v1/bookings/"+b.ID+"/cancel", keyAlice, nil)
		}()
		close(gate)
		wg.Wait()
		if commitErr != nil || cancelErr != nil {
			t.Fatalf("round %d: commit %v, cancel %v", i, commitErr, cancelErr)
		}
		for what, r := range map[string]reply{"commit": commit, "cancel": cancel} {
			if r.status != 200 && r.status != 409 {
				t.Fatalf("round %d: %s answered %d, want 200 or 409: %s", i, what, r.status, r.body)
			}
			if r.status == 409 {
				r.problem(t)
			}
		}
		if commit.status != 200 && cancel.status != 200 {
			t.Fatalf("round %d: neither commit nor cancel succeeded", i)
		}
		// The stored outcome is the one the answers imply: cancelled when
		// the cancel was acknowledged (a commit before it stays charged and
		// is refunded), committed when only the commit was.
		want := "cancelled"
		if cancel.status != 200 {
			want = "committed"
		}
		for j, s := range rs {
			if got := getBooking(t, s.base, keyAlice, b.ID).Status; got != want {
				t.Fatalf("round %d: replica %d reads %s as %s, want %s (commit %d, cancel %d)", i, j, b.ID, got, want, commit.status, cancel.status)
			}
		}
		rounds = append(rounds, round{b.ID, commit.status, cancel.status})
	}
	kinds := ledgerKinds(t, rs[0].base, "alice")
	for i, r := range rounds {
		charges := kinds["charge "+r.id]
		wantCharges := 0
		if r.commit == 200 {
			wantCharges = 1
		}
		if charges != wantCharges {
			t.Errorf("round %d: booking %s has %d charges, want %d (commit %d, cancel %d)", i, r.id, charges, wantCharges, r.commit, r.cancel)
		}
		if refunds := kinds["refund "+r.id]; refunds > charges {
			t.Errorf("round %d: booking %s has %d refunds for %d charges", i, r.id, refunds, charges)
		}
	}
}

// TestReplicaKilledUnderLoadThenRedisRestarts: clients hold and commit on
// two replicas of one Redis (append-only file, fsync always); one replica is
// killed with SIGKILL in the middle of it, then redis-server itself is
// killed and restarted from its append-only file. Every commit a replica
// acknowledged reads committed on the survivor, charged exactly once, and
// no booking is charged twice.
func TestReplicaKilledUnderLoadThenRedisRestarts(t *testing.T) {
	t.Parallel() // waits on real tickers and child processes, not on the CPU
	rds := durableRedis(t)
	rs := startReplicas(t, 2, rds.URL(), "--config", raceConfig(t, t.TempDir()))
	day := nextWeekday(time.Now())
	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := rs[w%2].base
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				start := day.Add(time.Duration((w*37+i)%200) * time.Hour)
				r, err := send(base, "POST", "/v1/bookings", keyAlice, map[string]any{"resource_id": "WIDE", "start": start.Format(time.RFC3339),
					"end": start.Add(time.Hour).Format(time.RFC3339), "nodes": 1, "fare_class": "premium"}, "Idempotency-Key", fmt.Sprintf("kill-%d-%d", w, i))
				if err != nil || r.status != 201 {
					continue // the killed replica, or a full hour
				}
				var b bookingJSON
				if json.Unmarshal(r.body, &b) != nil {
					continue
				}
				r, err = send(base, "POST", "/v1/bookings/"+b.ID+"/commit", keyAlice, nil)
				if err == nil && r.status == 200 {
					mu.Lock()
					acked = append(acked, b.ID)
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	rs[0].kill()
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()
	rds.Kill()
	rds.Restart()
	deadline := time.Now().Add(15 * time.Second)
	for {
		r, err := send(rs[1].base, "GET", "/readyz", "", nil)
		if err == nil && r.status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the surviving replica is not ready 15 s after Redis restarted")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(acked) < 10 {
		t.Fatalf("only %d commits acknowledged under load", len(acked))
	}
	t.Logf("%d commits acknowledged before and after the kill", len(acked))
	kinds := ledgerKinds(t, rs[1].base, "alice")
	for _, id := range acked {
		if b := getBooking(t, rs[1].base, keyAlice, id); b.Status != "committed" {
			t.Errorf("acknowledged commit %s reads %s after the kill and Redis's restart", id, b.Status)
		}
		if n := kinds["charge "+id]; n != 1 {
			t.Errorf("acknowledged commit %s has %d charges", id, n)
		}
	}
	for k, n := range kinds {
		if strings.HasPrefix(k, "charge ") && n > 1 {
			t.Errorf("%s posted %d times", k, n)
		}
	}
}
