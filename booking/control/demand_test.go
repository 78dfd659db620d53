package control

import (
	"math"
	"testing"
	"time"

	"slotfare/booking"
)

// TestControlForecastsFromDemandRecords: silver books 5 nodes a day and is
// closed every day, while the demand records count 7 more nodes a day
// refused because it was closed, 3 of the 7 requests buying gold instead.
// From the bookings alone every instance is censored and the forecast is
// the lower bound, 5 nodes; with the records it is the 12 nodes asked for,
// and bronze's limit protects more for silver. SellUpEstimates gives
// silver 3/7, all to gold, and SellUp the same pulled to the prior; Instances cuts a window into the records' keys.
func TestControlForecastsFromDemandRecords(t *testing.T) {
	const days = 10
	withRecords, bookingsOnly := newControl(t, tinyResource(t, 20, 3)), newControl(t, tinyResource(t, 20, 3))
	var recs []booking.DemandRecord
	for d := range days {
		day := monday.AddDate(0, 0, d)
		for _, c := range []*Control{withRecords, bookingsOnly} {
			bookDay(t, c, d, map[string]int{"silver": 5, "bronze": 2})
			if _, err := c.ObserveRefusal(Event{Kind: EventRefused, Class: "silver", Start: day, End: day.AddDate(0, 0, 1), At: day}); err != nil {
				t.Fatal(err)
			}
		}
		in := withRecords.Instances(day, day.AddDate(0, 0, 1))
		if len(in) != 1 || !in[0].Start.Equal(day) || in[0].Period != "all" {
			t.Fatalf("instances of day %d: %+v", d, in)
		}
		recs = append(recs, booking.DemandRecord{Resource: "tiny", Class: "silver", Period: "all", Instance: in[0].Start, Day: day.AddDate(0, 0, -1),
			Counts: booking.DemandCounts{RefusedClosed: booking.DemandTally{Requests: 7, NodeSeconds: 7 * 86400},
				BoughtUp: map[string]booking.DemandTally{"gold": {Requests: 3, NodeSeconds: 3 * 86400}}}})
	}
	withRecords.SetDemand(recs[:4])
	withRecords.AddDemand(recs[4:])
	now := monday.AddDate(0, 0, days)
	for _, c := range []*Control{withRecords, bookingsOnly} {
		if _, err := c.Recompute(now); err != nil {
			t.Fatal(err)
		}
	}
	got, base := withRecords.Limits("all"), bookingsOnly.Limits("all")
	if got.Source != "forecast" || len(got.Demand) != 3 || len(base.Demand) != 3 {
		t.Fatalf("limits %+v", got)
	}
	if m := got.Demand[1].Mean; math.Abs(m-12) > 1e-6 || got.Demand[1].Censored != 0 {
		t.Errorf("silver with the records: mean %v (%d censored), want 12 uncensored", m, got.Demand[1].Censored)
	}
	if m := base.Demand[1].Mean; math.Abs(m-5) > 1e-6 || !base.Demand[1].LowerBound {
		t.Errorf("silver from the bookings alone: mean %v lower bound %v, want 5, a lower bound", m, base.Demand[1].LowerBound)
	}
	if got.BookingLimits[2] >= base.BookingLimits[2] {
		t.Errorf("bronze's limit %v with the records, %v without: want silver protected more", got.BookingLimits, base.BookingLimits)
	}
	su, err := withRecords.SellUpEstimates(0)
	if err != nil {
		t.Fatal(err)
	}
	if b := su["silver"]; math.Abs(b.Probability-3.0/7) > 1e-12 || math.Abs(b.To["gold"]-3.0/7) > 1e-12 || b.Refused != 70 {
		t.Errorf("silver sell-up %+v, want 3/7 to gold of 70 refused", b)
	}
	if g := su["gold"]; g.Probability != 0 || g.Refused != 0 {
		t.Errorf("gold sell-up %+v, want none", g)
	}
	// emsr-b-mr's sell-up: the estimate with the configured prior of
	// SellUpPriorWeight refusals (0 configured here).
	if got := withRecords.SellUp(); math.Abs(got[1]-30.0/(70+SellUpPriorWeight)) > 1e-12 || got[0] != 0 || got[2] != 0 {
		t.Errorf("SellUp by rank %v, want silver 30/90", got)
	}
	if idx := withRecords.Seasonality("silver", "all"); idx[time.Monday] <= 0 {
		t.Errorf("seasonality %v", idx)
	}
}

// TestAppendInstancesKeepsWhatItAppendsTo: AppendInstances adds
// Instances's list after what dst holds, and leaves dst as it was for an
// empty window.
func TestAppendInstancesKeepsWhatItAppendsTo(t *testing.T) {
	c := newControl(t, tinyResource(t, 20, 3))
	from, to := monday, monday.AddDate(0, 0, 3)
	want := c.Instances(from, to)
	if len(want) != 3 {
		t.Fatalf("instances of three days: %+v", want)
	}
	head := Instance{Period: "before", Start: monday.AddDate(0, 0, -1), End: monday}
	got := c.AppendInstances([]Instance{head}, from, to)
	if len(got) != 4 || got[0] != head {
		t.Fatalf("appended to one: %+v", got)
	}
	for i, in := range want {
		if got[i+1] != in {
			t.Errorf("instance %d: %+v, want %+v", i, got[i+1], in)
		}
	}
	if got := c.AppendInstances([]Instance{head}, to, from); len(got) != 1 || got[0] != head {
		t.Errorf("an empty window: %+v", got)
	}
}
