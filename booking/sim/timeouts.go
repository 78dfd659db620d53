package sim

import (
	"container/heap"
	"context"
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/deploy"
	"slotfare/booking/embedded"
	"slotfare/booking/memstore"
	"slotfare/booking/service"
)

// The timeouts experiment: seed 003 (Schneider et al.) Sec. 4, the commit
// phase. Users are accepters, who commit a preliminary reservation (a
// hold) at once, or rejecters, who never answer, so their holds block the
// nodes until the hold timeout expires (Sec. 4.2). Fig. 9 plots the
// acceptance rate alpha = |accepted| / |accepters| (Eq. 2) against the
// timeout, one curve per number of rejecters per 1,000 accepters.

// TimeoutMachines are the eight parallel machines of Sec. 4.1.
var TimeoutMachines = []int{512, 256, 256, 128, 128, 96, 32, 32}

// TimeoutSlot is one time slot of seed 003 in seconds: the unit of its
// timeouts, durations and inter-arrival times. The paper does not give it;
// a minute keeps durations of 1,250-3,750 slots (Sec. 4.1) at one to three
// days.
const TimeoutSlot = 60

// TimeoutsOptions set one sweep.
type TimeoutsOptions struct {
	Seed uint64
	// Accepters is how many accepters arrive (10,000 in the paper).
	Accepters int
	// Timeouts are the hold timeouts swept, in slots.
	Timeouts []int
	// Rejecters are the rejecters per 1,000 accepters, one curve each.
	Rejecters []int
	// InterArrival is the mean gap between accepters in slots (the load);
	// rejecters come on top at their ratio.
	InterArrival float64
	// BookAhead is the mean of the exponential advance booking period, in
	// slots (Sec. 4.1 gives no value).
	BookAhead float64
	// Progress, if set, is called with a run's index once it is done
	// (runs are numbered rejecter ratio by timeout; there are
	// len(Rejecters) x len(Timeouts)), from the runs' goroutines.
	Progress func(run int, done float64)
}

// DefaultTimeouts is the sweep `slotfare simulate --experiment timeouts`
// runs: 2,000 accepters (the paper: 10,000) at a load near the machines'
// capacity (5.5 nodes x 2,500 slots every 10 slots on 1,440 nodes), a mean
// booking period of 500 slots.
var DefaultTimeouts = TimeoutsOptions{Accepters: 2000, Timeouts: []int{10, 100, 200, 400, 800},
	Rejecters: []int{0, 500, 1000, 2000, 5000}, InterArrival: 10, BookAhead: 500}

// TimeoutRow is one run: a timeout and a rejecter ratio.
type TimeoutRow struct {
	TimeoutSlots      int     `json:"timeout_slots"`
	RejectersPer1000  int     `json:"rejecters_per_1000"`
	Accepters         int     `json:"accepters"`
	Accepted          int     `json:"accepted"`
	Rejecters         int     `json:"rejecters"`
	RejectersHeld     int     `json:"rejecters_held"`
	AcceptanceRate    float64 `json:"acceptance_rate"`
	NodeSlotsAccepted int64   `json:"node_slots_accepted"`
}

type toJob struct {
	at, start, dur int64 // seconds
	nodes          int
	rejecter       bool
	order          []int // machines in the broker's order
}

// timeoutJobs lays out the workload of one ratio: accepters at exponential
// gaps and rejecters among them, each with its booking period, duration
// (uniform in [1250, 3750] slots), nodes (uniform in [1, 10]) and the order
// the broker tries the machines in. The accepters are the same for every
// ratio (their own random stream), so the curves compare like with like.
func timeoutJobs(o TimeoutsOptions, ratio int, start int64) []toJob {
	acc := rand.New(rand.NewPCG(o.Seed, 1))
	rej := rand.New(rand.NewPCG(o.Seed, 2+uint64(ratio)))
	draw := func(r *rand.Rand, at float64, rejecter bool) toJob {
		j := toJob{at: start + int64(at)*TimeoutSlot, rejecter: rejecter,
			dur: (1250 + r.Int64N(2501)) * TimeoutSlot, nodes: 1 + r.IntN(10), order: r.Perm(len(TimeoutMachines))}
		j.start = j.at + int64(math.Ceil(r.ExpFloat64()*o.BookAhead))*TimeoutSlot
		return j
	}
	var out []toJob
	t := 0.0
	for range o.Accepters {
		t += acc.ExpFloat64() * o.InterArrival
		out = append(out, draw(acc, t, false))
	}
	if ratio > 0 {
		span := t
		n := o.Accepters * ratio / 1000
		ts := make([]float64, n)
		for i := range ts {
			ts[i] = rej.Float64() * span
		}
		for _, x := range ts {
			out = append(out, draw(rej, x, true))
		}
	}
	// arrivals in time order; at one instant accepters first
	sort.SliceStable(out, func(x, y int) bool {
		a, b := out[x], out[y]
		if a.at != b.at {
			return a.at < b.at
		}
		return !a.rejecter && b.rejecter
	})
	return out
}

