package pricing

import (
	"math"
	"slices"

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
	head     int // the head job owning that block
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
	widths  widthBuckets
	start   []int64 // planned start; -1 while waiting
	waiting int
	record  bool
	events  []easyEvent
	levels  []fitLevel // scratch of horizon
	offer   []int      // scratch of firstFitting, per width bucket
	cur     int        // step of the current instant
	head    int        // the first waiting job, -1 when none; its shadow start is headAt
	headAt  int64

	// Comparison with a base plan (nil for the base run itself).
	base     []int64
	started  int   // jobs started so far
	movedEnd int64 // latest end, in either plan, of a job started off its base start
}

func newEasySim(m *delayModel, prof freeProfile, record bool) *easySim {
	s := &easySim{m: m, prof: prof, start: make([]int64, len(m.nodes)), record: record}
	if record {
		s.events = make([]easyEvent, 0, len(prof.steps)+2*len(m.nodes)+2)
	}
	for j := range s.start {
		s.start[j] = -1
	}
	s.load(nil)
	return s
}

// load prepares a run from the jobs already started in s.start (-1 for a
// waiting job), comparing with base when it is not nil.
func (s *easySim) load(base []int64) {
	s.base, s.started, s.movedEnd, s.waiting = base, 0, -1, 0
	if len(s.offer) < len(s.m.buckets.width) {
		s.offer = make([]int, len(s.m.buckets.width))
	}
	s.widths.load(&s.m.buckets, s.m.runtime, s.start)
	for _, st := range s.start {
		if st < 0 {
			s.waiting++
		} else {
			s.started++
		}
	}
	s.head = -1
}

// begin starts job j at the current instant, the breakpoint of step s.cur.
func (s *easySim) begin(j int) {
	m := s.m
	t := s.prof.steps[s.cur].t
	s.start[j] = t
	s.waiting--
	s.widths.remove(&m.buckets, j)
	s.prof.occupyAt(s.cur, t+m.runtime[j], m.nodes[j])
	if s.base != nil {
		s.started++
		if b := s.base[j]; b != t {
			s.movedEnd = max(s.movedEnd, t+m.runtime[j], b+m.runtime[j])
		}
	}
}

// nextHead makes the first waiting job at or after position from the head:
// it leaves the backfilling candidates and gets its shadow start, which
// stays put while it waits (later blocks never overlap its shadow block and
// only take capacity, so no earlier fit appears).
func (s *easySim) nextHead(from int, t int64) {
	s.head = -1
	for j := from; j < len(s.start); j++ {
		if s.start[j] < 0 {
			s.head = j
			break
		}
	}
	if s.head >= 0 {
		h := s.head
		s.widths.remove(&s.m.buckets, h)
		s.headAt = s.prof.earliestAt(s.cur, t, s.m.runtime[h], s.m.nodes[h])
	}
}

// decide takes EASY's decisions at the current instant t, the breakpoint of
// step s.cur.
func (s *easySim) decide(t int64) {
	m := s.m
	ev := easyEvent{t: t, startEnd: -1, headA: -1, headB: -1}
	free := s.prof.steps[s.cur].free
	for h := s.head; h >= 0 && m.nodes[h] <= free && s.prof.fitsAt(s.cur, t, m.runtime[h], m.nodes[h]); h = s.head {
		s.begin(h)
		free -= m.nodes[h]
		ev.startEnd = max(ev.startEnd, t+m.runtime[h])
		s.nextHead(h+1, t)
	}
	if h := s.head; h >= 0 && free > 0 && s.widths.narrowest(&m.buckets) <= free {
		sh := s.headAt
		he := sh + m.runtime[h]
		ev.headA, ev.headB, ev.head = sh, he, h
		s.horizon(t, sh, he, m.nodes[h])
		for j := s.firstFitting(t, free, -1); j >= 0; j = s.firstFitting(t, free, j) {
			s.begin(j)
			free -= m.nodes[j]
			ev.startEnd = max(ev.startEnd, t+m.runtime[j])
			if free == 0 {
				break
			}
			s.shrinkLevels(t+m.runtime[j], m.nodes[j])
		}
	}
	if s.record {
		s.events = append(s.events, ev)
	}
}

