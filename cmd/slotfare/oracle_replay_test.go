package main

// This file is an independent oracle for `slotfare bench calendar`: a
// brute-force replay of the rule in ../shared/API.md ("bench calendar"),
// written without the calendar package and without forecast/swf, so that
// the counts of every calendar implementation can be checked against
// something that shares no code with them. It favours being obviously
// correct over being fast.

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// oracleHorizon is how much later than the asked start a suggestion may
// start: 12 hours (API.md, bench calendar, suggest mode).
const oracleHorizon = 12 * 3600

// oracleRecord is the part of one SWF record the replay rule reads, taken
// by position (1-based field numbers as in the SWF definition).
type oracleRecord struct {
	job      int64 // field 1
	submit   int64 // field 2
	wait     int64 // field 3
	run      int64 // field 4
	procs    int64 // field 5, allocated processors
	reqProcs int64 // field 8, requested processors
	line     int
}

// oracleTrace is a parsed SWF file: the two header sizes (0 when absent)
// and the records in file order.
type oracleTrace struct {
	maxProcs, maxNodes int64
	records            []oracleRecord
}

// capacity is the default capacity of the replay: the header's MaxProcs,
// or MaxNodes when the header has no MaxProcs. API.md names only MaxProcs;
// the fallback is what forecast/swf's Header.MaxProcs does (it documents
// "MaxProcs, or MaxNodes when MaxProcs is absent"), and the shared trace
// lublin-256-synthetic.swf has only "; MaxNodes: 256".
func (t oracleTrace) capacity() int64 {
	if t.maxProcs > 0 {
		return t.maxProcs
	}
	return t.maxNodes
}

// readOracleTrace parses an SWF file by field position. It is strict: the
// fields the rule reads must be integers, and a wait below -1 (which the
// rule does not define) is an error rather than a guess.
func readOracleTrace(path string) (oracleTrace, error) {
	f, err := os.Open(path)
	if err != nil {
		return oracleTrace{}, err
	}
	defer f.Close()
	var tr oracleTrace
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if strings.HasPrefix(text, ";") {
			key, value, ok := strings.Cut(text[1:], ":")
			if !ok {
				continue
			}
			v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			switch strings.TrimSpace(key) {
			case "MaxProcs":
				if err == nil {
					tr.maxProcs = v
				}
			case "MaxNodes":
				if err == nil {
					tr.maxNodes = v
				}
			}
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 18 {
			return oracleTrace{}, fmt.Errorf("%s:%d: %d fields, want 18", path, n, len(fields))
		}
		field := func(i int) (int64, error) { // i is the 1-based SWF field number
			v, err := strconv.ParseInt(fields[i-1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s:%d: field %d %q is not an integer", path, n, i, fields[i-1])
			}
			return v, nil
		}
		r := oracleRecord{line: n}
		for _, p := range []struct {
			i   int
			dst *int64
		}{{1, &r.job}, {2, &r.submit}, {3, &r.wait}, {4, &r.run}, {5, &r.procs}, {8, &r.reqProcs}} {
			if *p.dst, err = field(p.i); err != nil {
				return oracleTrace{}, err
			}
		}
		if r.wait < -1 {
			return oracleTrace{}, fmt.Errorf("%s:%d: wait %d: the replay rule defines only -1", path, n, r.wait)
		}
		tr.records = append(tr.records, r)
	}
	if err := sc.Err(); err != nil {
		return oracleTrace{}, err
	}
	return tr, nil
}

// oracleCounts is what `bench calendar` reports per implementation, minus
// the timing.
type oracleCounts struct {
	Requests  int `json:"requests"`
	Accepted  int `json:"accepted"`
	Suggested int `json:"suggested"`
	Rejected  int `json:"rejected"`
}

// oracleReservation is a booked interval [start, end) of nodes nodes.
type oracleReservation struct{ start, end, nodes int64 }

// oracleReplay replays tr as reservation requests on capacity nodes, by the
// rule of API.md, in mode "rigid" or "suggest"; horizon is the latest a
// suggestion may start after the asked start (oracleHorizon for the real
// rule; tests pass smaller ones).
//
// Reading of the rule, clause by clause:
//   - records are sorted by (submit, job number); file order is not used;
//   - nodes = field 5, or field 8 when field 5 is -1; a record whose run time
//     or nodes is <= 0 is skipped and is not a request;
//   - nodes above capacity are capped at capacity;
//   - the request asks for [submit+wait, submit+wait+run), wait -1 as 0;
//   - "accepted" counts requests booked as asked, "suggested" those booked at
//     a later start, "rejected" the rest: the three add up to requests.
//
// Deleting the reservations that ended by the current submit time cannot
// change a count: every request starts at or after its submit time (wait >=
// 0 once -1 is read as 0), and records come in submit order, so a deleted
// reservation [a, b) with b <= submit never overlaps any later request or
// candidate. The oracle deletes them anyway (b <= submit) to keep the live
// list short.
func oracleReplay(tr oracleTrace, capacity int64, mode string, horizon int64) (oracleCounts, error) {
	if capacity <= 0 {
		return oracleCounts{}, fmt.Errorf("capacity %d: want > 0", capacity)
	}
	if mode != "rigid" && mode != "suggest" {
		return oracleCounts{}, fmt.Errorf("mode %q: want rigid or suggest", mode)
	}
	recs := append([]oracleRecord(nil), tr.records...)
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].submit != recs[j].submit {
			return recs[i].submit < recs[j].submit
		}
		return recs[i].job < recs[j].job
	})
	var c oracleCounts
	var live []oracleReservation
	for _, r := range recs {
		nodes := r.procs
		if nodes == -1 {
			nodes = r.reqProcs
		}
		if r.run <= 0 || nodes <= 0 {
			continue
		}
		nodes = min(nodes, capacity)
		wait := r.wait
		if wait == -1 {
			wait = 0
		}
		start := r.submit + wait
		c.Requests++

		kept := live[:0]
		for _, l := range live {
			if l.end > r.submit {
				kept = append(kept, l)
			}
		}
		live = kept

		if oracleFits(live, capacity, start, start+r.run, nodes) {
			live = append(live, oracleReservation{start, start + r.run, nodes})
			c.Accepted++
			continue
		}
		if mode == "suggest" {
			if s, ok := oracleSuggest(live, capacity, start, r.run, nodes, horizon); ok {
				live = append(live, oracleReservation{s, s + r.run, nodes})
				c.Suggested++
				continue
			}
		}
		c.Rejected++
	}
	return c, nil
}

