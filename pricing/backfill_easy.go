package pricing

import (
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
	tree    widthTree
	start   []int64 // planned start; -1 while waiting
	waiting int
	record  bool
	events  []easyEvent

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
		s.tree.v[s.tree.size+j] = m.nodes[j]
	}
	s.tree.build()
	return s
}

func (s *easySim) begin(j int, t int64) {
	m := s.m
	s.start[j] = t
	s.waiting--
	s.tree.set(j, noJob)
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
	h := s.tree.first(0, noJob-1)
	for h >= 0 && m.nodes[h] <= free && s.prof.fits(t, m.runtime[h], m.nodes[h]) {
		s.begin(h, t)
		free -= m.nodes[h]
		ev.startEnd = max(ev.startEnd, t+m.runtime[h])
		h = s.tree.first(h+1, noJob-1)
	}
	if h >= 0 && free > 0 {
		sh := s.prof.earliest(t, m.runtime[h], m.nodes[h])
		he := sh + m.runtime[h]
		ev.headA, ev.headB = sh, he
		for j := s.tree.first(h+1, free); j >= 0; j = s.tree.first(j+1, free) {
			if s.prof.fitsBeside(t, m.runtime[j], m.nodes[j], sh, he, m.nodes[h]) {
				s.begin(j, t)
				free -= m.nodes[j]
				ev.startEnd = max(ev.startEnd, t+m.runtime[j])
				if free == 0 {
					break
				}
			}
		}
	}
	if s.record {
		s.events = append(s.events, ev)
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
