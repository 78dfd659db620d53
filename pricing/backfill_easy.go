package pricing

import (
	"math"

	"slotfare"
)

// easyEvent records one decision instant of an EASY simulation: the latest
// end among the jobs it started and the head job's shadow block when it
// tried backfilling. A reservation that overlaps none of these leaves the
// instant's decisions exactly as they were (see easyDivergence).
type easyEvent struct {
	t        int64
	startEnd int64 // latest end of a job started at t; -1 if none
	headA    int64 // the head's shadow block [headA, headB); headB == -1 if none
	headB    int64
}

// easySim plays EASY (aggressive) backfilling forward in time with
// estimated runtimes (seed 001, Sec. 4; Mu'alem & Feitelson, its ref. [6]),
// honouring running jobs and reservations as fixed blocks. The planned start
// of a queued job is the instant this simulation starts it: EASY guarantees
// only the head's start, so for the other jobs "planned" means "where the
// scheduler would start them if every job ran exactly its estimate".
//
// At each decision instant t (now, and every instant where free capacity
// rises):
//  1. while the head of the queue fits at t for its whole runtime, start it;
//  2. otherwise give the head a shadow block at its earliest fit, and start
//     at t, in queue order, every later job that fits for its whole runtime
//     beside running jobs, reservations and that shadow block.
//
// Nothing can start between two such instants: if a job fits at t' and free
// capacity did not rise in (t, t'], it already fitted at t.
type easySim struct {
	m       *delayModel
	prof    freeProfile
	tree    waitTree
	start   []int64 // planned start; -1 while waiting
	waiting int
	record  bool
	events  []easyEvent
	levels  []fitLevel // scratch of horizon

	// Comparison with a base plan (nil for the base run itself).
	base     []int64
	started  int   // jobs started so far
	movedEnd int64 // latest end, in either plan, of a job started off its base start
}

func newEasySim(m *delayModel, prof freeProfile, record bool) *easySim {
	n := len(m.nodes)
	s := &easySim{m: m, prof: prof, start: make([]int64, n), waiting: n, record: record, movedEnd: -1}
	s.tree.reset(n)
	for j := range n {
		s.start[j] = -1
		s.tree.put(j, m.nodes[j], m.runtime[j])
	}
	s.tree.build()
	return s
}

func (s *easySim) begin(j int, t int64) {
	m := s.m
	s.start[j] = t
	s.waiting--
	s.tree.remove(j)
	s.prof.occupy(t, t+m.runtime[j], m.nodes[j])
	if s.base != nil {
		s.started++
		if b := s.base[j]; b != t {
			s.movedEnd = max(s.movedEnd, t+m.runtime[j], b+m.runtime[j])
		}
	}
}

// decide takes EASY's decisions at instant t.
func (s *easySim) decide(t int64) {
	m := s.m
	ev := easyEvent{t: t, startEnd: -1, headA: -1, headB: -1}
	free := s.prof.freeAt(t)
	h := s.tree.first(0)
	for h >= 0 && m.nodes[h] <= free && s.prof.fits(t, m.runtime[h], m.nodes[h]) {
		s.begin(h, t)
		free -= m.nodes[h]
		ev.startEnd = max(ev.startEnd, t+m.runtime[h])
		h = s.tree.first(h + 1)
	}
	if h >= 0 && free > 0 && s.tree.w[1] <= free {
		sh := s.prof.earliest(t, m.runtime[h], m.nodes[h])
		he := sh + m.runtime[h]
		ev.headA, ev.headB = sh, he
		s.horizon(t, sh, he, m.nodes[h])
		for j := s.tree.firstFitting(h+1, t, s.levels); j >= 0; j = s.tree.firstFitting(j+1, t, s.levels) {
			s.begin(j, t)
			free -= m.nodes[j]
			ev.startEnd = max(ev.startEnd, t+m.runtime[j])
			if free == 0 || s.tree.w[1] > free {
				break
			}
			s.horizon(t, sh, he, m.nodes[h])
		}
	}
	if s.record {
		s.events = append(s.events, ev)
	}
}

// fitLevel says that from the decision instant until at, at least free
// nodes stay free throughout (the head's shadow block taken into account).
type fitLevel struct {
	at   int64
	free int64
}

// horizon computes, for decision instant t, the running minimum of free
// capacity from t on, with the head's shadow block [sh, he) of hn nodes
// taken out: the levels where it drops. A job of n nodes and runtime r fits
// at t iff the minimum stays at least n until t+r (fitsNow). The walk stops
// once the minimum is below every waiting job's width or it has covered the
// longest runtime in the queue.
func (s *easySim) horizon(t, sh, he, hn int64) {
	s.levels = s.levels[:0]
	st := s.prof.steps
	minW := s.tree.w[1]
	run := int64(noJob)
	for k := s.prof.index(t); k < len(st); k++ {
		x := max(st[k].t, t)
		f := st[k].free
		if x >= sh && x < he {
			f -= hn // a step never straddles sh, which is a step time
		}
		if f < run {
			run = f
			s.levels = append(s.levels, fitLevel{at: x, free: f})
			if run < minW {
				return
			}
		}
		if k+1 < len(st) && st[k+1].t-t >= s.m.maxRuntime {
			return
		}
	}
}

