package forecast

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"slotfare"
)

var showStart = time.Date(2025, 2, 3, 6, 0, 0, 0, time.UTC)

var peakShow = ShowKey{Resource: "Bologna", Period: "peak"}

// showRec is a booking made ahead before showStart.
func showRec(ahead time.Duration, outcome Outcome, cancelAhead time.Duration) BookingRecord {
	r := BookingRecord{Key: peakShow, Booked: showStart.Add(-ahead), Start: showStart, Outcome: outcome}
	if outcome == Cancelled {
		r.CancelledAt = showStart.Add(-cancelAhead)
	}
	return r
}

func showClose(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestShowRateHandMade(t *testing.T) {
	after := showStart.Add(time.Hour)
	t.Run("cancellations then no-shows", func(t *testing.T) {
		// Four bookings made 10 h ahead; one cancels 5 h ahead; of the three
		// that reach the start one does not come.
		c, err := EstimateShowRate([]BookingRecord{
			showRec(10*time.Hour, Cancelled, 5*time.Hour),
			showRec(10*time.Hour, Shown, 0),
			showRec(10*time.Hour, Shown, 0),
			showRec(10*time.Hour, NoShow, 0),
		}, after)
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			left time.Duration
			want float64
		}{
			{10 * time.Hour, 0.75 * 2 / 3}, // survive the cancellation (3/4), then show (2/3)
			{6 * time.Hour, 0.5},
			{5 * time.Hour, 2.0 / 3}, // the cancellation at 5 h is already past
			{time.Hour, 2.0 / 3},
			{0, 2.0 / 3},
			{-time.Hour, 2.0 / 3},
		} {
			if got := c.Q(tt.left); !showClose(got, tt.want) {
				t.Errorf("q(%s) = %v, want %v", tt.left, got, tt.want)
			}
		}
		if c.Bookings != 4 || c.Cancellations != 1 || c.Settled != 3 || c.NoShows != 1 || !showClose(c.NoShowRate, 1.0/3) || !c.Observed() {
			t.Errorf("counts %+v", c)
		}
	})
	t.Run("late bookings do not dilute early risk", func(t *testing.T) {
		// A and C are made 10 h ahead, A cancels 6 h ahead: 1 of 2 at risk.
		// B, D, E are made 3 h ahead, B cancels 2 h ahead: 1 of 4 at risk
		// (C, B, D, E). Everybody left shows. q(10h) = 1/2 x 3/4, while the
		// share of all bookings that showed is 3/5.
		c, err := EstimateShowRate([]BookingRecord{
			showRec(10*time.Hour, Cancelled, 6*time.Hour),
			showRec(10*time.Hour, Shown, 0),
			showRec(3*time.Hour, Cancelled, 2*time.Hour),
			showRec(3*time.Hour, Shown, 0),
			showRec(3*time.Hour, Shown, 0),
		}, after)
		if err != nil {
			t.Fatal(err)
		}
		for left, want := range map[time.Duration]float64{10 * time.Hour: 0.375, 7 * time.Hour: 0.375, 4 * time.Hour: 0.75, 2 * time.Hour: 1, time.Hour: 1} {
			if got := c.Q(left); !showClose(got, want) {
				t.Errorf("q(%s) = %v, want %v", left, got, want)
			}
		}
	})
	t.Run("pending bookings are censored at now", func(t *testing.T) {
		// Now is 4 h before the start. A cancelled 6 h ahead, C is pending
		// (made 10 h ahead), F is pending (made 8 h ahead): at 6 h ahead three
		// were at risk. Nothing has settled, so there is no no-show factor.
		now := showStart.Add(-4 * time.Hour)
		c, err := EstimateShowRate([]BookingRecord{
			showRec(10*time.Hour, Cancelled, 6*time.Hour),
			showRec(10*time.Hour, Pending, 0),
			showRec(8*time.Hour, Pending, 0),
		}, now)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Q(12 * time.Hour); !showClose(got, 2.0/3) || c.Settled != 0 || c.NoShowRate != 0 {
			t.Errorf("q(12h) = %v (settled %d), want 2/3", got, c.Settled)
		}
	})
	t.Run("a cancellation at the start is a no-show", func(t *testing.T) {
		c, err := EstimateShowRate([]BookingRecord{
			showRec(5*time.Hour, Cancelled, 0),
			showRec(5*time.Hour, Cancelled, -10*time.Minute),
			showRec(5*time.Hour, Shown, 0),
			showRec(5*time.Hour, Shown, 0),
		}, after)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Q(5 * time.Hour); !showClose(got, 0.5) || c.Cancellations != 0 || c.NoShows != 2 {
			t.Errorf("q = %v, counts %+v; want 0.5 with two no-shows", got, c)
		}
	})
	t.Run("no history", func(t *testing.T) {
		c, err := EstimateShowRate(nil, after)
		if err != nil || c.Observed() || c.Q(time.Hour) != 1 {
			t.Errorf("empty: %+v, %v", c, err)
		}
	})
}

