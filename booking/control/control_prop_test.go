package control

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/overbook"
)

// TestControlRandomHistories: whatever the history, the limits of every
// period stay nested under the overbooking limit, the overbooking limit
// stays within [C, 2C] (q >= MinShowRate), and the probability policy's
// limit is floor(C / q) of the q it reports.
func TestControlRandomHistories(t *testing.T) {
	classes := []string{"premium", "business", "budget"}
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		rc := demoResource(t, []string{"RAL", "Lyon", "Torino", "Bologna"}[seed%4])
		rc.Overbooking.Policy = []overbook.Policy{overbook.None, overbook.Probability, overbook.Risk, overbook.ServiceLevel}[r.IntN(4)]
		rc.Limits.MinHistory = r.IntN(6)
		c := newControl(t, rc)
		now := monday
		for step := 0; step < 400; step++ {
			now = now.Add(time.Duration(r.IntN(120)) * time.Minute)
			id := fmt.Sprintf("b%d", step)
			start := now.Add(time.Duration(r.IntN(72*60)) * time.Minute)
			end := start.Add(time.Duration(1+r.IntN(8*60)) * time.Minute)
			class := classes[r.IntN(3)]
			mustObserve(t, c, Event{Kind: EventBooked, BookingID: id, Class: class, Nodes: 1 + r.IntN(rc.Nodes), Start: start, End: end, At: now})
			switch r.IntN(5) {
			case 0:
				mustObserve(t, c, Event{Kind: EventCancelled, BookingID: id, At: now})
			case 1:
				mustObserve(t, c, Event{Kind: EventNoShow, BookingID: id, At: end})
			case 2:
				mustObserve(t, c, Event{Kind: EventShow, BookingID: id, At: start})
			case 3:
				mustObserve(t, c, Event{Kind: EventRefused, Class: class, Start: start, End: end, At: now})
			}
			if step%10 == 0 {
				if _, err := c.Recompute(now); err != nil {
					t.Fatalf("seed %d step %d: %v", seed, step, err)
				}
				for _, p := range c.periods {
					l := c.Limits(p)
					checkNested(t, l)
					if l.OverbookingLimit > 2*rc.Nodes || l.ShowRate < config.MinShowRate || l.ShowRate > 1 {
						t.Fatalf("seed %d %s: ob %d q %v", seed, p, l.OverbookingLimit, l.ShowRate)
					}
					if rc.Overbooking.Policy == overbook.Probability {
						if want, _ := overbook.ProbabilityLimit(rc.Nodes, l.ShowRate); want != l.OverbookingLimit {
							t.Fatalf("seed %d %s: ob %d, floor(C/q) = %d", seed, p, l.OverbookingLimit, want)
						}
					}
				}
			}
		}
	}
}

