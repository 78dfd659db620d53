package sim

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shopspring/decimal"
)

// Summary is summary.json: what the experiments found, deterministic for a
// scenario and seed (maps are written with sorted keys, money as decimal
// strings, shares rounded to four places).
type Summary struct {
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	Days     int    `json:"days"`
	Scale    int    `json:"scale"`
	// Compared are the resources rm puts on static pricing and overbooking
	// lets overbook (--resources).
	Compared []string         `json:"compared,omitempty"`
	RM       map[string]RMRun `json:"rm,omitempty"`
	// Policies is each compared resource alone, per offered load: the RM
	// methods against the best fixed price and the hindsight bound.
	Policies    *PoliciesSummaryJSON `json:"policies,omitempty"`
	Overbooking *OverbookingSummary  `json:"overbooking,omitempty"`
	// Elastic is seed 004 Sec. 6.4 on a trace: one row per strategy, b_t
	// and sl_t.
	Elastic []ElasticRow `json:"elastic,omitempty"`
	// Timeouts is seed 003 Sec. 4.5: the acceptance rate per hold timeout
	// and rejecter ratio.
	Timeouts []TimeoutRow `json:"timeouts,omitempty"`
	// Calendar is seed 000 Sec. 7: each calendar's success rate on the
	// trace (runtimes, which depend on the machine, are in calendar.csv).
	Calendar []CalendarRow `json:"calendar,omitempty"`
	// DelayPrice is seed 001 Sec. 4 (the delay-price experiment): the
	// delay-based premium per load and alpha on a trace.
	DelayPrice []PremiumRow `json:"delay_price,omitempty"`
}

// CalendarRow is one calendar implementation in the calendar experiment.
type CalendarRow struct {
	Impl        string  `json:"impl"`
	SlotSeconds int64   `json:"slot_seconds,omitempty"`
	Requests    int     `json:"requests"`
	Accepted    int     `json:"accepted"`
	SuccessRate float64 `json:"success_rate"`
}

// RMRun is one scenario of the rm experiment: revenue per resource,
// bookings and share of revenue per resource and user class (Tables
// 7.11-7.12, Fig. 7.5-7.8).
type RMRun struct {
	TauS    string            `json:"tau_s,omitempty"`
	Revenue map[string]string `json:"revenue"`
	// RevenueInDays is the revenue of the bookings that start within the
	// simulated days (ResourceResult.RevenueStartingWithin): Revenue
	// without what the last days' users booked for after them, which
	// favours static pricing (docs/simulation.md).
	RevenueInDays map[string]string `json:"revenue_in_days"`
	// RevenueInWindow is what each resource earned for the node-seconds
	// served inside the simulated days after the warm-up
	// (ResourceResult.RevenueInWindow: a booking straddling an end counts
	// pro rata): the main figure.
	RevenueInWindow map[string]string `json:"revenue_in_window"`
	// RevenueAfterWindow is the revenue of the bookings starting after
	// the simulated days, reported apart.
	RevenueAfterWindow map[string]string `json:"revenue_after_window"`
	// Occupancy is the share of each resource's node-seconds in the
	// window that bookings held.
	Occupancy    map[string]float64            `json:"occupancy"`
	Bookings     map[string]map[string]int     `json:"bookings"`
	RevenueShare map[string]map[string]float64 `json:"revenue_share"`
	// Arrivals and Booked count each stream's jobs.
	Arrivals map[string]int `json:"arrivals"`
	Booked   map[string]int `json:"booked"`
	// BoughtUp and Refused count the users who bought a higher class and
	// who declined every offer as too dear (StreamResult); only users
	// with a willingness to pay do either.
	BoughtUp map[string]int `json:"bought_up,omitempty"`
	Refused  map[string]int `json:"refused,omitempty"`
}

// OverbookingSummary lists the overbooking experiment per run and resource.
type OverbookingSummary struct {
	Runs []OverbookingEntry `json:"runs"`
}

