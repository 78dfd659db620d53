package pricing

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"slotfare"
)

func TestSnapshotValidate(t *testing.T) {
	good := func() QueueSnapshot { return apiExample(BackfillEASY) }
	tests := []struct {
		name  string
		edit  func(q *QueueSnapshot)
		field string
	}{
		{"zero machine", func(q *QueueSnapshot) { q.Nodes = 0 }, "nodes"},
		{"negative machine", func(q *QueueSnapshot) { q.Nodes = -4 }, "nodes"},
		{"huge machine", func(q *QueueSnapshot) { q.Nodes = MaxQueueNodes + 1 }, "nodes"},
		{"negative now", func(q *QueueSnapshot) { q.Now = -1 }, "now"},
		{"unknown policy", func(q *QueueSnapshot) { q.Policy = "sjf" }, "policy"},
		{"empty policy", func(q *QueueSnapshot) { q.Policy = "" }, "policy"},
		{"running zero nodes", func(q *QueueSnapshot) { q.Running[0].Nodes = 0 }, "running[0].nodes"},
		{"running too wide", func(q *QueueSnapshot) { q.Running[0].Nodes = 101 }, "running[0].nodes"},
		{"running no id", func(q *QueueSnapshot) { q.Running[0].ID = "" }, "running[0].id"},
		{"running negative end", func(q *QueueSnapshot) { q.Running[0].End = -5 }, "running[0].end"},
		{"queued zero nodes", func(q *QueueSnapshot) { q.Queued[1].Nodes = 0 }, "queued[1].nodes"},
		{"queued negative nodes", func(q *QueueSnapshot) { q.Queued[1].Nodes = -2 }, "queued[1].nodes"},
		{"queued wider than machine", func(q *QueueSnapshot) { q.Queued[0].Nodes = 101 }, "queued[0].nodes"},
		{"queued zero runtime", func(q *QueueSnapshot) { q.Queued[0].Runtime = 0 }, "queued[0].runtime"},
		{"queued negative runtime", func(q *QueueSnapshot) { q.Queued[1].Runtime = -100 }, "queued[1].runtime"},
		{"queued huge runtime", func(q *QueueSnapshot) { q.Queued[1].Runtime = MaxQueueTime + 1 }, "queued[1].runtime"},
		{"queued negative weight", func(q *QueueSnapshot) { q.Queued[1].Weight = decimal.NewNullDecimal(dec("-1")) }, "queued[1].weight"},
		{"duplicate queued id", func(q *QueueSnapshot) { q.Queued[1].ID = "B" }, "queued[1].id"},
		{"queued id of a running job", func(q *QueueSnapshot) { q.Queued[0].ID = "A" }, "queued[0].id"},
		{"reservation id of a job", func(q *QueueSnapshot) { q.Reservations[0].ID = "C" }, "reservations[0].id"},
		{"reservation zero nodes", func(q *QueueSnapshot) { q.Reservations[0].Nodes = 0 }, "reservations[0].nodes"},
		{"reservation too wide", func(q *QueueSnapshot) { q.Reservations[0].Nodes = 200 }, "reservations[0].nodes"},
		{"reservation empty", func(q *QueueSnapshot) { q.Reservations[0].End = 400 }, "reservations[0].end"},
		{"reservation backwards", func(q *QueueSnapshot) { q.Reservations[0].End = 300 }, "reservations[0].end"},
		{"reservation negative start", func(q *QueueSnapshot) { q.Reservations[0].Start = -1 }, "reservations[0].start"},
		{"running over-subscribed", func(q *QueueSnapshot) {
			q.Running = append(q.Running, QueueRunningJob{ID: "A2", Nodes: 40, End: 80})
		}, "running"},
		{"reservation over-subscribes", func(q *QueueSnapshot) {
			q.Reservations = append(q.Reservations, QueueReservation{ID: "R2", Nodes: 40, Start: 60, End: 70})
		}, "reservations[1]"},
		{"reservations over-subscribe together", func(q *QueueSnapshot) {
			q.Reservations = append(q.Reservations, QueueReservation{ID: "R2", Nodes: 95, Start: 450, End: 460})
		}, "reservations[1]"},
		{"too many queued", func(q *QueueSnapshot) {
			q.Queued = make([]QueueJob, MaxQueueJobs+1)
		}, "queued"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := good()
			tt.edit(&q)
			err := q.Validate()
			if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
				t.Fatalf("Validate = %v (field %q), want Invalid on %q", err, slotfare.FieldOf(err), tt.field)
			}
			if _, err := NewDelayPricer(q); slotfare.FieldOf(err) != tt.field {
				t.Fatalf("NewDelayPricer = %v, want the same error", err)
			}
		})
	}
	// What is allowed: finished running jobs (even wide ones alongside),
	// past reservations, reservations already under way, weight zero.
	q := good()
	q.Running = append(q.Running, QueueRunningJob{ID: "gone", Nodes: 100, End: 50})
	q.Reservations = append(q.Reservations,
		QueueReservation{ID: "past", Nodes: 100, Start: 0, End: 40},
		QueueReservation{ID: "now", Nodes: 30, Start: 10, End: 60})
	q.Queued[0].Weight = decimal.NewNullDecimal(decimal.Zero)
	if err := q.Validate(); err != nil {
		t.Fatalf("valid snapshot refused: %v", err)
	}
	p, err := NewDelayPricer(q)
	if err != nil {
		t.Fatal(err)
	}
	// "now" holds 30 nodes until 60 beside A's 70: B still waits for A.
	if plan := p.Plan(); plan[0].Start != 100 || plan[1].Start != 200 {
		t.Fatalf("plan = %+v", plan)
	}
	if p.Feasible(1, 5, 55) {
		t.Fatal("a node is free at 55 although A and the ongoing reservation hold all 100")
	}
}

