package service

import (
	"reflect"
	"testing"

	"slotfare/booking"
)

// TestCountOutcomeIsAdd: counting outcomes into a record in place
// (countOutcome) gives what adding each count as its own DemandCounts
// gives (DemandCounts.Add, the records' sum), for every outcome, twice
// over the same keys and once over another.
func TestCountOutcomeIsAdd(t *testing.T) {
	type count struct {
		outcome  demandOutcome
		to, tau  string
		nodeSecs int64
	}
	var counts []count
	for o := demandOffered; o <= demandSold; o++ {
		counts = append(counts, count{o, "gold", "1.20", 60}, count{o, "gold", "1.20", 7}, count{o, "silver", "0.80", 5})
	}
	var inPlace, added booking.DemandCounts
	for _, c := range counts {
		countOutcome(&inPlace, c.outcome, c.to, c.tau, c.nodeSecs)
		tl := booking.DemandTally{Requests: 1, NodeSeconds: c.nodeSecs}
		var one booking.DemandCounts
		switch c.outcome {
		case demandOffered:
			one.Offered = tl
		case demandBooked:
			one.Booked = tl
		case demandBoughtUp:
			one.BoughtUp = map[string]booking.DemandTally{c.to: tl}
		case demandRefusedClosed:
			one.RefusedClosed = tl
		case demandRefusedFull:
			one.RefusedFull = tl
		case demandQuoted:
			one.Quoted = map[string]booking.DemandTally{c.tau: tl}
		case demandSold:
			one.Sold = map[string]booking.DemandTally{c.tau: tl}
		}
		added = added.Add(one)
	}
	if !reflect.DeepEqual(inPlace, added) {
		t.Errorf("counted in place %+v, added %+v", inPlace, added)
	}
	if inPlace.Offered != (booking.DemandTally{Requests: 3, NodeSeconds: 72}) || inPlace.Sold["1.20"] != (booking.DemandTally{Requests: 2, NodeSeconds: 67}) {
		t.Errorf("counted %+v, want 3 offers over 72 node-seconds, 2 sales at 1.20 over 67", inPlace)
	}
}