// OverbookingEntry is one resource in one run of the overbooking
// experiment (Table 7.13, Fig. 7.9-7.12, Table 7.14).
type OverbookingEntry struct {
	Resource   string `json:"resource"`
	Policy     string `json:"policy"`
	CNS        bool   `json:"cns"`
	Mode       string `json:"mode"`
	Denial     string `json:"denial"`
	NetRevenue string `json:"net_revenue"`
	// NetRevenueInWindow is NetRevenue for the node-seconds served inside
	// the simulated days (pro rata), the main figure.
	NetRevenueInWindow string         `json:"net_revenue_in_window"`
	DeniedInWindow     int            `json:"denied_in_window"`
	Denied             int            `json:"denied"`
	Compensation       string         `json:"compensation"`
	MeanLimit          float64        `json:"mean_limit"`
	MaxLimit           int            `json:"max_limit"`
	Nodes              int            `json:"nodes"`
	Bookings           int            `json:"bookings"`
	Cancelled          int            `json:"cancelled"`
	NoShows            int            `json:"no_shows"`
	DeniedByClass      map[string]int `json:"denied_by_class"`
}

// RMKey names the rm runs in summary.json: S1 is tau_s = 1.9 (Table 7.11),
// S1_2.8 is tau_s = 2.8 (Table 7.12), S2 is RM everywhere.
var RMKey = []string{"S1", "S1_2.8", "S2"}

// RMSummary builds the rm part of summary.json from the three RMSpecs runs.
func RMSummary(results []*Result) map[string]RMRun {
	out := map[string]RMRun{}
	taus := []string{"1.9", "2.8", ""}
	for i, r := range results {
		run := RMRun{TauS: taus[i], Revenue: map[string]string{}, RevenueInDays: map[string]string{}, RevenueInWindow: map[string]string{},
			RevenueAfterWindow: map[string]string{}, Occupancy: map[string]float64{}, Bookings: map[string]map[string]int{},
			RevenueShare: map[string]map[string]float64{}, Arrivals: map[string]int{}, Booked: map[string]int{}}
		for _, x := range r.Resources {
			run.Revenue[x.ID] = money(x.NetRevenue)
			run.RevenueInDays[x.ID] = money(x.RevenueStartingWithin(r.Days))
			run.RevenueInWindow[x.ID] = money(x.RevenueInWindow)
			run.RevenueAfterWindow[x.ID] = money(x.RevenueAfterWindow)
			run.Occupancy[x.ID] = math.Round(x.Occupancy(r.Window)*1e4) / 1e4
			run.Bookings[x.ID] = map[string]int{}
			run.RevenueShare[x.ID] = map[string]float64{}
			for name, c := range x.Classes {
				run.Bookings[x.ID][name] = c.Bookings
				if x.NetRevenue.IsPositive() {
					f, _ := c.Revenue.Div(x.NetRevenue).Float64()
					run.RevenueShare[x.ID][name] = math.Round(f*1e4) / 1e4
				}
			}
		}
		for _, s := range r.Streams {
			run.Arrivals[s.Name], run.Booked[s.Name] = s.Arrivals, s.Booked
			if s.BoughtUp+s.Refused > 0 {
				if run.BoughtUp == nil {
					run.BoughtUp, run.Refused = map[string]int{}, map[string]int{}
				}
				run.BoughtUp[s.Name], run.Refused[s.Name] = s.BoughtUp, s.Refused
			}
		}
		out[RMKey[i]] = run
	}
	return out
}

