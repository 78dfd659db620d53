package booking

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DemandTally counts one outcome of the requests for a fare class: how many
// requests, and the node-seconds they asked for inside the period instance
// (booking control's unit: divided by the instance's length, the mean nodes
// a class would have held).
type DemandTally struct {
	Requests    int64 `json:"requests"`
	NodeSeconds int64 `json:"node_seconds"`
}

func (t DemandTally) add(u DemandTally) DemandTally {
	return DemandTally{t.Requests + u.Requests, t.NodeSeconds + u.NodeSeconds}
}

// DemandCounts are the outcomes of the requests for one fare class in one
// period instance: offered (the class had room and offers were made),
// booked (a booking of the class was made), bought up (the class was closed
// and the user booked a higher class, by the class bought), refused because
// the class was closed (its booking limit was reached) and refused because
// the resource was full (no class had room). Offered but not taken is
// Offered less Booked (NotTaken). Seed 004 Sec. 7.3: refusals are the
// demand booking control never sees in its bookings.
//
// Quoted and Sold are the price response booking control learns fares
// from, by the class's tau (two decimals) where the request began: the
// requests offered the class at that tau, and the bookings sold in it at
// that tau. They are counted once per request, in the instance it starts
// in.
type DemandCounts struct {
	Offered       DemandTally            `json:"offered"`
	Booked        DemandTally            `json:"booked"`
	BoughtUp      map[string]DemandTally `json:"bought_up,omitempty"`
	RefusedClosed DemandTally            `json:"refused_closed"`
	RefusedFull   DemandTally            `json:"refused_full"`
	Quoted        map[string]DemandTally `json:"quoted,omitempty"`
	Sold          map[string]DemandTally `json:"sold,omitempty"`
}

// NotTaken is what was offered and not booked.
func (c DemandCounts) NotTaken() DemandTally {
	return DemandTally{max(0, c.Offered.Requests-c.Booked.Requests), max(0, c.Offered.NodeSeconds-c.Booked.NodeSeconds)}
}

// Add is c with d's counts added.
func (c DemandCounts) Add(d DemandCounts) DemandCounts {
	out := DemandCounts{Offered: c.Offered.add(d.Offered), Booked: c.Booked.add(d.Booked),
		RefusedClosed: c.RefusedClosed.add(d.RefusedClosed), RefusedFull: c.RefusedFull.add(d.RefusedFull)}
	out.BoughtUp = addTallies(c.BoughtUp, d.BoughtUp)
	out.Quoted = addTallies(c.Quoted, d.Quoted)
	out.Sold = addTallies(c.Sold, d.Sold)
	return out
}

// addOwned adds d's counts to c in place, into c's own maps (made here
// when c has none): c's maps are its owner's alone, d's are only read.
func (c *DemandCounts) addOwned(d DemandCounts) {
	c.Offered, c.Booked = c.Offered.add(d.Offered), c.Booked.add(d.Booked)
	c.RefusedClosed, c.RefusedFull = c.RefusedClosed.add(d.RefusedClosed), c.RefusedFull.add(d.RefusedFull)
	c.BoughtUp = addTalliesOwned(c.BoughtUp, d.BoughtUp)
	c.Quoted = addTalliesOwned(c.Quoted, d.Quoted)
	c.Sold = addTalliesOwned(c.Sold, d.Sold)
}

// addTalliesOwned is a with b's tallies added by key, in place (a made
// when nil and b has any).
func addTalliesOwned(a, b map[string]DemandTally) map[string]DemandTally {
	for k, v := range b {
		if a == nil {
			a = make(map[string]DemandTally, len(b))
		}
		a[k] = a[k].add(v)
	}
	return a
}

// addTallies is a new map of a's and b's tallies added by key; nil when
// both are empty.
func addTallies(a, b map[string]DemandTally) map[string]DemandTally {
	var out map[string]DemandTally
	for _, m := range []map[string]DemandTally{a, b} {
		for k, v := range m {
			if out == nil {
				out = map[string]DemandTally{}
			}
			out[k] = out[k].add(v)
		}
	}
	return out
}

// Fields flattens the counts into named counters ("booked.requests",
// "bought_up.gold.node_seconds"), the form a store that increments counters
// one by one (a Redis hash) keeps; zero counters are left out.
func (c DemandCounts) Fields() map[string]int64 {
	out := map[string]int64{}
	put := func(name string, t DemandTally) {
		if t.Requests != 0 {
			out[name+".requests"] = t.Requests
		}
		if t.NodeSeconds != 0 {
			out[name+".node_seconds"] = t.NodeSeconds
		}
	}
	put("offered", c.Offered)
	put("booked", c.Booked)
	put("refused_closed", c.RefusedClosed)
	put("refused_full", c.RefusedFull)
	for class, t := range c.BoughtUp {
		put("bought_up."+class, t)
	}
	for tau, t := range c.Quoted {
		put("quoted."+tau, t)
	}
	for tau, t := range c.Sold {
		put("sold."+tau, t)
	}
	return out
}

