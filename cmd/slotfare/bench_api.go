package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/redisstore"
)

func init() {
	register("bench api", command{
		summary: "load-test the HTTP service: offer+hold+commit flows from concurrent clients",
		run:     runBenchAPI,
	})
}

// apiBenchResult is the one JSON line bench api prints. Latencies are of whole
// flows (offer, hold, commit: three requests), the stricter measure.
type apiBenchResult struct {
	Flows          int64   `json:"flows"`
	FlowsPerSecond float64 `json:"flows_per_second"`
	P50ms          float64 `json:"p50_ms"`
	P99ms          float64 `json:"p99_ms"`
	Errors         int64   `json:"errors"`
	SoldOut        int64   `json:"sold_out"`
	RequestP99ms   float64 `json:"request_p99_ms"`
	CPUusPerFlow   float64 `json:"cpu_us_per_flow"`
	// SchedP99ms is the 99th percentile of how long this process's
	// goroutines waited to run once runnable during the run (runtime/metrics
	// /sched/latencies, bucket upper bound): with every flow passing through
	// a dozen or so such waits, it is what sets the flow's tail on a busy
	// machine. It covers the server only when it runs in-process.
	SchedP99ms float64 `json:"sched_p99_ms"`
	// Redis's share of a flow, with --redis (the whole server's, or every
	// master's: other clients of it count too): its CPU, the commands it
	// ran (those scripts called included), and the scripts.
	RedisCPUusPerFlow    float64 `json:"redis_cpu_us_per_flow,omitempty"`
	RedisCommandsPerFlow float64 `json:"redis_commands_per_flow,omitempty"`
	RedisScriptsPerFlow  float64 `json:"redis_scripts_per_flow,omitempty"`
	// Host is what the whole machine's CPUs did during the run (Linux).
	Host    *hostShare `json:"host,omitempty"`
	Clients int        `json:"clients"`
	Seconds float64    `json:"seconds"`
	Target  string     `json:"target"`
}

// benchAPIOptions are bench api's flags, checked.
type benchAPIOptions struct {
	base                                 string // --url without its slash; "" = in-process
	clients                              int
	duration                             time.Duration
	resources                            []string
	fareClass                            string
	userKeys                             []string
	storeKind                            string
	cpuProfile, memProfile, blockProfile string
	redis                                bool
	redisTarget                          redisTarget
	redisUnsafe                          bool
	replicas                             int
}

func runBenchAPI(args []string, stdout, stderr io.Writer) error {
	o, err := parseBenchAPI(args, stderr)
	if err != nil {
		return err
	}
	t, err := startBenchTargets(o, stderr)
	if err != nil {
		return err
	}
	defer t.close()
	client := &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConns:        o.clients * 2,
			MaxIdleConnsPerHost: o.clients * 2,
			IdleConnTimeout:     time.Minute,
		},
	}
	ids := o.resources
	if len(ids) == 0 {
		if ids, err = listResources(client, t.bases[0], o.userKeys[0]); err != nil {
			return err
		}
	}
	if len(ids) == 0 {
		return slotfare.E(slotfare.Op("bench api"), slotfare.Other, "the server has no resources")
	}
	stopProfiles, err := startBenchProfiles(o, stderr)
	if err != nil {
		return err
	}
	defer stopProfiles()
	r, err := measureFlows(o, t, ids, stderr)
	if err != nil {
		return err
	}
	return writeJSON(stdout, r)
}

