package pricing

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"slotfare"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// fig1 is a five-node machine in the spirit of seed 001's Fig. 1: A and B
// run, C and D (two nodes each) wait, R is reserved.
//
//	free nodes:  [0,2) 1   [2,3) 3   [3,5) 5   [5,7) 4 (R)   7- 5
//	base plan:   C [2,5) on 2 nodes, D [3,5) on 2 nodes (FCFS, EASY and
//	             conservative agree).
//
// A reservation X of 2 nodes for 3 seconds:
//
//	at 0: infeasible (only 1 node free beside A and B).
//	at 2: C cannot start at 2 (1 node left), starts at 3 [3,6); D finds 1
//	      node at 3, starts when X ends: 5. Delays C 1, D 2: 1x2+2x2 = 6,
//	      the paper's first row of Table 1.
//	at 3: C keeps [2,5) (X leaves 1 node spare in [3,5)); D cannot start at
//	      3, starts at 5. Delay D 2: 4.
//	at 5, 7: nothing moves: 0.
func fig1(policy BackfillPolicy) QueueSnapshot {
	return QueueSnapshot{
		Nodes: 5, Now: 0, Policy: policy,
		Running:      []QueueRunningJob{{ID: "A", Nodes: 2, End: 2}, {ID: "B", Nodes: 2, End: 3}},
		Queued:       []QueueJob{{ID: "C", Nodes: 2, Runtime: 3}, {ID: "D", Nodes: 2, Runtime: 2}},
		Reservations: []QueueReservation{{ID: "R", Nodes: 1, Start: 5, End: 7}},
	}
}

// apiExample is the scenario of API.md's delay-price entry, with the queued
// jobs it elides written out: B (80 nodes) and C (90 nodes), 100 s each.
//
//	base (EASY): at 50 30 nodes free, B waits for A; B [100,200); C needs
//	90, so waits for B: C [200,300).
//	with 20 nodes reserved over [50,300): B still finds 80 at 100, keeps
//	[100,200); C finds only 80 at 200 and starts when the reservation ends:
//	300. Delay C 100 (the example's {"C":100}), premium 100 x 90 = 9000.
func apiExample(policy BackfillPolicy) QueueSnapshot {
	return QueueSnapshot{
		Nodes: 100, Now: 50, Policy: policy,
		Running:      []QueueRunningJob{{ID: "A", Nodes: 70, End: 100}},
		Queued:       []QueueJob{{ID: "B", Nodes: 80, Runtime: 100}, {ID: "C", Nodes: 90, Runtime: 100}},
		Reservations: []QueueReservation{{ID: "R", Nodes: 10, Start: 400, End: 500}},
	}
}

// backfillSplit is a four-node machine where EASY and conservative
// backfilling plan differently:
//
//	A runs on 3 nodes until 10. Queue: J1 2x10, J2 4x10, J3 1x25.
//	conservative: J1 [10,20), J2 [20,30), J3 cannot run across J2's block,
//	              so [30,55).
//	EASY: J3 fits beside the head's shadow block at 0 ([10,20) leaves 2
//	      nodes), so J3 [0,25), J1 [10,20), J2 waits for J3: [25,35).
//
// A reservation of 1 node over [0,5):
//
//	conservative: nothing moves (J3 never ran before 30): 0.
//	EASY: J3 only backfills when the reservation ends, [5,30); J2 then waits
//	      for it: [30,40). Delays J3 5 x 1 + J2 5 x 4 = 25.
func backfillSplit(policy BackfillPolicy) QueueSnapshot {
	return QueueSnapshot{
		Nodes: 4, Now: 0, Policy: policy,
		Running: []QueueRunningJob{{ID: "A", Nodes: 3, End: 10}},
		Queued:  []QueueJob{{ID: "J1", Nodes: 2, Runtime: 10}, {ID: "J2", Nodes: 4, Runtime: 10}, {ID: "J3", Nodes: 1, Runtime: 25}},
	}
}