// oracleUsage is the number of nodes booked at instant x: the sum over the
// reservations whose half-open interval covers x.
func oracleUsage(live []oracleReservation, x int64) int64 {
	var u int64
	for _, l := range live {
		if l.start <= x && x < l.end {
			u += l.nodes
		}
	}
	return u
}

// oracleFits reports whether nodes more nodes fit on [start, end).
//
// Usage is a step function of time that rises only at reservation starts
// and falls only at reservation ends (intervals are half-open, so at an
// instant x a reservation [a, b) counts iff a <= x < b). Between two
// consecutive starts it can only fall, so its maximum over [start, end) is
// reached at start or at a reservation start inside (start, end): testing
// those breakpoints tests every instant.
func oracleFits(live []oracleReservation, capacity, start, end, nodes int64) bool {
	if oracleUsage(live, start)+nodes > capacity {
		return false
	}
	for _, l := range live {
		if start < l.start && l.start < end && oracleUsage(live, l.start)+nodes > capacity {
			return false
		}
	}
	return true
}

// oracleSuggest returns the earliest start s with asked < s <= asked+horizon
// at which the request fits, trying as candidates only the ends of live
// reservations in that range, earliest first. The caller has found that the
// asked start itself does not fit.
//
// Why the candidates are complete: let t > asked be any start that fits and
// let t' be the latest of asked and the reservation ends in (asked, t].
// Then t' <= t, and t' fits too. On [t, t'+run) it does, since that lies
// inside [t, t+run). On [t', t): a reservation [a, b) that covers an instant
// x in [t', t) has b > x >= t', and b is not in (t', t] by the choice of t',
// so b > t; with a <= x < t it also covers t. So usage(x) <= usage(t), and
// usage(t) + nodes <= capacity because t fits. Hence the earliest start
// that fits, if any, is asked or a reservation end; asked is ruled out, so
// it is the first end in (asked, asked+horizon] that fits. (Reservations
// deleted before this request end at or before its submit time, hence not
// after asked, so ends of live reservations are all that can matter.)
func oracleSuggest(live []oracleReservation, capacity, asked, run, nodes, horizon int64) (int64, bool) {
	var cands []int64
	for _, l := range live {
		if asked < l.end && l.end <= asked+horizon {
			cands = append(cands, l.end)
		}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i] < cands[j] })
	for _, s := range cands {
		if oracleFits(live, capacity, s, s+run, nodes) {
			return s, true
		}
	}
	return 0, false
}