// timeoutConfig is the eight machines with one fare class each, the hold
// timeout given, and slots of TimeoutSlot.
func timeoutConfig(timeout int) (config.Config, error) {
	var res []string
	for i, n := range TimeoutMachines {
		res = append(res, fmt.Sprintf(`{"id": "M%d", "nodes": %d, "base_cost": "0.001", "time_zone": "UTC", "slot_seconds": %d, "hold_seconds": %d,
 "fare_classes": [{"name": "standard", "rank": 1, "tau": {"all": "1"}, "penalty_rate": "0", "denied_cost_factor": "2", "vo": null}],
 "rate_periods": [{"name": "all", "days": "all", "from": "00:00", "to": "24:00"}]}`, i+1, n, TimeoutSlot, timeout*TimeoutSlot))
	}
	// the provider's key is never used: the driver calls the service as
	// its users' principals
	cfg := fmt.Sprintf(`{"currency": "EUR", "book_ahead_seconds": %d, "keys": [{"key_sha256": "%064x", "name": "provider", "role": "provider", "account_id": "provider", "vo": null}], "resources": [%s]}`,
		60*86400, 0, strings.Join(res, ","))
	return config.DecodeConfig([]byte(cfg))
}

type toEvent struct {
	at int64
	id string
	p  booking.Principal
}

type toHeap []toEvent