// Negative names a counter of c below zero (as Fields names it), the first
// in Fields' order with the tallies by key in ascending order, and its
// value; ok is false when none is. It makes no map: every demand write is
// checked.
func (c DemandCounts) Negative() (name string, n int64, ok bool) {
	check := func(prefix string, t DemandTally) bool {
		switch {
		case t.Requests < 0:
			name, n = prefix+".requests", t.Requests
		case t.NodeSeconds < 0:
			name, n = prefix+".node_seconds", t.NodeSeconds
		default:
			return false
		}
		return true
	}
	if check("offered", c.Offered) || check("booked", c.Booked) || check("refused_closed", c.RefusedClosed) ||
		check("refused_full", c.RefusedFull) {
		return name, n, true
	}
	for _, by := range []struct {
		prefix  string
		tallies map[string]DemandTally
	}{{"bought_up.", c.BoughtUp}, {"quoted.", c.Quoted}, {"sold.", c.Sold}} {
		if !anyNegative(by.tallies) {
			continue // sorted only to name one
		}
		for _, k := range slices.Sorted(maps.Keys(by.tallies)) {
			if check(by.prefix+k, by.tallies[k]) {
				return name, n, true
			}
		}
	}
	return "", 0, false
}

func anyNegative(tallies map[string]DemandTally) bool {
	for _, t := range tallies {
		if t.Requests < 0 || t.NodeSeconds < 0 {
			return true
		}
	}
	return false
}

// DemandCountsOf reads counters flattened by Fields back; an unknown name is
// an error.
func DemandCountsOf(fields map[string]string) (DemandCounts, error) {
	var c DemandCounts
	for name, v := range fields {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return DemandCounts{}, fmt.Errorf("demand counter %s: %w", name, err)
		}
		i := strings.LastIndexByte(name, '.')
		if i < 0 {
			return DemandCounts{}, fmt.Errorf("demand counter %q has no unit", name)
		}
		var t DemandTally
		outcome, class := name[:i], ""
		switch {
		case outcome == "offered", outcome == "booked", outcome == "refused_closed", outcome == "refused_full":
		case strings.HasPrefix(outcome, "bought_up."), strings.HasPrefix(outcome, "quoted."), strings.HasPrefix(outcome, "sold."):
			j := strings.IndexByte(outcome, '.')
			outcome, class = outcome[:j], outcome[j+1:]
		default:
			return DemandCounts{}, fmt.Errorf("unknown demand counter %q", name)
		}
		switch name[i+1:] {
		case "requests":
			t.Requests = n
		case "node_seconds":
			t.NodeSeconds = n
		default:
			return DemandCounts{}, fmt.Errorf("unknown demand counter %q", name)
		}
		var d DemandCounts
		switch outcome {
		case "offered":
			d.Offered = t
		case "booked":
			d.Booked = t
		case "refused_closed":
			d.RefusedClosed = t
		case "refused_full":
			d.RefusedFull = t
		case "quoted":
			d.Quoted = map[string]DemandTally{class: t}
		case "sold":
			d.Sold = map[string]DemandTally{class: t}
		default:
			d.BoughtUp = map[string]DemandTally{class: t}
		}
		c = c.Add(d)
	}
	return c, nil
}

// DemandRecord is what the requests for fare class Class of resource
// Resource that came on Day (a UTC midnight) saw of one instance of rate
// period Period (starting at Instance): one record per class, instance and
// day, however many queries, so that the records of a resource are bounded
// by the instances kept, not by the traffic.
type DemandRecord struct {
	Resource string       `json:"resource"`
	Class    string       `json:"class"`
	Period   string       `json:"period"`
	Instance time.Time    `json:"instance"`
	Day      time.Time    `json:"day"`
	Counts   DemandCounts `json:"counts"`
}

// DemandKey is the record's identity: records of the same key add up.
// It is written digit by digit, as time.Format would (RFC 3339 to the
// second, then the date): every flush and offer keys its records, and
// Format was a twentieth of a simulated run. Years Format writes otherwise
// than as four digits go through Format.
func (r DemandRecord) DemandKey() string {
	in, day := r.Instance.UTC(), r.Day.UTC()
	if !fourDigitYear(in) || !fourDigitYear(day) {
		return in.Format(time.RFC3339) + "|" + r.Class + "|" + day.Format(time.DateOnly)
	}
	var buf [64]byte
	b := appendDate(buf[:0], in)
	h, m, sec := in.Clock()
	b = append(b, 'T')
	b = appendTwo(append(appendTwo(append(appendTwo(b, h), ':'), m), ':'), sec)
	b = append(b, 'Z', '|')
	b = append(b, r.Class...)
	b = append(b, '|')
	return string(appendDate(b, day))
}

func fourDigitYear(t time.Time) bool { return t.Year() >= 0 && t.Year() <= 9999 }