// fitsNow reports whether n nodes stay free from t for r seconds, given the
// levels of horizon at t.
func fitsNow(levels []fitLevel, t, n, r int64) bool {
	for _, l := range levels {
		if l.free < n {
			return l.at-t >= r // no overflow for a removed job (r = noJob)
		}
	}
	return true
}

// waitTree keeps the waiting jobs by queue position, each inner node holding
// the least width and the least runtime below it (a job not waiting counts
// as infinitely wide and long), so that the backfilling scan skips whole
// runs of jobs that cannot fit: any job under a node is at least as wide and
// as long as the node's minima, and the fit horizon only shrinks with width.
type waitTree struct {
	size int
	w, r []int64
}

const noJob = math.MaxInt64

func (q *waitTree) reset(n int) {
	q.size = 1
	for q.size < n {
		q.size <<= 1
	}
	if cap(q.w) < 2*q.size {
		q.w, q.r = make([]int64, 2*q.size), make([]int64, 2*q.size)
	}
	q.w, q.r = q.w[:2*q.size], q.r[:2*q.size]
	for i := range q.w {
		q.w[i], q.r[i] = noJob, noJob
	}
}

// put sets leaf j; build must follow before any query.
func (q *waitTree) put(j int, width, runtime int64) {
	q.w[q.size+j], q.r[q.size+j] = width, runtime
}

func (q *waitTree) build() {
	for i := q.size - 1; i >= 1; i-- {
		q.w[i] = min(q.w[2*i], q.w[2*i+1])
		q.r[i] = min(q.r[2*i], q.r[2*i+1])
	}
}

func (q *waitTree) remove(j int) {
	i := q.size + j
	q.w[i], q.r[i] = noJob, noJob
	for i >>= 1; i >= 1; i >>= 1 {
		q.w[i] = min(q.w[2*i], q.w[2*i+1])
		q.r[i] = min(q.r[2*i], q.r[2*i+1])
	}
}

// first returns the first waiting position at or after from, or -1.
func (q *waitTree) first(from int) int {
	return q.search(from, func(i int) bool { return q.w[i] != noJob })
}

// firstFitting returns the first waiting position at or after from whose job
// fits at t for its whole runtime (fitsNow), or -1.
func (q *waitTree) firstFitting(from int, t int64, levels []fitLevel) int {
	return q.search(from, func(i int) bool { return fitsNow(levels, t, q.w[i], q.r[i]) })
}

// search walks the leaves from position from rightwards, skipping every
// subtree whose minima fail maybe, and returns the first leaf passing it.
// maybe must be exact on leaves and hold on a node whenever it holds on
// some leaf below.
func (q *waitTree) search(from int, maybe func(i int) bool) int {
	if from >= q.size {
		return -1
	}
	i := from + q.size
	for {
		if maybe(i) {
			if i >= q.size {
				return i - q.size
			}
			i = 2 * i
			continue
		}
		for i&1 == 1 {
			i >>= 1
			if i <= 1 {
				return -1
			}
		}
		i++
	}
}

// run plays the simulation from instant t0 until every job has started, or
// until rejoined reports that the rest of the run equals the base plan.
func (s *easySim) run(t0 int64, rejoined func(t int64) bool) error {
	// Every instant visited is a distinct step of the profile, which gains
	// at most two steps per started job.
	limit := len(s.prof.steps) + 2*len(s.start) + 2
	t := t0
	for iter := 0; s.waiting > 0; iter++ {
		if iter > limit {
			return slotfare.E("pricing.easy", slotfare.Other, "EASY simulation did not finish (internal error)")
		}
		if rejoined != nil && rejoined(t) {
			return nil
		}
		s.decide(t)
		if s.waiting == 0 {
			return nil
		}
		st := s.prof.steps
		k := s.prof.index(t) + 1
		for k < len(st) && st[k].free <= st[k-1].free {
			k++
		}
		if k == len(st) {
			return slotfare.E("pricing.easy", slotfare.Other, "EASY simulation stalled with jobs waiting (internal error)")
		}
		t = st[k].t
	}
	return nil
}

// easyDivergence returns the first decision instant of the base run that a
// reservation of [a, b) could change, or -1 when it changes none (premium
// zero). An instant's decisions stand if neither a job started there nor the
// head's shadow block overlaps the reservation: every fit that succeeded
// still succeeds, every fit that failed still fails (the reservation only
// removes capacity), and the shadow block is the same.
func easyDivergence(events []easyEvent, a, b int64) int {
	for i, e := range events {
		if e.t >= b {
			return -1
		}
		if e.startEnd > a || (e.headB > a && e.headA < b) {
			return i
		}
	}
	return -1
}
