package sim

import (
	"math"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/pricing"
)

// Request is one arrival as it reaches one resource: what any policy
// could have sold it, known in hindsight.
type Request struct {
	// EarliestStart and LatestEnd bound every offer the user takes: the
	// query's window (its lead, then its duration and search limit).
	EarliestStart, LatestEnd time.Time
	// Seconds and Nodes are the duration and nodes asked; an offer is
	// never longer or wider (Alg. 9 takes shorter and narrower ones).
	Seconds int64
	Nodes   int
	// Ceiling is the most the user could pay per node-second, in money:
	// the resource's base cost times the smaller of its willingness to pay
	// and the highest tau a compared policy charges over its window.
	Ceiling float64
}

// Demand is every arrival of s (seed as a run draws them) as it reaches
// resource id, each priced at most at its willingness to pay and at the
// highest tau among id's fare classes its VO may buy in the periods its
// window touches, or topTau (a fixed price compared), whichever is higher.
// A policy selling at those prices earns no more from it per node-second.
func Demand(s *Scenario, seed uint64, id string, topTau decimal.Decimal) ([]Request, error) {
	const op slotfare.Op = "sim.Demand"
	d, err := newWorkload(s, Options{Seed: seed})
	if err != nil {
		return nil, slotfare.E(op, err)
	}
	rc, ok := d.res[id]
	if !ok {
		return nil, slotfare.Errorf(op, "resources", "the scenario has no resource %q", id)
	}
	base, _ := rc.BaseCost.Float64()
	top, _ := topTau.Float64()
	var out []Request
	for _, a := range d.arr {
		st := d.streams[a.stream]
		if !slices.Contains(st.users.Resources, id) {
			continue
		}
		start, dur, nodes := d.ask(a, id)
		r := Request{EarliestStart: time.Unix(start, 0).UTC(), LatestEnd: time.Unix(start+dur+st.users.SearchSeconds, 0).UTC(),
			Seconds: dur, Nodes: nodes}
		tau, err := highestTau(rc.FareClasses, d.rates[id], pricing.VO(st.users.VO), r.EarliestStart, r.LatestEnd)
		if err != nil {
			return nil, slotfare.E(op, err)
		}
		tau = max(tau, top)
		if a.wtp > 0 {
			tau = min(tau, a.wtp)
		}
		r.Ceiling = tau * base
		out = append(out, r)
	}
	return out, nil
}

// highestTau is the highest tau of the classes open to vo in the rate
// periods of [start, end).
func highestTau(classes []pricing.FareClass, cal *pricing.RateCalendar, vo pricing.VO, start, end time.Time) (float64, error) {
	pieces, err := cal.Split(start, end)
	if err != nil {
		return 0, err
	}
	top := 0.0
	for _, c := range classes {
		if !c.Admits(vo) {
			continue
		}
		for _, pc := range pieces {
			if t, ok := c.TauFor(pc.Period); ok {
				f, _ := t.Float64()
				top = max(top, f)
			}
		}
	}
	return top, nil
}

// HindsightBound is an upper bound on what any policy could earn from reqs
// inside w on a resource of nodes nodes, counted as the simulator counts
// in-window revenue (each booking's price times the share of its interval
// inside w). It solves exactly a relaxation of the offline problem:
//
//   - time is cut into buckets of bucket length from w.Start; a request
//     may put up to Nodes x min(Seconds, its window's length inside w)
//     node-seconds anywhere in the buckets its window touches (its
//     window widened to whole buckets, its placement not contiguous, its
//     nodes not held together);
//   - the node-seconds put in the buckets of any run of buckets are at
//     most nodes x their length: capacity per bucket, not per instant;
//   - each node-second a request gets earns at most its Ceiling.
//
// Every schedule a policy can make is a solution of the relaxation that
// earns at least as much in the window: a booking's price per node-second
// is at most its Ceiling (Demand), it lies inside its request's window,
// and at every instant it holds at most the capacity. So the optimum of
// the relaxation bounds every policy's in-window revenue.
//
// The relaxation is a transportation problem whose requests each reach an
// interval of buckets: by Hall's theorem for such convex bipartite graphs
// (Glover 1967) a set of amounts z is feasible exactly when, for every
// interval I of buckets, the requests whose buckets lie inside I take at
// most I's capacity. Those constraints make the feasible amounts a
// polymatroid, on which the greedy algorithm maximises a linear revenue
// (Edmonds 1970): serve requests by descending Ceiling, each as much as
// the tightest interval around it allows. The work is O(n B^2) for n
// requests and B buckets, which is why it is meant for one resource over
// a few days at hourly buckets. A charge is its exact price rounded to the
// cent, up to half a cent more: the bound adds that for every request
// that could earn in the window, and a relative 1e-9 for float64, and is
// rounded up to the cent, so that rounding never lowers it.
func HindsightBound(reqs []Request, nodes int, w Window, bucket time.Duration) decimal.Decimal {
	nb := int((w.End.Sub(w.Start) + bucket - 1) / bucket)
	if nb <= 0 || nodes <= 0 {
		return decimal.Zero
	}
	// slack[l*nb+r] is what the buckets l..r can still take.
	slack := make([]float64, nb*nb)
	for l := range nb {
		for r := l; r < nb; r++ {
			end := min(time.Duration(r+1)*bucket, w.End.Sub(w.Start))
			slack[l*nb+r] = float64(nodes) * (end - time.Duration(l)*bucket).Seconds()
		}
	}
	order := make([]int, len(reqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return -cmpFloat(reqs[i].Ceiling, reqs[j].Ceiling) })
	total, rounding := 0.0, 0.0
	for _, i := range order {
		q := reqs[i]
		in := w.inWindow(q.EarliestStart, q.LatestEnd)
		if in <= 0 || q.Ceiling <= 0 {
			continue
		}
		rounding += 0.005
		want := float64(q.Nodes) * float64(min(q.Seconds, in))
		a := int(max(q.EarliestStart.Sub(w.Start), 0) / bucket)
		b := int((min(q.LatestEnd.Sub(w.Start), w.End.Sub(w.Start)) - 1) / bucket)
		z := want
		for l := 0; l <= a && z > 0; l++ {
			for r := b; r < nb; r++ {
				z = min(z, slack[l*nb+r])
			}
		}
		if z <= 0 {
			continue
		}
		for l := 0; l <= a; l++ {
			for r := b; r < nb; r++ {
				slack[l*nb+r] -= z
			}
		}
		total += z * q.Ceiling
	}
	total = total*(1+1e-9) + rounding
	return decimal.NewFromFloat(math.Ceil(total*100) / 100).Round(2)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
