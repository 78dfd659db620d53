package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"slotfare"
	"slotfare/calendar"
	"slotfare/forecast/swf"
)

func init() {
	register("bench calendar", command{
		summary: "replay an SWF trace as reservation requests against each calendar implementation",
		run:     runBenchCalendar,
	})
}

// suggestHorizon is how much later than the asked start a suggested start
// may be (API.md, bench calendar, suggest mode): 12 hours.
const suggestHorizon = 12 * 3600

// slotSeconds is the slot width of the slotted calendar in the bench.
const slotSeconds = 300

// benchRequest is one replayed request: [start, end) with nodes, arriving at
// submit.
type benchRequest struct {
	submit, start, end int64
	nodes              int
	id                 string
}

// benchCounts is what a replay decides.
type benchCounts struct {
	Requests  int `json:"requests"`
	Accepted  int `json:"accepted"`
	Suggested int `json:"suggested"`
	Rejected  int `json:"rejected"`
}

// benchResult is one line of output.
type benchResult struct {
	Impl string `json:"impl"`
	benchCounts
	NsPerRequest       float64 `json:"ns_per_request"`
	MedianNsPerRequest float64 `json:"median_ns_per_request"`
	CPUNsPerRequest    float64 `json:"cpu_ns_per_request,omitempty"`
	Runs               int     `json:"runs"`
	Capacity           int     `json:"capacity"`
	Mode               string  `json:"mode"`
	MaxLive            int     `json:"max_live"`
	SlotSeconds        int64   `json:"slot_seconds,omitempty"`
	Slots              int     `json:"slots,omitempty"`
}

// runBenchCalendar is `slotfare bench calendar --trace FILE.swf [--impl
// tree,slotted,freelist] [--capacity N] [--mode rigid|suggest] [--repeat N]`.
func runBenchCalendar(args []string, stdout, stderr io.Writer) error {
	o, err := parseBenchCalendar(args, stderr)
	if err != nil {
		return err
	}
	reqs, err := benchRequests(o.log, o.capacity)
	if err != nil {
		return badFlag("trace", "%v", err)
	}
	results, err := timeCalendars(o, reqs)
	if err != nil {
		return err
	}
	for _, res := range results {
		if err := writeJSON(stdout, res); err != nil {
			return err
		}
	}
	return nil
}

// benchCalendarOptions are bench calendar's command line, checked, with
// the trace read.
type benchCalendarOptions struct {
	log      *swf.Log
	impls    []string
	redisURL string
	capacity int
	mode     string
	runs     int
}

func parseBenchCalendar(args []string, stderr io.Writer) (benchCalendarOptions, error) {
	var o benchCalendarOptions
	fs := newFlags("bench calendar", stderr)
	trace := fs.String("trace", "", "SWF trace `FILE` to replay")
	impls := fs.String("impl", "tree,slotted,freelist", "comma-separated implementations: tree, slotted, freelist, redis (the Redis inventory; needs --redis)")
	fs.StringVar(&o.redisURL, "redis", "", "redis://host:port of the Redis the redis implementation replays through (its keys are deleted after each run)")
	capFlag := fs.String("capacity", "", "nodes `N` (default: the header's MaxProcs)")
	fs.StringVar(&o.mode, "mode", "rigid", "rigid (accept if it fits, else reject) or suggest (else the earliest start within 12 h)")
	repeat := fs.String("repeat", "1", "time `N` runs per implementation and report the best")
	if err := parseFlags(fs, args); err != nil {
		return o, err
	}
	var bad flagProblems
	bad.require(fs, "trace")
	if o.mode != "rigid" && o.mode != "suggest" {
		bad.add(badFlag("mode", "want rigid or suggest, got %q", o.mode))
	}
	var err error
	o.runs, err = intFlag("repeat", *repeat)
	bad.add(err)
	if err == nil && (o.runs < 1 || o.runs > 1000) {
		bad.add(badFlag("repeat", "want 1 to 1000 runs, got %d", o.runs))
	}
	o.impls = benchImpls(*impls, o.redisURL, &bad)
	if *capFlag != "" {
		o.capacity, err = intFlag("capacity", *capFlag)
		bad.add(err)
		if err == nil && (o.capacity < 1 || o.capacity > 1<<30) {
			bad.add(badFlag("capacity", "want 1 to %d nodes, got %d", 1<<30, o.capacity))
		}
	}
	if flagSet(fs, "trace") {
		o.log, err = readTraceFlag(*trace)
		bad.add(err)
	}
	if err := bad.err(); err != nil {
		return o, err
	}
	if *capFlag == "" {
		o.capacity = int(o.log.Header.MaxProcs)
		if o.capacity < 1 || o.capacity > 1<<30 {
			return o, badFlag("capacity", "the trace's header gives no usable MaxProcs; give --capacity")
		}
	}
	return o, nil
}