// firstFitting returns the first backfilling candidate in queue order that
// fits at t for its whole runtime beside the head's shadow block (given the
// levels of horizon), or -1. Each width bucket up to the free nodes that
// still holds a candidate offers its first job short enough for the time
// that width stays free. After a
// start (started >= 0) the offers are revised, not recomputed: capacity only
// shrank, so a bucket's offer that still fits is still its first, and a
// bucket that offered nothing still has nothing.
func (s *easySim) firstFitting(t, free int64, started int) int {
	bk := &s.m.buckets
	best := -1
	// The levels' free capacities fall strictly, so those below a width
	// form a suffix, which only grows as the widths rise: li is its start.
	levels := s.levels
	li := len(levels)
	for _, c := range s.widths.live {
		w := bk.width[c]
		if w > free {
			break
		}
		if started >= 0 && s.offer[c] < 0 {
			continue
		}
		for li > 0 && levels[li-1].free < w {
			li--
		}
		room := int64(noJob - 1) // below noJob: jobs not waiting never fit
		if li < len(levels) {
			room = levels[li].at - t
		}
		if started < 0 || s.offer[c] == started || s.m.runtime[s.offer[c]] > room {
			s.offer[c] = s.widths.firstWithin(bk, c, room)
		}
		if j := s.offer[c]; j >= 0 && (best < 0 || j < best) {
			best = j
		}
	}
	return best
}

