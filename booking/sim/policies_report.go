package sim

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"text/tabwriter"
)

// PoliciesSummaryJSON is summary.json's policies: one entry per resource
// and load.
type PoliciesSummaryJSON struct {
	Runs []PolicyRun `json:"runs"`
}

// methodNames are the methods of the runs, sorted.
func methodNames(runs []PolicyRun) []string {
	seen := map[string]bool{}
	for _, r := range runs {
		for m := range r.Methods {
			seen[m] = true
		}
	}
	return sortedKeys(seen)
}

// WritePoliciesTable prints, per resource and load, the best fixed price
// and its revenue, the hindsight bound, and each RM method's revenue and
// the opportunity it captured (x1000, in the window).
func WritePoliciesTable(w io.Writer, runs []PolicyRun) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	methods := methodNames(runs)
	fmt.Fprint(tw, "resource\tload\tbest fixed tau\trevenue (x1000)\tabove the ladder\tbound (x1000)\t")
	for _, m := range methods {
		fmt.Fprintf(tw, "%s (x1000)\topportunity\t", m)
	}
	fmt.Fprintln(tw)
	for _, r := range runs {
		above := "-"
		if r.AboveLadder != nil {
			above = r.AboveLadder.Tau + ": " + thousands(r.AboveLadder.Revenue)
		}
		fmt.Fprintf(tw, "%s\t%g\t%s\t%s\t%s\t%s\t", r.Resource, r.Load, r.BestFixed.Tau, thousands(r.BestFixed.Revenue), above, thousands(r.Bound))
		for _, m := range methods {
			fmt.Fprintf(tw, "%s\t%.2f\t", thousands(r.Methods[m].Revenue), r.Methods[m].Opportunity)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// WritePoliciesCSV writes one row per resource, load and policy: the RM
// methods, every fixed price tried, and the bound.
func WritePoliciesCSV(w io.Writer, runs []PolicyRun) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"resource", "load", "days", "policy", "tau", "revenue_in_window", "opportunity", "occupancy", "booked", "refused", "bought_up"})
	for _, r := range runs {
		load := strconv.FormatFloat(r.Load, 'g', -1, 64)
		row := func(policy, tau, revenue, opp string, u *PolicyUse) {
			use := []string{"", "", "", ""}
			if u != nil {
				use = []string{strconv.FormatFloat(u.Occupancy, 'f', 4, 64), strconv.Itoa(u.Booked), strconv.Itoa(u.Refused), strconv.Itoa(u.BoughtUp)}
			}
			cw.Write(append([]string{r.Resource, load, strconv.Itoa(r.Days), policy, tau, revenue, opp}, use...))
		}
		for _, m := range methodNames([]PolicyRun{r}) {
			pm := r.Methods[m]
			row(m, "", pm.Revenue, strconv.FormatFloat(pm.Opportunity, 'f', 4, 64), &pm.PolicyUse)
		}
		for _, f := range r.Fixed {
			row("fixed", f.Tau, f.Revenue, "", &f.PolicyUse)
		}
		row("best fixed", r.BestFixed.Tau, r.BestFixed.Revenue, "0", &r.BestFixed.PolicyUse)
		row("bound", "", r.Bound, "1", nil)
	}
	cw.Flush()
	return cw.Error()
}

// PoliciesCharts draws policies_<id>.png per resource: in-window revenue
// against the offered load (log scale) for each RM method, the best fixed
// price and the hindsight bound.
func PoliciesCharts(runs []PolicyRun, currency string) (Charts, error) {
	out := Charts{}
	var ids []string
	for _, r := range runs {
		if !slices.Contains(ids, r.Resource) {
			ids = append(ids, r.Resource)
		}
	}
	for _, id := range ids {
		lines := []Line{{Name: "hindsight bound", Dashed: true}, {Name: "best fixed price"}}
		for _, m := range methodNames(runs) {
			lines = append(lines, Line{Name: "RM " + m, Points: true})
		}
		for _, r := range runs {
			if r.Resource != id {
				continue
			}
			x := math.Log10(r.Load)
			ys := []string{r.Bound, r.BestFixed.Revenue}
			for _, m := range methodNames(runs) {
				ys = append(ys, r.Methods[m].Revenue)
			}
			for i := range lines {
				lines[i].X, lines[i].Y = append(lines[i].X, x), append(lines[i].Y, thousandsF(ys[i]))
			}
		}
		img, err := LineChart(fmt.Sprintf("%s alone: does RM earn more than the best fixed price? Revenue in the window against load", id),
			"offered load, log10 (-0.6 = a quarter of capacity, 0 = capacity, 1 = ten times)", "revenue in window (x1,000 "+currency+")", lines)
		if err != nil {
			return nil, err
		}
		out["policies_"+fileSafe(id)+".png"] = img
	}
	return out, nil
}