// benchImpls reads --impl, adding its problems to bad.
func benchImpls(list, redisURL string, bad *flagProblems) []string {
	var names []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		switch n {
		case "tree", "slotted", "freelist":
		case "redis":
			if redisURL == "" {
				bad.add(badFlag("redis", "the redis implementation needs --redis redis://host:port"))
			}
		default:
			bad.add(badFlag("impl", "unknown implementation %q (want tree, slotted, freelist or redis)", n))
		}
		if slices.Contains(names, n) {
			bad.add(badFlag("impl", "%q given twice", n))
		}
		names = append(names, n)
	}
	return names
}

// timeCalendars replays reqs o.runs times on each implementation. Runs
// are interleaved across implementations (tree, slotted, freelist, tree,
// ...) so that a burst of load on a shared machine hits them alike; the
// best run is the figure, the median is reported beside it.
func timeCalendars(o benchCalendarOptions, reqs []benchRequest) ([]benchResult, error) {
	results := make([]benchResult, len(o.impls))
	times := make([][]float64, len(o.impls))
	cpus := make([][]float64, len(o.impls))
	for run := range o.runs {
		for k, name := range o.impls {
			res, elapsed, cpu, err := replayOnce(o, name, run, reqs)
			if err != nil {
				return nil, err
			}
			n := float64(max(res.Requests, 1))
			times[k] = append(times[k], float64(elapsed.Nanoseconds())/n)
			if cpu > 0 {
				cpus[k] = append(cpus[k], float64(cpu.Nanoseconds())/n)
			}
			results[k] = res
		}
	}
	for k := range results {
		slices.Sort(times[k])
		results[k].Runs = o.runs
		results[k].NsPerRequest = round1(times[k][0])
		results[k].MedianNsPerRequest = round1(times[k][len(times[k])/2])
		if len(cpus[k]) > 0 {
			slices.Sort(cpus[k])
			results[k].CPUNsPerRequest = round1(cpus[k][0])
		}
	}
	return results, nil
}

// replayOnce replays reqs on a fresh calendar of implementation name.
func replayOnce(o benchCalendarOptions, name string, run int, reqs []benchRequest) (benchResult, time.Duration, time.Duration, error) {
	suggest := o.mode == "suggest"
	var c calendar.Calendar
	var slots int
	var err error
	done := func() error { return nil }
	if name == "redis" {
		c, done, err = newRedisBenchCalendar(o.redisURL, run, o.capacity)
	} else {
		c, slots, err = newBenchCalendar(name, o.capacity, reqs, suggest)
	}
	if err != nil {
		return benchResult{}, 0, 0, err
	}
	counts, maxLive, elapsed, cpu, err := replay(c, reqs, suggest)
	if derr := done(); err == nil {
		err = derr
	}
	if err != nil {
		return benchResult{}, 0, 0, fmt.Errorf("%s: %w", name, err)
	}
	res := benchResult{Impl: name, benchCounts: counts, Capacity: o.capacity, Mode: o.mode, MaxLive: maxLive}
	if name == "slotted" {
		res.SlotSeconds, res.Slots = slotSeconds, slots
	}
	return res, elapsed, cpu, nil
}

// readTraceFlag reads the SWF trace --trace names.
func readTraceFlag(path string) (*swf.Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, badFlag("trace", "%v", err)
	}
	defer f.Close()
	log, err := swf.Read(f)
	if err != nil {
		return nil, badFlag("trace", "%v", err)
	}
	return log, nil
}

func round1(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 1, 64), 64)
	return v
}

