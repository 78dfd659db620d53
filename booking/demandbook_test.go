package booking

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestDemandBookForgetsWhatAWalkWould: a book that walks its records for
// what to forget only when its oldest instance is before the write's
// Forget keeps, write after write, what forgetting at every write keeps
// (a reference model), on two resources, with forgets that move forward
// and back; the records written, which three books count in the
// simulator, stay as they were written.
func TestDemandBookForgetsWhatAWalkWould(t *testing.T) {
	base := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(7, 1))
	var book DemandBook
	model := map[string]map[string]DemandRecord{}
	forgot := 0
	for step := range 400 {
		res := []string{"RAL", "Bologna"}[r.IntN(2)]
		w := DemandWrite{Resource: res}
		for range r.IntN(6) {
			in := base.Add(time.Duration(step/4+r.IntN(48)) * time.Hour)
			c := DemandCounts{Offered: DemandTally{Requests: 1, NodeSeconds: 60}}
			if r.IntN(2) == 0 { // the maps too, which the book adds to in place
				c.Sold = map[string]DemandTally{[]string{"1.00", "1.20"}[r.IntN(2)]: {Requests: 1, NodeSeconds: 30}}
			}
			w.Records = append(w.Records, DemandRecord{Resource: res, Class: []string{"gold", "silver"}[r.IntN(2)], Period: "peak",
				Instance: in, Day: in.Truncate(24 * time.Hour), Counts: c})
		}
		if r.IntN(3) > 0 {
			w.Forget = base.Add(time.Duration(step/4-r.IntN(30)) * time.Hour)
		}
		written := make([]DemandCounts, len(w.Records))
		for i, rec := range w.Records {
			written[i] = rec.Counts.Add(DemandCounts{})
		}
		book.Count(w)
		book.Count(DemandWrite{Resource: res}) // a second count of nothing changes nothing
		for i, rec := range w.Records {
			if !reflect.DeepEqual(rec.Counts, written[i]) {
				t.Fatalf("step %d: the book changed a written record's counts: %+v, written %+v", step, rec.Counts, written[i])
			}
		}
		m := model[res]
		if m == nil {
			m = map[string]DemandRecord{}
			model[res] = m
		}
		for _, rec := range w.Records {
			old, ok := m[rec.DemandKey()]
			if !ok {
				old = DemandRecord{Resource: rec.Resource, Class: rec.Class, Period: rec.Period, Instance: rec.Instance, Day: rec.Day}
			}
			old.Counts = old.Counts.Add(rec.Counts)
			m[rec.DemandKey()] = old
		}
		for k, rec := range m {
			if !w.Forget.IsZero() && rec.Instance.Before(w.Forget) {
				delete(m, k)
				forgot++
			}
		}
		for _, res := range []string{"RAL", "Bologna"} {
			want := []DemandRecord{}
			for _, rec := range model[res] {
				want = append(want, rec)
			}
			if got := book.Since(res, time.Time{}); !reflect.DeepEqual(got, SortDemand(want)) {
				t.Fatalf("step %d, %s: %d records kept, want %d", step, res, len(got), len(want))
			}
		}
	}
	if forgot == 0 {
		t.Fatal("nothing forgotten: the test proves little")
	}
}

// TestDemandBookKeysAsDemandKey: the book adds up exactly the records of
// one DemandKey, where instances differ below the second and days are
// given at other hours and in other zones, and years are far off.
func TestDemandBookKeysAsDemandKey(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 2))
	east := time.FixedZone("east", 5*3600)
	var book DemandBook
	model := map[string]DemandRecord{}
	for range 2000 {
		year := []int{2025, 2025, 2025, -3, 12000}[r.IntN(5)]
		in := time.Date(year, 3, 1+r.IntN(3), r.IntN(3), 0, r.IntN(2), r.IntN(3)*400_000_000, time.UTC)
		day := time.Date(year, 3, 1+r.IntN(3), 0, 0, 0, 0, time.UTC).Add(time.Duration(r.IntN(24)) * time.Hour)
		if r.IntN(2) == 0 {
			day = day.In(east)
		}
		rec := DemandRecord{Resource: "RAL", Class: []string{"gold", "silver"}[r.IntN(2)], Period: "peak",
			Instance: in, Day: day, Counts: DemandCounts{Offered: DemandTally{Requests: 1, NodeSeconds: int64(1 + r.IntN(60))}}}
		book.Count(DemandWrite{Resource: "RAL", Records: []DemandRecord{rec}})
		old, ok := model[rec.DemandKey()]
		if !ok {
			old = DemandRecord{Resource: rec.Resource, Class: rec.Class, Period: rec.Period, Instance: rec.Instance.UTC(), Day: rec.Day.UTC()}
		}
		old.Counts = old.Counts.Add(rec.Counts)
		model[rec.DemandKey()] = old
	}
	got := book.Since("RAL", time.Date(-10, 1, 1, 0, 0, 0, 0, time.UTC))
	if len(got) != len(model) || len(model) < 50 {
		t.Fatalf("%d records in the book, %d keys", len(got), len(model))
	}
	for _, rec := range got {
		if want := model[rec.DemandKey()]; !reflect.DeepEqual(rec.Counts, want.Counts) {
			t.Errorf("%s: %+v, want %+v", rec.DemandKey(), rec.Counts, want.Counts)
		}
	}
}

// BenchmarkDemandBookCount counts a flush of 8 records into a book of a
// resource holding about 3,000 (14 days of requests for 3 classes over
// the instances of 10 days ahead), as the in-process stores count every
// flush.
func BenchmarkDemandBookCount(b *testing.B) {
	base := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(3, 4))
	write := func() DemandWrite {
		w := DemandWrite{Resource: "RAL"}
		for range 8 {
			day := base.Add(time.Duration(r.IntN(14)) * 24 * time.Hour)
			in := day.Add(time.Duration(r.IntN(10*8)) * 3 * time.Hour)
			w.Records = append(w.Records, DemandRecord{Resource: "RAL", Class: []string{"budget", "business", "premium"}[r.IntN(3)],
				Period: "peak", Instance: in, Day: day, Counts: DemandCounts{Offered: DemandTally{Requests: 1, NodeSeconds: 60}}})
		}
		return w
	}
	var book DemandBook
	for range 2000 {
		book.Count(write())
	}
	ws := make([]DemandWrite, 256)
	for i := range ws {
		ws[i] = write()
	}
	i := 0
	for b.Loop() {
		book.Count(ws[i&255])
		i++
	}
}
