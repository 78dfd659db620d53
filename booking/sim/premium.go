package sim

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/forecast/swf"
	"slotfare/pricing"
)

// The delay-price experiment (`slotfare simulate --experiment delay-price`,
// alias premium): seed 001 (Singh, Kesselman & Deelman) Sec. 4. A
// tenth of a trace's jobs ask for an advance reservation instead of joining
// the best-effort queue; each gets the list of candidate start times with
// their delay-based premiums (Sec. 3, pricing.DelayPricer.Quotes) and picks
// one by its preference alpha (pricing.SelectQuote). Fig. 3 plots the mean
// premium and the reservations' wait against alpha, Fig. 4 the same at
// higher loads (20% and 40% of the jobs duplicated), Fig. 6 the share of
// reservations whose premium per node-hour rho stays at or below the high
// priority queue's 1 when they take the earliest start (alpha = 0).

// PremiumOptions set one premium sweep.
type PremiumOptions struct {
	Seed uint64
	// Days is the span of the trace replayed from its first job (30 in the
	// paper).
	Days int
	// Loads are the percentages of jobs duplicated to raise the load (the
	// paper: 0, 20 and 40).
	Loads []int
	// Alphas are the users' preferences swept (the paper: 0 to 1 by 0.1).
	Alphas []float64
	// ReservationShare is the share of jobs that reserve (0.1 in the paper).
	ReservationShare float64
	// MaxReservations caps the reservations priced per load, taken evenly
	// over the sampled ones (0: all).
	MaxReservations int
	// Policy is the best-effort scheduler the premium plans with (the
	// paper's default: aggressive backfilling, EASY).
	Policy pricing.BackfillPolicy
}

// DefaultPremium is the sweep `slotfare simulate --experiment delay-price` runs
// on the SDSC SP2 trace: the paper's 30 days, loads, alphas and share.
var DefaultPremium = PremiumOptions{Days: 30, Loads: []int{0, 20, 40},
	Alphas:           []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1},
	ReservationShare: 0.1, Policy: pricing.BackfillEASY}

// PremiumRow is one load and alpha: what the reservations paid and waited.
type PremiumRow struct {
	LoadPct int     `json:"load_pct"`
	Alpha   float64 `json:"alpha"`
	// Utilisation is the offered load of the whole workload (best effort
	// and reservations): node-seconds of actual run time over the
	// machine's node-seconds in the span.
	Utilisation  float64 `json:"utilisation"`
	Reservations int     `json:"reservations"`
	// MeanPremiumSU is the mean premium in service units (node-hours,
	// Sec. 4), four places.
	MeanPremiumSU decimal.Decimal `json:"mean_premium_su"`
	// MeanRho is the mean premium per node-hour reserved (Sec. 4, Fig. 6).
	MeanRho decimal.Decimal `json:"mean_rho"`
	// MeanWaitHours is the mean of start minus query time.
	MeanWaitHours float64 `json:"mean_wait_hours"`
	// FreeShare is the share of reservations paying no premium,
	// RhoAtMostOneShare the share paying at most the high priority queue's
	// unit rate (rho <= 1).
	FreeShare         float64 `json:"free_share"`
	RhoAtMostOneShare float64 `json:"rho_at_most_one_share"`
}

// premiumJob is one usable trace record.
type premiumJob struct {
	submit, run, estimate, nodes int64
	reserve                      bool
}

// premiumWorkload is the trace's first days with load percent of the jobs
// duplicated at random (Sec. 4: "duplicating 20% and 40% of the tasks,
// selected randomly") and share of all jobs marked as reservations, so the
// share stays the same at every load. Times are from the first job's
// submit; widths are capped at the machine.
func premiumWorkload(log *swf.Log, o PremiumOptions, load int) ([]premiumJob, int64) {
	capacity := log.Header.MaxProcs
	var jobs []premiumJob
	var origin int64 = -1
	for _, j := range log.Jobs {
		n := j.Nodes()
		if j.Run <= 0 || n <= 0 || j.Submit < 0 {
			continue
		}
		if origin < 0 || j.Submit < origin {
			origin = j.Submit
		}
	}
	for _, j := range log.Jobs {
		n := j.Nodes()
		if j.Run <= 0 || n <= 0 || j.Submit < 0 || j.Submit-origin >= int64(o.Days)*86400 {
			continue
		}
		est := max(j.ReqTime, j.Run) // a scheduler never plans a job shorter than it ran
		jobs = append(jobs, premiumJob{submit: j.Submit - origin, run: j.Run, estimate: est, nodes: min(n, capacity)})
	}
	slices.SortStableFunc(jobs, func(a, b premiumJob) int { return cmp.Compare(a.submit, b.submit) })
	r := rand.New(rand.NewPCG(o.Seed, uint64(load)))
	if load > 0 {
		base := len(jobs)
		for _, i := range r.Perm(base)[:base*load/100] {
			jobs = append(jobs, jobs[i])
		}
		slices.SortStableFunc(jobs, func(a, b premiumJob) int { return cmp.Compare(a.submit, b.submit) })
	}
	for i := range jobs {
		jobs[i].reserve = r.Float64() < o.ReservationShare
	}
	return jobs, capacity
}