// TestShowRateMarkov draws bookings whose cancellation hazard is constant in
// time before start (rate 0.05 an hour) and whose no-show chance is 0.1, made
// a random 0-48 hours ahead, and checks q(t) = exp(-0.05 t) x 0.9.
func TestShowRateMarkov(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	const rate, noShow = 0.05, 0.10
	var records []BookingRecord
	for i := 0; i < 20000; i++ {
		ahead := time.Duration(rng.Float64() * 48 * float64(time.Hour))
		start := showStart.Add(time.Duration(i) * time.Minute)
		r := BookingRecord{Key: peakShow, Booked: start.Add(-ahead), Start: start, Outcome: Shown}
		cancelAfter := time.Duration(rng.ExpFloat64() / rate * float64(time.Hour))
		switch {
		case cancelAfter < ahead:
			r.Outcome, r.CancelledAt = Cancelled, r.Booked.Add(cancelAfter)
		case rng.Float64() < noShow:
			r.Outcome = NoShow
		}
		records = append(records, r)
	}
	now := showStart.Add(30 * 24 * time.Hour)
	curves, err := ShowRates(records, now)
	if err != nil {
		t.Fatal(err)
	}
	c := curves[peakShow]
	for _, h := range []float64{0, 1, 6, 12, 24, 36} {
		want := math.Exp(-rate*h) * (1 - noShow)
		if got := c.Q(time.Duration(h * float64(time.Hour))); math.Abs(got-want) > 0.02 {
			t.Errorf("q(%vh) = %.4f, want %.4f", h, got, want)
		}
	}
	// q falls as the start recedes.
	prev := 2.0
	for h := 0; h <= 48; h++ {
		q := c.Q(time.Duration(h) * time.Hour)
		if q > prev {
			t.Fatalf("q rises from %v to %v at %dh", prev, q, h)
		}
		prev = q
	}
}

func TestShowRateInvalid(t *testing.T) {
	now := showStart.Add(time.Hour)
	ok := showRec(time.Hour, Shown, 0)
	tests := []struct {
		name  string
		rec   BookingRecord
		now   time.Time
		field string
	}{
		{"booked after start", BookingRecord{Booked: showStart.Add(time.Minute), Start: showStart}, now, "records[1].booked"},
		{"booked after now", showRec(time.Hour, Pending, 0), showStart.Add(-2 * time.Hour), "records[1].booked"},
		{"cancelled before booked", showRec(time.Hour, Cancelled, 2*time.Hour), now, "records[1].cancelled_at"},
		{"cancelled after now", showRec(time.Hour, Cancelled, -2*time.Hour), now, "records[1].cancelled_at"},
		{"shown before start", showRec(time.Hour, Shown, 0), showStart.Add(-time.Minute), "records[1].outcome"},
		{"unknown outcome", showRec(time.Hour, Outcome(9), 0), now, "records[1].outcome"},
	}
	for _, tt := range tests {
		first := ok
		if tt.now.Before(showStart) {
			first = showRec(3*time.Hour, Pending, 0)
		}
		_, err := EstimateShowRate([]BookingRecord{first, tt.rec}, tt.now)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
			t.Errorf("%s: err = %v, want Invalid on %s", tt.name, err, tt.field)
		}
	}
	// ShowRates reports the index in the caller's list, not in the group.
	other := ok
	other.Key = ShowKey{Resource: "RAL", Period: "peak"}
	bad := showRec(time.Hour, Shown, 0)
	bad.Booked = showStart.Add(time.Minute)
	_, err := ShowRates([]BookingRecord{other, ok, other, bad}, now)
	if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "records[3].booked" {
		t.Errorf("ShowRates err = %v (field %q), want Invalid on records[3].booked", err, slotfare.FieldOf(err))
	}
	for o, s := range map[Outcome]string{Pending: "pending", Cancelled: "cancelled", Shown: "shown", NoShow: "no_show"} {
		if o.String() != s {
			t.Errorf("%d.String() = %q", int(o), o.String())
		}
	}
}

