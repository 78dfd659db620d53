package coreserve

import (
	"context"
	"testing"
	"time"

	"slotfare"
)

func TestValidateNamesPartAndField(t *testing.T) {
	r := newRig(t)
	ok := func() Part { return part("RAL", 2, r.at(9), r.at(12), time.Hour) }
	with := func(f func(p *Part)) Part { p := ok(); f(&p); return p }
	alpha := 0.3
	bad := 1.5
	many := make([]Part, DefaultMaxParts+1)
	for i := range many {
		many[i] = ok()
	}
	cases := []struct {
		name  string
		req   Request
		field string
	}{
		{"no parts", Request{Policy: Earliest}, "parts"},
		{"too many parts", Request{Policy: Earliest, Parts: many}, "parts"},
		{"window shorter than duration", Request{Policy: Earliest, Parts: []Part{ok(), with(func(p *Part) { p.Duration = 4 * time.Hour })}}, "parts[1].duration_seconds"},
		{"no resource nor tags", Request{Policy: Earliest, Parts: []Part{with(func(p *Part) { p.ResourceID = "" })}}, "parts[0].resource_id"},
		{"zero nodes", Request{Policy: Earliest, Parts: []Part{ok(), ok(), with(func(p *Part) { p.Nodes = 0 })}}, "parts[2].nodes"},
		{"end before start", Request{Policy: Earliest, Parts: []Part{with(func(p *Part) { p.LatestEnd = r.at(8) })}}, "parts[0].latest_end"},
		{"self relation", Request{Policy: Earliest, Parts: []Part{with(func(p *Part) { p.SameStartAs = intp(0) })}}, "parts[0].same_start_as"},
		{"relation out of range", Request{Policy: Earliest, Parts: []Part{ok(), with(func(p *Part) { p.After = &After{Part: 5} })}}, "parts[1].after.part"},
		{"circular", Request{Policy: Earliest, Parts: []Part{
			with(func(p *Part) { p.After = &After{Part: 1} }), with(func(p *Part) { p.SameStartAs = intp(0) })}}, "parts[0].after.part"},
		{"both relations", Request{Policy: Earliest, Parts: []Part{ok(), with(func(p *Part) { p.SameStartAs = intp(0); p.After = &After{Part: 0} })}}, "parts[1].same_start_as"},
		{"unknown policy", Request{Policy: "fastest", Parts: []Part{ok()}}, "policy"},
		{"alpha without its policy", Request{Policy: Cheapest, Alpha: &alpha, Parts: []Part{ok()}}, "alpha"},
		{"alpha out of range", Request{Policy: Alpha, Alpha: &bad, Parts: []Part{ok()}}, "alpha"},
		{"unknown resource", Request{Policy: Earliest, Parts: []Part{ok(), with(func(p *Part) { p.ResourceID = "Atlantis" })}}, "parts[1].resource_id"},
		{"unmatched tags", Request{Policy: Earliest, Parts: []Part{with(func(p *Part) { p.ResourceID = ""; p.Tags = []string{"vo-9"} })}}, "parts[0].tags"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.br.Reserve(context.Background(), alice, tc.req)
			if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tc.field {
				t.Fatalf("err %v (field %q), want Invalid on %q", err, slotfare.FieldOf(err), tc.field)
			}
		})
	}
	if n := r.liveHolds(t); n != 0 {
		t.Fatalf("%d holds after refused requests", n)
	}
}

func TestAlphaScores(t *testing.T) {
	fs := []float64{100, 50, 0}
	ss := []float64{0, 10, 20}
	for _, tc := range []struct {
		alpha float64
		best  int
	}{{0, 0}, {1, 2}, {0.5, 0}} {
		sc := alphaScores(fs, ss, tc.alpha)
		best := 0
		for i := range sc {
			if sc[i] < sc[best] {
				best = i
			}
		}
		if best != tc.best {
			t.Fatalf("alpha %v: best %d (scores %v), want %d", tc.alpha, best, sc, tc.best)
		}
	}
	if sc := alphaScores([]float64{5, 5}, []float64{3, 3}, 0.5); sc[0] != 0 || sc[1] != 0 {
		t.Fatalf("empty ranges: %v, want zeros", sc)
	}
}

func TestProbeCapsAndRates(t *testing.T) {
	r := newRig(t)
	r.br = New(r.svc, r.st, Options{Now: r.clk.now, CandidatesPerResource: 3})
	cands, err := r.br.Probe(context.Background(), alice, ProbeRequest{Part: Part{Tags: []string{"vo-1"}, Nodes: 2,
		EarliestStart: r.at(0), LatestEnd: r.at(24), Duration: time.Hour}, Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for i, c := range cands {
		per[c.Offer.ResourceID]++
		if c.Offer.End.Sub(c.Offer.Start) != time.Hour || c.Offer.Nodes != 2 {
			t.Fatalf("candidate %d: %v x %d", i, c.Offer.End.Sub(c.Offer.Start), c.Offer.Nodes)
		}
		if i > 0 && c.Rating < cands[i-1].Rating {
			t.Fatalf("candidates not rated best first: %v after %v", c.Rating, cands[i-1].Rating)
		}
		if i > 0 && c.Offer.Price.Total.LessThan(cands[i-1].Offer.Price.Total) {
			t.Fatalf("alpha 1 is cheapest first: %s after %s", c.Offer.Price.Total, cands[i-1].Offer.Price.Total)
		}
	}
	if len(per) != 2 || per["RAL"] != 3 || per["Imperial"] != 3 {
		t.Fatalf("candidates per resource %v, want 3 on each vo-1 resource", per)
	}
	_, err = r.br.Probe(context.Background(), alice, ProbeRequest{Part: Part{ResourceID: "RAL", Nodes: 2,
		EarliestStart: r.at(0), LatestEnd: r.at(1), Duration: 2 * time.Hour}})
	if slotfare.FieldOf(err) != "duration_seconds" {
		t.Fatalf("probe with a short window: %v", err)
	}
}