// parseBenchAPI reads and checks bench api's flags.
func parseBenchAPI(args []string, stderr io.Writer) (benchAPIOptions, error) {
	fs := newFlags("bench api", stderr)
	url := fs.String("url", "", "base URL of a running server (default: start one in-process on loopback with a fresh data dir)")
	clients := fs.Int("clients", 64, "concurrent clients")
	duration := fs.Duration("duration", 10*time.Second, "how long to run")
	resources := fs.String("resources", "", "comma-separated resource ids to book (default: every resource the server lists)")
	fareClass := fs.String("fare-class", "premium", "fare class asked for")
	keys := fs.String("keys", "demo-alice,demo-bob", "comma-separated user API keys, spread over the clients")
	storeKind := fs.String("store", "bbolt", "store of the in-process server: bbolt, the only one")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run (server included when in-process) to this file")
	memProfile := fs.String("memprofile", "", "write where the run allocated (server included when in-process) to this file (pprof -sample_index=alloc_space or alloc_objects)")
	blockProfile := fs.String("blockprofile", "", "write where goroutines waited on locks and channels during the run (server included when in-process) to this file")
	var redisFlag redisURLs
	fs.Var(&redisFlag, "redis", "run the in-process replicas on this Redis (redis://host:port[/db]; repeat it for each master of a Redis Cluster), their keys under a fresh prefix deleted after the run")
	redisUnsafe := fs.Bool("redis-unsafe", false, "run on a Redis that is not set to appendonly yes and appendfsync always (what serve would refuse)")
	replicas := fs.Int("replicas", 1, "in-process replicas sharing --redis, each with its own data dir; clients are spread over them")
	if err := parseFlags(fs, args); err != nil {
		return benchAPIOptions{}, err
	}
	o := benchAPIOptions{base: strings.TrimRight(*url, "/"), clients: *clients, duration: *duration,
		resources: splitKeyList(*resources), fareClass: *fareClass, userKeys: splitKeyList(*keys), storeKind: *storeKind,
		cpuProfile: *cpuProfile, memProfile: *memProfile, blockProfile: *blockProfile,
		redis: flagSet(fs, "redis"), redisUnsafe: *redisUnsafe, replicas: *replicas}
	var bad flagProblems
	if o.clients < 1 || o.clients > 10000 {
		bad.add(badFlag("clients", "must be in 1..10000"))
	}
	if o.duration <= 0 || o.duration > time.Hour {
		bad.add(badFlag("duration", "must be in (0, 1h]"))
	}
	bad.add(checkStoreKind(o.storeKind))
	if len(o.userKeys) == 0 {
		bad.add(badFlag("keys", "needs at least one key"))
	}
	if o.base != "" && (!strings.HasPrefix(o.base, "http://") || strings.Count(o.base, "/") != 2) {
		bad.add(badFlag("url", "must be http://host:port (plain HTTP, no path)"))
	}
	if o.redis {
		var err error
		o.redisTarget, err = parseRedis(redisFlag)
		bad.add(err)
		if o.base != "" {
			bad.add(badFlag("redis", "starts in-process replicas: leave out --url"))
		}
	} else if o.redisUnsafe {
		bad.add(badFlag("redis-unsafe", "only means something with --redis"))
	}
	if o.replicas < 1 || o.replicas > 16 {
		bad.add(badFlag("replicas", "must be in 1..16"))
	} else if o.replicas > 1 && !o.redis {
		bad.add(badFlag("replicas", "replicas share their state on Redis: give --redis too"))
	}
	return o, bad.err()
}

// benchTargets are the servers the clients are spread over: the --url, or
// the in-process replicas; usageOf is the Redis whose usage the run
// reports (nil without --redis).
type benchTargets struct {
	bases   []string
	target  string
	usageOf redis.UniversalClient
	close   func()
}

func startBenchTargets(o benchAPIOptions, stderr io.Writer) (benchTargets, error) {
	if o.base != "" {
		return benchTargets{bases: []string{o.base}, target: o.base, close: func() {}}, nil
	}
	dir, err := os.MkdirTemp("", "slotfare-bench-")
	if err != nil {
		return benchTargets{}, err
	}
	if !o.redis {
		srv, err := startService(context.Background(), serviceOptions{Addr: "127.0.0.1:0", DataDir: dir}) // a command's root
		if err != nil {
			os.RemoveAll(dir)
			return benchTargets{}, err
		}
		base := "http://" + srv.Addr
		return benchTargets{bases: []string{base}, target: "in-process " + base + " (" + o.storeKind + " in " + dir + ")",
			close: func() { srv.Shutdown(context.Background()); os.RemoveAll(dir) }}, nil // the run is over: nothing to cut short
	}
	reps, rdb, closeAll, err := startBenchReplicas(o.redisTarget, o.redisUnsafe, o.replicas, dir, stderr)
	if err != nil {
		os.RemoveAll(dir)
		return benchTargets{}, err
	}
	t := benchTargets{usageOf: rdb, close: func() {
		if err := closeAll(); err != nil {
			fmt.Fprintln(stderr, "bench api: stopping the replicas:", err)
		}
		os.RemoveAll(dir)
	}}
	for _, r := range reps {
		t.bases = append(t.bases, "http://"+r.Addr)
	}
	t.target = fmt.Sprintf("%d in-process replicas %s on Redis %s", len(reps), strings.Join(t.bases, " "), o.redisTarget.show)
	return t, nil
}