// premiumQuery is one reservation's quote list, made at its submit time.
type premiumQuery struct {
	at, nodes, duration int64
	quotes              []pricing.Quote
}

// premiumQueries replays the best-effort jobs with a plain FCFS scheduler
// on their actual run times (as the pricing package's SP2 snapshots are
// cut) and, at the submit time of each reservation, takes the machine's
// queue snapshot (running jobs until their estimated end, queued jobs with
// their estimates) and prices the reservation's whole quote list against
// it with the policy of o. Granted reservations do not stay on the
// machine: each query sees the best-effort load alone, so the premium
// measures the load and not the reservations before it.
func premiumQueries(jobs []premiumJob, capacity int64, o PremiumOptions) ([]premiumQuery, error) {
	var queries []premiumQuery
	var want []int
	for i, j := range jobs {
		if j.reserve {
			want = append(want, i)
		}
	}
	if o.MaxReservations > 0 && len(want) > o.MaxReservations {
		picked := make([]int, o.MaxReservations)
		for k := range picked {
			picked[k] = want[k*len(want)/o.MaxReservations]
		}
		want = picked
	}
	type active struct{ end, estEnd, nodes int64 }
	var running []active
	var queue []premiumJob
	free := capacity
	next := 0
	t := int64(0)
	for _, wi := range want {
		at := jobs[wi].submit
		for {
			kept := running[:0]
			for _, r := range running {
				if r.end <= t {
					free += r.nodes
				} else {
					kept = append(kept, r)
				}
			}
			running = kept
			for next < len(jobs) && jobs[next].submit <= t {
				if !jobs[next].reserve {
					queue = append(queue, jobs[next])
				}
				next++
			}
			for len(queue) > 0 && queue[0].nodes <= free {
				j := queue[0]
				queue = queue[1:]
				free -= j.nodes
				running = append(running, active{end: t + j.run, estEnd: t + j.estimate, nodes: j.nodes})
			}
			nt := int64(-1)
			if next < len(jobs) {
				nt = jobs[next].submit
			}
			for _, r := range running {
				if nt < 0 || r.end < nt {
					nt = r.end
				}
			}
			if nt < 0 || nt > at {
				break
			}
			t = nt
		}
		q := pricing.QueueSnapshot{Nodes: capacity, Now: at, Policy: o.Policy}
		for i, r := range running {
			q.Running = append(q.Running, pricing.QueueRunningJob{ID: "r" + strconv.Itoa(i), Nodes: r.nodes, End: max(r.estEnd, at+1)})
		}
		for i, j := range queue[:min(len(queue), pricing.MaxQueueJobs)] {
			q.Queued = append(q.Queued, pricing.QueueJob{ID: "q" + strconv.Itoa(i), Nodes: j.nodes, Runtime: j.estimate})
		}
		p, err := pricing.NewDelayPricer(q)
		if err != nil {
			return nil, err
		}
		rj := jobs[wi]
		quotes, err := p.Quotes(rj.nodes, rj.run)
		if err != nil {
			return nil, err
		}
		queries = append(queries, premiumQuery{at: at, nodes: rj.nodes, duration: rj.run, quotes: quotes})
	}
	return queries, nil
}

// premiumUtilisation is the offered load of jobs over the span.
func premiumUtilisation(jobs []premiumJob, capacity int64, days int) float64 {
	var work int64
	for _, j := range jobs {
		work += j.run * j.nodes
	}
	return math.Round(float64(work)/float64(capacity*int64(days)*86400)*1e4) / 1e4
}

