package calendar

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// ospSpec is Alg. 8 as first written, every step ranked and every offer
// made, then cut to max: what osp must answer.
func ospSpec(steps []Step, q Query, need int, needSol bool, max int) []Offer {
	rank := make([]int, len(steps))
	for i := range rank {
		rank[i] = i
	}
	sort.SliceStable(rank, func(a, b int) bool { return steps[rank[a]].Free < steps[rank[b]].Free })
	var out []Offer
	seen := make(map[Offer]bool)
	for _, idx := range rank {
		if steps[idx].Free < need {
			continue
		}
		o, long := ospWiden(steps, idx, q, need)
		solution := needSol && long
		if seen[o] && !solution {
			continue
		}
		seen[o] = true
		if solution {
			o.Solution = true
			out = append([]Offer{o}, out...)
			break
		}
		out = append(out, o)
	}
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// randomProfile is a profile of n steps over [0, ...) with 0 to capacity
// free nodes each, 1 to 20 long (adjacent counts may repeat: osp must not
// rely on a canonical profile).
func randomProfile(rng *rand.Rand, n, capacity int) []Step {
	steps := make([]Step, n)
	t := int64(0)
	for i := range steps {
		d := 1 + rng.Int64N(20)
		steps[i] = Step{Start: t, End: t + d, Free: rng.IntN(capacity + 1)}
		t += d
	}
	return steps
}

// TestOSPAgainstSpec: osp, which ranks only the steps with enough nodes
// and stops making alternatives at max, answers what the algorithm as
// first written answers cut to max, on random profiles (long ones too,
// past its rank buffer), queries and limits.
func TestOSPAgainstSpec(t *testing.T) {
	for seed := range uint64(3000) {
		rng := rand.New(rand.NewPCG(seed, 17))
		capacity := 1 + rng.IntN(8)
		steps := randomProfile(rng, rng.IntN(120), capacity)
		q := Query{Duration: rng.Int64N(60), Nodes: rng.IntN(capacity + 1)}
		need := max(q.Nodes, 1)
		needSol := q.Duration > 0 && q.Nodes > 0
		limit := 1 + rng.IntN(8)
		buf := make([]Offer, rng.IntN(4), 8) // a reused buffer's offers are overwritten
		for i := range buf {
			buf[i] = Offer{Start: -1, End: -1, Nodes: 99}
		}
		got, want := osp(buf[:0], steps, q, need, needSol, limit), ospSpec(steps, q, need, needSol, limit)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: osp(%v, %+v, max %d) = %v, want %v", seed, steps, q, limit, got, want)
		}
	}
}

// TestOffersIntoIsOffers: OffersInto answers what Offers answers, in a
// reused buffer whatever it held, with every strategy.
func TestOffersIntoIsOffers(t *testing.T) {
	var buf []Offer
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 29))
		c, _ := NewTree(6)
		for i := range 20 {
			s := rng.Int64N(200)
			_ = c.Add(Reservation{ID: fmt.Sprint(i), Start: s, End: s + 1 + rng.Int64N(40), Nodes: 1 + rng.IntN(6)})
		}
		es := rng.Int64N(150)
		q := Query{EarliestStart: es, LatestEnd: es + 1 + rng.Int64N(100), Duration: rng.Int64N(40), Nodes: rng.IntN(7)}
		for _, s := range []Strategy{OSP, FirstFit, BestFit} {
			limit := 1 + rng.IntN(6)
			want, err := Offers(c, q, s, limit)
			if err != nil {
				t.Fatal(err)
			}
			got, err := OffersInto(buf, c, q, s, limit)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("seed %d %s: OffersInto %v (%v), Offers %v", seed, s, got, err, want)
			}
			buf = got
		}
	}
}

// BenchmarkOffers measures an OSP offer query of the service's size (5
// offers) on a 2-hour window of a tree holding n reservations (about 45
// of 720 nodes free on average): the profile read, then the ranking and
// widening.
func BenchmarkOffers(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("live=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(7, uint64(n)))
			c, _ := NewTree(benchCapacity)
			book(b, c, n, rng)
			h := horizon(n)
			qs := make([]Query, 1024)
			for i := range qs {
				s := rng.Int64N(h - 2*3600)
				qs[i] = Query{EarliestStart: s, LatestEnd: s + 2*3600, Duration: 600 + rng.Int64N(3600), Nodes: 1 + rng.IntN(64)}
			}
			i, made := 0, 0
			for b.Loop() {
				offs, err := Offers(c, qs[i&1023], OSP, 5)
				if err != nil {
					b.Fatal(err)
				}
				made += len(offs)
				i++
			}
			b.ReportMetric(float64(made)/float64(b.N), "offers/op")
		})
	}
}

// BenchmarkOSP is BenchmarkOffers' placement alone: osp over profiles
// read beforehand (2-hour windows of a tree holding 1,000 reservations),
// the service's 5 offers, into new storage and into storage kept.
func BenchmarkOSP(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 1000))
	c, _ := NewTree(benchCapacity)
	book(b, c, 1000, rng)
	type read struct {
		steps []Step
		q     Query
	}
	reads := make([]read, 256)
	for i := range reads {
		s := rng.Int64N(horizon(1000) - 2*3600)
		q := Query{EarliestStart: s, LatestEnd: s + 2*3600, Duration: 600 + rng.Int64N(3600), Nodes: 1 + rng.IntN(64)}
		steps, err := c.Profile(q.EarliestStart, q.LatestEnd)
		if err != nil {
			b.Fatal(err)
		}
		reads[i] = read{steps, q}
	}
	for _, into := range []bool{false, true} {
		b.Run(fmt.Sprintf("into=%v", into), func(b *testing.B) {
			var buf []Offer // into: the offers' storage kept, as OffersInto's caller keeps it
			i, made := 0, 0
			for b.Loop() {
				r := reads[i&255]
				out := osp(buf[:0], r.steps, r.q, r.q.Nodes, true, 5)
				if into {
					buf = out
				}
				made += len(out)
				i++
			}
			b.ReportMetric(float64(made)/float64(b.N), "offers/op")
		})
	}
}
