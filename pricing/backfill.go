package pricing

import (
	"cmp"
	"slices"

	"github.com/shopspring/decimal"
)

// delayModel is a validated snapshot in the form the planners use: queued
// jobs as parallel slices in queue order, running jobs and reservations
// already written into a free-capacity profile starting at now.
type delayModel struct {
	capacity   int64
	now        int64
	policy     BackfillPolicy
	ids        []string
	nodes      []int64
	runtime    []int64
	class      []int32           // index into weights, per queued job
	weights    []decimal.Decimal // distinct delay-cost weights
	weighted   bool              // some job carries an explicit weight
	fixed      freeProfile       // running jobs and reservations, from now on
	fixedAt    []int64           // instants (>= now) where a fixed block starts or ends
	fixedEnd   int64             // when the last fixed block ends (now if none)
	maxRuntime int64             // longest estimated runtime in the queue
	buckets    bucketSet         // queued jobs by width, for EASY's backfilling
}

func newDelayModel(q *QueueSnapshot) (*delayModel, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	n := len(q.Queued)
	m := &delayModel{
		capacity: q.Nodes,
		now:      q.Now,
		policy:   q.Policy,
		ids:      make([]string, n),
		nodes:    make([]int64, n),
		runtime:  make([]int64, n),
		class:    make([]int32, n),
		fixed:    freeProfile{steps: make([]freeStep, 1, 2*(len(q.Running)+len(q.Reservations))+2)},
		fixedEnd: q.Now,
	}
	m.fixed.steps[0] = freeStep{t: q.Now, free: q.Nodes}
	one := decimal.NewFromInt(1)
	for i, j := range q.Queued {
		m.ids[i], m.nodes[i], m.runtime[i] = j.ID, j.Nodes, j.Runtime
		m.maxRuntime = max(m.maxRuntime, j.Runtime)
		w := one
		if j.Weight.Valid {
			w = j.Weight.Decimal
			m.weighted = true
		}
		c := -1
		for k, x := range m.weights {
			if x.Equal(w) {
				c = k
				break
			}
		}
		if c < 0 {
			c = len(m.weights)
			m.weights = append(m.weights, w)
		}
		m.class[i] = int32(c)
	}
	m.buckets = newBucketSet(m.nodes)
	m.fixedAt = append(m.fixedAt, q.Now)
	for _, r := range q.Running {
		if r.End > q.Now {
			m.fixed.occupy(q.Now, r.End, r.Nodes)
			m.fixedAt = append(m.fixedAt, r.End)
			m.fixedEnd = max(m.fixedEnd, r.End)
		}
	}
	for _, r := range q.Reservations {
		if r.End > q.Now {
			start := max(r.Start, q.Now)
			m.fixed.occupy(start, r.End, r.Nodes)
			m.fixedAt = append(m.fixedAt, start, r.End)
			m.fixedEnd = max(m.fixedEnd, r.End)
		}
	}
	return m, nil
}

// plannedStarts computes the planned start of every queued job beside the
// given profile of fixed blocks (running jobs and reservations): the
// schedule the policy would run if every job took exactly its estimated
// runtime (seed 001, Sec. 4: prices use the maximum runtime estimates). It returns the profile with the jobs
// written in. For EASY it also returns the simulation's decision log.
func (m *delayModel) plannedStarts(prof freeProfile) ([]int64, freeProfile, []easyEvent, error) {
	if m.policy == BackfillEASY {
		sim := newEasySim(m, prof, true)
		if err := sim.run(m.now, nil); err != nil {
			return nil, freeProfile{}, nil, err
		}
		return sim.start, sim.prof, sim.events, nil
	}
	start := make([]int64, len(m.nodes))
	prev := m.now
	for j := range m.nodes {
		lb := m.now
		if m.policy == BackfillFCFS {
			lb = prev
		}
		v := prof.earliest(lb, m.runtime[j], m.nodes[j])
		prof.occupy(v, v+m.runtime[j], m.nodes[j])
		start[j], prev = v, v
	}
	return start, prof, nil, nil
}

// sortByStart returns the queue positions ordered by planned start (ties in
// queue order) and the starts in that order.
func sortByStart(start []int64) ([]int32, []int64) {
	order := make([]int32, len(start))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(start[a], start[b]) })
	sorted := make([]int64, len(start))
	for i, j := range order {
		sorted[i] = start[j]
	}
	return order, sorted
}