func (h toHeap) Len() int { return len(h) }
func (h toHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].id < h[j].id
}
func (h toHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *toHeap) Push(x any)   { *h = append(*h, x.(toEvent)) }
func (h *toHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// TimeoutRun runs one timeout and rejecter ratio on the real booking
// service (memstore, virtual clock). The broker tries the machines in the
// job's order with a hold on [start, start + duration) (a rigid request:
// the paper's planning-based scheduler, Sec. 4.1) until one grants it. An
// accepter commits at once and checks in before the start; a rejecter
// never answers and its hold expires after the timeout (Sec. 4.2). The
// clock ticks at every arrival and check-in, so expired holds are gone
// before the next request is answered.
func TimeoutRun(ctx context.Context, o TimeoutsOptions, timeout, ratio int) (TimeoutRow, error) {
	const op slotfare.Op = "sim.TimeoutRun"
	row := TimeoutRow{TimeoutSlots: timeout, RejectersPer1000: ratio}
	cfg, err := timeoutConfig(timeout)
	if err != nil {
		return row, slotfare.E(op, err)
	}
	now := DefaultStart
	var idKey [32]byte
	binary.LittleEndian.PutUint64(idKey[:8], o.Seed)
	copy(idKey[8:], "slotfare-timeouts")
	secret := make([]byte, 32)
	copy(secret, idKey[:])
	ports, err := deploy.Embedded(context.Background(), memstore.Unlogged(), embedded.Options{})
	if err != nil {
		return row, slotfare.E(op, err)
	}
	svc, err := service.Open(cfg, ports, service.Options{Now: func() time.Time { return now }, Secret: secret, IDs: rand.NewChaCha8(idKey)})
	if err != nil {
		return row, slotfare.E(op, err)
	}
	defer svc.Close()
	jobs := timeoutJobs(o, ratio, DefaultStart.Unix())
	var checkIns toHeap
	tick := func(at int64) error {
		now = time.Unix(at, 0).UTC()
		return svc.Tick(now)
	}
	for i, j := range jobs {
		for len(checkIns) > 0 && checkIns[0].at <= j.at {
			ev := heap.Pop(&checkIns).(toEvent)
			if err := tick(ev.at); err != nil {
				return row, slotfare.E(op, err)
			}
			if _, err := svc.CheckIn(ctx, ev.p, ev.id); err != nil {
				return row, slotfare.E(op, err)
			}
		}
		if err := tick(j.at); err != nil {
			return row, slotfare.E(op, err)
		}
		p := booking.Principal{AccountID: "user-" + strconv.Itoa(i), Role: booking.RoleUser}
		if j.rejecter {
			row.Rejecters++
		} else {
			row.Accepters++
		}
		for _, m := range j.order {
			req := booking.HoldRequest{ResourceID: "M" + strconv.Itoa(m+1), Start: time.Unix(j.start, 0).UTC(),
				End: time.Unix(j.start+j.dur, 0).UTC(), Nodes: j.nodes, FareClass: "standard"}
			b, _, err := svc.Hold(ctx, p, req, booking.Idempotency{})
			if err != nil {
				if k := slotfare.KindOf(err); k == slotfare.NoCapacity || k == slotfare.Conflict {
					continue
				}
				return row, slotfare.E(op, err)
			}
			if j.rejecter {
				row.RejectersHeld++
				break
			}
			if _, err := svc.Commit(ctx, p, b.ID); err != nil {
				return row, slotfare.E(op, err)
			}
			row.Accepted++
			row.NodeSlotsAccepted += int64(j.nodes) * j.dur / TimeoutSlot
			heap.Push(&checkIns, toEvent{at: j.start - TimeoutSlot, id: b.ID, p: p})
			break
		}
	}
	if row.Accepters > 0 {
		row.AcceptanceRate = math.Round(float64(row.Accepted)/float64(row.Accepters)*1e4) / 1e4
	}
	return row, nil
}

// Timeouts runs every timeout and ratio of o with at most workers at once,
// in the order of the ratios, then the timeouts.
func Timeouts(ctx context.Context, o TimeoutsOptions, workers int) ([]TimeoutRow, error) {
	type key struct{ r, t int }
	var keys []key
	for _, r := range o.Rejecters {
		for _, t := range o.Timeouts {
			keys = append(keys, key{r, t})
		}
	}
	out := make([]TimeoutRow, len(keys))
	err := parallel(len(keys), workers, func(i int) error {
		var err error
		out[i], err = TimeoutRun(ctx, o, keys[i].t, keys[i].r)
		if err == nil && o.Progress != nil {
			o.Progress(i, 1)
		}
		return err
	})
	return out, err
}

// WriteTimeoutsTable prints alpha per timeout (rows) and ratio (columns),
// as Fig. 9 plots it.
func WriteTimeoutsTable(w io.Writer, o TimeoutsOptions, rows []TimeoutRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "timeout (slots)\t")
	for _, r := range o.Rejecters {
		fmt.Fprintf(tw, "alpha, %d rejecters\t", r)
	}
	fmt.Fprintln(tw)
	for _, t := range o.Timeouts {
		fmt.Fprintf(tw, "%d\t", t)
		for _, r := range o.Rejecters {
			for _, x := range rows {
				if x.TimeoutSlots == t && x.RejectersPer1000 == r {
					fmt.Fprintf(tw, "%.4f\t", x.AcceptanceRate)
				}
			}
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// WriteTimeoutsCSV writes one row per run.
func WriteTimeoutsCSV(w io.Writer, rows []TimeoutRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"timeout_slots", "rejecters_per_1000", "accepters", "accepted", "rejecters", "rejecters_held", "acceptance_rate", "node_slots_accepted"})
	for _, r := range rows {
		cw.Write([]string{strconv.Itoa(r.TimeoutSlots), strconv.Itoa(r.RejectersPer1000), strconv.Itoa(r.Accepters), strconv.Itoa(r.Accepted),
			strconv.Itoa(r.Rejecters), strconv.Itoa(r.RejectersHeld), strconv.FormatFloat(r.AcceptanceRate, 'f', 4, 64),
			strconv.FormatInt(r.NodeSlotsAccepted, 10)})
	}
	cw.Flush()
	return cw.Error()
}

// TimeoutsCharts draws alpha against the timeout, one line per ratio
// (timeouts_acceptance.png, seed 003 Fig. 9).
func TimeoutsCharts(o TimeoutsOptions, rows []TimeoutRow) (Charts, error) {
	var lines []Line
	for _, r := range o.Rejecters {
		l := Line{Name: fmt.Sprintf("%d rejecters per 1,000 accepters", r)}
		for _, x := range rows {
			if x.RejectersPer1000 == r {
				l.X, l.Y = append(l.X, float64(x.TimeoutSlots)), append(l.Y, x.AcceptanceRate)
			}
		}
		lines = append(lines, l)
	}
	img, err := LineChart("Acceptance rate against the hold timeout (seed 003 Fig. 9)", "timeout (slots of 60 s)", "acceptance rate alpha", lines)
	if err != nil {
		return nil, err
	}
	return Charts{"timeouts_acceptance.png": img}, nil
}

// parallel calls f(0..n-1) with at most workers at once and returns the
// first error by index.
func parallel(n, workers int, f func(i int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(workers, n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