// appendDate appends t's date as YYYY-MM-DD (a year of four digits).
func appendDate(b []byte, t time.Time) []byte {
	y, mo, d := t.Date()
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
	return appendTwo(append(appendTwo(append(b, '-'), int(mo)), '-'), d)
}

// appendTwo appends n (0-99) in two digits.
func appendTwo(b []byte, n int) []byte {
	return append(b, byte('0'+n/10), byte('0'+n%10))
}

// SortDemand puts records in the order of instance, class, then day.
func SortDemand(rs []DemandRecord) []DemandRecord {
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if !a.Instance.Equal(b.Instance) {
			return a.Instance.Before(b.Instance)
		}
		if a.Class != b.Class {
			return a.Class < b.Class
		}
		return a.Day.Before(b.Day)
	})
	return rs
}

// DemandWrite is one flush of demand counts to a resource's records:
// Records are added to the stored records of the same key, and the records
// of instances that started before Forget are dropped (zero: none). ID
// names the flush, so that a store reached over a network adds it once
// when it is sent again after a timeout.
type DemandWrite struct {
	Resource string
	ID       string
	Records  []DemandRecord
	Forget   time.Time
}

// DemandBook is demand records kept in memory, by resource and key: the
// in-process ports' store of them (the embedded one writes each flush to
// its file too). The zero book is empty and ready.
type DemandBook struct {
	// recs are the records by resource and key, each added to in place:
	// a record and its maps are the book's own (copied from a write's,
	// which other books count too).
	recs map[string]map[bookKey]*DemandRecord
	// classes are, per resource, the class names its keys index: the few
	// a resource sells, kept as long as the book.
	classes map[string][]string
	// oldest is, per resource, at or before its earliest instance kept:
	// a write whose Forget is not after it forgets nothing, so the book
	// is walked for what to forget only when something may be (every
	// flush walked it whole, a cost that grew with the days kept).
	oldest map[string]time.Time
}

// bookKey is a record's DemandKey as the book keys it: the same records
// add up, without writing or hashing a string per record of every flush
// (two books count each flush in the simulator).
type bookKey struct {
	instance int64 // unix seconds
	day      int64 // the UTC date, as days since 1970-01-01
	class    int   // the index of the class's name in the resource's classes
}

// bookKeyOf is r's key, its class's name added to classes when new.
func bookKeyOf(r DemandRecord, classes *[]string) bookKey {
	day := r.Day.Unix() / 86400
	if r.Day.Unix()%86400 < 0 {
		day-- // days before 1970 round down too
	}
	class := slices.Index(*classes, r.Class)
	if class < 0 {
		*classes = append(*classes, r.Class)
		class = len(*classes) - 1
	}
	return bookKey{instance: r.Instance.Unix(), day: day, class: class}
}

// Count adds w's records and forgets those before w.Forget (checked).
func (b *DemandBook) Count(w DemandWrite) {
	if b.recs == nil {
		b.recs, b.classes, b.oldest = map[string]map[bookKey]*DemandRecord{}, map[string][]string{}, map[string]time.Time{}
	}
	classes := b.classes[w.Resource]
	recs := b.recs[w.Resource]
	if recs == nil {
		recs = map[bookKey]*DemandRecord{}
		b.recs[w.Resource] = recs
	}
	oldest, known := b.oldest[w.Resource]
	for _, r := range w.Records {
		k := bookKeyOf(r, &classes)
		old := recs[k]
		if old == nil {
			old = &DemandRecord{Resource: r.Resource, Class: r.Class, Period: r.Period, Instance: r.Instance.UTC(), Day: r.Day.UTC()}
			recs[k] = old
			if !known || old.Instance.Before(oldest) {
				oldest, known = old.Instance, true
			}
		}
		old.Counts.addOwned(r.Counts)
	}
	b.classes[w.Resource] = classes
	if !w.Forget.IsZero() && known && oldest.Before(w.Forget) {
		known = false
		for k, r := range recs {
			switch {
			case r.Instance.Before(w.Forget):
				delete(recs, k)
			case !known || r.Instance.Before(oldest):
				oldest, known = r.Instance, true
			}
		}
	}
	if known {
		b.oldest[w.Resource] = oldest
	} else {
		delete(b.oldest, w.Resource)
	}
}

// Since are resource's records of instances from since on, sorted.
func (b *DemandBook) Since(resource string, since time.Time) []DemandRecord {
	out := []DemandRecord{}
	for _, r := range b.recs[resource] {
		if !r.Instance.Before(since) {
			c := *r
			c.Counts = c.Counts.Add(DemandCounts{}) // a copy of the maps
			out = append(out, c)
		}
	}
	return SortDemand(out)
}

// All are every resource's records, sorted by resource, then as SortDemand.
func (b *DemandBook) All() []DemandRecord {
	var out []DemandRecord
	for res := range b.recs {
		out = append(out, b.Since(res, time.Time{})...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Resource < out[j].Resource })
	return out
}
