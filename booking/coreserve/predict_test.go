package coreserve

import (
	"context"
	"errors"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking/runs"
)

// durationsFunc adapts a function to Durations.
type durationsFunc func(resourceID string) (runs.Prediction, bool, error)

func (f durationsFunc) Predict(ctx context.Context, resourceID, profile string, bytes int64, start, now time.Time) (runs.Prediction, bool, error) {
	return f(resourceID)
}

// TestPartsByProfile: a part by profile is placed on each tag-matched
// resource with the duration predicted there; resources without runs, or
// whose prediction exceeds the window, are no candidates; a predictor that
// fails is that failure, not an unknown profile; no predictor refuses
// profiles.
func TestPartsByProfile(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	at := func(h int) time.Time { return r.day.Add(time.Duration(h) * time.Hour) }
	part := Part{Tags: []string{"vo-1"}, Nodes: 2, EarliestStart: at(9), LatestEnd: at(12), Profile: "blast"}

	if _, err := r.br.Probe(ctx, alice, ProbeRequest{Part: part}); slotfare.FieldOf(err) != "profile" || slotfare.KindOf(err) != slotfare.Invalid {
		t.Fatalf("no predictor: %v", err)
	}
	predictions := map[string]runs.Prediction{
		"RAL":      {Duration: time.Hour, Predictor: "TCT", Runs: 3},
		"Imperial": {Duration: 4 * time.Hour, Predictor: "TCT", Runs: 1}, // longer than the window
	}
	r.br.o.Durations = durationsFunc(func(id string) (runs.Prediction, bool, error) {
		pr, ok := predictions[id]
		return pr, ok, nil
	})
	cands, err := r.br.Probe(ctx, alice, ProbeRequest{Part: part, Alpha: 0.5})
	if err != nil || len(cands) == 0 {
		t.Fatalf("probe: %v %d", err, len(cands))
	}
	for _, c := range cands {
		if c.Offer.ResourceID != "RAL" || c.Offer.End.Sub(c.Offer.Start) != time.Hour || c.Prediction == nil || c.Prediction.Runs != 3 {
			t.Fatalf("candidate %+v %+v", c.Offer, c.Prediction)
		}
	}
	v, err := r.br.Reserve(ctx, alice, Request{Policy: Earliest, Parts: []Part{part}})
	if err != nil || v.Parts[0].Prediction == nil || v.Parts[0].Prediction.Duration != time.Hour || v.Bookings[0].Profile != "blast" ||
		v.Bookings[0].End.Sub(v.Bookings[0].Start) != time.Hour {
		t.Fatalf("reserve: %v %+v", err, v)
	}
	// Every prediction too long: 422 on the profile.
	predictions["RAL"] = runs.Prediction{Duration: 5 * time.Hour, Predictor: "TCT", Runs: 1}
	if _, err := r.br.Reserve(ctx, alice, Request{Policy: Earliest, Parts: []Part{part}}); slotfare.FieldOf(err) != "parts[0].profile" || slotfare.KindOf(err) != slotfare.Invalid {
		t.Fatalf("too long everywhere: %v", err)
	}
	// A store that fails is Unavailable, not an unknown profile.
	r.br.o.Durations = durationsFunc(func(string) (runs.Prediction, bool, error) {
		return runs.Prediction{}, false, slotfare.E(slotfare.Op("runs.Recent"), slotfare.Unavailable, errors.New("down"))
	})
	if _, err := r.br.Reserve(ctx, alice, Request{Policy: Earliest, Parts: []Part{part}}); slotfare.KindOf(err) != slotfare.Unavailable {
		t.Fatalf("predictor down: %v", err)
	}
}
