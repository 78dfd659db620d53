package forecast

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"slotfare"
)

// randomShowRecords are n records of one series as of now: bookings made
// up to a week ahead in whole hours (so that marks tie), some cancelled,
// the started ones shown or not, the rest pending. settled come in no
// order, pending by start.
func randomShowRecords(r *rand.Rand, n int, now time.Time) (settled, pending []BookingRecord) {
	for range n {
		start := now.Add(time.Duration(r.IntN(14*24)-7*24) * time.Hour)
		booked := start.Add(-time.Duration(r.IntN(7*24)) * time.Hour)
		if booked.After(now) {
			booked = now.Add(-time.Duration(r.IntN(3)) * time.Hour)
			if booked.After(start) {
				booked = start
			}
		}
		rec := BookingRecord{Key: peakShow, Booked: booked, Start: start}
		cancelBy := minTimeOf(now, start.Add(time.Duration(r.IntN(3))*time.Hour))
		switch {
		case r.IntN(4) == 0 && !cancelBy.Before(booked):
			span := cancelBy.Sub(booked) / time.Hour
			rec.Outcome, rec.CancelledAt = Cancelled, booked.Add(time.Duration(r.Int64N(int64(span)+1))*time.Hour)
		case !start.After(now) && r.IntN(5) == 0:
			rec.Outcome = NoShow
		case !start.After(now):
			rec.Outcome = Shown
		}
		if rec.Outcome == Pending {
			pending = append(pending, rec)
		} else {
			settled = append(settled, rec)
		}
	}
	slices.SortStableFunc(pending, func(a, b BookingRecord) int { return a.Start.Compare(b.Start) })
	return settled, pending
}

func minTimeOf(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// TestEstimateShowRateMarkedEqualsSorted: the estimate from marks kept as
// records come and go is EstimateShowRate's on the records themselves, to
// the bit (curve, counts and AtBooking), after marks were added for
// records since removed.
func TestEstimateShowRateMarkedEqualsSorted(t *testing.T) {
	now := showStart
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		settled, pending := randomShowRecords(r, r.IntN(300), now)
		gone, gonePending := randomShowRecords(r, r.IntN(50), now)
		var m ShowMarks
		all := slices.Concat(settled, gone, pending, gonePending)
		r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		for _, rec := range all {
			m.Add(rec)
		}
		for _, rec := range slices.Concat(gone, gonePending) {
			if !m.Remove(rec) {
				t.Fatalf("seed %d: %+v added, not found to remove", seed, rec)
			}
		}
		var latest time.Time
		for _, rec := range settled {
			if rec.Outcome == Cancelled && rec.CancelledAt.After(latest) {
				latest = rec.CancelledAt
			}
		}
		if got, ok := m.LatestCancellation(); ok != !latest.IsZero() || !got.Equal(latest) {
			t.Fatalf("seed %d: latest cancellation %s (%v), want %s", seed, got, ok, latest)
		}
		want, err := EstimateShowRate(slices.Concat(settled, pending), now)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		got, err := EstimateShowRateMarked(settled, pending, &m, now)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d (%d settled, %d pending): %+v, want %+v", seed, len(settled), len(pending), got, want)
		}
		// twice: the second reuses the marks' buffer the first filled
		for range 2 {
			at, err := ShowRateAtBookingMarked(settled, pending, &m, now)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			lean := want
			if lean.events, lean.prefix = nil, nil; !reflect.DeepEqual(at, lean) {
				t.Fatalf("seed %d: at booking %+v, want %+v", seed, at, lean)
			}
		}
		if seed == 1 && (want.Cancellations == 0 || len(want.events) == 0 || len(pending) == 0) {
			t.Fatalf("seed 1 has no cancellation or no pending record: the comparison proves little")
		}
	}
}

