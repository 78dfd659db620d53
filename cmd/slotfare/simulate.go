package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"slotfare"
	"slotfare/booking/sim"
	"slotfare/forecast/swf"
)

func init() {
	register("simulate", command{
		summary: "what-if: run the booking service under a virtual clock (seed 004 Sec. 7.7 experiments)",
		run:     runSimulate,
	})
}

// simExperiments are the experiments `simulate` runs, in the order run,
// under the names.
var simExperiments = []string{"rm", "policies", "overbooking", "elastic", "calendar", "timeouts", "delay-price"}

// simExperimentAliases are other names --experiment accepts: `premium` was
// delay-price's first name.
var simExperimentAliases = map[string]string{"premium": "delay-price"}

// runSimulate is `slotfare simulate --scenario FILE|eu-datagrid
// [--experiment rm,overbooking,elastic,calendar,timeouts,delay-price] [--days N] [--seed N] [--scale 1|10]
// [--out DIR] [--workers N]`: it runs the experiments on the real booking
// service (booking/sim), prints their tables, and with --out writes
// summary.json (deterministic for a scenario and seed) and CSV files.
func runSimulate(args []string, stdout, stderr io.Writer) error {
	// The tables printed go into --out's index.html too.
	var printed bytes.Buffer
	stdout = io.MultiWriter(stdout, &printed)
	fs := newFlags("simulate", stderr)
	scenario := fs.String("scenario", "eu-datagrid", "scenario `FILE` (JSON: the serve configuration and a workload), eu-datagrid (the built-in seed 004 Sec. 7.7) or eu-datagrid-priced (its users with a willingness to pay)")
	experiment := fs.String("experiment", "rm", "comma-separated `list` of experiments: "+strings.Join(simExperiments, ", ")+" (premium: delay-price)")
	days := fs.Int("days", 0, "simulated `days` of arrivals (default: the scenario's; 14 for eu-datagrid)")
	seed := fs.Uint64("seed", 1, "random `seed`: the same seed gives the same summary.json")
	scale := fs.Int("scale", 1, "multiply nodes, protection levels and arrival rates by `k` (10: the testbed's real sizes)")
	out := fs.String("out", "", "`directory` for summary.json and the CSV files (created if needed)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "runs at once (`n`)")
	traceFile := fs.String("trace", "", "SWF trace `FILE` that elastic, calendar and delay-price replay (default: the first 4,961 jobs of SDSC SP2, 1998, built in)")
	compare := fs.String("resources", "", "comma-separated resource `ids` that rm puts on static pricing and overbooking lets overbook (default: RAL,Bologna when the scenario has both, as in seed 004 Sec. 7.7, else every resource)")
	load := fs.Float64("load", 1, "multiply every arrival rate by `x` (> 0)")
	loadsFlag := fs.String("loads", "", "comma-separated offered `loads` the policies experiment sweeps (default 0.25,0.5,1,2,5,10: node-seconds asked per node-second of capacity)")
	warmup := fs.Int("warmup", 0, "leave the first `days` out of the in-window figures (booking control learns its forecasts there)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	defer simGC()()
	exps := map[string]bool{}
	for _, e := range strings.Split(*experiment, ",") {
		e = strings.TrimSpace(e)
		if to, ok := simExperimentAliases[e]; ok {
			e = to
		}
		if !contains(simExperiments, e) {
			return slotfare.Errorf("", "--experiment", "unknown experiment %q (want %s)", e, strings.Join(simExperiments, ", "))
		}
		exps[e] = true
	}
	if *workers < 1 {
		return slotfare.Errorf("", "--workers", "must be at least 1, got %d", *workers)
	}
	s, err := loadScenario(*scenario)
	if err != nil {
		return err
	}
	if flagSet(fs, "days") {
		if *days < 1 || *days > 366 {
			return slotfare.Errorf("", "--days", "must be in 1..366, got %d", *days)
		}
		s.Days = *days
	}
	if flagSet(fs, "load") {
		if s, err = s.Loaded(*load); err != nil {
			return slotfare.E("", slotfare.Invalid, slotfare.Field("--load"), slotfare.MessageOf(err))
		}
	}
	loads := sim.PolicyLoads
	if flagSet(fs, "loads") {
		if loads, err = parseLoads(*loadsFlag); err != nil {
			return err
		}
	}
	if *warmup < 0 || *warmup >= s.Days {
		return slotfare.Errorf("", "--warmup", "must be in 0..%d (fewer than the %d days simulated), got %d", s.Days-1, s.Days, *warmup)
	}
	if *scale != 1 {
		if s, err = s.Scaled(*scale); err != nil {
			return slotfare.E("", slotfare.Invalid, slotfare.Field("--scale"), slotfare.MessageOf(err))
		}
	}
	compared := sim.CompareResources(s)
	if flagSet(fs, "resources") {
		compared = nil
		for _, id := range strings.Split(*compare, ",") {
			id = strings.TrimSpace(id)
			if id == "" {
				return slotfare.Errorf("", "--resources", "an empty resource id in %q", *compare)
			}
			if !hasResource(s, id) {
				return slotfare.Errorf("", "--resources", "the scenario has no resource %q (it has %s)", id, strings.Join(resourceOrder(s), ", "))
			}
			if contains(compared, id) {
				return slotfare.Errorf("", "--resources", "%q given twice", id)
			}
			compared = append(compared, id)
		}
	}
	// The trace and elastic's requests are read before any run, so that a
	// bad --trace is reported at once, not after the long experiments.
	var log *swf.Log
	if exps["elastic"] || exps["calendar"] || exps["delay-price"] {
		if log, err = readSimTrace(*traceFile); err != nil {
			return err
		}
	}
	elasticDays := 14
	if flagSet(fs, "days") {
		elasticDays = s.Days
	}
	var elasticJobs []sim.ElasticJob
	if exps["elastic"] {
		elasticJobs = sim.ElasticJobs(log, sim.ElasticCapacity, elasticDays)
		if len(elasticJobs) == 0 {
			return badFlag("trace", "no job with a run time and processors in its first %d days (elastic replays the first --days of it)", elasticDays)
		}
	}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return slotfare.E("", slotfare.Invalid, slotfare.Field("--out"), err)
		}
	}
	sum := &sim.Summary{Scenario: s.Name, Seed: *seed, Days: s.Days, Scale: *scale}
	if exps["rm"] || exps["overbooking"] || exps["policies"] {
		sum.Compared = compared
	}
	ctx := context.Background()
	order := resourceOrder(s)
	bar := newProgressBar(stderr)
	files := map[string][]byte{}
	// rm and overbooking run as one set on every worker, and a run both
	// make (S2 is overbooking's "none, no CNS") once.
	var rmSpecs, obSpecs []sim.RunSpec
	var obRuns []sim.OverbookingRun
	if exps["rm"] {
		if rmSpecs, err = sim.RMSpecs(s, compared, *seed); err != nil {
			return err
		}
		warmUp(rmSpecs, *warmup)
	}
	if exps["overbooking"] {
		if obSpecs, obRuns, err = sim.OverbookingSpecs(s, compared, *seed); err != nil {
			return err
		}
		warmUp(obSpecs, *warmup)
	}
	var rmRes, obRes []*sim.Result
	var elapsed float64
	if all := slices.Concat(rmSpecs, obSpecs); len(all) > 0 {
		var names []string
		for _, e := range []string{"rm", "overbooking"} {
			if exps[e] {
				names = append(names, e)
			}
		}
		t0 := time.Now()
		res, err := sim.RunAll(ctx, all, *workers, bar.track(strings.Join(names, ","), len(all)))
		bar.done()
		if err != nil {
			return err
		}
		elapsed = time.Since(t0).Seconds()
		rmRes, obRes = res[:len(rmSpecs)], res[len(rmSpecs):]
	}
	if exps["rm"] {
		res := rmRes
		sum.RM = sim.RMSummary(res)
		fmt.Fprintf(stdout, "rm: S1 (%s static, tau_s 1.9 and 2.8) vs S2 (RM everywhere), %d days, seed %d, scale %d, %.1f s (with overbooking's runs when both are asked)\n",
			strings.Join(compared, ", "), s.Days, *seed, *scale, elapsed)
		if err := sim.WriteRMTable(stdout, sum.RM, order); err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		var b bytes.Buffer
		if err := sim.WriteRMCSV(&b, sum.RM, order); err != nil {
			return err
		}
		files["rm.csv"] = b.Bytes()
		charts, err := sim.RMCharts(sum.RM, order, s.Config.Currency)
		if err != nil {
			return err
		}
		maps.Copy(files, charts)
	}
	if exps["policies"] {
		if err := runPolicies(ctx, s, compared, loads, *seed, *warmup, *workers, bar, sum, stdout, files); err != nil {
			return err
		}
	}
	if exps["overbooking"] {
		specs, runs, res := obSpecs, obRuns, obRes
		sum.Overbooking = sim.OverbookingSummaryOf(s, compared, runs, res)
		fmt.Fprintf(stdout, "overbooking: %s, no CNS vs CNS, then probability/risk/service-level x lottery/dcf/lc-dcf, %d days, seed %d, scale %d, %.1f s (with rm's runs when both are asked)\n",
			strings.Join(compared, ", "), s.Days, *seed, *scale, elapsed)
		if err := sim.WriteOverbookingTable(stdout, sum.Overbooking); err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		var b, l bytes.Buffer
		if err := sim.WriteOverbookingCSV(&b, sum.Overbooking); err != nil {
			return err
		}
		names := make([]string, len(specs))
		for i, sp := range specs {
			names[i] = sp.Name
		}
		if err := sim.WriteLimitsCSV(&l, names, res, compared); err != nil {
			return err
		}
		files["overbooking.csv"], files["overbooking_limits.csv"] = b.Bytes(), l.Bytes()
		charts, err := sim.OverbookingCharts(sum.Overbooking, runs, res, compared, order, s.Start.Unix(), s.Config.Currency)
		if err != nil {
			return err
		}
		maps.Copy(files, charts)
	}
	if exps["elastic"] {
		days, jobs := elasticDays, elasticJobs
		rows, err := sim.ElasticSweep(jobs, sim.ElasticCapacity, days)
		if err != nil {
			return err
		}
		sum.Elastic = rows
		fmt.Fprintf(stdout, "elastic: rigid vs first fit vs OSP (seed 004 Sec. 6.4), %s, first %d days (%d requests), %d nodes\n",
			traceName(*traceFile), days, len(jobs), sim.ElasticCapacity)
		if err := sim.WriteElasticTable(stdout, rows); err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		var b bytes.Buffer
		if err := sim.WriteElasticCSV(&b, rows); err != nil {
			return err
		}
		files["elastic.csv"] = b.Bytes()
		charts, err := sim.ElasticCharts(rows)
		if err != nil {
			return err
		}
		maps.Copy(files, charts)
	}
	if exps["calendar"] {
		fmt.Fprintf(stdout, "calendar: slotted time at %d widths vs the tree and the free list (seed 000 Sec. 7, Fig. 5), %s, rigid, %d nodes\n",
			len(calendarSlotWidths), traceName(*traceFile), sim.ElasticCapacity)
		rows, err := runCalendarExperiment(log, sim.ElasticCapacity, 3, stdout, files)
		if err != nil {
			return err
		}
		sum.Calendar = rows
		fmt.Fprintln(stdout)
	}
	if exps["timeouts"] {
		o := sim.DefaultTimeouts
		o.Seed = *seed
		o.Progress = bar.track("timeouts", len(o.Rejecters)*len(o.Timeouts))
		t0 := time.Now()
		rows, err := sim.Timeouts(ctx, o, *workers)
		bar.done()
		if err != nil {
			return err
		}
		sum.Timeouts = rows
		fmt.Fprintf(stdout, "timeouts: acceptance rate against the hold timeout (seed 003 Sec. 4.5, Fig. 9), %d accepters, 8 machines, slots of %d s, seed %d, %.1f s\n",
			o.Accepters, sim.TimeoutSlot, *seed, time.Since(t0).Seconds())
		if err := sim.WriteTimeoutsTable(stdout, o, rows); err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		var b bytes.Buffer
		if err := sim.WriteTimeoutsCSV(&b, rows); err != nil {
			return err
		}
		files["timeouts.csv"] = b.Bytes()
		charts, err := sim.TimeoutsCharts(o, rows)
		if err != nil {
			return err
		}
		maps.Copy(files, charts)
	}
	if exps["delay-price"] {
		if sum.DelayPrice, err = runDelayPriceExperiment(log, traceName(*traceFile), *seed, *workers, stdout, files); err != nil {
			return err
		}
	}
	if *out == "" {
		return nil
	}
	var b bytes.Buffer
	if err := sum.WriteJSON(&b); err != nil {
		return err
	}
	files["summary.json"] = b.Bytes()
	files["index.html"] = simIndex(args, printed.String(), files, s.Config.Currency)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(*out, n), files[n], 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "wrote %s in %s\n", strings.Join(names, ", "), *out)
	return nil
}