// shrinkLevels revises the levels of horizon after a job of n nodes started
// at the decision instant and holds them until end: the running minimum
// drops by n before end; after end it drops only where it dropped before,
// to the profile's own value there.
func (s *easySim) shrinkLevels(end, n int64) {
	out := s.levels[:0]
	run := int64(noJob)
	for _, l := range s.levels {
		if l.at < end {
			l.free -= n
		}
		if l.free < run {
			run = l.free
			out = append(out, l)
		}
	}
	s.levels = out
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
// at t iff the minimum stays at least n until t+r. The walk stops once the
// minimum is below every candidate's width or it has covered the longest
// runtime in the queue.
func (s *easySim) horizon(t, sh, he, hn int64) {
	s.levels = s.levels[:0]
	st := s.prof.steps
	minW := s.widths.narrowest(&s.m.buckets)
	run := int64(noJob)
	for k := s.cur; k < len(st); k++ {
		x := st[k].t
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

// run plays the simulation from instant t0 until every job has started, or
// until rejoined reports that the rest of the run equals the base plan.
func (s *easySim) run(t0 int64, rejoined func(t int64) bool) error {
	s.cur = s.prof.split(t0)
	s.nextHead(0, t0)
	// Every instant visited is a distinct step of the profile, which gains
	// at most two steps per started job.
	limit := len(s.prof.steps) + 2*len(s.start) + 2
	t := t0
	for iter := 0; s.waiting > 0; iter++ {
		if iter > limit {
			return slotfare.E(slotfare.Op("pricing.easy"), slotfare.Other, "EASY simulation did not finish (internal error)")
		}
		if rejoined != nil && rejoined(t) {
			return nil
		}
		s.decide(t)
		if s.waiting == 0 {
			return nil
		}
		st := s.prof.steps
		k := s.cur + 1
		for k < len(st) && st[k].free <= st[k-1].free {
			k++
		}
		if k == len(st) {
			return slotfare.E(slotfare.Op("pricing.easy"), slotfare.Other, "EASY simulation stalled with jobs waiting (internal error)")
		}
		s.cur, t = k, st[k].t
	}
	return nil
}

// easyDivergence returns the first decision instant of the base run that a
// reservation conflicting with the base plan over [a, b) could change, or
// -1 when it changes none (premium zero). An instant's decisions stand if
// neither a job started there nor the head's shadow block meets [a, b):
// every fit that succeeded still succeeds (see DelayPricer.conflict), every
// fit that failed still fails (the reservation only removes capacity), and
// the shadow block is the same.
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

// bucketSet groups the queued jobs by width, narrowest first, each bucket
// listing its jobs in queue order. It belongs to the model; widthBuckets
// holds one run's state over it.
type bucketSet struct {
	width []int64 // per bucket, ascending
	first []int   // per bucket: where its jobs start in jobs, and its tree in widthBuckets.r
	size  []int   // per bucket: leaves of its tree (a power of two)
	tree  []int   // per bucket: offset of its tree
	jobs  []int32 // queue positions, bucket after bucket
	of    []int32 // per job: its bucket
	at    []int32 // per job: its leaf within the bucket
	nodes int     // total tree nodes
}

func newBucketSet(nodes []int64) bucketSet {
	var b bucketSet
	widths := slices.Clone(nodes)
	slices.Sort(widths)
	b.width = slices.Compact(widths)
	b.of, b.at = make([]int32, len(nodes)), make([]int32, len(nodes))
	count := make([]int, len(b.width))
	for j, n := range nodes {
		c, _ := slices.BinarySearch(b.width, n)
		b.of[j], b.at[j] = int32(c), int32(count[c])
		count[c]++
	}
	b.first, b.size, b.tree = make([]int, len(b.width)), make([]int, len(b.width)), make([]int, len(b.width))
	off := 0
	for c, k := range count {
		if c > 0 {
			b.first[c] = b.first[c-1] + count[c-1]
		}
		size := 1
		for size < k {
			size <<= 1
		}
		b.size[c], b.tree[c] = size, off
		off += 2 * size
	}
	b.nodes = off
	b.jobs = make([]int32, len(nodes))
	for j := range nodes {
		c := b.of[j]
		b.jobs[b.first[c]+int(b.at[j])] = int32(j)
	}
	return b
}

// widthBuckets keeps, per width bucket, a tree over its jobs in queue order
// holding the least runtime of the backfilling candidates below each node
// (noJob for a job that is not a candidate), so that the first candidate of
// a bucket short enough to fit is found in logarithmic time.
type widthBuckets struct {
	r    []int64
	live []int // buckets holding a candidate, ascending (so narrowest first)
}

// load marks as candidates the jobs not yet started (start < 0).
func (w *widthBuckets) load(b *bucketSet, runtime []int64, start []int64) {
	if cap(w.r) < b.nodes {
		w.r = make([]int64, b.nodes)
	}
	w.r = w.r[:b.nodes]
	for i := range w.r {
		w.r[i] = noJob
	}
	for j, st := range start {
		if st < 0 {
			w.r[b.tree[b.of[j]]+b.size[b.of[j]]+int(b.at[j])] = runtime[j]
		}
	}
	w.live = w.live[:0]
	for c := range b.width {
		t, size := b.tree[c], b.size[c]
		for i := size - 1; i >= 1; i-- {
			w.r[t+i] = min(w.r[t+2*i], w.r[t+2*i+1])
		}
		if w.r[t+1] != noJob {
			w.live = append(w.live, c)
		}
	}
}

// remove takes job j out of the candidates.
func (w *widthBuckets) remove(b *bucketSet, j int) {
	c := b.of[j]
	t := b.tree[c]
	i := b.size[c] + int(b.at[j])
	w.r[t+i] = noJob
	for i >>= 1; i >= 1; i >>= 1 {
		m := min(w.r[t+2*i], w.r[t+2*i+1])
		if w.r[t+i] == m {
			return
		}
		w.r[t+i] = m
	}
	if w.r[t+1] == noJob {
		if k := slices.Index(w.live, int(c)); k >= 0 {
			w.live = slices.Delete(w.live, k, k+1)
		}
	}
}

// narrowest returns the width of the narrowest candidate, or noJob.
func (w *widthBuckets) narrowest(b *bucketSet) int64 {
	if len(w.live) == 0 {
		return noJob
	}
	return b.width[w.live[0]]
}

// firstWithin returns the first candidate of bucket c in queue order whose
// runtime is at most room (< noJob), or -1.
func (w *widthBuckets) firstWithin(b *bucketSet, c int, room int64) int {
	t := b.tree[c]
	if w.r[t+1] > room {
		return -1
	}
	size := b.size[c]
	i := 1
	for i < size {
		if w.r[t+2*i] <= room {
			i = 2 * i
		} else {
			i = 2*i + 1
		}
	}
	return int(b.jobs[b.first[c]+i-size])
}

const noJob = math.MaxInt64