// TestEstimateShowRateMarkedRefusesOtherMarks: marks of other records, or
// pending records out of order, are an error, not another curve.
func TestEstimateShowRateMarkedRefusesOtherMarks(t *testing.T) {
	now := showStart
	r := rand.New(rand.NewPCG(3, 5))
	settled, pending := randomShowRecords(r, 100, now)
	var m ShowMarks
	for _, rec := range slices.Concat(settled, pending) {
		m.Add(rec)
	}
	if _, err := EstimateShowRateMarked(settled[1:], pending, &m, now); err == nil {
		t.Errorf("one settled record fewer than marked: no error")
	}
	if len(pending) > 1 && !pending[0].Start.Equal(pending[len(pending)-1].Start) {
		back := slices.Clone(pending)
		slices.Reverse(back)
		if _, err := EstimateShowRateMarked(settled, back, &m, now); err == nil {
			t.Errorf("pending records out of start order: no error")
		}
	}
	v := m.Version()
	if m.Remove(BookingRecord{Key: peakShow, Booked: now.Add(-1000 * time.Hour), Start: now, Outcome: Shown}) {
		t.Errorf("removed marks never added")
	}
	m.Add(settled[0])
	if m.Version() == v {
		t.Errorf("the marks changed, their version did not")
	}
}

// TestEstimateShowRateMarkedInvalid: the counts taken from the marks do
// not skip the checks of the settled records: each record
// EstimateShowRate refuses, whatever now or as of now, is refused by name
// here too, and after it is removed the estimate goes through.
func TestEstimateShowRateMarkedInvalid(t *testing.T) {
	now := showStart.Add(time.Hour)
	ok := showRec(time.Hour, Shown, 0)
	tests := []struct {
		name  string
		rec   BookingRecord
		now   time.Time
		field string
	}{
		{"booked after start", BookingRecord{Key: peakShow, Booked: showStart.Add(time.Minute), Start: showStart, Outcome: Shown}, now, "records[1].booked"},
		{"cancelled before booked", showRec(time.Hour, Cancelled, 2*time.Hour), now, "records[1].cancelled_at"},
		{"cancelled after now", showRec(time.Hour, Cancelled, -2*time.Hour), now, "records[1].cancelled_at"},
		{"shown before start", showRec(time.Hour, NoShow, 0), showStart.Add(-time.Minute), "records[1].outcome"},
		{"unknown outcome", showRec(time.Hour, Outcome(9), 0), now, "records[1].outcome"},
	}
	for _, tt := range tests {
		first := ok
		if tt.now.Before(showStart) {
			first = showRec(3*time.Hour, Cancelled, 2*time.Hour)
		}
		var m ShowMarks
		m.Add(first)
		m.Add(tt.rec)
		_, err := EstimateShowRateMarked([]BookingRecord{first, tt.rec}, nil, &m, tt.now)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
			t.Errorf("%s: err = %v, want Invalid on %s", tt.name, err, tt.field)
		}
		if !m.Remove(tt.rec) {
			t.Fatalf("%s: the record added is not found to remove", tt.name)
		}
		if _, err := EstimateShowRateMarked([]BookingRecord{first}, nil, &m, tt.now); err != nil {
			t.Errorf("%s: once removed: %v", tt.name, err)
		}
	}
}

// TestShowRateAtBookingIsTheMean: AtBooking, summed in ascending lead with
// each lead's events found on from the last's, is the mean of QBooked
// over the records, as the records come.
func TestShowRateAtBookingIsTheMean(t *testing.T) {
	now := showStart
	for seed := uint64(1); seed <= 100; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		settled, pending := randomShowRecords(r, 1+r.IntN(300), now)
		all := slices.Concat(settled, pending)
		c, err := EstimateShowRate(all, now)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		sum := 0.0
		for _, rec := range all {
			sum += c.QBooked(rec.Start.Sub(rec.Booked))
		}
		if want := sum / float64(len(all)); math.Abs(c.AtBooking-want) > 1e-12 {
			t.Fatalf("seed %d: AtBooking %v, the mean of QBooked %v", seed, c.AtBooking, want)
		}
	}
}