// controlWithHistory is RAL's control after about two months of bookings
// (50 a day, a fifth no-shows), recomputed at the end.
func controlWithHistory(b *testing.B) (*Control, time.Time) {
	rc := demoResource(b, "RAL")
	c, err := New(rc)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	classes := []string{"premium", "business", "budget"}
	now := monday
	for i := 0; i < 60*50; i++ {
		now = now.Add(29 * time.Minute)
		start := now.Add(time.Duration(r.IntN(48*60)) * time.Minute)
		id := fmt.Sprintf("b%d", i)
		ev := Event{Kind: EventBooked, BookingID: id, Class: classes[r.IntN(3)], Nodes: 1 + r.IntN(4), Start: start, End: start.Add(3 * time.Hour), At: now}
		if err := c.Observe(ev); err != nil {
			b.Fatal(err)
		}
		kind := EventShow
		if r.IntN(5) == 0 {
			kind = EventNoShow
		}
		if err := c.Observe(Event{Kind: kind, BookingID: id, At: start}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := c.Recompute(now); err != nil {
		b.Fatal(err)
	}
	return c, now
}

// BenchmarkControlRecomputeIdle is the cost Tick pays every second when
// nothing new has happened.
func BenchmarkControlRecomputeIdle(b *testing.B) {
	c, now := controlWithHistory(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Recompute(now.Add(time.Millisecond)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkControlRecomputeFull is a full recompute over two months of
// history (forecast, show rates, overbooking and EMSR for every period).
func BenchmarkControlRecomputeFull(b *testing.B) {
	c, now := controlWithHistory(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.dirty = true
		if _, err := c.Recompute(now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkControlObserveBooked is the cost a commit pays.
func BenchmarkControlObserveBooked(b *testing.B) {
	c, now := controlWithHistory(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := now.Add(time.Duration(i%(60*24*30)) * time.Minute)
		if err := c.Observe(Event{Kind: EventBooked, BookingID: fmt.Sprintf("x%d", i), Class: "budget", Nodes: 1,
			Start: start, End: start.Add(3 * time.Hour), At: now}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRecomputeReusesOnlyTheSameHistory: a control that reuses its last
// history, its forecast and weighted prices (history, forecastOf, weigh)
// gives, at every
// recompute, the limits of one fed the same events that makes every
// history anew, refusals, stored demand records and bookings on ended
// instances included.
func TestRecomputeReusesOnlyTheSameHistory(t *testing.T) {
	classes := []string{"premium", "business", "budget"}
	for seed := uint64(1); seed <= 6; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		rc := demoResource(t, []string{"RAL", "Bologna"}[seed%2])
		rc.Limits.MinHistory = 1
		rc.Overbooking.Policy = []overbook.Policy{overbook.Risk, overbook.Probability, overbook.ServiceLevel}[seed%3]
		reusing, fresh := newControl(t, rc), newControl(t, rc)
		now, reused := monday, 0
		for step := 0; step < 600; step++ {
			now = now.Add(time.Duration(r.IntN(90)) * time.Minute)
			id := fmt.Sprintf("b%d", step)
			// some bookings and refusals fall on instances already ended
			start := now.Add(time.Duration(r.IntN(72*60)-12*60) * time.Minute)
			end := start.Add(time.Duration(1+r.IntN(8*60)) * time.Minute)
			evs := []Event{{Kind: EventBooked, BookingID: id, Class: classes[r.IntN(3)], Nodes: 1 + r.IntN(rc.Nodes), Start: start, End: end, At: now}}
			switch r.IntN(4) {
			case 0:
				evs = append(evs, Event{Kind: EventShow, BookingID: id, At: start})
			case 1:
				evs = append(evs, Event{Kind: EventRefused, Class: classes[r.IntN(3)], Start: start, End: end, At: now})
			}
			for _, ev := range evs {
				mustObserve(t, reusing, ev)
				mustObserve(t, fresh, ev)
			}
			if k := r.IntN(len(reusing.inst)); step%7 == 3 {
				// a refusal stored by another replica, on any instance
				in := reusing.inst[k]
				rec := booking.DemandRecord{Resource: rc.ID, Class: classes[r.IntN(3)], Period: in.Period, Instance: in.Start,
					Day: now.UTC().Truncate(24 * time.Hour), Counts: booking.DemandCounts{RefusedClosed: booking.DemandTally{Requests: 1, NodeSeconds: 3600}}}
				reusing.AddDemand([]booking.DemandRecord{rec})
				fresh.AddDemand([]booking.DemandRecord{rec})
			}
			before := reusing.fromHistory.obs
			fresh.fromHistory, fresh.lastHistory, fresh.weighed = historyForecast{}, historyMade{}, nil
			if _, err := reusing.Recompute(now); err != nil {
				t.Fatal(err)
			}
			if _, err := fresh.Recompute(now); err != nil {
				t.Fatal(err)
			}
			if before != nil && len(before) == len(reusing.fromHistory.obs) && &before[0] == &reusing.fromHistory.obs[0] {
				reused++
			}
			for _, p := range reusing.periods {
				if a, b := reusing.Limits(p), fresh.Limits(p); !equalLimits(a, b) {
					t.Fatalf("seed %d step %d %s: reusing %+v, fresh %+v", seed, step, p, a, b)
				}
			}
		}
		if reused == 0 {
			t.Fatalf("seed %d: no recompute reused a forecast: the test compares nothing", seed)
		}
	}
}
