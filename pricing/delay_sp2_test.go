package pricing

import "testing"

// TestQuotesMatchReplanOnSP2 checks the incremental quote list on the
// benchmarks' shape (500 queued jobs on 430 nodes) against planning the whole
// queue again for every candidate, with the request written in as one more
// reservation: every premium must be the summed delay of the re-plan.
// TestDelayMatchesReference covers small random snapshots against a naive
// planner; this one covers the long replays and vacated-block searches that
// only a large congested queue exercises.
func TestQuotesMatchReplanOnSP2(t *testing.T) {
	step := 1
	if testing.Short() {
		step = 10
	}
	for _, policy := range []BackfillPolicy{BackfillFCFS, BackfillEASY, BackfillConservative} {
		q := sp2Snapshot(t, policy, 10)
		p, err := NewDelayPricer(q)
		if err != nil {
			t.Fatal(err)
		}
		const nodes, duration = 64, 4 * 3600
		quotes, err := p.Quotes(nodes, duration)
		if err != nil {
			t.Fatal(err)
		}
		positive := 0
		for i := 0; i < len(quotes); i += step {
			qt := quotes[i]
			with := q
			with.Reservations = append(append([]QueueReservation(nil), q.Reservations...),
				QueueReservation{ID: "request", Nodes: nodes, Start: qt.Start, End: qt.Start + duration})
			p2, err := NewDelayPricer(with)
			if err != nil {
				t.Fatalf("%s: quote at %d is not feasible: %v", policy, qt.Start, err)
			}
			var want int64
			for j, s := range p2.base {
				if d := s - p.base[j]; d > 0 {
					want += d * p.m.nodes[j]
				}
			}
			if qt.NodeSeconds != want || !qt.Premium.Equal(qt.Premium.Truncate(0)) || qt.Premium.IntPart() != want {
				t.Fatalf("%s: quote at %d = %d node-seconds (premium %s), re-plan gives %d", policy, qt.Start, qt.NodeSeconds, qt.Premium, want)
			}
			if want > 0 {
				positive++
			}
		}
		if positive < len(quotes)/(2*step) {
			t.Fatalf("%s: only %d positive premiums checked of %d quotes", policy, positive, len(quotes))
		}
		t.Logf("%s: %d quotes checked, %d positive", policy, (len(quotes)+step-1)/step, positive)
	}
}