// OverbookingSummaryOf builds the overbooking part from the runs of
// OverbookingSpecs: every resource of every run, each with its own policy
// (only the compared resources ids overbook).
func OverbookingSummaryOf(s *Scenario, ids []string, runs []OverbookingRun, results []*Result) *OverbookingSummary {
	out := &OverbookingSummary{}
	for i, r := range results {
		for _, x := range r.Resources {
			pol, den := "none", string(runs[i].Denial)
			for _, rc := range s.Config.Resources {
				if rc.ID == x.ID && runs[i].Policy != "none" && contains(ids, x.ID) {
					pol = string(runs[i].Policy)
				}
			}
			e := OverbookingEntry{Resource: x.ID, Policy: pol, CNS: runs[i].Cancel && runs[i].NoShow, Mode: runs[i].Mode(), Denial: den, NetRevenue: money(x.NetRevenue),
				NetRevenueInWindow: money(x.RevenueInWindow), DeniedInWindow: x.DeniedInWindow, Compensation: money(x.Compensation), MeanLimit: math.Round(x.MeanLimit()*1e4) / 1e4, MaxLimit: x.MaxLimit(),
				Nodes: x.Nodes, DeniedByClass: map[string]int{}}
			for name, c := range x.Classes {
				e.Bookings += c.Bookings
				e.Cancelled += c.Cancelled
				e.NoShows += c.NoShows
				e.Denied += c.Denied
				e.DeniedByClass[name] = c.Denied
			}
			out.Runs = append(out.Runs, e)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func money(d decimal.Decimal) string { return d.StringFixed(2) }

// WriteJSON writes the summary, indented, with a final newline.
func (s *Summary) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func classesOf(runs map[string]RMRun) []string {
	seen := map[string]bool{}
	for _, r := range runs {
		for _, m := range r.Bookings {
			for c := range m {
				seen[c] = true
			}
		}
	}
	return classOrder(seen)
}

// deniedClasses are the user classes of the overbooking runs, in classOrder.
func deniedClasses(o *OverbookingSummary) []string {
	seen := map[string]bool{}
	for _, e := range o.Runs {
		for c := range e.DeniedByClass {
			seen[c] = true
		}
	}
	return classOrder(seen)
}

// classOrder sorts user classes as the thesis does (premium, business,
// budget), then any other by name.
func classOrder(seen map[string]bool) []string {
	order := map[string]int{"premium": 0, "business": 1, "budget": 2}
	out := sortedKeys(seen)
	sort.SliceStable(out, func(i, j int) bool {
		oi, ok1 := order[out[i]]
		oj, ok2 := order[out[j]]
		if ok1 && ok2 {
			return oi < oj
		}
		return ok1 && !ok2
	})
	return out
}

// thousands is a revenue in thousands, as the thesis's tables print it.
func thousands(s string) string {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return s
	}
	return d.Div(decimal.NewFromInt(1000)).StringFixed(0)
}

// gain is (b - a) / a in percent, "" when a is zero.
func gain(a, b string) string {
	x, err1 := decimal.NewFromString(a)
	y, err2 := decimal.NewFromString(b)
	if err1 != nil || err2 != nil || x.IsZero() {
		return ""
	}
	return y.Sub(x).Div(x).Mul(decimal.NewFromInt(100)).StringFixed(2)
}

// WriteRMTable prints the rm experiment as Tables 7.11 and 7.12 do: revenue
// per resource in S1 and S2 (x1000) and the gain, first for the
// node-seconds served inside the simulated days (the main figure), then
// for every booking made (the thesis's figure), then bookings per class.
func WriteRMTable(w io.Writer, runs map[string]RMRun, order []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "resource\tin window: S1 1.9 (x1000)\tS2 (x1000)\tgain %\tS1 2.8 (x1000)\tgain %\tall bookings: S1 1.9\tS2\tgain %\tS1 2.8\tgain %\t")
	for _, id := range order {
		s1, s12, s2 := runs["S1"].Revenue[id], runs["S1_2.8"].Revenue[id], runs["S2"].Revenue[id]
		d1, d12, d2 := runs["S1"].RevenueInWindow[id], runs["S1_2.8"].RevenueInWindow[id], runs["S2"].RevenueInWindow[id]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", id, thousands(d1), thousands(d2), gain(d1, d2), thousands(d12), gain(d12, d2),
			thousands(s1), thousands(s2), gain(s1, s2), thousands(s12), gain(s12, s2))
	}
	fmt.Fprintln(tw)
	classes := classesOf(runs)
	fmt.Fprint(tw, "bookings\t")
	for _, k := range []string{"S1", "S2"} {
		for _, c := range classes {
			fmt.Fprintf(tw, "%s %s\t", k, c)
		}
	}
	fmt.Fprintf(tw, "S2 share %s\t\n", strings.Join(classes, "/"))
	for _, id := range order {
		fmt.Fprintf(tw, "%s\t", id)
		for _, k := range []string{"S1", "S2"} {
			for _, c := range classes {
				fmt.Fprintf(tw, "%d\t", runs[k].Bookings[id][c])
			}
		}
		var sh []string
		for _, c := range classes {
			sh = append(sh, strconv.FormatFloat(100*runs["S2"].RevenueShare[id][c], 'f', 0, 64))
		}
		fmt.Fprintf(tw, "%s\t\n", strings.Join(sh, "/"))
	}
	return tw.Flush()
}