// runPolicies is the policies experiment: each compared resource alone at
// each load of sim.PolicyLoads, every RM method against the best fixed
// price and the hindsight bound on the same arrivals.
func runPolicies(ctx context.Context, s *sim.Scenario, compared []string, loads []float64, seed uint64, warmup, workers int, bar *progressBar,
	sum *sim.Summary, stdout io.Writer, files map[string][]byte) error {
	specs, points, err := sim.PolicySpecs(s, compared, loads, seed, warmup)
	if err != nil {
		return err
	}
	t0 := time.Now()
	res, err := sim.RunAll(ctx, specs, workers, bar.track("policies", len(specs)))
	bar.done()
	if err != nil {
		return err
	}
	runs, err := sim.PoliciesSummary(points, res, seed)
	if err != nil {
		return err
	}
	sum.Policies = &sim.PoliciesSummaryJSON{Runs: runs}
	fmt.Fprintf(stdout, "policies: %s each alone, RM methods vs the best fixed price vs the hindsight bound, revenue in the window, %d days (warm-up %d), seed %d, %d runs, %.1f s\n",
		strings.Join(compared, ", "), s.Days, warmup, seed, len(specs), time.Since(t0).Seconds())
	if err := sim.WritePoliciesTable(stdout, runs); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	var b bytes.Buffer
	if err := sim.WritePoliciesCSV(&b, runs); err != nil {
		return err
	}
	files["policies.csv"] = b.Bytes()
	charts, err := sim.PoliciesCharts(runs, s.Config.Currency)
	if err != nil {
		return err
	}
	maps.Copy(files, charts)
	return nil
}