// startBenchProfiles starts the profiles the flags ask for; stop writes
// them.
func startBenchProfiles(o benchAPIOptions, stderr io.Writer) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	create := func(path, flag string) (*os.File, error) {
		f, err := os.Create(path)
		if err != nil {
			stop()
			return nil, slotfare.E(slotfare.Invalid, slotfare.Field(flag), err.Error())
		}
		stops = append(stops, func() { f.Close() })
		return f, nil
	}
	if o.cpuProfile != "" {
		f, err := create(o.cpuProfile, "--cpuprofile")
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			stop()
			return nil, err
		}
		stops = append(stops, pprof.StopCPUProfile)
	}
	if o.memProfile != "" {
		f, err := create(o.memProfile, "--memprofile")
		if err != nil {
			return nil, err
		}
		// The profile counts the whole process, the replicas' start
		// included; a run's flows outweigh it by far.
		stops = append(stops, func() {
			runtime.GC()
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				fmt.Fprintf(stderr, "bench api: --memprofile: %v\n", err)
			}
		})
	}
	if o.blockProfile != "" {
		f, err := create(o.blockProfile, "--blockprofile")
		if err != nil {
			return nil, err
		}
		runtime.SetBlockProfileRate(int((100 * time.Microsecond).Nanoseconds()))
		runtime.SetMutexProfileFraction(1)
		stops = append(stops, func() {
			runtime.SetBlockProfileRate(0)
			runtime.SetMutexProfileFraction(0)
			if err := pprof.Lookup("block").WriteTo(f, 0); err != nil {
				fmt.Fprintf(stderr, "bench api: --blockprofile: %v\n", err)
			}
		})
	}
	return stop, nil
}

// flowStats are what the clients counted and timed.
type flowStats struct {
	mu                sync.Mutex
	flows, errs, sold atomic.Int64
	flowLat, reqLat   []time.Duration
	firstErrs         []string
}

// measureFlows runs the clients for the duration and reports them, with
// the CPU this process, the machine and Redis spent meanwhile.
func measureFlows(o benchAPIOptions, t benchTargets, ids []string, stderr io.Writer) (apiBenchResult, error) {
	var usage0 redisUsage
	if t.usageOf != nil {
		var err error
		if usage0, err = readRedisUsage(t.usageOf); err != nil {
			return apiBenchResult{}, slotfare.E(slotfare.Op("bench api"), slotfare.Unavailable, err)
		}
	}
	cpu0 := processCPU()
	host0, hostOK := readCPUTicks()
	sched0 := schedLatencies()
	start := time.Now()
	st := runFlows(o, t.bases, ids, start)
	elapsed := time.Since(start)
	cpu := processCPU() - cpu0
	host1, hostOK1 := readCPUTicks()
	for _, e := range st.firstErrs {
		fmt.Fprintln(stderr, "bench api: error:", e)
	}
	flows := st.flows.Load()
	r := apiBenchResult{
		Flows: flows, Errors: st.errs.Load(), SoldOut: st.sold.Load(), Clients: o.clients, Target: t.target,
		Seconds:        roundMs3(elapsed.Seconds()),
		FlowsPerSecond: roundMs3(float64(flows) / elapsed.Seconds()),
		P50ms:          flowPercentileMs(st.flowLat, 0.50),
		P99ms:          flowPercentileMs(st.flowLat, 0.99),
		RequestP99ms:   flowPercentileMs(st.reqLat, 0.99),
	}
	r.SchedP99ms = roundMs3(1000 * histQuantile(sched0, schedLatencies(), 0.99))
	if hostOK && hostOK1 {
		r.Host = shareSince(host0, host1)
	}
	if flows > 0 {
		r.CPUusPerFlow = roundMs3(float64(cpu.Microseconds()) / float64(flows))
		if t.usageOf != nil {
			u, err := readRedisUsage(t.usageOf)
			if err != nil {
				return apiBenchResult{}, slotfare.E(slotfare.Op("bench api"), slotfare.Unavailable, err)
			}
			r.RedisCPUusPerFlow = roundMs3(float64((u.cpu - usage0.cpu).Microseconds()) / float64(flows))
			r.RedisCommandsPerFlow = roundMs3(float64(u.calls-usage0.calls) / float64(flows))
			r.RedisScriptsPerFlow = roundMs3(float64(u.scripts-usage0.scripts) / float64(flows))
		}
	}
	return r, nil
}