// WriteRMCSV writes one row per scenario, resource and class: bookings and
// the class's revenue share, with the resource's revenue.
func WriteRMCSV(w io.Writer, runs map[string]RMRun, order []string) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"scenario", "resource", "revenue", "revenue_in_days", "revenue_in_window", "class", "bookings", "revenue_share"})
	classes := classesOf(runs)
	for _, k := range RMKey {
		r, ok := runs[k]
		if !ok {
			continue
		}
		for _, id := range order {
			for _, c := range classes {
				cw.Write([]string{k, id, r.Revenue[id], r.RevenueInDays[id], r.RevenueInWindow[id], c, strconv.Itoa(r.Bookings[id][c]), strconv.FormatFloat(r.RevenueShare[id][c], 'f', 4, 64)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteOverbookingTable prints Table 7.13 (net revenue without and with
// CNS, no overbooking, every resource), then the policy runs of the
// overbooking resources: net revenue, denied, compensation, limits, and
// denied per class (Fig. 7.9-7.12, Table 7.14).
func WriteOverbookingTable(w io.Writer, o *OverbookingSummary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	noCNS, cns := map[string]OverbookingEntry{}, map[string]OverbookingEntry{}
	var order []string
	for _, e := range o.Runs {
		if e.Policy == "none" && e.Mode == "none" {
			noCNS[e.Resource] = e
			order = append(order, e.Resource)
		}
	}
	// the first run with CNS and no overbooking anywhere (the runs come in
	// OverbookingSpecs' order)
	for _, e := range o.Runs {
		if e.Mode == "cns" && e.Policy == "none" {
			if _, ok := cns[e.Resource]; !ok {
				cns[e.Resource] = e
			}
		}
	}
	fmt.Fprintln(tw, "resource\tin window: no CNS (x1000)\tallow CNS (x1000)\t% loss\tall bookings: no CNS\tallow CNS\t% loss\t")
	for _, id := range order {
		a, b := noCNS[id], cns[id]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", id, thousands(a.NetRevenueInWindow), thousands(b.NetRevenueInWindow),
			gain(a.NetRevenueInWindow, b.NetRevenueInWindow), thousands(a.NetRevenue), thousands(b.NetRevenue), gain(a.NetRevenue, b.NetRevenue))
	}
	fmt.Fprintln(tw)
	classes := deniedClasses(o)
	fmt.Fprintf(tw, "resource\tusers\tpolicy\tdenial\tnet in window (x1000)\tall bookings\tdenied\tcompensation\tmean ob\tmax ob\tnodes\tdenied %s\t\n", strings.Join(classes, "/"))
	for _, e := range o.Runs {
		if e.Policy == "none" {
			continue
		}
		by := make([]string, len(classes))
		for i, c := range classes {
			by[i] = strconv.Itoa(e.DeniedByClass[c])
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%.1f\t%d\t%d\t%s\t\n", e.Resource, e.Mode, e.Policy, e.Denial, thousands(e.NetRevenueInWindow),
			thousands(e.NetRevenue), e.Denied,
			e.Compensation, e.MeanLimit, e.MaxLimit, e.Nodes, strings.Join(by, "/"))
	}
	return tw.Flush()
}

// WriteOverbookingCSV writes one row per run and resource, with a
// denied_<class> column per user class.
func WriteOverbookingCSV(w io.Writer, o *OverbookingSummary) error {
	cw := csv.NewWriter(w)
	classes := deniedClasses(o)
	head := []string{"resource", "policy", "cns", "mode", "denial", "net_revenue", "net_revenue_in_window", "denied", "compensation", "mean_limit", "max_limit", "nodes",
		"bookings", "cancelled", "no_shows"}
	for _, c := range classes {
		head = append(head, "denied_"+c)
	}
	cw.Write(head)
	for _, e := range o.Runs {
		row := []string{e.Resource, e.Policy, strconv.FormatBool(e.CNS), e.Mode, e.Denial, e.NetRevenue, e.NetRevenueInWindow, strconv.Itoa(e.Denied), e.Compensation,
			strconv.FormatFloat(e.MeanLimit, 'f', 4, 64), strconv.Itoa(e.MaxLimit), strconv.Itoa(e.Nodes), strconv.Itoa(e.Bookings),
			strconv.Itoa(e.Cancelled), strconv.Itoa(e.NoShows)}
		for _, c := range classes {
			row = append(row, strconv.Itoa(e.DeniedByClass[c]))
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// WriteLimitsCSV writes the sampled overbooking limits of the given
// resources in each run (Fig. 7.10): run, resource, time, limit.
func WriteLimitsCSV(w io.Writer, names []string, results []*Result, ids []string) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"run", "resource", "at", "overbooking_limit"})
	for i, r := range results {
		for _, id := range ids {
			x := r.Resource(id)
			if x == nil {
				continue
			}
			for _, l := range x.Limits {
				cw.Write([]string{names[i], id, l.At.UTC().Format(time.RFC3339), strconv.Itoa(l.Limit)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
