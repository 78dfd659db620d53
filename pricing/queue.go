package pricing

import (
	"fmt"
	"math/bits"

	"github.com/shopspring/decimal"

	"slotfare"
)

// BackfillPolicy names the scheduling policy that plans the best-effort
// queue. The delay premium depends on it (seed 001, Sec. 4, Fig. 5: aggressive
// backfilling packs tighter than conservative, so reservations hurt more).
type BackfillPolicy string

const (
	// BackfillFCFS starts queued jobs strictly in queue order: no job starts
	// before the job ahead of it.
	BackfillFCFS BackfillPolicy = "fcfs"
	// BackfillEASY is aggressive backfilling: only the head of the queue is
	// protected; any later job may start out of order if it does not delay
	// the head (seed 001, Sec. 4; Mu'alem & Feitelson, its ref. [6]).
	BackfillEASY BackfillPolicy = "easy"
	// BackfillConservative protects every queued job: a job starts out of
	// order only where it delays no job ahead of it (seed 001, Sec. 4).
	BackfillConservative BackfillPolicy = "conservative"
)

// Valid reports whether p is one of the known policies.
func (p BackfillPolicy) Valid() bool {
	switch p {
	case BackfillFCFS, BackfillEASY, BackfillConservative:
		return true
	}
	return false
}

// QueueRunningJob is a best-effort job already running: it holds Nodes from
// the snapshot's Now until its estimated End. Running jobs are never
// preempted (seed 001, Sec. 2), so a reservation must fit beside them. A
// running job whose End is at or before Now is treated as finished.
type QueueRunningJob struct {
	ID    string `json:"id"`
	Nodes int64  `json:"nodes"`
	End   int64  `json:"end"`
}

// QueueJob is a best-effort job waiting in the queue. Runtime is the user's
// estimate (the maximum run time), which is all a scheduler plans with
// (seed 001, Sec. 4). Weight is the delay cost of the job's queue (seed 001,
// Sec. 4, "each queue will have a delay cost"): one node-second of delay to
// this job costs Weight node-seconds of premium. Absent (not Valid) means 1.
type QueueJob struct {
	ID      string              `json:"id"`
	Nodes   int64               `json:"nodes"`
	Runtime int64               `json:"runtime"`
	Weight  decimal.NullDecimal `json:"weight"`
}