// runFlows runs the clients until the duration is over. Each flow books
// one node for one hour; flows are spread over the resources and over
// distinct hours from tomorrow on so that capacity (not contention on one
// slot) is what the server has to check.
func runFlows(o benchAPIOptions, bases, ids []string, start time.Time) *flowStats {
	day0 := time.Now().UTC().Truncate(time.Hour).Add(25 * time.Hour)
	var seq atomic.Int64
	// Successive runs against one --url server start at different hours so
	// they do not find the slots of the previous run taken.
	seq.Store(rand.Int64N(80 * 24 * int64(len(ids))))
	st := &flowStats{}
	stopAt := start.Add(o.duration)
	var wg sync.WaitGroup
	for i := 0; i < o.clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			key := o.userKeys[i%len(o.userKeys)]
			conn := &connClient{addr: strings.TrimPrefix(bases[i%len(bases)], "http://")}
			defer conn.close()
			var fl, rl []time.Duration
			for time.Now().Before(stopAt) {
				n := seq.Add(1)
				res := ids[int(n)%len(ids)]
				hour := (n / int64(len(ids))) % (80 * 24)
				t0 := time.Now()
				err := benchFlow(conn, bases[0], key, res, o.fareClass, day0.Add(time.Duration(hour)*time.Hour), fmt.Sprintf("bench-%d-%d-%d", start.UnixNano(), i, n), &rl)
				switch {
				case errors.Is(err, errSoldOut):
					st.sold.Add(1)
				case err != nil:
					st.errs.Add(1)
					st.mu.Lock()
					if len(st.firstErrs) < 5 {
						st.firstErrs = append(st.firstErrs, err.Error())
					}
					st.mu.Unlock()
				default:
					st.flows.Add(1)
					fl = append(fl, time.Since(t0))
				}
			}
			st.mu.Lock()
			st.flowLat = append(st.flowLat, fl...)
			st.reqLat = append(st.reqLat, rl...)
			st.mu.Unlock()
		}(i)
	}
	wg.Wait()
	return st
}

func splitKeyList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func roundMs3(x float64) float64 { return math.Round(x*1000) / 1000 }

// flowPercentileMs is the nearest-rank percentile of ds in milliseconds.
func flowPercentileMs(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(math.Ceil(p*float64(len(ds)))) - 1
	i = max(0, min(i, len(ds)-1))
	return roundMs3(float64(ds[i].Microseconds()) / 1000)
}

func listResources(c doer, base, key string) ([]string, error) {
	var out struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if _, err := benchDo(c, http.MethodGet, base+"/v1/resources", key, "", nil, &out, nil); err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range out.Data {
		ids = append(ids, r.ID)
	}
	return ids, nil
}

