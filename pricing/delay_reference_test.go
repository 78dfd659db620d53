package pricing

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shopspring/decimal"
)

// This file holds an independent, deliberately naive reference for the delay
// premium: blocks in a plain list, capacity checked by summing every block
// at every instant that matters, each candidate re-planned from scratch
// (seed 001, Fig. 2 done literally). The incremental DelayPricer must agree
// with it exactly on random snapshots.

type refBlock struct{ a, b, n int64 }

type refMachine struct {
	capacity int64
	blocks   []refBlock
}

func (m *refMachine) used(t int64) int64 {
	var u int64
	for _, b := range m.blocks {
		if b.a <= t && t < b.b {
			u += b.n
		}
	}
	return u
}

// fits checks t and every block start inside (t, t+r): usage only rises there.
func (m *refMachine) fits(t, r, n int64) bool {
	if m.capacity-m.used(t) < n {
		return false
	}
	for _, b := range m.blocks {
		if b.a > t && b.a < t+r && m.capacity-m.used(b.a) < n {
			return false
		}
	}
	return true
}

// earliest tries t0 and every block end after it, in order.
func (m *refMachine) earliest(t0, r, n int64) int64 {
	cands := []int64{t0}
	for _, b := range m.blocks {
		if b.b > t0 {
			cands = append(cands, b.b)
		}
	}
	slices.Sort(cands)
	for _, c := range cands {
		if m.fits(c, r, n) {
			return c
		}
	}
	panic("reference: no fit")
}

func refFixed(q QueueSnapshot) refMachine {
	m := refMachine{capacity: q.Nodes}
	for _, r := range q.Running {
		if r.End > q.Now {
			m.blocks = append(m.blocks, refBlock{q.Now, r.End, r.Nodes})
		}
	}
	for _, r := range q.Reservations {
		if r.End > q.Now {
			m.blocks = append(m.blocks, refBlock{max(q.Now, r.Start), r.End, r.Nodes})
		}
	}
	return m
}

// refPlan plans the queue from scratch on a copy of fixed.
func refPlan(q QueueSnapshot, fixed refMachine) []int64 {
	m := refMachine{capacity: fixed.capacity, blocks: slices.Clone(fixed.blocks)}
	start := make([]int64, len(q.Queued))
	switch q.Policy {
	case BackfillConservative, BackfillFCFS:
		prev := q.Now
		for i, j := range q.Queued {
			lb := q.Now
			if q.Policy == BackfillFCFS {
				lb = prev
			}
			start[i] = m.earliest(lb, j.Runtime, j.Nodes)
			prev = start[i]
			m.blocks = append(m.blocks, refBlock{start[i], start[i] + j.Runtime, j.Nodes})
		}
	case BackfillEASY:
		waiting := make([]bool, len(q.Queued))
		left := len(q.Queued)
		for i := range waiting {
			waiting[i] = true
		}
		begin := func(i int, t int64) {
			start[i], waiting[i] = t, false
			left--
			m.blocks = append(m.blocks, refBlock{t, t + q.Queued[i].Runtime, q.Queued[i].Nodes})
		}
		t := q.Now
		for steps := 0; left > 0; steps++ {
			if steps > 10000 {
				panic("reference EASY does not finish")
			}
			h := -1
			for i := range q.Queued {
				if !waiting[i] {
					continue
				}
				if m.fits(t, q.Queued[i].Runtime, q.Queued[i].Nodes) {
					begin(i, t)
					continue
				}
				h = i
				break
			}
			if h >= 0 {
				hj := q.Queued[h]
				sh := m.earliest(t, hj.Runtime, hj.Nodes)
				m.blocks = append(m.blocks, refBlock{sh, sh + hj.Runtime, hj.Nodes}) // shadow
				for i := h + 1; i < len(q.Queued); i++ {
					if waiting[i] && m.fits(t, q.Queued[i].Runtime, q.Queued[i].Nodes) {
						begin(i, t)
					}
				}
				// drop the shadow block again
				for k, b := range m.blocks {
					if b == (refBlock{sh, sh + hj.Runtime, hj.Nodes}) {
						m.blocks = slices.Delete(m.blocks, k, k+1)
						break
					}
				}
			}
			// next instant: the next block end, whatever it frees
			next := int64(-1)
			for _, b := range m.blocks {
				if b.b > t && (next < 0 || b.b < next) {
					next = b.b
				}
			}
			if left > 0 && next < 0 {
				panic("reference EASY stalled")
			}
			t = next
		}
	}
	return start
}