// QueueReservation is an advance reservation already granted on the machine:
// a fixed block of Nodes over [Start, End) that no queued job may touch and
// no new reservation may over-subscribe. A reservation that ended at or
// before Now is ignored; one that started before Now holds [Now, End).
type QueueReservation struct {
	ID    string `json:"id"`
	Nodes int64  `json:"nodes"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
}

// QueueSnapshot is the state of one machine's best-effort queue at an
// instant: what the delay premium of seed 001 (Sec. 2) plans with. Times are
// whole seconds on any common epoch; Queued is in queue order.
type QueueSnapshot struct {
	Nodes        int64              `json:"nodes"`
	Now          int64              `json:"now"`
	Policy       BackfillPolicy     `json:"policy"`
	Running      []QueueRunningJob  `json:"running"`
	Queued       []QueueJob         `json:"queued"`
	Reservations []QueueReservation `json:"reservations"`
}

// Limits on a snapshot, so that every computation is bounded and no sum of
// node-seconds can overflow int64.
const (
	// MaxQueueTime bounds every time and duration (seconds): about 34,000
	// years, far beyond any schedule, small enough that sums stay exact.
	MaxQueueTime = int64(1) << 40
	// MaxQueueNodes bounds the machine's width.
	MaxQueueNodes = int64(1) << 30
	// MaxQueueJobs bounds the number of queued jobs, and separately the
	// number of running jobs plus reservations.
	MaxQueueJobs = 5000
)

const opSnapshot slotfare.Op = "pricing.queue"

// Validate checks the snapshot and reports the first fault as an Invalid
// error naming the field (for example "queued[3].runtime"). Besides ranges it
// rejects duplicate ids (across running, queued and reserved), jobs or
// reservations wider than the machine, and running jobs plus reservations
// that over-subscribe the machine on their own.
func (q *QueueSnapshot) Validate() error {
	if q.Nodes <= 0 || q.Nodes > MaxQueueNodes {
		return slotfare.Errorf(opSnapshot, "nodes", "machine nodes must be in 1..%d, got %d", MaxQueueNodes, q.Nodes)
	}
	if q.Now < 0 || q.Now > MaxQueueTime {
		return slotfare.Errorf(opSnapshot, "now", "must be in 0..%d seconds, got %d", MaxQueueTime, q.Now)
	}
	if !q.Policy.Valid() {
		return slotfare.Errorf(opSnapshot, "policy", "unknown policy %q (want fcfs, easy or conservative)", string(q.Policy))
	}
	if len(q.Queued) > MaxQueueJobs {
		return slotfare.Errorf(opSnapshot, "queued", "at most %d queued jobs, got %d", MaxQueueJobs, len(q.Queued))
	}
	if len(q.Running)+len(q.Reservations) > MaxQueueJobs {
		return slotfare.Errorf(opSnapshot, "running", "at most %d running jobs and reservations together, got %d", MaxQueueJobs, len(q.Running)+len(q.Reservations))
	}
	// Field names are built only for the error: this runs on every price.
	name := func(list string, i int, field string) string { return fmt.Sprintf("%s[%d].%s", list, i, field) }
	type place struct {
		list string
		i    int
	}
	ids := make(map[string]place, len(q.Running)+len(q.Queued)+len(q.Reservations))
	checkID := func(list string, i int, id string) error {
		if id == "" {
			return slotfare.Errorf(opSnapshot, name(list, i, "id"), "id is required")
		}
		if prev, dup := ids[id]; dup {
			return slotfare.Errorf(opSnapshot, name(list, i, "id"), "duplicate id %q (also %s[%d])", id, prev.list, prev.i)
		}
		ids[id] = place{list, i}
		return nil
	}
	checkNodes := func(list string, i int, n int64) error {
		if n <= 0 {
			return slotfare.Errorf(opSnapshot, name(list, i, "nodes"), "must be positive, got %d", n)
		}
		if n > q.Nodes {
			return slotfare.Errorf(opSnapshot, name(list, i, "nodes"), "%d nodes is wider than the machine (%d)", n, q.Nodes)
		}
		return nil
	}
	checkTime := func(list string, i int, field string, t int64) error {
		if t < 0 || t > MaxQueueTime {
			return slotfare.Errorf(opSnapshot, name(list, i, field), "must be in 0..%d seconds, got %d", MaxQueueTime, t)
		}
		return nil
	}
	for i, r := range q.Running {
		if err := checkID("running", i, r.ID); err != nil {
			return err
		}
		if err := checkNodes("running", i, r.Nodes); err != nil {
			return err
		}
		if err := checkTime("running", i, "end", r.End); err != nil {
			return err
		}
	}
	var queuedNodes, runtimes int64
	for i, j := range q.Queued {
		if err := checkID("queued", i, j.ID); err != nil {
			return err
		}
		if err := checkNodes("queued", i, j.Nodes); err != nil {
			return err
		}
		if j.Runtime <= 0 || j.Runtime > MaxQueueTime {
			return slotfare.Errorf(opSnapshot, name("queued", i, "runtime"), "must be in 1..%d seconds, got %d", MaxQueueTime, j.Runtime)
		}
		if j.Weight.Valid && j.Weight.Decimal.Sign() < 0 {
			return slotfare.Errorf(opSnapshot, name("queued", i, "weight"), "must not be negative, got %s", j.Weight.Decimal)
		}
		queuedNodes += j.Nodes
		runtimes += j.Runtime
	}
	for i, r := range q.Reservations {
		if err := checkID("reservations", i, r.ID); err != nil {
			return err
		}
		if err := checkNodes("reservations", i, r.Nodes); err != nil {
			return err
		}
		if err := checkTime("reservations", i, "start", r.Start); err != nil {
			return err
		}
		if err := checkTime("reservations", i, "end", r.End); err != nil {
			return err
		}
		if r.End <= r.Start {
			return slotfare.Errorf(opSnapshot, name("reservations", i, "end"), "must be after start (%d), got %d", r.Start, r.End)
		}
	}
	if err := q.checkFixedLoad(); err != nil {
		return err
	}
	// Every planned start lies before horizon (all fixed blocks end by
	// MaxQueueTime + a request of at most MaxQueueTime, then the queue runs
	// one job after another), so no delay exceeds it; the premium is at most
	// horizon x queued nodes and must fit in int64 with room to spare.
	horizon := uint64(2*MaxQueueTime) + uint64(runtimes)
	if hi, lo := bits.Mul64(horizon, uint64(queuedNodes)); hi != 0 || lo >= 1<<62 {
		return slotfare.Errorf(opSnapshot, "queued", "queue too large: %d queued nodes over %d seconds of runtime could overflow the premium", queuedNodes, runtimes)
	}
	return nil
}

// checkFixedLoad rejects running jobs and reservations that together need
// more than the machine at some instant: such a snapshot cannot be real.
func (q *QueueSnapshot) checkFixedLoad() error {
	var running int64
	for _, r := range q.Running {
		if r.End > q.Now {
			running += r.Nodes
		}
	}
	if running > q.Nodes {
		return slotfare.Errorf(opSnapshot, "running", "running jobs hold %d nodes, the machine has %d", running, q.Nodes)
	}
	p := newFreeProfile(q.Now, q.Nodes)
	for _, r := range q.Running {
		if r.End > q.Now {
			p.occupy(q.Now, r.End, r.Nodes)
		}
	}
	for i, r := range q.Reservations {
		if r.End <= q.Now {
			continue
		}
		start := max(r.Start, q.Now)
		if !p.fits(start, r.End-start, r.Nodes) {
			return slotfare.Errorf(opSnapshot, fmt.Sprintf("reservations[%d]", i),
				"reservation %q over-subscribes the machine together with running jobs and earlier reservations", r.ID)
		}
		p.occupy(start, r.End, r.Nodes)
	}
	return nil
}