func TestHandScenarios(t *testing.T) {
	type premium struct {
		start    int64
		feasible bool
		premium  string
		delays   map[string]int64
	}
	tests := []struct {
		name      string
		q         QueueSnapshot
		plan      map[string]int64
		nodes     int64
		duration  int64
		premiums  []premium
		quotes    []Quote
		schedEnd  int64
		planCount int
	}{
		{
			name: "fig1 conservative", q: fig1(BackfillConservative),
			plan: map[string]int64{"C": 2, "D": 3}, nodes: 2, duration: 3, schedEnd: 7,
			premiums: []premium{
				{0, false, "0", nil},
				{1, false, "0", nil},
				{2, true, "6", map[string]int64{"C": 1, "D": 2}},
				{3, true, "4", map[string]int64{"D": 2}},
				{4, true, "4", map[string]int64{"D": 2}},
				{5, true, "0", nil},
			},
			quotes: []Quote{{Start: 2, NodeSeconds: 6}, {Start: 3, NodeSeconds: 4}, {Start: 5}, {Start: 7}},
		},
		{
			name: "fig1 easy", q: fig1(BackfillEASY),
			plan: map[string]int64{"C": 2, "D": 3}, nodes: 2, duration: 3, schedEnd: 7,
			premiums: []premium{{2, true, "6", map[string]int64{"C": 1, "D": 2}}},
			quotes:   []Quote{{Start: 2, NodeSeconds: 6}, {Start: 3, NodeSeconds: 4}, {Start: 5}, {Start: 7}},
		},
		{
			name: "fig1 fcfs", q: fig1(BackfillFCFS),
			plan: map[string]int64{"C": 2, "D": 3}, nodes: 2, duration: 3, schedEnd: 7,
			premiums: []premium{{2, true, "6", map[string]int64{"C": 1, "D": 2}}},
			quotes:   []Quote{{Start: 2, NodeSeconds: 6}, {Start: 3, NodeSeconds: 4}, {Start: 5}, {Start: 7}},
		},
		{
			name: "API.md example easy", q: apiExample(BackfillEASY),
			plan: map[string]int64{"B": 100, "C": 200}, nodes: 20, duration: 250, schedEnd: 500,
			premiums: []premium{
				{50, true, "9000", map[string]int64{"C": 100}},
				{300, true, "0", nil},
			},
			// candidates 50, 100, 200, 300, 400, 500. At 100: [100,350)
			// leaves B 80 at 100 and C 80 at 200, so C waits until 350;
			// at 200: C waits until 450; from 300 on nothing moves.
			quotes: []Quote{{Start: 50, NodeSeconds: 9000}, {Start: 100, NodeSeconds: 13500}, {Start: 200, NodeSeconds: 22500}, {Start: 300}, {Start: 400}, {Start: 500}},
		},
		{
			name: "API.md example conservative", q: apiExample(BackfillConservative),
			plan: map[string]int64{"B": 100, "C": 200}, nodes: 20, duration: 250, schedEnd: 500,
			premiums: []premium{{50, true, "9000", map[string]int64{"C": 100}}},
			quotes:   []Quote{{Start: 50, NodeSeconds: 9000}, {Start: 100, NodeSeconds: 13500}, {Start: 200, NodeSeconds: 22500}, {Start: 300}, {Start: 400}, {Start: 500}},
		},
		{
			name: "backfill split conservative", q: backfillSplit(BackfillConservative),
			plan: map[string]int64{"J1": 10, "J2": 20, "J3": 30}, nodes: 1, duration: 5, schedEnd: 55,
			premiums: []premium{{0, true, "0", nil}},
		},
		{
			name: "backfill split easy", q: backfillSplit(BackfillEASY),
			plan: map[string]int64{"J1": 10, "J2": 25, "J3": 0}, nodes: 1, duration: 5, schedEnd: 35,
			premiums: []premium{{0, true, "25", map[string]int64{"J3": 5, "J2": 5}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewDelayPricer(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			for _, pj := range p.Plan() {
				if want, ok := tt.plan[pj.ID]; !ok || pj.Start != want {
					t.Errorf("planned start of %s = %d, want %d", pj.ID, pj.Start, want)
				}
			}
			if got := p.ScheduleEnd(); got != tt.schedEnd {
				t.Errorf("ScheduleEnd = %d, want %d", got, tt.schedEnd)
			}
			for _, w := range tt.premiums {
				got, err := p.Premium(tt.nodes, tt.duration, w.start)
				if err != nil {
					t.Fatal(err)
				}
				if got.Feasible != w.feasible || !got.Premium.Equal(dec(w.premium)) || len(got.Delays) != len(w.delays) {
					t.Errorf("Premium at %d = %+v, want feasible %v premium %s delays %v", w.start, got, w.feasible, w.premium, w.delays)
					continue
				}
				for _, d := range got.Delays {
					if w.delays[d.ID] != d.Delay {
						t.Errorf("at %d delay of %s = %d, want %d", w.start, d.ID, d.Delay, w.delays[d.ID])
					}
				}
			}
			if tt.quotes == nil {
				return
			}
			quotes, err := p.Quotes(tt.nodes, tt.duration)
			if err != nil {
				t.Fatal(err)
			}
			if len(quotes) != len(tt.quotes) {
				t.Fatalf("quotes = %v, want %v", quotes, tt.quotes)
			}
			for i, q := range quotes {
				w := tt.quotes[i]
				if q.Start != w.Start || q.NodeSeconds != w.NodeSeconds || !q.Premium.Equal(decimal.NewFromInt(w.NodeSeconds)) {
					t.Errorf("quote %d = %+v, want start %d premium %d", i, q, w.Start, w.NodeSeconds)
				}
			}
		})
	}
}

// TestWeightedPremium: a queue's delay cost multiplies its jobs' delays
// (seed 001, Sec. 4). In the API example C is the only delayed job.
func TestWeightedPremium(t *testing.T) {
	q := apiExample(BackfillEASY)
	q.Queued[1].Weight = decimal.NewNullDecimal(dec("2.5"))
	q.Queued[0].Weight = decimal.NewNullDecimal(dec("7"))
	p, err := NewDelayPricer(q)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Premium(20, 250, 50)
	if err != nil {
		t.Fatal(err)
	}
	if got.NodeSeconds != 9000 || !got.Premium.Equal(dec("22500")) {
		t.Fatalf("weighted premium = %d / %s, want 9000 / 22500", got.NodeSeconds, got.Premium)
	}
}

// TestIdleMachineIsFree: nothing queued, nothing delayed; every feasible
// start costs nothing, and a start beside a running job is refused.
func TestIdleMachineIsFree(t *testing.T) {
	q := QueueSnapshot{Nodes: 8, Now: 100, Policy: BackfillEASY, Running: []QueueRunningJob{{ID: "a", Nodes: 6, End: 160}, {ID: "done", Nodes: 8, End: 90}}}
	p, err := NewDelayPricer(q)
	if err != nil {
		t.Fatal(err)
	}
	quotes, err := p.Quotes(4, 30)
	if err != nil {
		t.Fatal(err)
	}
	if len(quotes) != 1 || quotes[0].Start != 160 || !quotes[0].Premium.IsZero() {
		t.Fatalf("quotes = %v, want one free start at 160", quotes)
	}
	if got, _ := p.Premium(2, 30, 100); !got.Feasible || !got.Premium.IsZero() {
		t.Fatalf("2 nodes beside the running job: %+v", got)
	}
	if got, _ := p.Premium(3, 30, 130); got.Feasible {
		t.Fatalf("3 nodes beside 6 running on 8: %+v, want infeasible", got)
	}
}

func TestQuoteProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	for round := range 300 {
		policy := []BackfillPolicy{BackfillFCFS, BackfillEASY, BackfillConservative}[round%3]
		q := randomSnapshot(rng, policy)
		p, err := NewDelayPricer(q)
		if err != nil {
			t.Fatal(err)
		}
		nodes, duration := 1+rng.Int64N(q.Nodes), 1+rng.Int64N(40)
		quotes, err := p.Quotes(nodes, duration)
		if err != nil {
			t.Fatal(err)
		}
		ctx := fmt.Sprintf("round %d (%s, %d nodes x %d s): %+v", round, policy, nodes, duration, q)
		// The earliest feasible start, by trying every second.
		earliest := int64(-1)
		for s := q.Now; s <= p.ScheduleEnd(); s++ {
			if p.Feasible(nodes, duration, s) {
				earliest = s
				break
			}
		}
		if earliest < 0 {
			t.Fatalf("no feasible start up to ScheduleEnd; %s", ctx)
		}
		if len(quotes) == 0 || quotes[0].Start != earliest {
			t.Fatalf("quotes %v do not open with the earliest feasible start %d; %s", quotes, earliest, ctx)
		}
		zero := false
		for i, qu := range quotes {
			if i > 0 && qu.Start <= quotes[i-1].Start {
				t.Fatalf("quotes not strictly ascending: %v; %s", quotes, ctx)
			}
			if qu.Premium.Sign() < 0 || qu.NodeSeconds < 0 {
				t.Fatalf("negative premium %+v; %s", qu, ctx)
			}
			if !p.Feasible(nodes, duration, qu.Start) {
				t.Fatalf("infeasible start %d quoted; %s", qu.Start, ctx)
			}
			zero = zero || qu.Premium.IsZero()
			if qu.Start == p.ScheduleEnd() && !qu.Premium.IsZero() {
				t.Fatalf("start at the end of the schedule costs %s; %s", qu.Premium, ctx)
			}
		}
		if !zero || quotes[len(quotes)-1].Start != p.ScheduleEnd() {
			t.Fatalf("no zero premium at ScheduleEnd %d in %v; %s", p.ScheduleEnd(), quotes, ctx)
		}
		// Single premiums: never negative, zero from the end of the queue's
		// plan on, infeasible ones carry no number.
		queueEnd := q.Now
		for _, pj := range p.Plan() {
			queueEnd = max(queueEnd, pj.End)
		}
		for range 5 {
			s := q.Now + rng.Int64N(p.ScheduleEnd()-q.Now+20)
			got, err := p.Premium(nodes, duration, s)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case got.Feasible != p.Feasible(nodes, duration, s):
				t.Fatalf("feasible at %d = %v; %s", s, got.Feasible, ctx)
			case !got.Feasible && (!got.Premium.IsZero() || got.NodeSeconds != 0 || len(got.Delays) != 0):
				t.Fatalf("infeasible start %d carries %+v; %s", s, got, ctx)
			case got.Premium.Sign() < 0:
				t.Fatalf("negative premium at %d: %+v; %s", s, got, ctx)
			case s >= queueEnd && got.Feasible && !got.Premium.IsZero():
				t.Fatalf("start %d after the queue's plan (%d) costs %s; %s", s, queueEnd, got.Premium, ctx)
			}
			var sum int64
			for _, d := range got.Delays {
				if d.Delay <= 0 {
					t.Fatalf("non-positive delay listed: %+v; %s", d, ctx)
				}
				sum += d.Delay * d.Nodes
			}
			if sum != got.NodeSeconds {
				t.Fatalf("delays sum to %d node-seconds, premium says %d; %s", sum, got.NodeSeconds, ctx)
			}
		}
	}
}

