package pricing

import (
	"slices"
	"sort"

	"github.com/shopspring/decimal"

	"slotfare"
)

// DelayPricer prices advance reservations on one machine by the harm they do
// to its best-effort queue: the adaptive delay-based premium of Singh,
// Kesselman & Deelman (seed 001, Sec. 2, Fig. 2) and their list of candidate
// start times (Sec. 3). It plans the queue once without any new reservation
// (the base plan) and then answers many requests against that plan; it is
// safe for concurrent use because no method changes it.
//
// Semantics, fixed here for every caller:
//   - Time is whole seconds. Running jobs hold [now, end); a running job
//     whose end is at or before now has finished. Reservations are fixed
//     blocks; queued jobs never touch them.
//   - The requested reservation is itself a fixed block over
//     [start, start+duration). It is feasible iff it fits beside running
//     jobs and existing reservations alone: queued jobs never make it
//     infeasible, they get delayed (seed 001, Sec. 1 and Fig. 2 step 3).
//   - The delay of a queued job is start_with - start_without, its planned
//     start with and without the reservation, counted only when positive
//     (Fig. 2 step 5). A job that starts earlier earns no credit.
//   - The premium is the sum over queued jobs of delay x nodes, in
//     node-seconds, each job's term multiplied by its queue's delay-cost
//     weight when one is given (seed 001, Sec. 4, multiple queues).
//   - Planned starts come from the snapshot's policy with estimated runtimes:
//     see BackfillFCFS, BackfillConservative and easySim for EASY.
//
// How the quote list stays exact and fast (Quotes prices every candidate
// start, several hundred on a 500-job queue): the base plan is made once
// and shared by every candidate. A candidate whose reservation fits in the
// plan's idle capacity costs nothing without any re-planning (conflict), and
// so does any start at or after the end of the plan. Otherwise only the
// decisions the reservation can change are replayed: for FCFS and
// conservative, from the first job in queue order whose planned block meets
// the conflict; for EASY, from the first decision instant that touches it,
// stopping as soon as the replay rejoins the base run. In a conservative
// replay a job can start earlier than planned only through a run of room
// that meets a block vacated by a moved job, so only the vacated steps are
// searched. Each replay starts from a snapshot of the plan's prefix taken
// every 16 jobs. TestDelayMatchesReference checks every start and premium
// against a from-scratch reference on random snapshots for all three
// policies, and TestQuotesMatchReplanOnSP2 against re-planning the whole
// SDSC SP2 queue with each reservation; docs/benchmarks.md has the timings.
type DelayPricer struct {
	m        *delayModel
	base     []int64     // planned start per queued job, without the request
	baseProf freeProfile // fixed blocks plus every queued job at its base start
	order    []int32     // queue positions by base start
	sorted   []int64     // base starts, ascending
	events   []easyEvent // EASY's decision log of the base run
	queueEnd int64       // latest planned end of a queued job (now if none)
	end      int64       // end of the planned schedule, fixed blocks included
}

// NewDelayPricer validates the snapshot (see QueueSnapshot.Validate) and
// plans its queue without any new reservation.
func NewDelayPricer(q QueueSnapshot) (*DelayPricer, error) {
	m, err := newDelayModel(&q)
	if err != nil {
		return nil, err
	}
	// Room for every breakpoint the plan adds: two per job.
	prof := freeProfile{steps: make([]freeStep, 0, len(m.fixed.steps)+2*len(m.nodes)+2)}
	m.fixed.cloneInto(&prof)
	base, full, events, err := m.plannedStarts(prof)
	if err != nil {
		return nil, err
	}
	full.compact()
	p := &DelayPricer{m: m, base: base, baseProf: full, events: events, queueEnd: m.now}
	p.order, p.sorted = sortByStart(base)
	for j, s := range base {
		p.queueEnd = max(p.queueEnd, s+m.runtime[j])
	}
	p.end = max(p.queueEnd, m.fixedEnd)
	return p, nil
}