// TestShowRateAtBooking: the share of bookings expected to show, each as of
// the lead time at which it was booked, counts cancellations and no-shows
// alike, where q at the start (all an estimate of no-shows could give)
// counts the no-shows alone.
func TestShowRateAtBooking(t *testing.T) {
	after := showStart.Add(time.Hour)
	t.Run("cancellations and no-shows", func(t *testing.T) {
		// A and B are booked 10 h ahead, A cancels 5 h ahead (1 of 2 at
		// risk); C and D are booked 2 h ahead; of B, C, D one does not
		// come. QBooked(10h) = 1/2 x 2/3 = 1/3, QBooked(2h) = 2/3; the mean
		// over the four is 1/2, which is also the share that showed.
		c, err := EstimateShowRate([]BookingRecord{
			showRec(10*time.Hour, Cancelled, 5*time.Hour),
			showRec(10*time.Hour, Shown, 0),
			showRec(2*time.Hour, Shown, 0),
			showRec(2*time.Hour, NoShow, 0),
		}, after)
		if err != nil {
			t.Fatal(err)
		}
		if !showClose(c.QBooked(10*time.Hour), 1.0/3) || !showClose(c.QBooked(2*time.Hour), 2.0/3) {
			t.Errorf("QBooked(10h) = %v, QBooked(2h) = %v, want 1/3 and 2/3", c.QBooked(10*time.Hour), c.QBooked(2*time.Hour))
		}
		if !showClose(c.AtBooking, 0.5) {
			t.Errorf("AtBooking = %v, want 0.5 (q at the start, no-shows only, is %v)", c.AtBooking, c.Q(0))
		}
	})
	t.Run("a cancellation at the instant of booking", func(t *testing.T) {
		// Both booked 1 h ahead, one cancels at once: Q(1h) leaves the
		// cancellation out as past, the booking's own chance counts it.
		c, err := EstimateShowRate([]BookingRecord{
			showRec(time.Hour, Cancelled, time.Hour),
			showRec(time.Hour, Shown, 0),
		}, after)
		if err != nil {
			t.Fatal(err)
		}
		if !showClose(c.Q(time.Hour), 1) || !showClose(c.QBooked(time.Hour), 0.5) || !showClose(c.AtBooking, 0.5) {
			t.Errorf("Q(1h) = %v, QBooked(1h) = %v, AtBooking = %v, want 1, 0.5, 0.5", c.Q(time.Hour), c.QBooked(time.Hour), c.AtBooking)
		}
	})
	t.Run("pending bookings are censored", func(t *testing.T) {
		// G and H start an hour ago, booked 10 h ahead; G cancelled 5 h
		// ahead. I starts in 3 h, booked 10 h ahead, pending: at risk at
		// 5 h too, so the factor there is 2/3 and every booking's chance
		// 2/3 — not the 1/2 of the two whose outcome is known.
		now := showStart.Add(time.Hour)
		pending := BookingRecord{Key: peakShow, Booked: now.Add(-7 * time.Hour), Start: now.Add(3 * time.Hour), Outcome: Pending}
		c, err := EstimateShowRate([]BookingRecord{
			{Key: peakShow, Booked: showStart.Add(-10 * time.Hour), Start: showStart, Outcome: Cancelled, CancelledAt: showStart.Add(-5 * time.Hour)},
			{Key: peakShow, Booked: showStart.Add(-10 * time.Hour), Start: showStart, Outcome: Shown},
			pending,
		}, now)
		if err != nil {
			t.Fatal(err)
		}
		if !showClose(c.AtBooking, 2.0/3) {
			t.Errorf("AtBooking = %v, want 2/3", c.AtBooking)
		}
	})
	t.Run("no records", func(t *testing.T) {
		c, err := EstimateShowRate(nil, after)
		if err != nil || c.AtBooking != 1 || c.QBooked(time.Hour) != 1 {
			t.Errorf("empty: %+v, %v", c, err)
		}
	})
}