func TestPremiumBadRequest(t *testing.T) {
	p, err := NewDelayPricer(apiExample(BackfillEASY))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		nodes, duration, start int64
		field                  string
	}{
		{0, 10, 50, "request.nodes"},
		{-3, 10, 50, "request.nodes"},
		{101, 10, 50, "request.nodes"},
		{10, 0, 50, "request.duration"},
		{10, -5, 50, "request.duration"},
		{10, MaxQueueTime + 1, 50, "request.duration"},
		{10, 10, 49, "request.start"},
		{10, 10, MaxQueueTime + 1, "request.start"},
	}
	for _, tt := range tests {
		_, err := p.Premium(tt.nodes, tt.duration, tt.start)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
			t.Errorf("Premium(%d, %d, %d) = %v, want Invalid on %s", tt.nodes, tt.duration, tt.start, err, tt.field)
		}
		if tt.field == "request.start" {
			continue
		}
		if _, err := p.Quotes(tt.nodes, tt.duration); slotfare.FieldOf(err) != tt.field {
			t.Errorf("Quotes(%d, %d) = %v, want Invalid on %s", tt.nodes, tt.duration, err, tt.field)
		}
	}
}

func TestSelectQuote(t *testing.T) {
	// From the API example: (50, 9000) (100, 13500) (200, 22500) (300, 0)...
	quotes := []Quote{
		{Start: 50, Premium: dec("9000")}, {Start: 100, Premium: dec("13500")}, {Start: 200, Premium: dec("22500")},
		{Start: 300, Premium: dec("0")}, {Start: 400, Premium: dec("0")}, {Start: 500, Premium: dec("0")},
	}
	tests := []struct {
		alpha string
		start int64
	}{
		{"0", 50},   // earliest whatever the price
		{"1", 300},  // cheapest, earliest among the free ones
		{"0.5", 50}, // 50: 0.5x9000/22500 = 0.2; 300: 0.5x250/450 = 0.278
		{"0.6", 300},
		// 50: a x 0.4; 300: (1-a) x 0.5556: equal at a = 0.5814; below, 50 wins
		{"0.58", 50},
		{"0.59", 300},
	}
	for _, tt := range tests {
		got, err := SelectQuote(quotes, dec(tt.alpha))
		if err != nil {
			t.Fatal(err)
		}
		if got.Start != tt.start {
			t.Errorf("alpha %s picks %d, want %d", tt.alpha, got.Start, tt.start)
		}
	}
	// Exact tie: (0, 10) and (10, 0) at alpha 0.5 score 0.5 each: earliest.
	tie := []Quote{{Start: 0, Premium: dec("10")}, {Start: 10, Premium: dec("0")}}
	if got, _ := SelectQuote(tie, dec("0.5")); got.Start != 0 {
		t.Errorf("tie picks %d, want 0", got.Start)
	}
	// One quote, all premiums equal: the earliest.
	flat := []Quote{{Start: 7, Premium: dec("3")}, {Start: 9, Premium: dec("3")}}
	for _, a := range []string{"0", "0.3", "1"} {
		if got, _ := SelectQuote(flat, dec(a)); got.Start != 7 {
			t.Errorf("flat premiums, alpha %s picks %d, want 7", a, got.Start)
		}
	}
	for _, bad := range []string{"-0.1", "1.0001"} {
		if _, err := SelectQuote(quotes, dec(bad)); slotfare.FieldOf(err) != "alpha" {
			t.Errorf("alpha %s: %v, want an error on alpha", bad, err)
		}
	}
	if _, err := SelectQuote(nil, dec("0.5")); err == nil {
		t.Error("empty quote list: no error")
	}
	// On a real quote list alpha 1 always lands on a zero premium.
	p, _ := NewDelayPricer(fig1(BackfillEASY))
	ql, _ := p.Quotes(2, 3)
	if got, _ := SelectQuote(ql, dec("1")); !got.Premium.IsZero() || got.Start != 5 {
		t.Errorf("alpha 1 on fig1 picks %+v, want the free start 5", got)
	}
}