// PlannedJob is a queued job's place in the base plan.
type PlannedJob struct {
	ID    string `json:"id"`
	Nodes int64  `json:"nodes"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
}

// Plan returns the base plan, in queue order.
func (p *DelayPricer) Plan() []PlannedJob {
	out := make([]PlannedJob, len(p.base))
	for j, s := range p.base {
		out[j] = PlannedJob{ID: p.m.ids[j], Nodes: p.m.nodes[j], Start: s, End: s + p.m.runtime[j]}
	}
	return out
}

// ScheduleEnd is the end of the planned schedule: when the last queued job,
// running job or reservation ends (now for an idle machine). A reservation
// starting there is feasible and costs nothing.
func (p *DelayPricer) ScheduleEnd() int64 { return p.end }

// JobDelay is how much later a queued job starts because of a reservation.
type JobDelay struct {
	ID    string `json:"id"`
	Nodes int64  `json:"nodes"`
	Delay int64  `json:"delay"` // seconds, > 0
}

// DelayPremium is the answer of seed 001's Fig. 2 for one start time.
// When Feasible is false the reservation conflicts with running jobs or
// other reservations (the paper's infinite price): NodeSeconds and Premium
// are zero and mean nothing, and callers must not show them as a price.
type DelayPremium struct {
	Start    int64 `json:"start"`
	Feasible bool  `json:"feasible"`
	// NodeSeconds is the unweighted sum of delay x nodes.
	NodeSeconds int64 `json:"node_seconds"`
	// Premium is the weighted sum in node-seconds (NodeSeconds when no job
	// carries a weight). Convert it to money with DelayPremiumAmount.
	Premium decimal.Decimal `json:"premium"`
	// Delays lists the delayed queued jobs in queue order.
	Delays []JobDelay `json:"delays"`
}

// Quote is one entry of the list of candidate start times (seed 001, Sec. 3).
type Quote struct {
	Start       int64           `json:"start"`
	NodeSeconds int64           `json:"node_seconds"`
	Premium     decimal.Decimal `json:"premium"`
}

const opPremium slotfare.Op = "pricing.delay"

func (p *DelayPricer) checkRequest(nodes, duration int64) error {
	if nodes <= 0 || nodes > p.m.capacity {
		return slotfare.Errorf(opPremium, "request.nodes", "must be in 1..%d (the machine), got %d", p.m.capacity, nodes)
	}
	if duration <= 0 || duration > MaxQueueTime {
		return slotfare.Errorf(opPremium, "request.duration", "must be in 1..%d seconds, got %d", MaxQueueTime, duration)
	}
	return nil
}

// Feasible reports whether a reservation of nodes over [start,
// start+duration) fits beside running jobs and existing reservations.
func (p *DelayPricer) Feasible(nodes, duration, start int64) bool {
	return start >= p.m.now && p.m.fixed.fits(start, duration, nodes)
}

// Premium prices a reservation of nodes for duration seconds from start
// (seed 001, Sec. 2, Fig. 2). start must not be before the snapshot's now.
func (p *DelayPricer) Premium(nodes, duration, start int64) (DelayPremium, error) {
	if err := p.checkRequest(nodes, duration); err != nil {
		return DelayPremium{}, err
	}
	if start < p.m.now || start > MaxQueueTime {
		return DelayPremium{}, slotfare.Errorf(opPremium, "request.start", "must be in %d..%d (not before now), got %d", p.m.now, MaxQueueTime, start)
	}
	out := DelayPremium{Start: start, Premium: decimal.Zero, Delays: []JobDelay{}}
	if !p.Feasible(nodes, duration, start) {
		return out, nil
	}
	out.Feasible = true
	sc := p.newScratch()
	if err := p.perturb(sc, nodes, start, start+duration, true); err != nil {
		return DelayPremium{}, err
	}
	slices.SortFunc(sc.delays, func(a, b jobDelay) int { return int(a.job - b.job) })
	for _, d := range sc.delays {
		out.Delays = append(out.Delays, JobDelay{ID: p.m.ids[d.job], Nodes: p.m.nodes[d.job], Delay: d.delay})
	}
	out.NodeSeconds, out.Premium = p.total(sc)
	return out, nil
}

// Quotes lists every candidate start time for a reservation of nodes for
// duration seconds with its premium (seed 001, Sec. 3), earliest first,
// feasible ones only.
//
// The candidates are now and every instant, at or after now, where the base
// plan's availability changes: a running job's end, a reservation's start or
// end, a queued job's planned start or end. The list contains
//   - the earliest feasible start: feasibility depends on fixed blocks only,
//     and a feasible start s > now that is not the end of a fixed block can
//     move one second earlier and stay feasible (free capacity just before s
//     is at least that at s when no block ends at s), so the earliest one is
//     now or a fixed block's end, both candidates;
//   - a zero premium: ScheduleEnd is a candidate, nothing is fixed after it
//     and the request is no wider than the machine, so it is feasible; and
//     any start at or after the end of the queue's base plan costs nothing,
//     because every planned job already ends by then, so each policy takes
//     exactly the same decisions with the reservation as without it.
func (p *DelayPricer) Quotes(nodes, duration int64) ([]Quote, error) {
	if err := p.checkRequest(nodes, duration); err != nil {
		return nil, err
	}
	cands := p.candidates()
	out := make([]Quote, 0, len(cands))
	sc := p.newScratch()
	sc.checkpoint = true
	for _, s := range cands {
		if !p.Feasible(nodes, duration, s) {
			continue
		}
		q := Quote{Start: s, Premium: decimal.Zero}
		if s < p.queueEnd {
			clear(sc.sums)
			if err := p.perturb(sc, nodes, s, s+duration, false); err != nil {
				return nil, err
			}
			q.NodeSeconds, q.Premium = p.total(sc)
		}
		out = append(out, q)
	}
	return out, nil
}

// candidates returns the candidate start instants of Quotes, ascending.
func (p *DelayPricer) candidates() []int64 {
	c := make([]int64, 0, len(p.m.fixedAt)+2*len(p.base))
	c = append(c, p.m.fixedAt...)
	for j, s := range p.base {
		c = append(c, s, s+p.m.runtime[j])
	}
	slices.Sort(c)
	return slices.Compact(c)
}

type jobDelay struct {
	job   int
	delay int64
}

// delayScratch is the working memory of one Premium or Quotes call.
type delayScratch struct {
	sums    []int64 // node-seconds of delay per weight class
	delays  []jobDelay
	collect bool
	prof    freeProfile
	sim     *easySim
	vacated []interval
	// checkpoint asks prefixProfile to keep snapshots of the prefixes it
	// builds, worth it only when many replays follow (Quotes).
	checkpoint bool
	ckpt       []freeProfile // ckpt[i]: fixed blocks plus the first i*ckptEvery jobs of ckptOrder
	ckptOrder  []int32
}

// ckptEvery is the number of jobs between prefix snapshots.
const ckptEvery = 16

func (p *DelayPricer) newScratch() *delayScratch {
	return &delayScratch{sums: make([]int64, len(p.m.weights))}
}

func (sc *delayScratch) delayed(m *delayModel, j int, d int64) {
	sc.sums[m.class[j]] += d * m.nodes[j]
	if sc.collect {
		sc.delays = append(sc.delays, jobDelay{job: j, delay: d})
	}
}

// total turns the per-class sums into the unweighted and weighted premium.
func (p *DelayPricer) total(sc *delayScratch) (int64, decimal.Decimal) {
	var ns int64
	for _, s := range sc.sums {
		ns += s
	}
	if !p.m.weighted {
		return ns, decimal.NewFromInt(ns)
	}
	w := decimal.Zero
	for c, s := range sc.sums {
		if s != 0 {
			w = w.Add(p.m.weights[c].Mul(decimal.NewFromInt(s)))
		}
	}
	return ns, w
}

// perturb adds to sc the delays that a reservation of nodes over [a, b)
// causes. The reservation must be feasible.
func (p *DelayPricer) perturb(sc *delayScratch, nodes, a, b int64, collect bool) error {
	sc.collect = collect
	za, zb := p.conflict(nodes, a, b)
	if za >= zb {
		return nil
	}
	if p.m.policy == BackfillEASY {
		return p.perturbEASY(sc, nodes, a, b, za, zb)
	}
	return p.perturbOrdered(sc, nodes, a, b, za, zb)
}

// errNoConflict reports a broken invariant: the reservation conflicts with
// the base plan over [za, zb), so some planned job meets that interval and
// cannot keep its start (the machine would be over-subscribed there), yet no
// decision changed.
var errNoConflict = slotfare.E(opPremium, slotfare.Other, "internal error: a conflicting reservation moved no job")

// conflict returns the hull [za, zb) of the instants in [a, b) where the
// base plan leaves fewer than nodes idle; za >= zb when there is none.
//
// Only there can the reservation change a decision. A job's block that
// misses those instants still fits with the reservation in place: wherever
// the block meets the reservation, the capacity left when the job was
// placed, minus the job itself, is at least what the finished base plan
// leaves idle, which is at least nodes. (For EASY the head's shadow block
// is where the head finally runs, so it is in the base plan too.) A fit that
// failed still fails, since the reservation only takes capacity away. So a
// reservation that fits in the base plan's idle capacity costs nothing,
// under every policy.
func (p *DelayPricer) conflict(nodes, a, b int64) (int64, int64) {
	st := p.baseProf.steps
	za, zb := b, a
	for k := p.baseProf.index(a); k < len(st) && st[k].t < b; k++ {
		if st[k].free >= nodes {
			continue
		}
		za = min(za, max(st[k].t, a))
		zb = b
		if k+1 < len(st) {
			zb = min(b, st[k+1].t)
		}
	}
	return za, zb
}

// prefixProfile writes into dst the fixed blocks plus the first c queued
// jobs of ord at their base starts. ord is the queue order (nil) or the
// order by base start (p.order).
//
// For a single premium it builds the prefix from whichever side is cheaper:
// adding those jobs to the fixed blocks, or removing the others from the
// full base plan. For a quote list, which builds hundreds of prefixes, it
// keeps a snapshot every ckptEvery jobs of ord and starts from the nearest
// one, so a prefix costs a copy and fewer than ckptEvery placements.
func (p *DelayPricer) prefixProfile(sc *delayScratch, dst *freeProfile, ord []int32, c int) {
	m := p.m
	n := len(p.base)
	job := func(q int) int {
		if ord == nil {
			return q
		}
		return int(ord[q])
	}
	occupy := func(f *freeProfile, q int) {
		j := job(q)
		f.occupy(p.base[j], p.base[j]+m.runtime[j], m.nodes[j])
	}
	if sc.checkpoint {
		if sc.ckpt == nil || !sameOrder(sc.ckptOrder, ord) {
			sc.ckptOrder = ord
			sc.ckpt = sc.ckpt[:0]
			var f freeProfile
			m.fixed.cloneInto(&f)
			for q := 0; ; q++ {
				if q%ckptEvery == 0 {
					var snap freeProfile
					f.cloneInto(&snap)
					sc.ckpt = append(sc.ckpt, snap)
				}
				if q == n {
					break
				}
				occupy(&f, q)
			}
		}
		i := c / ckptEvery
		sc.ckpt[i].cloneInto(dst)
		for q := i * ckptEvery; q < c; q++ {
			occupy(dst, q)
		}
		return
	}
	if c <= n-c {
		m.fixed.cloneInto(dst)
		for q := range c {
			occupy(dst, q)
		}
		return
	}
	p.baseProf.cloneInto(dst)
	for q := c; q < n; q++ {
		j := job(q)
		dst.release(p.base[j], p.base[j]+m.runtime[j], m.nodes[j])
	}
	dst.compact()
}

// sameOrder reports whether a and b are the same order (both the queue
// order, or the same slice).
func sameOrder(a, b []int32) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// perturbEASY replays EASY with the reservation from the first base
// decision it changes and stops as soon as the replay rejoins the base run.
//
// Earlier decisions stand (see easyDivergence): the replay starts at the
// first instant whose decisions touch the conflict hull [za, zb), then walks
// on through the base log while every job started at an instant still fits
// beside the reservation and the head's shadow block too, taking those
// starts as they are.
//
// It rejoins at an instant t after the reservation when the same jobs have
// started and every job started off its base time has finished in both
// runs: the state at t is that of the base run, so is everything after.
func (p *DelayPricer) perturbEASY(sc *delayScratch, nodes, a, b, za, zb int64) error {
	e := easyDivergence(p.events, za, zb)
	if e < 0 {
		return errNoConflict
	}
	m := p.m
	t0 := p.events[e].t
	c := sort.Search(len(p.sorted), func(i int) bool { return p.sorted[i] >= t0 })
	if sc.sim == nil {
		sc.sim = &easySim{m: m, start: make([]int64, len(p.base))}
	}
	sim := sc.sim
	prof := &sim.prof
	p.prefixProfile(sc, prof, p.order, c)
	prof.occupy(a, b, nodes)
	// Walk the base log while its decisions stand.
	hits := func(x, y int64) bool { return x < zb && y > za }
	for ; e < len(p.events); e++ {
		ev := p.events[e]
		if ev.t >= zb {
			return errNoConflict // no later decision can touch the conflict
		}
		ok := true
		k := c
		for ; k < len(p.order) && p.sorted[k] == ev.t; k++ {
			j := p.order[k]
			end := ev.t + m.runtime[j]
			if hits(ev.t, end) && !prof.fits(ev.t, m.runtime[j], m.nodes[j]) {
				ok = false
				break
			}
			prof.occupy(ev.t, end, m.nodes[j])
		}
		if ok && ev.headB >= 0 && hits(ev.headA, ev.headB) {
			ok = prof.fits(ev.headA, ev.headB-ev.headA, m.nodes[ev.head])
		}
		if !ok {
			for i := c; i < k; i++ {
				j := p.order[i]
				prof.release(ev.t, ev.t+m.runtime[j], m.nodes[j])
			}
			break
		}
		c = k
	}
	if e == len(p.events) {
		return errNoConflict
	}
	t0 = p.events[e].t
	for j, s := range p.base {
		sim.start[j] = -1
		if s < t0 {
			sim.start[j] = s
		}
	}
	sim.load(p.base)
	err := sim.run(t0, func(t int64) bool {
		if t < b || sim.movedEnd > t {
			return false
		}
		return sim.started == sort.Search(len(p.sorted), func(i int) bool { return p.sorted[i] >= t })
	})
	if err != nil {
		return err
	}
	for j, s := range sim.start {
		if s > p.base[j] {
			sc.delayed(m, j, s-p.base[j])
		}
	}
	return nil
}

// perturbOrdered re-plans FCFS or conservative backfilling with the
// reservation, from the first job in queue order whose base block meets the
// conflict hull [za, zb) (every earlier job keeps its start: its block still
// fits, see conflict, and nothing freed up). For each later job j the base
// start v stays right unless the reservation or a moved job took capacity in
// [v, v+runtime), or a moved job vacated capacity that lets j start earlier.
//
// The latter needs a vacated instant before v inside the new block, so only
// runs of room met inside the vacated blocks before v are tried (see
// freeProfile.earliestVacated). This is exact, not a heuristic: outside the
// vacated blocks the new profile has no more free capacity than the profile
// j was planned on, so an earlier fit x < v that fitted there too would have
// been planned instead of v (x is at or after the lower bound of the plan);
// hence some instant u of [x, x+runtime) had too little room when j was
// planned and has enough now, so u is vacated; and u < v, because
// [v, v+runtime) had room when j was planned and [x, v) covers the rest.
func (p *DelayPricer) perturbOrdered(sc *delayScratch, nodes, a, b, za, zb int64) error {
	m := p.m
	n := len(p.base)
	overlaps := func(j int) bool { return p.base[j] < zb && p.base[j]+m.runtime[j] > za }
	first := -1
	for j := range n {
		if overlaps(j) {
			first = j
			break
		}
	}
	if first < 0 {
		return errNoConflict
	}
	prof := &sc.prof
	p.prefixProfile(sc, prof, nil, first)
	prof.occupy(a, b, nodes)
	vac := sc.vacated[:0] // vacated blocks, sorted and merged
	prevNew, prevBase := m.now, m.now
	if first > 0 {
		prevNew, prevBase = p.base[first-1], p.base[first-1]
	}
	fcfs := m.policy == BackfillFCFS
	for j := first; j < n; j++ {
		vacated := len(vac) > 0
		r, w, v := m.runtime[j], m.nodes[j], p.base[j]
		lb, lbBase := m.now, m.now
		if fcfs {
			lb, lbBase = prevNew, prevBase
		}
		var st int64
		k := -1 // the step of prof holding st, when known
		switch {
		case !vacated && !overlaps(j) && v >= lb:
			st = v
		case lb >= lbBase:
			var found bool
			st, k, found = prof.earliestVacated(vac, lb, v, r, w)
			if !found {
				t := max(lb, v)
				k = prof.index(t)
				if v >= lb && prof.fitsAt(k, v, r, w) {
					st = v
				} else {
					st = prof.earliestAt(k, t, r, w)
					k = prof.indexFrom(k, st)
				}
			}
		default:
			st = prof.earliest(lb, r, w)
		}
		if k >= 0 {
			prof.occupyAt(prof.splitAt(k, st), st+r, w)
		} else {
			prof.occupy(st, st+r, w)
		}
		if st != v {
			vac = addInterval(vac, v, v+r)
			if st > v {
				sc.delayed(m, j, st-v)
			}
		}
		prevNew, prevBase = st, v
	}
	sc.vacated = vac
	return nil
}

// interval is [a, b).
type interval struct{ a, b int64 }

// addInterval adds [a, b) to a sorted list of disjoint intervals, merging
// what overlaps or touches it.
func addInterval(list []interval, a, b int64) []interval {
	i := sort.Search(len(list), func(i int) bool { return list[i].b >= a })
	k := i
	for k < len(list) && list[k].a <= b {
		a, b = min(a, list[k].a), max(b, list[k].b)
		k++
	}
	if k == i {
		list = slices.Insert(list, i, interval{a, b})
		return list
	}
	list[i] = interval{a, b}
	return slices.Delete(list, i+1, k)
}