// TestOverflowGuard: a queue whose premium could pass int64 is refused up
// front rather than computed wrong.
func TestOverflowGuard(t *testing.T) {
	q := QueueSnapshot{Nodes: MaxQueueNodes, Now: 0, Policy: BackfillEASY}
	for i := range 4000 {
		q.Queued = append(q.Queued, QueueJob{ID: strings.Repeat("x", 1) + string(rune('a'+i%26)) + strings.Repeat("y", i/26), Nodes: MaxQueueNodes, Runtime: MaxQueueTime})
	}
	if err := q.Validate(); slotfare.FieldOf(err) != "queued" {
		t.Fatalf("Validate = %v, want an overflow refusal on queued", err)
	}
}

func TestReadDelayScenario(t *testing.T) {
	const example = `{"nodes":100,"now":50,"policy":"easy",
	  "running":[{"id":"A","nodes":70,"end":100}],
	  "queued":[{"id":"B","nodes":80,"runtime":100},{"id":"C","nodes":90,"runtime":100,"weight":1.5}],
	  "reservations":[{"id":"R","nodes":10,"start":400,"end":500}],
	  "request":{"nodes":20,"duration":250,"start":50}}`
	sc, err := ReadDelayScenario(strings.NewReader(example))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Nodes != 100 || sc.Policy != BackfillEASY || len(sc.Queued) != 2 || sc.Request.Start == nil || *sc.Request.Start != 50 {
		t.Fatalf("decoded %+v", sc)
	}
	if sc.Queued[0].Weight.Valid || !sc.Queued[1].Weight.Valid || !sc.Queued[1].Weight.Decimal.Equal(dec("1.5")) {
		t.Fatalf("weights %+v %+v", sc.Queued[0].Weight, sc.Queued[1].Weight)
	}
	// A string weight is accepted too; null means none.
	sc, err = ReadDelayScenario(strings.NewReader(strings.Replace(example, `"weight":1.5`, `"weight":"2.25"`, 1)))
	if err != nil || !sc.Queued[1].Weight.Decimal.Equal(dec("2.25")) {
		t.Fatalf("string weight: %v %+v", err, sc.Queued)
	}
	sc, err = ReadDelayScenario(strings.NewReader(strings.Replace(example, `"weight":1.5`, `"weight":null`, 1)))
	if err != nil || sc.Queued[1].Weight.Valid {
		t.Fatalf("null weight: %v %+v", err, sc.Queued)
	}

	bad := []struct {
		name, text, field, msg string
	}{
		{"empty", ``, "scenario", "empty"},
		{"not JSON", `nodes: 5`, "scenario", "malformed JSON"},
		{"truncated", `{"nodes":100,"now":`, "scenario", "unexpected end"},
		{"trailing", example + ` {}`, "scenario", "after the JSON object"},
		{"unknown top field", strings.Replace(example, `"now":50`, `"now":50,"clock":1`, 1), "clock", "unknown field"},
		{"unknown nested field", strings.Replace(example, `"end":100}`, `"end":100,"user":"x"}`, 1), "user", "unknown field"},
		{"string nodes", strings.Replace(example, `"nodes":100,`, `"nodes":"100",`, 1), "nodes", "wrong type"},
		{"fractional runtime", strings.Replace(example, `"runtime":100}`, `"runtime":1.5}`, 1), "queued.runtime", "wrong type"},
		{"bad weight", strings.Replace(example, `"weight":1.5`, `"weight":"lots"`, 1), "queued[1].weight", "not a decimal"},
		{"unknown policy", strings.Replace(example, `"easy"`, `"lifo"`, 1), "policy", "unknown policy"},
		{"zero job nodes", strings.Replace(example, `"nodes":80`, `"nodes":0`, 1), "queued[0].nodes", "positive"},
		{"negative runtime", strings.Replace(example, `"runtime":100}`, `"runtime":-1}`, 1), "queued[0].runtime", ""},
		{"job wider than machine", strings.Replace(example, `"nodes":90`, `"nodes":900`, 1), "queued[1].nodes", "wider than the machine"},
		{"duplicate id", strings.Replace(example, `"id":"C"`, `"id":"B"`, 1), "queued[1].id", "duplicate"},
		{"no request", strings.Replace(example, `,
	  "request":{"nodes":20,"duration":250,"start":50}`, ``, 1), "request", "required"},
		{"request zero nodes", strings.Replace(example, `"nodes":20`, `"nodes":0`, 1), "request.nodes", ""},
		{"request too wide", strings.Replace(example, `"nodes":20`, `"nodes":101`, 1), "request.nodes", ""},
		{"request zero duration", strings.Replace(example, `"duration":250`, `"duration":0`, 1), "request.duration", ""},
		{"request negative duration", strings.Replace(example, `"duration":250`, `"duration":-250`, 1), "request.duration", ""},
		{"request before now", strings.Replace(example, `"start":50}`, `"start":49}`, 1), "request.start", "not before now"},
		{"request unknown field", strings.Replace(example, `"start":50}`, `"start":50,"alpha":0.5}`, 1), "alpha", "unknown field"},
		// Duplicate keys and case-folded names (issue 9, defect 10).
		{"duplicate top key", strings.Replace(example, `"nodes":100,`, `"nodes":100,"nodes":1000,`, 1), "nodes", "more than once"},
		{"duplicate nested key", strings.Replace(example, `"end":100}`, `"end":100,"end":10}`, 1), "running[0].end", "more than once"},
		{"case folded top key", strings.Replace(example, `"now":50`, `"NOW":50`, 1), "NOW", `"now"`},
		{"case folded nested key", strings.Replace(example, `{"id":"B"`, `{"Id":"B"`, 1), "queued[0].Id", `"id"`},
		{"case folded request key", strings.Replace(example, `"duration":250`, `"Duration":250`, 1), "request.Duration", `"duration"`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadDelayScenario(strings.NewReader(tt.text))
			if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v (field %q), want Invalid on %q mentioning %q", err, slotfare.FieldOf(err), tt.field, tt.msg)
			}
		})
	}
}

func TestReadQueueSnapshot(t *testing.T) {
	q, err := ReadQueueSnapshot(strings.NewReader(`{"nodes":4,"now":0,"policy":"conservative","queued":[{"id":"x","nodes":2,"runtime":5}]}`))
	if err != nil || q.Nodes != 4 || len(q.Queued) != 1 {
		t.Fatalf("%v %+v", err, q)
	}
	_, err = ReadQueueSnapshot(strings.NewReader(`{"nodes":4,"now":0,"policy":"easy","request":{"nodes":1,"duration":1}}`))
	if slotfare.FieldOf(err) != "request" {
		t.Fatalf("a snapshot with a request: %v, want unknown field request", err)
	}
}