func TestDelayPremiumAmount(t *testing.T) {
	tests := []struct {
		premium, base, tau string
		places             int32
		want               string
	}{
		{"3600", "0.49", "1", 2, "1764"},     // one node-hour at 0.49 per node-second
		{"300", "0.49", "3.38", 2, "496.86"}, // one peak slot: Eq. 7.12's bcost_AR
		{"1", "0.001", "1.25", 4, "0.0012"},  // 0.00125 -> half to even
		{"1", "0.001", "1.35", 4, "0.0014"},  // 0.00135 -> half to even
		{"0", "0.49", "2.25", 2, "0"},
		{"22500.5", "1", "1", 4, "22500.5"}, // weighted premiums may be fractional
		{"123456789012345678", "0.49", "3.38", 2, "204469133962246911.9"},
	}
	for _, tt := range tests {
		got, err := DelayPremiumAmount(dec(tt.premium), dec(tt.base), dec(tt.tau), tt.places)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(dec(tt.want)) {
			t.Errorf("DelayPremiumAmount(%s, %s, %s, %d) = %s, want %s", tt.premium, tt.base, tt.tau, tt.places, got, tt.want)
		}
	}
	for _, bad := range []struct {
		p, b, t string
		places  int32
		field   string
	}{
		{"-1", "1", "1", 2, "premium"}, {"1", "-1", "1", 2, "base_cost"}, {"1", "1", "-1", 2, "tau"}, {"1", "1", "1", -1, "places"},
	} {
		if _, err := DelayPremiumAmount(dec(bad.p), dec(bad.b), dec(bad.t), bad.places); slotfare.FieldOf(err) != bad.field {
			t.Errorf("%+v: %v, want an error on %s", bad, err, bad.field)
		}
	}
}