// parseLoads reads --loads: positive numbers, each once.
func parseLoads(list string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(list, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(x > 0) || x > 1000 {
			return nil, slotfare.Errorf("", "--loads", "%q is not a load in (0, 1000]", f)
		}
		if slices.Contains(out, x) {
			return nil, slotfare.Errorf("", "--loads", "%v given twice", x)
		}
		out = append(out, x)
	}
	return out, nil
}

// warmUp leaves the first days of every run out of its in-window figures.
func warmUp(specs []sim.RunSpec, days int) {
	for i := range specs {
		specs[i].Options.WarmupDays = days
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func hasResource(s *sim.Scenario, id string) bool {
	for _, rc := range s.Config.Resources {
		if rc.ID == id {
			return true
		}
	}
	return false
}

// resourceOrder is the scenario's resources in configuration order (the
// thesis's R1..R10 for eu-datagrid).
func resourceOrder(s *sim.Scenario) []string {
	out := make([]string, len(s.Config.Resources))
	for i, rc := range s.Config.Resources {
		out[i] = rc.ID
	}
	return out
}

// loadScenario is the built-in eu-datagrid or a scenario file, decoded
// strictly (errors name the field; exit 2). Trace files are read relative
// to the scenario file's directory.
func loadScenario(name string) (*sim.Scenario, error) {
	switch name {
	case "eu-datagrid":
		return sim.EUDataGrid(14)
	case "eu-datagrid-priced":
		return sim.EUDataGridPriced(14)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, slotfare.E("", slotfare.Invalid, slotfare.Field("--scenario"), err)
	}
	dir := filepath.Dir(name)
	s, err := sim.DecodeScenario(data, func(file string, maxJobs int) ([]sim.TraceJob, error) {
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		return readTrace(file, maxJobs)
	})
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	return s, nil
}

// readTrace reads an SWF log as arrivals: each job with a known run time
// and processor count, at its submit time from the first job's, with its
// run time (or requested time when the run time is unknown).
func readTrace(file string, maxJobs int) ([]sim.TraceJob, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	log, err := swf.Read(f)
	if err != nil {
		return nil, err
	}
	jobs := log.Jobs
	sort.SliceStable(jobs, func(i, j int) bool { return jobs[i].Submit < jobs[j].Submit })
	var out []sim.TraceJob
	for _, j := range jobs {
		run := j.Run
		if run <= 0 {
			run = j.ReqTime
		}
		n := j.Nodes()
		if run <= 0 || n <= 0 || j.Submit < 0 {
			continue
		}
		out = append(out, sim.TraceJob{Submit: j.Submit - jobs[0].Submit, Runtime: run, Nodes: int(n)})
		if maxJobs > 0 && len(out) == maxJobs {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no job with a run time and processors", file)
	}
	return out, nil
}

// progressBar draws the runs' progress on a terminal, on one line; when
// the output is not a terminal it draws nothing.
type progressBar struct {
	w    io.Writer
	on   bool
	mu   sync.Mutex
	name string
	runs []float64
	last time.Time
}

// newProgressBar draws on w only when it is a terminal (not a file, a
// pipe, or /dev/null, which is a character device too).
func newProgressBar(w io.Writer) *progressBar {
	p := &progressBar{w: w}
	if f, ok := w.(*os.File); ok {
		p.on = term.IsTerminal(int(f.Fd()))
	}
	return p
}

// readSimTrace reads --trace, or the built-in trace when it is empty.
func readSimTrace(path string) (*swf.Log, error) {
	if path == "" {
		return swf.Read(bytes.NewReader(slotfare.DemoTrace))
	}
	return readTraceFlag(path)
}

// traceName is the trace's file name, for reports.
func traceName(path string) string {
	if path == "" {
		return slotfare.DemoTraceName
	}
	return filepath.Base(path)
}

// track starts an experiment of n runs and returns RunAll's progress
// callback (nil when off).
func (p *progressBar) track(name string, n int) func(int, float64) {
	if !p.on {
		return nil
	}
	p.mu.Lock()
	p.name, p.runs = name, make([]float64, n)
	p.mu.Unlock()
	return func(run int, f float64) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.runs[run] = f
		if time.Since(p.last) < 100*time.Millisecond && f < 1 {
			return
		}
		p.last = time.Now()
		total := 0.0
		for _, x := range p.runs {
			total += x
		}
		total /= float64(len(p.runs))
		const width = 40
		fill := int(total * width)
		fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%%", p.name, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), 100*total)
	}
}

// done ends the bar's line.
func (p *progressBar) done() {
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// simGC trades memory for speed in a simulate run unless the environment
// sets GOGC or GOMEMLIMIT: the runs allocate fast and keep little (each
// run's service and store), so the collector at its default of 100 took
// 20-30% of the 14-day rm run. At 400 it took 30 s instead of 44 s with a
// peak of 1.7 GB instead of 0.5 GB (docs/benchmarks.md); the soft limit of
// 4 GiB makes the collector work harder before a larger run (--scale 10)
// reaches it. It returns the function that puts the settings back (the
// tests run simulate inside their own process).
func simGC() (restore func()) {
	gc, limit := -1, int64(-1)
	if _, ok := os.LookupEnv("GOGC"); !ok {
		gc = debug.SetGCPercent(400)
	}
	if _, ok := os.LookupEnv("GOMEMLIMIT"); !ok {
		limit = debug.SetMemoryLimit(4 << 30)
	}
	return func() {
		if gc != -1 {
			debug.SetGCPercent(gc)
		}
		if limit != -1 {
			debug.SetMemoryLimit(limit)
		}
	}
}
