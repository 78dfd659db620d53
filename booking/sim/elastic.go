package sim

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"text/tabwriter"

	"slotfare"
	"slotfare/calendar"
	"slotfare/forecast/swf"
)

// ElasticJob is one reservation request of the elastic experiment: a trace
// job that asks to start at Start (its submit plus wait in the trace, seed
// 004 Sec. 6.4.1: "t_s as stated in the SDSC trace") for Duration seconds
// on Nodes nodes.
type ElasticJob struct {
	Start, Duration int64
	Nodes           int
}

// ElasticJobs reads a trace's jobs as elastic requests over its first days
// (Sec. 6.4.1: "we only simulate the first 2-weeks period of the trace"),
// times from the first job's submit. Jobs with no run time or processors
// are skipped; the rest are capped at capacity nodes.
func ElasticJobs(log *swf.Log, capacity, days int) []ElasticJob {
	jobs := slices.Clone(log.Jobs)
	slices.SortStableFunc(jobs, func(a, b swf.Job) int { return cmp.Compare(a.Submit, b.Submit) })
	var out []ElasticJob
	if len(jobs) == 0 {
		return nil
	}
	origin := jobs[0].Submit
	for _, j := range jobs {
		n := j.Nodes()
		if j.Run <= 0 || n <= 0 || j.Submit < origin {
			continue
		}
		start := j.Submit - origin + max(j.Wait, 0)
		if start >= int64(days)*86400 {
			continue
		}
		out = append(out, ElasticJob{Start: start, Duration: j.Run, Nodes: int(min(n, int64(capacity)))})
	}
	slices.SortStableFunc(out, func(a, b ElasticJob) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

// ElasticStrategies are the reservation systems of seed 004 Sec. 6.4: the
// rigid model (start, duration and nodes are hard constraints), first fit
// (the first placement in the window that meets duration and nodes; no
// alternatives) and OSP, the elastic model (Alg. 8's offers, the user picking
// by Alg. 9 when no offer meets the request).
var ElasticStrategies = []string{"rigid", "first-fit", "osp"}

// ElasticRow is one run of the elastic experiment.
type ElasticRow struct {
	Strategy     string  `json:"strategy"`
	BookAheadH   float64 `json:"book_ahead_hours"`
	SearchLimitH float64 `json:"search_limit_hours"`
	Requests     int     `json:"requests"`
	// Solutions met the request; Alternatives are offers the user took by
	// Alg. 9 (shorter or narrower); Rejected found nothing acceptable.
	Solutions    int     `json:"solutions"`
	Alternatives int     `json:"alternatives"`
	Rejected     int     `json:"rejected"`
	Utilisation  float64 `json:"utilisation"`
}

// ElasticCapacity is the machine of Sec. 6.4: "64 homogeneous compute
// nodes" (the SDSC SP2 trace's own 128 processors leave it two-thirds idle
// over two weeks, with next to no rejections to compare).
const ElasticCapacity = 64

// ElasticDelta is GarQ's slot in Sec. 6.4: starts are rounded up to it and
// durations are whole slots of at least one (5 minutes to 28 days).
const ElasticDelta = 300

// Elastic runs one strategy over the jobs on capacity nodes: each request
// arrives bookAhead seconds before its start (b_t, Fig. 6.3) and may end up
// to searchLimit seconds late (sl_t, appended at the end of the job). The
// utilisation is the node-seconds reserved within [0, days) over capacity x
// days; reservations over before an arrival are dropped from the calendar,
// which changes no answer.
func Elastic(jobs []ElasticJob, capacity, days int, strategy string, bookAhead, searchLimit int64) (ElasticRow, error) {
	const op slotfare.Op = "sim.Elastic"
	row := ElasticRow{Strategy: strategy, BookAheadH: float64(bookAhead) / 3600, SearchLimitH: float64(searchLimit) / 3600}
	c, err := calendar.NewTree(capacity)
	if err != nil {
		return row, slotfare.E(op, err)
	}
	type live struct {
		end int64
		id  string
	}
	var ends []live // by end, a small sorted slice
	horizon := int64(days) * 86400
	used := 0.0
	for i, j := range jobs {
		start := ceilTo(j.Start, ElasticDelta)
		dur := min(max(ceilTo(j.Duration, ElasticDelta), ElasticDelta), 28*86400)
		now := start - bookAhead
		k := 0
		for k < len(ends) && ends[k].end <= now {
			if _, err := c.Delete(ends[k].id); err != nil {
				return row, slotfare.E(op, err)
			}
			k++
		}
		ends = ends[k:]
		row.Requests++
		var got calendar.Offer
		ok := false
		switch strategy {
		case "rigid":
			fits, err := c.Fits(start, start+dur, j.Nodes)
			if err != nil {
				return row, slotfare.E(op, err)
			}
			got, ok = calendar.Offer{Start: start, End: start + dur, Nodes: j.Nodes, Solution: true}, fits
		case "first-fit", "osp":
			st := calendar.FirstFit
			if strategy == "osp" {
				st = calendar.OSP
			}
			q := calendar.Query{EarliestStart: start, LatestEnd: start + dur + searchLimit, Duration: dur, Nodes: j.Nodes}
			offs, err := calendar.Offers(c, q, st, 16)
			if err != nil {
				return row, slotfare.E(op, err)
			}
			if strategy == "first-fit" {
				if len(offs) > 0 && offs[0].Solution {
					got, ok = offs[0], true
				}
			} else {
				got, ok = pickOffer(offs, dur, j.Nodes, ElasticDelta)
			}
		default:
			return row, slotfare.Errorf(op, "strategy", "unknown strategy %q", strategy)
		}
		if !ok {
			row.Rejected++
			continue
		}
		if got.Solution {
			row.Solutions++
		} else {
			row.Alternatives++
		}
		id := strconv.Itoa(i)
		if err := c.Add(calendar.Reservation{ID: id, Start: got.Start, End: got.End, Nodes: got.Nodes}); err != nil {
			return row, slotfare.E(op, err)
		}
		at, _ := slices.BinarySearchFunc(ends, got.End, func(l live, e int64) int { return cmp.Compare(l.end, e) })
		ends = slices.Insert(ends, at, live{got.End, id})
		if s, e := max(got.Start, 0), min(got.End, horizon); e > s {
			used += float64(e-s) * float64(got.Nodes)
		}
	}
	row.Utilisation = math.Round(used/(float64(capacity)*float64(horizon))*1e4) / 1e4
	return row, nil
}

// pickOffer is Alg. 9 of seed 004 (Sec. 6.4.2) on calendar offers: the
// longest offer of at least max(dur/2, delta) and max(nodes/2, 1) nodes.
func pickOffer(offs []calendar.Offer, dur int64, nodes int, delta int64) (calendar.Offer, bool) {
	minDur, minCN := max(dur/2, delta), max(nodes/2, 1)
	best, found := calendar.Offer{}, false
	for _, o := range offs {
		if o.End-o.Start < minDur || o.Nodes < minCN {
			continue
		}
		if !found || o.End-o.Start > best.End-best.Start {
			best, found = o, true
		}
	}
	return best, found
}

// ElasticBookAheads and ElasticSearchLimits are Sec. 6.4.1's b_t and sl_t,
// in hours. Of b_t only the middle value is run: every request arrives b_t
// before its start, so with reservations alone (no local queue beside
// them, unlike the thesis's 30% reserved jobs) a constant b_t shifts every
// arrival alike and changes no answer; 1, 5 and 10 h gave the same rows.
var (
	ElasticBookAheads   = []int64{5}
	ElasticSearchLimits = []int64{0, 1, 2, 4, 6, 8, 10, 12}
)

// ElasticSweep runs every strategy at every b_t and sl_t (Fig. 6.4 and 6.6).
func ElasticSweep(jobs []ElasticJob, capacity, days int) ([]ElasticRow, error) {
	var out []ElasticRow
	for _, bt := range ElasticBookAheads {
		for _, sl := range ElasticSearchLimits {
			for _, s := range ElasticStrategies {
				r, err := Elastic(jobs, capacity, days, s, bt*3600, sl*3600)
				if err != nil {
					return nil, err
				}
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// WriteElasticTable prints utilisation and rejections per b_t and sl_t,
// one column pair per strategy.
func WriteElasticTable(w io.Writer, rows []ElasticRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "b_t h\tsl_t h\t")
	for _, s := range ElasticStrategies {
		fmt.Fprintf(tw, "%s util %%\t%s rejected\t", s, s)
	}
	fmt.Fprintln(tw, "osp alternatives\t")
	for i := 0; i+len(ElasticStrategies) <= len(rows); i += len(ElasticStrategies) {
		fmt.Fprintf(tw, "%g\t%g\t", rows[i].BookAheadH, rows[i].SearchLimitH)
		alt := 0
		for _, r := range rows[i : i+len(ElasticStrategies)] {
			fmt.Fprintf(tw, "%.2f\t%d\t", 100*r.Utilisation, r.Rejected)
			if r.Strategy == "osp" {
				alt = r.Alternatives
			}
		}
		fmt.Fprintf(tw, "%d\t\n", alt)
	}
	return tw.Flush()
}

// WriteElasticCSV writes one row per run.
func WriteElasticCSV(w io.Writer, rows []ElasticRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"strategy", "book_ahead_hours", "search_limit_hours", "requests", "solutions", "alternatives", "rejected", "utilisation"})
	for _, r := range rows {
		cw.Write([]string{r.Strategy, strconv.FormatFloat(r.BookAheadH, 'g', -1, 64), strconv.FormatFloat(r.SearchLimitH, 'g', -1, 64),
			strconv.Itoa(r.Requests), strconv.Itoa(r.Solutions), strconv.Itoa(r.Alternatives), strconv.Itoa(r.Rejected),
			strconv.FormatFloat(r.Utilisation, 'f', 4, 64)})
	}
	cw.Flush()
	return cw.Error()
}

// ElasticCharts draws utilisation (elastic_utilisation.png, Fig. 6.4) and
// rejections (elastic_rejections.png, Fig. 6.6) against sl_t, one line per
// strategy and b_t.
func ElasticCharts(rows []ElasticRow) (Charts, error) {
	out := Charts{}
	for _, m := range []struct {
		file, title, y string
		v              func(ElasticRow) float64
	}{
		{"elastic_utilisation.png", "Utilisation against the search limit (seed 004 Fig. 6.4)", "utilisation %", func(r ElasticRow) float64 { return 100 * r.Utilisation }},
		{"elastic_rejections.png", "Rejections against the search limit (seed 004 Fig. 6.6)", "rejected requests", func(r ElasticRow) float64 { return float64(r.Rejected) }},
	} {
		var lines []Line
		for bi, bt := range ElasticBookAheads {
			for _, s := range ElasticStrategies {
				l := Line{Name: fmt.Sprintf("%s, b_t %d h", s, bt), Dashed: bi > 0}
				for _, r := range rows {
					if r.Strategy == s && r.BookAheadH == float64(bt) {
						l.X, l.Y = append(l.X, r.SearchLimitH), append(l.Y, m.v(r))
					}
				}
				lines = append(lines, l)
			}
		}
		img, err := LineChart(m.title, "search limit sl_t (hours)", m.y, lines)
		if err != nil {
			return nil, err
		}
		out[m.file] = img
	}
	return out, nil
}