type refAnswer struct {
	feasible    bool
	nodeSeconds int64
	premium     decimal.Decimal
	delays      map[string]int64
}

func refPremium(q QueueSnapshot, nodes, duration, s int64) refAnswer {
	fixed := refFixed(q)
	if !fixed.fits(s, duration, nodes) {
		return refAnswer{}
	}
	base := refPlan(q, fixed)
	with := fixed
	with.blocks = append(slices.Clone(fixed.blocks), refBlock{s, s + duration, nodes})
	pert := refPlan(q, with)
	ans := refAnswer{feasible: true, premium: decimal.Zero, delays: map[string]int64{}}
	for i, j := range q.Queued {
		if d := pert[i] - base[i]; d > 0 {
			ans.nodeSeconds += d * j.Nodes
			w := decimal.NewFromInt(1)
			if j.Weight.Valid {
				w = j.Weight.Decimal
			}
			ans.premium = ans.premium.Add(w.Mul(decimal.NewFromInt(d * j.Nodes)))
			ans.delays[j.ID] = d
		}
	}
	return ans
}

func refCandidates(q QueueSnapshot) []int64 {
	c := []int64{q.Now}
	for _, r := range q.Running {
		if r.End > q.Now {
			c = append(c, r.End)
		}
	}
	for _, r := range q.Reservations {
		if r.End > q.Now {
			c = append(c, max(q.Now, r.Start), r.End)
		}
	}
	for i, s := range refPlan(q, refFixed(q)) {
		c = append(c, s, s+q.Queued[i].Runtime)
	}
	slices.Sort(c)
	return slices.Compact(c)
}

// randomSnapshot builds a small, valid snapshot with many coinciding times.
func randomSnapshot(rng *rand.Rand, policy BackfillPolicy) QueueSnapshot {
	return randomSnapshotSized(rng, policy, 12, 13, 1)
}

// randomSnapshotSized builds a valid snapshot on at most maxNodes nodes with
// fewer than maxJobs queued jobs, times stretched by spread.
func randomSnapshotSized(rng *rand.Rand, policy BackfillPolicy, maxNodes int64, maxJobs int, spread int64) QueueSnapshot {
	q := QueueSnapshot{Nodes: 1 + rng.Int64N(maxNodes), Now: rng.Int64N(20 * spread), Policy: policy}
	fixed := refMachine{capacity: q.Nodes}
	for i := range rng.IntN(5) {
		r := QueueRunningJob{ID: fmt.Sprintf("run%d", i), Nodes: 1 + rng.Int64N(q.Nodes), End: max(0, q.Now-3+rng.Int64N(40*spread))}
		if r.End > q.Now && !fixed.fits(q.Now, r.End-q.Now, r.Nodes) {
			continue
		}
		if r.End > q.Now {
			fixed.blocks = append(fixed.blocks, refBlock{q.Now, r.End, r.Nodes})
		}
		q.Running = append(q.Running, r)
	}
	for i := range rng.IntN(4 + int(spread)) {
		a := q.Now - 5 + rng.Int64N(60*spread)
		r := QueueReservation{ID: fmt.Sprintf("res%d", i), Nodes: 1 + rng.Int64N(q.Nodes), Start: max(0, a), End: max(0, a) + 1 + rng.Int64N(25*spread)}
		if r.End > q.Now {
			s := max(q.Now, r.Start)
			if !fixed.fits(s, r.End-s, r.Nodes) {
				continue
			}
			fixed.blocks = append(fixed.blocks, refBlock{s, r.End, r.Nodes})
		}
		q.Reservations = append(q.Reservations, r)
	}
	weighted := rng.IntN(3) == 0
	for i := range rng.IntN(maxJobs) {
		j := QueueJob{ID: fmt.Sprintf("job%d", i), Nodes: 1 + rng.Int64N(q.Nodes), Runtime: 1 + rng.Int64N(30*spread)}
		if rng.IntN(4) == 0 {
			j.Nodes = 1 + rng.Int64N(min(q.Nodes, 2))
		}
		if weighted && rng.IntN(2) == 0 {
			j.Weight = decimal.NewNullDecimal(decimal.New(rng.Int64N(30), -1))
		}
		q.Queued = append(q.Queued, j)
	}
	return q
}

func TestDelayMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	rounds := 1500
	if testing.Short() {
		rounds = 200
	}
	for _, policy := range []BackfillPolicy{BackfillFCFS, BackfillEASY, BackfillConservative} {
		for round := range rounds {
			q := randomSnapshot(rng, policy)
			if round%5 == 4 {
				// fewer coincidences, longer queues, more reservations
				q = randomSnapshotSized(rng, policy, 24, 30, 1+rng.Int64N(4))
			}
			p, err := NewDelayPricer(q)
			if err != nil {
				t.Fatalf("%s round %d: %v\n%+v", policy, round, err, q)
			}
			want := refPlan(q, refFixed(q))
			for i, pj := range p.Plan() {
				if pj.Start != want[i] {
					t.Fatalf("%s round %d: base start of %s = %d, reference %d\n%+v", policy, round, pj.ID, pj.Start, want[i], q)
				}
			}
			nodes, duration := 1+rng.Int64N(q.Nodes), 1+rng.Int64N(40+p.ScheduleEnd()-q.Now)
			quotes, err := p.Quotes(nodes, duration)
			if err != nil {
				t.Fatal(err)
			}
			var wantQuotes []Quote
			for _, s := range refCandidates(q) {
				if a := refPremium(q, nodes, duration, s); a.feasible {
					wantQuotes = append(wantQuotes, Quote{Start: s, NodeSeconds: a.nodeSeconds, Premium: a.premium})
				}
			}
			if len(quotes) != len(wantQuotes) {
				t.Fatalf("%s round %d: %d quotes, reference %d\ngot  %v\nwant %v\n%+v", policy, round, len(quotes), len(wantQuotes), quotes, wantQuotes, q)
			}
			for i := range quotes {
				g, w := quotes[i], wantQuotes[i]
				if g.Start != w.Start || g.NodeSeconds != w.NodeSeconds || !g.Premium.Equal(w.Premium) {
					t.Fatalf("%s round %d: quote %d = %+v, reference %+v\nrequest %d nodes x %d s\n%+v", policy, round, i, g, w, nodes, duration, q)
				}
			}
			// Single premiums at arbitrary starts, feasible or not.
			for range 4 {
				s := q.Now + rng.Int64N(70+p.ScheduleEnd()-q.Now)
				got, err := p.Premium(nodes, duration, s)
				if err != nil {
					t.Fatal(err)
				}
				w := refPremium(q, nodes, duration, s)
				if got.Feasible != w.feasible || got.NodeSeconds != w.nodeSeconds || !got.Premium.Equal(w.premium) || len(got.Delays) != len(w.delays) {
					t.Fatalf("%s round %d: premium at %d = %+v, reference %+v\nrequest %d nodes x %d s\n%+v", policy, round, s, got, w, nodes, duration, q)
				}
				for _, d := range got.Delays {
					if w.delays[d.ID] != d.Delay {
						t.Fatalf("%s round %d: delay of %s = %d, reference %d", policy, round, d.ID, d.Delay, w.delays[d.ID])
					}
				}
			}
		}
	}
}