// TestCandidatesCoverEveryChange checks the quote list's candidates against
// the definition: now, every fixed block's start and end, every planned
// start and end, nothing else, from now on.
func TestCandidatesCoverEveryChange(t *testing.T) {
	q := fig1(BackfillConservative)
	q.Reservations = append(q.Reservations, QueueReservation{ID: "old", Nodes: 1, Start: 0, End: 1})
	q.Now = 0
	p, err := NewDelayPricer(q)
	if err != nil {
		t.Fatal(err)
	}
	got := p.candidates()
	want := []int64{0, 1, 2, 3, 5, 7}
	if !slices.Equal(got, want) {
		t.Fatalf("candidates = %v, want %v", got, want)
	}
}

// TestPricerConcurrentUse: one pricer answers many goroutines at once (the
// service shares one per snapshot); run with -race.
func TestPricerConcurrentUse(t *testing.T) {
	for _, policy := range []BackfillPolicy{BackfillEASY, BackfillConservative} {
		p, err := NewDelayPricer(apiExample(policy))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := p.Quotes(20, 250)
		done := make(chan error, 8)
		for g := range 8 {
			go func() {
				for range 20 {
					got, err := p.Quotes(20, 250)
					if err == nil && len(got) != len(want) {
						err = fmt.Errorf("goroutine %d: %d quotes, want %d", g, len(got), len(want))
					}
					if err == nil {
						var prem DelayPremium
						prem, err = p.Premium(20, 250, 50)
						if err == nil && !prem.Premium.Equal(dec("9000")) {
							err = fmt.Errorf("goroutine %d: premium %s", g, prem.Premium)
						}
					}
					if err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
		}
		for range 8 {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
	}
}