// errSoldOut is a flow whose offers hold no solution: the hour is full.
// It is the server's right answer, not a failure; at 3,000-4,000 flows/s a
// 10 s run books the demo's smallest resource up over the whole 80 days
// the flows cycle through, so such flows are counted apart (sold_out), as
// neither flows nor errors.
var errSoldOut = errors.New("offers: sold out")

// benchFlow is one user flow: ask offers for an hour, hold the solution by
// its offer id, commit it.
func benchFlow(c *connClient, base, key, resource, class string, start time.Time, idemKey string, lat *[]time.Duration) error {
	// Bodies are built by hand and answers read for the few fields the flow
	// needs: the load generator shares the cores with the server in-process,
	// so it should spend as little as it can.
	q := []byte(`{"resource_id":` + jsonString(resource) + `,"earliest_start":"` + start.Format(time.RFC3339) +
		`","latest_end":"` + start.Add(time.Hour).Format(time.RFC3339) + `","duration_seconds":3600,"nodes":1,"fare_class":` +
		jsonString(class) + `}`)
	data, err := c.post("/v1/offers", key, "", q, lat)
	if err != nil {
		return err
	}
	offerID, ok1 := firstJSONValue(data, "offer_id")
	solution, ok2 := firstJSONValue(data, "solution")
	if !ok1 || !ok2 {
		// Not the compact form the server writes: decode it properly.
		var offers struct {
			Offers []struct {
				OfferID  string `json:"offer_id"`
				Solution bool   `json:"solution"`
			} `json:"offers"`
		}
		if err := json.Unmarshal(data, &offers); err != nil {
			return fmt.Errorf("POST /v1/offers: %v", err)
		}
		offerID, solution = "", "false"
		if len(offers.Offers) > 0 {
			offerID, solution = offers.Offers[0].OfferID, strconv.FormatBool(offers.Offers[0].Solution)
		}
	}
	if offerID == "" || solution != "true" {
		return fmt.Errorf("%w: no solution for %s at %s", errSoldOut, resource, start.Format(time.RFC3339))
	}
	data, err = c.post("/v1/bookings", key, idemKey, []byte(`{"offer_id":`+jsonString(offerID)+`}`), lat)
	if err != nil {
		return err
	}
	id, err := bookingField(data, "booking_id")
	if err != nil {
		return fmt.Errorf("POST /v1/bookings: %v", err)
	}
	data, err = c.post("/v1/bookings/"+id+"/commit", key, "", nil, lat)
	if err != nil {
		return err
	}
	status, err := bookingField(data, "status")
	if err != nil {
		return fmt.Errorf("POST /v1/bookings/%s/commit: %v", id, err)
	}
	if status != "committed" {
		return fmt.Errorf("commit: status %q", status)
	}
	return nil
}

// bookingField is a top-level string field of a booking answer.
func bookingField(data []byte, key string) (string, error) {
	if v, ok := firstJSONValue(data, key); ok {
		return v, nil
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return "", err
	}
	v, _ := m[key].(string)
	return v, nil
}

// firstJSONValue finds the first `"key":` in data and returns the value
// after it when that is a string without escapes (its contents) or a bare
// literal (true, false, null, a number). The server writes offers and
// bookings compactly with offer_id and solution before any nested object,
// and a booking's booking_id and status first, so the first occurrence is
// the one the flow wants; anything else reports false and the caller
// decodes the answer with encoding/json.
func firstJSONValue(data []byte, key string) (string, bool) {
	var pat [64]byte
	k := append(append(append(pat[:0], '"'), key...), `":`...)
	i := bytes.Index(data, k)
	if i < 0 {
		return "", false
	}
	v := data[i+len(k):]
	if len(v) > 0 && v[0] == '"' {
		end := bytes.IndexByte(v[1:], '"')
		if end < 0 || bytes.IndexByte(v[1:1+end], '\\') >= 0 {
			return "", false
		}
		return string(v[1 : 1+end]), true
	}
	end := bytes.IndexAny(v, ",}] \t\r\n")
	if end <= 0 {
		return "", false
	}
	return string(v[:end]), true
}