// PremiumSweep runs every load of o on the trace, at most workers loads at
// once, and returns one row per load and alpha, loads first.
func PremiumSweep(log *swf.Log, o PremiumOptions, workers int) ([]PremiumRow, error) {
	const op slotfare.Op = "sim.PremiumSweep"
	if log.Header.MaxProcs <= 0 {
		return nil, slotfare.Errorf(op, "trace", "the trace names no MaxProcs or MaxNodes: the machine's size is unknown")
	}
	perLoad := make([][]PremiumRow, len(o.Loads))
	err := parallel(len(o.Loads), workers, func(li int) error {
		load := o.Loads[li]
		jobs, capacity := premiumWorkload(log, o, load)
		queries, err := premiumQueries(jobs, capacity, o)
		if err != nil {
			return slotfare.E(op, err)
		}
		util := premiumUtilisation(jobs, capacity, o.Days)
		for _, a := range o.Alphas {
			row, err := premiumRow(queries, a)
			if err != nil {
				return slotfare.E(op, err)
			}
			row.LoadPct, row.Utilisation = load, util
			perLoad[li] = append(perLoad[li], row)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return slices.Concat(perLoad...), nil
}

// premiumRow has every query choose its start by alpha and averages what
// they paid and waited.
func premiumRow(queries []premiumQuery, alpha float64) (PremiumRow, error) {
	row := PremiumRow{Alpha: alpha, Reservations: len(queries), MeanPremiumSU: decimal.Zero, MeanRho: decimal.Zero}
	if len(queries) == 0 {
		return row, nil
	}
	a := decimal.NewFromFloat(alpha)
	hour := decimal.NewFromInt(3600)
	one := decimal.NewFromInt(1)
	sumSU, sumRho := decimal.Zero, decimal.Zero
	var wait int64
	free, cheap := 0, 0
	for _, q := range queries {
		pick, err := pricing.SelectQuote(q.quotes, a)
		if err != nil {
			return row, err
		}
		su := pick.Premium.Div(hour)
		rho := pick.Premium.Div(decimal.NewFromInt(q.nodes * q.duration))
		sumSU, sumRho = sumSU.Add(su), sumRho.Add(rho)
		wait += pick.Start - q.at
		if pick.Premium.IsZero() {
			free++
		}
		if rho.LessThanOrEqual(one) {
			cheap++
		}
	}
	n := decimal.NewFromInt(int64(len(queries)))
	row.MeanPremiumSU = sumSU.Div(n).Round(4)
	row.MeanRho = sumRho.Div(n).Round(4)
	row.MeanWaitHours = math.Round(float64(wait)/float64(len(queries))/3600*100) / 100
	row.FreeShare = math.Round(float64(free)/float64(len(queries))*1e4) / 1e4
	row.RhoAtMostOneShare = math.Round(float64(cheap)/float64(len(queries))*1e4) / 1e4
	return row, nil
}

// WritePremiumTable prints one line per load and alpha.
func WritePremiumTable(w io.Writer, rows []PremiumRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "load +%\tutilisation\talpha\treservations\tmean premium SU\tmean rho\tmean wait h\tfree %\trho<=1 %\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%.3f\t%.1f\t%d\t%s\t%s\t%.2f\t%.1f\t%.1f\t\n", r.LoadPct, r.Utilisation, r.Alpha, r.Reservations,
			r.MeanPremiumSU.StringFixed(2), r.MeanRho.StringFixed(3), r.MeanWaitHours, 100*r.FreeShare, 100*r.RhoAtMostOneShare)
	}
	return tw.Flush()
}

// WritePremiumCSV writes one row per load and alpha.
func WritePremiumCSV(w io.Writer, rows []PremiumRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"load_pct", "utilisation", "alpha", "reservations", "mean_premium_su", "mean_rho", "mean_wait_hours", "free_share", "rho_at_most_one_share"})
	for _, r := range rows {
		cw.Write([]string{strconv.Itoa(r.LoadPct), strconv.FormatFloat(r.Utilisation, 'f', 4, 64), strconv.FormatFloat(r.Alpha, 'f', 2, 64),
			strconv.Itoa(r.Reservations), r.MeanPremiumSU.String(), r.MeanRho.String(), strconv.FormatFloat(r.MeanWaitHours, 'f', 2, 64),
			strconv.FormatFloat(r.FreeShare, 'f', 4, 64), strconv.FormatFloat(r.RhoAtMostOneShare, 'f', 4, 64)})
	}
	cw.Flush()
	return cw.Error()
}

// PremiumCharts draws the mean premium (delay_price_premium.png, Fig. 3-4)
// and the mean wait (delay_price_wait.png) against alpha, one line per
// load: the delay-price experiment's charts.
func PremiumCharts(o PremiumOptions, rows []PremiumRow) (Charts, error) {
	var price, wait []Line
	for _, load := range o.Loads {
		name := fmt.Sprintf("load +%d%%", load)
		p, w := Line{Name: name}, Line{Name: name}
		for _, r := range rows {
			if r.LoadPct == load {
				su, _ := r.MeanPremiumSU.Float64()
				p.X, p.Y = append(p.X, r.Alpha), append(p.Y, su)
				w.X, w.Y = append(w.X, r.Alpha), append(w.Y, r.MeanWaitHours)
			}
		}
		price, wait = append(price, p), append(wait, w)
	}
	pi, err := LineChart("Mean reservation premium against alpha (seed 001 Fig. 3-4)", "alpha (0: earliest start, 1: cheapest)", "mean premium (SU, node-hours)", price)
	if err != nil {
		return nil, err
	}
	wi, err := LineChart("Mean reservation wait against alpha (seed 001 Fig. 3-4)", "alpha (0: earliest start, 1: cheapest)", "mean wait (hours)", wait)
	if err != nil {
		return nil, err
	}
	return Charts{"delay_price_premium.png": pi, "delay_price_wait.png": wi}, nil
}
