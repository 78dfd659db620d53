package pricing

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
)

func steps(pairs ...any) []CancellationStep {
	var out []CancellationStep
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, CancellationStep{BeforeStartSeconds: int64(pairs[i].(int)), PenaltyRate: decimal.RequireFromString(pairs[i+1].(string))})
	}
	return out
}

// TestCancellationRateAtEachBoundary: a step applies from exactly its
// before_start_seconds before the start; one second later the next.
func TestCancellationRateAtEachBoundary(t *testing.T) {
	s := steps(604800, "0", 86400, "0.25", 3600, "0.5", 0, "1")
	for _, c := range []struct {
		lead time.Duration
		want string
	}{
		{30 * 24 * time.Hour, "0"}, {604800 * time.Second, "0"}, {604799 * time.Second, "0.25"},
		{604800*time.Second - time.Nanosecond, "0.25"},
		{86400 * time.Second, "0.25"}, {86399 * time.Second, "0.5"}, {3600 * time.Second, "0.5"},
		{3599 * time.Second, "1"}, {time.Second, "1"}, {0, "1"},
	} {
		if got := CancellationRate(s, c.lead); !got.Equal(decimal.RequireFromString(c.want)) {
			t.Errorf("%s before the start: rate %s, want %s", c.lead, got, c.want)
		}
	}
	one := FareClass{PenaltyRate: decimal.RequireFromString("0.25")}
	for _, lead := range []time.Duration{0, time.Hour, 365 * 24 * time.Hour} {
		if got := CancellationRate(one.Schedule(), lead); !got.Equal(one.PenaltyRate) {
			t.Errorf("the one-step default at %s: %s", lead, got)
		}
	}
}

// TestScheduleRefusals: a schedule out of order, not reaching the start,
// empty or with a rate outside [0, 1] is Invalid naming the step's field.
func TestScheduleRefusals(t *testing.T) {
	for _, c := range []struct {
		s     []CancellationStep
		field string
	}{
		{steps(3600, "0.5", 86400, "0.25", 0, "1"), "cancellation[1].before_start_seconds"},
		{steps(3600, "0.5", 3600, "0.25", 0, "1"), "cancellation[1].before_start_seconds"},
		{steps(86400, "0.25", 3600, "0.5"), "cancellation[1].before_start_seconds"},
		{steps(86400, "1.5", 0, "1"), "cancellation[0].penalty_rate"},
		{steps(86400, "0", 0, "-0.1"), "cancellation[1].penalty_rate"},
		{steps(-1, "0"), "cancellation[0].before_start_seconds"},
		{[]CancellationStep{}, "cancellation"},
	} {
		err := ValidateSchedule("test", "cancellation", c.s)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != c.field {
			t.Errorf("%v: %v (field %q), want Invalid naming %s", c.s, err, slotfare.FieldOf(err), c.field)
		}
	}
	if err := ValidateSchedule("test", "cancellation", steps(86400, "0", 0, "1")); err != nil {
		t.Fatal(err)
	}
}

// TestScheduleWire: a class's cancellation is read strictly and written
// back the same; a class without one writes none.
func TestScheduleWire(t *testing.T) {
	in := `[{"name":"b","rank":1,"tau":{"p":"1.5"},"penalty_rate":"0.25","denied_cost_factor":"3","vo":null,` +
		`"cancellation":[{"before_start_seconds":86400,"penalty_rate":"0.1"},{"before_start_seconds":0,"penalty_rate":"0.5"}]}]`
	cs, err := DecodeFareClasses([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(cs[0].Cancellation) != 2 || cs[0].Cancellation[0].BeforeStartSeconds != 86400 || !cs[0].Cancellation[1].PenaltyRate.Equal(decimal.RequireFromString("0.5")) {
		t.Fatalf("read %+v", cs[0].Cancellation)
	}
	for _, c := range []struct{ body, field string }{
		{`"cancellation":[{"before_start_seconds":"1","penalty_rate":"0.1"}]`, "[0].cancellation[0].before_start_seconds"},
		{`"cancellation":[{"before_start_seconds":0,"penalty_rate":0.1}]`, "[0].cancellation[0].penalty_rate"},
		{`"cancellation":[{"before_start_seconds":0}]`, "[0].cancellation[0].penalty_rate"},
		{`"cancellation":{}`, "[0].cancellation"},
	} {
		_, err := DecodeFareClasses([]byte(`[{"name":"b","rank":1,"tau":{"p":"1.5"},"penalty_rate":"0.25","denied_cost_factor":"3",` + c.body + `}]`))
		if slotfare.FieldOf(err) != c.field {
			t.Errorf("%s: %v, want naming %s", c.body, err, c.field)
		}
	}
	cs[0].Cancellation[1].PenaltyRate = decimal.RequireFromString("2")
	if err := ValidateFareClasses(cs, []string{"p"}); slotfare.FieldOf(err) != "[0].cancellation[1].penalty_rate" {
		t.Errorf("a rate of 2 in a class: %v", err)
	}
}