// benchDo sends one request and decodes a 2xx JSON answer into out; any
// other status is an error carrying the problem's detail.
func benchDo(c doer, method, url, key, idemKey string, body []byte, out any, lat *[]time.Duration) (int, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, err
	}
	req.Header["Authorization"] = []string{"Bearer " + key}
	if body != nil {
		req.Header["Content-Type"] = []string{"application/json"}
	}
	if idemKey != "" {
		req.Header["Idempotency-Key"] = []string{idemKey}
	}
	t0 := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if lat != nil {
		*lat = append(*lat, time.Since(t0))
	}
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("%s %s: %s: %s", method, url, strconv.Itoa(resp.StatusCode), bytes.TrimSpace(data))
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: %v", method, url, err)
		}
	}
	return resp.StatusCode, nil
}

// schedLatencies is the runtime's histogram of goroutine scheduling
// latencies since the process started.
func schedLatencies() *metrics.Float64Histogram {
	sm := []metrics.Sample{{Name: "/sched/latencies:seconds"}}
	metrics.Read(sm)
	if sm[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	return sm[0].Value.Float64Histogram()
}

// histQuantile is the upper bound of the bucket holding the q-quantile of
// what was added to a cumulative histogram between before and after (the
// same buckets); 0 when nothing was.
func histQuantile(before, after *metrics.Float64Histogram, q float64) float64 {
	if after == nil {
		return 0
	}
	var tot uint64
	counts := make([]uint64, len(after.Counts))
	for i, c := range after.Counts {
		if before != nil && i < len(before.Counts) {
			c -= before.Counts[i]
		}
		counts[i] = c
		tot += c
	}
	if tot == 0 {
		return 0
	}
	var acc uint64
	for i, c := range counts {
		acc += c
		if float64(acc) >= q*float64(tot) {
			if ub := after.Buckets[i+1]; !math.IsInf(ub, 1) {
				return ub
			}
			return after.Buckets[i]
		}
	}
	return 0
}

// processCPU is the user+system CPU time this process has used. On a machine
// shared with other work, CPU per flow is the figure that does not depend on
// how much of the cores the run got (in-process, it counts client and server).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// jsonString is s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// doer sends one HTTP request (an http.Client, for the set-up requests).
type doer interface {
	Do(*http.Request) (*http.Response, error)
}

// connClient is one client's keep-alive HTTP/1.1 connection, used without
// http.Transport: the transport runs a reader and a writer goroutine per
// connection and hands every request and response between them, which on a
// CPU-bound loopback run is a visible share of the load generator's CPU.
// Requests are written by hand (post) and answers parsed by net/http's
// ReadResponse. A failed request is not retried (it may not be idempotent);
// the next one dials again.
type connClient struct {
	addr string
	conn net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
	buf  []byte // the last answer's body (post)
}

// post sends one POST with the request written by hand (what Request.Write
// would send for it, less the header map and transfer writer) and returns
// the body of a 2xx answer; any other status is an error carrying the
// problem's detail. The body is valid until the next request.
func (c *connClient) post(path, key, idemKey string, body []byte, lat *[]time.Duration) ([]byte, error) {
	if c.conn == nil {
		conn, err := net.DialTimeout("tcp", c.addr, 5*time.Second)
		if err != nil {
			return nil, err
		}
		c.conn, c.br, c.bw = conn, bufio.NewReaderSize(conn, 16<<10), bufio.NewWriterSize(conn, 8<<10)
	}
	t0 := time.Now()
	c.conn.SetDeadline(t0.Add(30 * time.Second))
	w := c.bw
	w.WriteString("POST ")
	w.WriteString(path)
	w.WriteString(" HTTP/1.1\r\nHost: ")
	w.WriteString(c.addr)
	w.WriteString("\r\nUser-Agent: Go-http-client/1.1\r\nContent-Length: ")
	w.WriteString(strconv.Itoa(len(body)))
	w.WriteString("\r\nAuthorization: Bearer ")
	w.WriteString(key)
	if body != nil {
		w.WriteString("\r\nContent-Type: application/json")
	}
	if idemKey != "" {
		w.WriteString("\r\nIdempotency-Key: ")
		w.WriteString(idemKey)
	}
	w.WriteString("\r\n\r\n")
	w.Write(body)
	if err := w.Flush(); err != nil {
		c.close()
		return nil, err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		c.close()
		return nil, err
	}
	var data []byte
	if n := resp.ContentLength; n >= 0 && n <= 1<<20 {
		if cap(c.buf) < int(n) {
			c.buf = make([]byte, n)
		}
		data = c.buf[:n]
		_, err = io.ReadFull(resp.Body, data)
	} else {
		data, err = io.ReadAll(resp.Body)
	}
	resp.Body.Close()
	if err == nil && resp.Close {
		c.close()
	}
	if err != nil {
		c.close()
		return nil, err
	}
	if lat != nil {
		*lat = append(*lat, time.Since(t0))
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("POST %s: %s: %s", path, strconv.Itoa(resp.StatusCode), bytes.TrimSpace(data))
	}
	return data, nil
}

func (c *connClient) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

// startBenchReplicas starts n replicas of the service in this process, each
// with its own Redis client (its own connection pool, as a process of its
// own would have) and data dir under dir, on the target's Redis under a
// fresh key prefix, so that a run never finds the bookings of the one before.
// The first replica starts alone: it lays the resources out in Redis, and
// the others find them. rdb is the first one's client, which the run reads
// Redis's usage with. closeAll stops them, deletes the run's keys and
// closes the clients.
func startBenchReplicas(t redisTarget, unsafe bool, n int, dir string, stderr io.Writer) (reps []*runningService, rdb redis.UniversalClient, closeAll func() error, err error) {
	prefix := fmt.Sprintf("sfbench%d", time.Now().UnixNano())
	var clients []redis.UniversalClient
	closeAll = func() error {
		var errs []error
		for _, r := range reps {
			errs = append(errs, r.Shutdown(context.Background())) // the run is over: nothing to cut short
		}
		if len(clients) > 0 {
			errs = append(errs, dropPrefix(clients[0], prefix))
		}
		for _, c := range clients {
			errs = append(errs, c.Close())
		}
		return errors.Join(errs...)
	}
	for i := range n {
		rdb, warnings, err := openRedis(t, unsafe)
		if err != nil {
			return nil, nil, nil, errors.Join(err, closeAll())
		}
		clients = append(clients, rdb)
		if i == 0 {
			for _, w := range warnings {
				fmt.Fprintln(stderr, "bench api: warning:", w)
			}
		}
		// A command's root: the replicas run until closeAll.
		srv, err := startService(context.Background(), serviceOptions{Addr: "127.0.0.1:0", DataDir: fmt.Sprintf("%s/replica-%d", dir, i),
			Redis: rdb, RedisPrefix: prefix})
		if err != nil {
			return nil, nil, nil, errors.Join(err, closeAll())
		}
		reps = append(reps, srv)
	}
	return reps, clients[0], closeAll, nil
}

// dropPrefix deletes every key under prefix (on every master of a
// cluster): what a bench run wrote.
func dropPrefix(rdb redis.UniversalClient, prefix string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // after the run, bounded on its own
	defer cancel()
	drop := func(ctx context.Context, c *redis.Client) error {
		it := c.Scan(ctx, 0, prefix+":*", 1000).Iterator()
		var batch []string
		for it.Next(ctx) {
			batch = append(batch, it.Val())
			if len(batch) == 1000 {
				if err := unlinkEach(ctx, c, batch); err != nil {
					return err
				}
				batch = batch[:0]
			}
		}
		if err := it.Err(); err != nil {
			return err
		}
		return unlinkEach(ctx, c, batch)
	}
	return redisstore.OnEachServer(ctx, rdb, drop)
}

// unlinkEach deletes keys one command each, pipelined: keys of a cluster
// node's several slots cannot go in one UNLINK.
func unlinkEach(ctx context.Context, c *redis.Client, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range keys {
			p.Unlink(ctx, k)
		}
		return nil
	})
	return err
}
