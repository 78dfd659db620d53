package recordstest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/records"
)

// demandRec is a record of class on instance hour h (from t0), counted on
// day d (from t0's midnight).
func demandRec(res, class string, h, d int, c booking.DemandCounts) booking.DemandRecord {
	return booking.DemandRecord{Resource: res, Class: class, Period: "peak", Instance: t0.Add(time.Duration(h) * time.Hour),
		Day: t0.Truncate(24*time.Hour).AddDate(0, 0, d), Counts: c}
}

func tally(r, ns int64) booking.DemandTally { return booking.DemandTally{Requests: r, NodeSeconds: ns} }

// demandCounts: records of one key add up, once per write id however often
// a write is sent; records are kept per resource, class, instance and day
// and read back sorted from an instance on; a write forgets the instances
// before its Forget; a bad write is Invalid naming the field and stores
// nothing. Each write that stores moves the resource's observations'
// version on by one and answers it; one sent again answers it unmoved.
func demandCounts(t *testing.T, p records.Port) {
	one := booking.DemandCounts{Offered: tally(2, 7200), RefusedClosed: tally(1, 3600), BoughtUp: map[string]booking.DemandTally{"gold": tally(1, 3600)},
		Quoted: map[string]booking.DemandTally{"2.50": tally(2, 7200), "1.25": tally(1, 600)}, Sold: map[string]booking.DemandTally{"2.50": tally(1, 3600)}}
	w1 := booking.DemandWrite{Resource: "R", ID: "w1", Records: []booking.DemandRecord{
		demandRec("R", "budget", 4, 0, one), demandRec("R", "budget", 4, 1, one), demandRec("R", "economy", 2, 0, one)}}
	v0 := observed(t, p, "R")
	wantVersion(t, "w1", must1(t)(p.CountDemand(bg, w1)), v0+1)
	wantVersion(t, "w1 sent again after a timeout", must1(t)(p.CountDemand(bg, w1)), v0+1)
	w2 := booking.DemandWrite{Resource: "R", ID: "w2", Records: []booking.DemandRecord{
		demandRec("R", "budget", 4, 0, booking.DemandCounts{Booked: tally(1, 3600), RefusedFull: tally(3, 900)})}}
	wantVersion(t, "w2", must1(t)(p.CountDemand(bg, w2)), v0+2)
	must1(t)(p.CountDemand(bg, booking.DemandWrite{Resource: "S", ID: "w1", Records: []booking.DemandRecord{demandRec("S", "budget", 4, 0, one)}}))
	wantVersion(t, "R after a write on S", observed(t, p, "R"), v0+2)
	got, err := p.Demand(bg, "R", t0)
	must(t, err)
	want := []booking.DemandRecord{
		demandRec("R", "economy", 2, 0, one),
		demandRec("R", "budget", 4, 0, one.Add(w2.Records[0].Counts)),
		demandRec("R", "budget", 4, 1, one),
	}
	if fmt.Sprint(describe(got)) != fmt.Sprint(describe(want)) {
		t.Fatalf("demand on R:\n got %v\nwant %v", describe(got), describe(want))
	}
	if got, _ := p.Demand(bg, "R", t0.Add(3*time.Hour)); len(got) != 2 || got[0].Class != "budget" {
		t.Fatalf("demand on R from 03:00: %v", describe(got))
	}
	must1(t)(p.CountDemand(bg, booking.DemandWrite{Resource: "R", ID: "w3", Forget: t0.Add(3 * time.Hour)}))
	v3 := observed(t, p, "R")
	if got, _ := p.Demand(bg, "R", t0); len(got) != 2 || !got[0].Instance.Equal(t0.Add(4*time.Hour)) {
		t.Fatalf("after forgetting instances before 03:00: %v", describe(got))
	}
	if got, _ := p.Demand(bg, "S", t0); len(got) != 1 {
		t.Fatalf("demand on S: %v", describe(got))
	}
	bad := func(mod func(*booking.DemandRecord)) booking.DemandWrite {
		r := demandRec("R", "budget", 4, 0, one)
		mod(&r)
		return booking.DemandWrite{Resource: "R", ID: "bad", Records: []booking.DemandRecord{demandRec("R", "budget", 4, 0, one), r}}
	}
	for _, c := range []struct {
		w     booking.DemandWrite
		field string
	}{
		{booking.DemandWrite{ID: "x"}, "resource"},
		{booking.DemandWrite{Resource: "R"}, "id"},
		{bad(func(r *booking.DemandRecord) { r.Resource = "S" }), "records[1].resource"},
		{bad(func(r *booking.DemandRecord) { r.Class = "" }), "records[1].class"},
		{bad(func(r *booking.DemandRecord) { r.Period = "" }), "records[1].period"},
		{bad(func(r *booking.DemandRecord) { r.Instance = time.Time{} }), "records[1].instance"},
		{bad(func(r *booking.DemandRecord) { r.Day = r.Day.Add(time.Hour) }), "records[1].day"},
		{bad(func(r *booking.DemandRecord) { r.Counts.Booked.Requests = -1 }), "records[1].counts"},
	} {
		if _, err := p.CountDemand(bg, c.w); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != c.field {
			t.Fatalf("write %+v: %v, want Invalid on %s", c.w, err, c.field)
		}
	}
	if after, _ := p.Demand(bg, "R", t0); fmt.Sprint(describe(after)) != fmt.Sprint(describe(got[1:])) {
		t.Fatalf("a refused write changed the records:\n got %v\nwant %v", describe(after), describe(got[1:]))
	}
	wantVersion(t, "R after refused writes", observed(t, p, "R"), v3)
}

// observed is resource's observations' version on p.
func observed(t *testing.T, p records.Port, resource string) int64 {
	t.Helper()
	v, err := p.Observed(bg, resource)
	must(t, err)
	return v
}

func wantVersion(t *testing.T, what string, got, want int64) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: observations' version %d, want %d", what, got, want)
	}
}

// must1 fails t on a call's error and gives its value.
func must1(t *testing.T) func(v int64, err error) int64 {
	return func(v int64, err error) int64 {
		t.Helper()
		must(t, err)
		return v
	}
}

// demandRace: writes from many goroutines at once (replicas flushing)
// lose no count.
func demandRace(t *testing.T, p records.Port) {
	const workers, each = 6, 20
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				c := booking.DemandCounts{Offered: tally(1, 60), RefusedClosed: tally(1, 30)}
				_, err := p.CountDemand(bg, booking.DemandWrite{Resource: "R", ID: fmt.Sprintf("w%d.%d", w, i),
					Records: []booking.DemandRecord{demandRec("R", "budget", 1, 0, c), demandRec("R", "budget", 1+i%3, 1, c)}})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got, err := p.Demand(bg, "R", t0)
	must(t, err)
	var sum booking.DemandCounts
	for _, r := range got {
		sum = sum.Add(r.Counts)
	}
	n := int64(2 * workers * each)
	if sum.Offered != tally(n, 60*n) || sum.RefusedClosed != tally(n, 30*n) || len(got) != 4 {
		t.Fatalf("after %d counts from %d writers: %d records, %+v", n, workers, len(got), sum)
	}
}

func describe(rs []booking.DemandRecord) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprintf("%s %s %s %s %s %v", r.Resource, r.Class, r.Period, r.Instance.UTC().Format(time.RFC3339),
			r.Day.UTC().Format(time.DateOnly), r.Counts.Fields())
	}
	return out
}
