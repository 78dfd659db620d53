package sim

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// thousandsF is a decimal revenue in thousands, as a float for a chart.
func thousandsF(s string) float64 {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return 0
	}
	f, _ := d.Div(decimal.NewFromInt(1000)).Float64()
	return f
}

// RMCharts draws the rm experiment: revenue per resource in S1 and S2
// (rm_revenue.png, Tables 7.11-7.12 of seed 004), bookings per resource of
// each user class (rm_bookings_<class>.png: Fig. 7.5 budget, 7.6 business,
// 7.7 premium) and the share of S2 revenue per class (rm_share.png, Fig.
// 7.8). order is the resources' order on the x axis.
func RMCharts(runs map[string]RMRun, order []string, currency string) (Charts, error) {
	out := Charts{}
	var rev []Series
	for i, k := range RMKey {
		r, ok := runs[k]
		if !ok {
			continue
		}
		name := []string{"S1 static tau_s 1.9", "S1 static tau_s 2.8", "S2 RM"}[i]
		s := Series{Name: name}
		for _, id := range order {
			s.Values = append(s.Values, thousandsF(r.RevenueInWindow[id]))
		}
		rev = append(rev, s)
	}
	b, err := BarChart("Revenue per resource inside the simulated days, S1 (static) vs S2 (RM) (seed 004 Tables 7.11-7.12)", "net revenue in window (x1,000 "+currency+")", order, rev, false)
	if err != nil {
		return nil, err
	}
	out["rm_revenue.png"] = b
	for _, c := range classesOf(runs) {
		var ss []Series
		for _, k := range []string{"S1", "S2"} {
			r, ok := runs[k]
			if !ok {
				continue
			}
			s := Series{Name: map[string]string{"S1": "S1 static tau_s 1.9", "S2": "S2 RM"}[k]}
			for _, id := range order {
				s.Values = append(s.Values, float64(r.Bookings[id][c]))
			}
			ss = append(ss, s)
		}
		b, err := BarChart(fmt.Sprintf("Bookings of %s users per resource (seed 004 Fig. 7.5-7.7)", c), "bookings", order, ss, false)
		if err != nil {
			return nil, err
		}
		out["rm_bookings_"+fileSafe(c)+".png"] = b
	}
	if s2, ok := runs["S2"]; ok {
		var ss []Series
		for _, c := range classesOf(runs) {
			s := Series{Name: c}
			for _, id := range order {
				s.Values = append(s.Values, 100*s2.RevenueShare[id][c])
			}
			ss = append(ss, s)
		}
		b, err := BarChart("Share of S2 revenue per user class (seed 004 Fig. 7.8)", "% of the resource's revenue", order, ss, true)
		if err != nil {
			return nil, err
		}
		out["rm_share.png"] = b
	}
	return out, nil
}

// OverbookingCharts draws the overbooking experiment: net revenue without
// and with cancellations and no-shows, no overbooking (overbooking_cns.png,
// Table 7.13 of seed 004); for each compared resource its overbooking limit
// over time under each policy (overbooking_limits_<id>.png, Fig. 7.10),
// denied bookings per class under each policy and denial strategy
// (overbooking_denied_<id>.png, Fig. 7.11 and Table 7.14) and net revenue
// beside compensation (overbooking_net_<id>.png, Fig. 7.9 and 7.12). The
// strategy charts show the runs with no-shows only, where denials happen
// (docs/simulation.md says why none happen under CNS). runs and results
// are OverbookingSpecs' and RunAll's, in order; order is the resources'
// order on the x axis.
func OverbookingCharts(o *OverbookingSummary, runs []OverbookingRun, results []*Result, compared, order []string, start int64, currency string) (Charts, error) {
	out := Charts{}
	noCNS, cns := map[string]float64{}, map[string]float64{}
	for _, e := range o.Runs {
		if e.Policy != "none" {
			continue
		}
		switch e.Mode {
		case "none":
			noCNS[e.Resource] = thousandsF(e.NetRevenueInWindow)
		case "cns":
			cns[e.Resource] = thousandsF(e.NetRevenueInWindow)
		}
	}
	a, b := Series{Name: "no CNS"}, Series{Name: "allow CNS"}
	for _, id := range order {
		a.Values, b.Values = append(a.Values, noCNS[id]), append(b.Values, cns[id])
	}
	img, err := BarChart("Net revenue without overbooking, without and with cancellations and no-shows (seed 004 Table 7.13)",
		"net revenue in window (x1,000 "+currency+")", order, []Series{a, b}, false)
	if err != nil {
		return nil, err
	}
	out["overbooking_cns.png"] = img
	classes := deniedClasses(o)
	for _, id := range compared {
		var lines []Line
		capacity := 0
		for i, r := range runs {
			if r.Policy == "none" || r.Denial != "dcf" {
				continue
			}
			x := results[i].Resource(id)
			if x == nil {
				continue
			}
			capacity = x.Nodes
			l := Line{Name: string(r.Policy) + ", " + r.Mode(), Dashed: !r.Cancel}
			for _, s := range x.Limits {
				l.X = append(l.X, float64(s.At.Unix()-start)/86400)
				l.Y = append(l.Y, float64(s.Limit))
			}
			lines = append(lines, l)
		}
		if len(lines) > 0 && len(lines[0].X) > 0 {
			xs := lines[0].X
			lines = append(lines, Line{Name: "capacity", X: []float64{xs[0], xs[len(xs)-1]}, Y: []float64{float64(capacity), float64(capacity)}})
		}
		img, err := LineChart(fmt.Sprintf("%s: overbooking limit in force, hourly (seed 004 Fig. 7.10)", id), "day", "overbooking limit (nodes)", lines)
		if err != nil {
			return nil, err
		}
		out["overbooking_limits_"+fileSafe(id)+".png"] = img
		var groups []string
		byClass := make([]Series, len(classes))
		for j, c := range classes {
			byClass[j].Name = c
		}
		net, comp := Series{Name: "net revenue in window (x1000)"}, Series{Name: "compensation (x1000)"}
		for _, e := range o.Runs {
			if e.Resource != id || e.Policy == "none" || e.Mode != "no-shows" {
				continue
			}
			groups = append(groups, e.Policy+"/"+e.Denial)
			for j, c := range classes {
				byClass[j].Values = append(byClass[j].Values, float64(e.DeniedByClass[c]))
			}
			net.Values = append(net.Values, thousandsF(e.NetRevenueInWindow))
			comp.Values = append(comp.Values, thousandsF(e.Compensation))
		}
		img, err = BarChart(fmt.Sprintf("%s: denied bookings per user class, no-shows only (seed 004 Fig. 7.11, Table 7.14)", id), "denied bookings", groups, byClass, true)
		if err != nil {
			return nil, err
		}
		out["overbooking_denied_"+fileSafe(id)+".png"] = img
		img, err = BarChart(fmt.Sprintf("%s: net revenue and compensation, no-shows only (seed 004 Fig. 7.9, 7.12)", id), "x1,000 "+currency, groups, []Series{net, comp}, false)
		if err != nil {
			return nil, err
		}
		out["overbooking_net_"+fileSafe(id)+".png"] = img
	}
	return out, nil
}