// benchRequests applies the replay rule of API.md: records sorted by
// (submit, job number); records whose run time or processors are <= 0
// skipped; nodes are the allocated processors (field 5, or field 8 when 5 is
// -1) capped at the capacity; the request asks for [submit+wait,
// submit+wait+run) with a wait of -1 counted as 0.
func benchRequests(log *swf.Log, capacity int) ([]benchRequest, error) {
	jobs := slices.Clone(log.Jobs)
	slices.SortStableFunc(jobs, func(a, b swf.Job) int {
		return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.Number, b.Number))
	})
	var out []benchRequest
	for _, j := range jobs {
		nodes := j.Nodes()
		if j.Run <= 0 || nodes <= 0 {
			continue
		}
		if j.Wait < -1 {
			return nil, fmt.Errorf("job %d: wait %d is undefined (only -1 means unknown)", j.Number, j.Wait)
		}
		start := j.Submit + max(j.Wait, 0)
		if j.Submit < 0 || start > calendar.MaxTime/2 || j.Run > calendar.MaxTime/2 {
			return nil, fmt.Errorf("job %d: times out of range", j.Number)
		}
		out = append(out, benchRequest{
			submit: j.Submit,
			start:  start,
			end:    start + j.Run,
			nodes:  int(min(nodes, int64(capacity))),
			id:     strconv.Itoa(len(out)),
		})
	}
	return out, nil
}

// newBenchCalendar builds an empty calendar; the slotted one has slots of
// 300 s and room for the suggestion horizon when suggest.
func newBenchCalendar(name string, capacity int, reqs []benchRequest, suggest bool) (calendar.Calendar, int, error) {
	switch name {
	case "tree":
		c, err := calendar.NewTree(capacity)
		return c, 0, err
	case "freelist":
		c, err := calendar.NewFreeList(capacity)
		return c, 0, err
	}
	var horizon int64
	if suggest {
		horizon = suggestHorizon
	}
	return newSlottedWidth(capacity, reqs, slotSeconds, horizon)
}

// replay runs the requests against c and times it, in wall time and in the
// CPU time of the thread it runs on. Before each request, the reservations
// that ended before its submit time are deleted (timed too, as in seed 004
// Sec. 5.4).
func replay(c calendar.Calendar, reqs []benchRequest, suggest bool) (counts benchCounts, maxLive int, wall, cpu time.Duration, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	live := make(endHeap, 0, 1024)
	cpu0, cpuOK := threadCPU()
	begin := time.Now()
	fail := func(err error) (benchCounts, int, time.Duration, time.Duration, error) {
		return counts, 0, 0, 0, err
	}
	for i := range reqs {
		r := &reqs[i]
		for len(live) > 0 && live[0].end < r.submit {
			if _, err := c.Delete(live[0].id); err != nil {
				return fail(err)
			}
			live.pop()
		}
		counts.Requests++
		start := r.start
		ok, err := c.Fits(start, r.end, r.nodes)
		if err != nil {
			return fail(err)
		}
		switch {
		case ok:
			counts.Accepted++
		case suggest:
			t, found, err := c.NextFree(start, start+suggestHorizon, r.end-r.start, r.nodes)
			if err != nil {
				return fail(err)
			}
			if !found {
				counts.Rejected++
				continue
			}
			counts.Suggested++
			start = t
		default:
			counts.Rejected++
			continue
		}
		end := start + (r.end - r.start)
		if err := c.Add(calendar.Reservation{ID: r.id, Start: start, End: end, Nodes: r.nodes}); err != nil {
			return fail(err)
		}
		live.push(liveRes{end: end, id: r.id})
		maxLive = max(maxLive, len(live))
	}
	wall = time.Since(begin)
	if cpu1, ok := threadCPU(); ok && cpuOK {
		cpu = cpu1 - cpu0
	}
	if c.Len() != len(live) {
		return fail(slotfare.E(slotfare.Op("bench calendar"), fmt.Sprintf("calendar holds %d reservations, the replay %d", c.Len(), len(live))))
	}
	return counts, maxLive, wall, cpu, nil
}

// liveRes is an accepted reservation waiting to be deleted once it ends.
type liveRes struct {
	end int64
	id  string
}

// endHeap is a min-heap of live reservations by end time, written out so
// that the replay loop does not allocate per request.
type endHeap []liveRes

func (h *endHeap) push(x liveRes) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p].end <= s[i].end {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *endHeap) pop() {
	s := *h
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && s[l].end < s[m].end {
			m = l
		}
		if l+1 < n && s[l+1].end < s[m].end {
			m = l + 1
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
}
