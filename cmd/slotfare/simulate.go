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
	"runtime/pprof"
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
	f, err := parseSimulateFlags(args, stderr)
	if err != nil {
		return err
	}
	defer simGC()()
	stop, err := simCPUProfile(os.Getenv("SLOTFARE_SIMULATE_CPUPROFILE"))
	if err != nil {
		return err
	}
	defer stop()
	r, err := prepareSimulation(f, stdout, stderr)
	if err != nil {
		return err
	}
	if err := r.run(context.Background()); err != nil { // the command's root
		return err
	}
	if f.out == "" {
		return nil
	}
	return writeSimulation(f.out, args, printed.String(), r.sum, r.files, r.s.Config.Currency, stdout)
}

// simFlags are simulate's command line; given tells which flags were set.
type simFlags struct {
	scenario, experiment, out, traceFile, resources, loads string
	days, scale, workers, warmup                           int
	seed                                                   uint64
	load                                                   float64
	given                                                  func(name string) bool
}

func parseSimulateFlags(args []string, stderr io.Writer) (simFlags, error) {
	var f simFlags
	fs := newFlags("simulate", stderr)
	fs.StringVar(&f.scenario, "scenario", "eu-datagrid", "scenario `FILE` (JSON: the serve configuration and a workload), eu-datagrid (the built-in seed 004 Sec. 7.7) or eu-datagrid-priced (its users with a willingness to pay)")
	fs.StringVar(&f.experiment, "experiment", "rm", "comma-separated `list` of experiments: "+strings.Join(simExperiments, ", ")+" (premium: delay-price)")
	fs.IntVar(&f.days, "days", 0, "simulated `days` of arrivals (default: the scenario's; 14 for eu-datagrid)")
	fs.Uint64Var(&f.seed, "seed", 1, "random `seed`: the same seed gives the same summary.json")
	fs.IntVar(&f.scale, "scale", 1, "multiply nodes, protection levels and arrival rates by `k` (10: the testbed's real sizes)")
	fs.StringVar(&f.out, "out", "", "`directory` for summary.json and the CSV files (created if needed)")
	fs.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "runs at once (`n`)")
	fs.StringVar(&f.traceFile, "trace", "", "SWF trace `FILE` that elastic, calendar and delay-price replay (default: the first 4,961 jobs of SDSC SP2, 1998, built in)")
	fs.StringVar(&f.resources, "resources", "", "comma-separated resource `ids` that rm puts on static pricing and overbooking lets overbook (default: RAL,Bologna when the scenario has both, as in seed 004 Sec. 7.7, else every resource)")
	fs.Float64Var(&f.load, "load", 1, "multiply every arrival rate by `x` (> 0)")
	fs.StringVar(&f.loads, "loads", "", "comma-separated offered `loads` the policies experiment sweeps (default 0.25,0.5,1,2,5,10: node-seconds asked per node-second of capacity)")
	fs.IntVar(&f.warmup, "warmup", 0, "leave the first `days` out of the in-window figures (booking control learns its forecasts there)")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	f.given = func(name string) bool { return flagSet(fs, name) }
	return f, nil
}

// simulation is one simulate run: what it was asked, the scenario as
// adjusted by the flags, and what its experiments have written so far.
type simulation struct {
	f           simFlags
	exps        map[string]bool
	s           *sim.Scenario
	loads       []float64
	compared    []string
	order       []string
	trace       *swf.Log
	obSpecs     []sim.RunSpec
	obRuns      []sim.OverbookingRun
	elasticDays int
	elasticJobs []sim.ElasticJob
	sum         *sim.Summary
	files       map[string][]byte
	bar         *progressBar
	stdout      io.Writer
}

// prepareSimulation checks the flags against the scenario and reads every
// input before any run, so that a mistake is reported at once, not after
// the long experiments.
func prepareSimulation(f simFlags, stdout, stderr io.Writer) (*simulation, error) {
	exps, err := experimentsOf(f.experiment)
	if err != nil {
		return nil, err
	}
	if f.workers < 1 {
		return nil, slotfare.Errorf("", "--workers", "must be at least 1, got %d", f.workers)
	}
	r := &simulation{f: f, exps: exps, files: map[string][]byte{}, bar: newProgressBar(stderr), stdout: stdout}
	if r.s, r.loads, err = simScenario(f); err != nil {
		return nil, err
	}
	if r.compared, err = comparedResources(f, r.s); err != nil {
		return nil, err
	}
	if err := r.readTraces(); err != nil {
		return nil, err
	}
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return nil, slotfare.E(slotfare.Invalid, slotfare.Field("--out"), err)
		}
	}
	r.sum = &sim.Summary{Scenario: r.s.Name, Seed: f.seed, Days: r.s.Days, Scale: f.scale}
	if exps["rm"] || exps["overbooking"] || exps["policies"] {
		r.sum.Compared = r.compared
	}
	r.order = resourceOrder(r.s)
	return r, nil
}

// experimentsOf reads --experiment: known names (or aliases), as a set.
func experimentsOf(list string) (map[string]bool, error) {
	exps := map[string]bool{}
	for _, e := range strings.Split(list, ",") {
		e = strings.TrimSpace(e)
		if to, ok := simExperimentAliases[e]; ok {
			e = to
		}
		if !contains(simExperiments, e) {
			return nil, slotfare.Errorf("", "--experiment", "unknown experiment %q (want %s)", e, strings.Join(simExperiments, ", "))
		}
		exps[e] = true
	}
	return exps, nil
}

// simScenario loads the scenario and applies --days, --load, --warmup and
// --scale to it; loads is what the policies experiment sweeps.
func simScenario(f simFlags) (s *sim.Scenario, loads []float64, err error) {
	if s, err = loadScenario(f.scenario); err != nil {
		return nil, nil, err
	}
	if f.given("days") {
		if f.days < 1 || f.days > 366 {
			return nil, nil, slotfare.Errorf("", "--days", "must be in 1..366, got %d", f.days)
		}
		s.Days = f.days
	}
	if f.given("load") {
		if s, err = s.Loaded(f.load); err != nil {
			return nil, nil, slotfare.E(slotfare.Invalid, slotfare.Field("--load"), slotfare.MessageOf(err))
		}
	}
	loads = sim.PolicyLoads
	if f.given("loads") {
		if loads, err = parseLoads(f.loads); err != nil {
			return nil, nil, err
		}
	}
	if f.warmup < 0 || f.warmup >= s.Days {
		return nil, nil, slotfare.Errorf("", "--warmup", "must be in 0..%d (fewer than the %d days simulated), got %d", s.Days-1, s.Days, f.warmup)
	}
	if f.scale != 1 {
		if s, err = s.Scaled(f.scale); err != nil {
			return nil, nil, slotfare.E(slotfare.Invalid, slotfare.Field("--scale"), slotfare.MessageOf(err))
		}
	}
	return s, loads, nil
}

// comparedResources is --resources, each a resource of s and given once,
// or the scenario's default.
func comparedResources(f simFlags, s *sim.Scenario) ([]string, error) {
	if !f.given("resources") {
		return sim.CompareResources(s), nil
	}
	var compared []string
	for _, id := range strings.Split(f.resources, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			return nil, slotfare.Errorf("", "--resources", "an empty resource id in %q", f.resources)
		}
		if !hasResource(s, id) {
			return nil, slotfare.Errorf("", "--resources", "the scenario has no resource %q (it has %s)", id, strings.Join(resourceOrder(s), ", "))
		}
		if contains(compared, id) {
			return nil, slotfare.Errorf("", "--resources", "%q given twice", id)
		}
		compared = append(compared, id)
	}
	return compared, nil
}

// readTraces reads the trace and elastic's requests from it, for the
// experiments that replay it.
func (r *simulation) readTraces() error {
	var err error
	if r.exps["elastic"] || r.exps["calendar"] || r.exps["delay-price"] {
		if r.trace, err = readSimTrace(r.f.traceFile); err != nil {
			return err
		}
	}
	r.elasticDays = 14
	if r.f.given("days") {
		r.elasticDays = r.s.Days
	}
	if r.exps["elastic"] {
		r.elasticJobs = sim.ElasticJobs(r.trace, sim.ElasticCapacity, r.elasticDays)
		if len(r.elasticJobs) == 0 {
			return badFlag("trace", "no job with a run time and processors in its first %d days (elastic replays the first --days of it)", r.elasticDays)
		}
	}
	return nil
}

// run runs the experiments asked, in simExperiments' order, each printing
// its table and adding its files and summary.
func (r *simulation) run(ctx context.Context) error {
	rmRes, obRes, elapsed, err := r.runRMAndOverbooking(ctx)
	if err != nil {
		return err
	}
	if r.exps["rm"] {
		if err := r.reportRM(rmRes, elapsed); err != nil {
			return err
		}
	}
	if r.exps["policies"] {
		if err := runPolicies(ctx, r.s, r.compared, r.loads, r.f.seed, r.f.warmup, r.f.workers, r.bar, r.sum, r.stdout, r.files); err != nil {
			return err
		}
	}
	if r.exps["overbooking"] {
		if err := r.reportOverbooking(obRes, elapsed); err != nil {
			return err
		}
	}
	if r.exps["elastic"] {
		if err := r.runElastic(); err != nil {
			return err
		}
	}
	if r.exps["calendar"] {
		fmt.Fprintf(r.stdout, "calendar: slotted time at %d widths vs the tree and the free list (seed 000 Sec. 7, Fig. 5), %s, rigid, %d nodes\n",
			len(calendarSlotWidths), traceName(r.f.traceFile), sim.ElasticCapacity)
		rows, err := runCalendarExperiment(r.trace, sim.ElasticCapacity, 3, r.stdout, r.files)
		if err != nil {
			return err
		}
		r.sum.Calendar = rows
		fmt.Fprintln(r.stdout)
	}
	if r.exps["timeouts"] {
		if err := r.runTimeouts(ctx); err != nil {
			return err
		}
	}
	if r.exps["delay-price"] {
		if r.sum.DelayPrice, err = runDelayPriceExperiment(r.trace, traceName(r.f.traceFile), r.f.seed, r.f.workers, r.stdout, r.files); err != nil {
			return err
		}
	}
	return nil
}

// runRMAndOverbooking runs rm's and overbooking's runs as one set on
// every worker, and a run both make (S2 is overbooking's "none, no CNS")
// once. elapsed is the set's wall time in seconds.
func (r *simulation) runRMAndOverbooking(ctx context.Context) (rmRes, obRes []*sim.Result, elapsed float64, err error) {
	var rmSpecs, obSpecs []sim.RunSpec
	if r.exps["rm"] {
		if rmSpecs, err = sim.RMSpecs(r.s, r.compared, r.f.seed); err != nil {
			return nil, nil, 0, err
		}
		warmUp(rmSpecs, r.f.warmup)
	}
	if r.exps["overbooking"] {
		var obRuns []sim.OverbookingRun
		if obSpecs, obRuns, err = sim.OverbookingSpecs(r.s, r.compared, r.f.seed); err != nil {
			return nil, nil, 0, err
		}
		warmUp(obSpecs, r.f.warmup)
		r.obSpecs, r.obRuns = obSpecs, obRuns
	}
	all := slices.Concat(rmSpecs, obSpecs)
	if len(all) == 0 {
		return nil, nil, 0, nil
	}
	var names []string
	for _, e := range []string{"rm", "overbooking"} {
		if r.exps[e] {
			names = append(names, e)
		}
	}
	if err := checkSimMemory(all, r.f.workers); err != nil {
		return nil, nil, 0, err
	}
	t0 := time.Now()
	res, err := sim.RunAll(ctx, all, r.f.workers, r.bar.track(strings.Join(names, ","), len(all)))
	r.bar.done()
	if err != nil {
		return nil, nil, 0, err
	}
	return res[:len(rmSpecs)], res[len(rmSpecs):], time.Since(t0).Seconds(), nil
}

// reportRM prints and files rm's results: S1 against S2.
func (r *simulation) reportRM(res []*sim.Result, elapsed float64) error {
	r.sum.RM = sim.RMSummary(res)
	fmt.Fprintf(r.stdout, "rm: S1 (%s static, tau_s 1.9 and 2.8) vs S2 (RM everywhere), %d days, seed %d, scale %d, %.1f s (with overbooking's runs when both are asked)\n",
		strings.Join(r.compared, ", "), r.s.Days, r.f.seed, r.f.scale, elapsed)
	if err := sim.WriteRMTable(r.stdout, r.sum.RM, r.order); err != nil {
		return err
	}
	fmt.Fprintln(r.stdout)
	var b bytes.Buffer
	if err := sim.WriteRMCSV(&b, r.sum.RM, r.order); err != nil {
		return err
	}
	r.files["rm.csv"] = b.Bytes()
	charts, err := sim.RMCharts(r.sum.RM, r.order, r.s.Config.Currency)
	if err != nil {
		return err
	}
	maps.Copy(r.files, charts)
	return nil
}

// reportOverbooking prints and files overbooking's results: its table,
// the limits each run published, and the charts.
func (r *simulation) reportOverbooking(res []*sim.Result, elapsed float64) error {
	specs, runs := r.obSpecs, r.obRuns
	r.sum.Overbooking = sim.OverbookingSummaryOf(r.s, r.compared, runs, res)
	fmt.Fprintf(r.stdout, "overbooking: %s, no CNS vs CNS, then probability/risk/service-level x lottery/dcf/lc-dcf, %d days, seed %d, scale %d, %.1f s (with rm's runs when both are asked)\n",
		strings.Join(r.compared, ", "), r.s.Days, r.f.seed, r.f.scale, elapsed)
	if err := sim.WriteOverbookingTable(r.stdout, r.sum.Overbooking); err != nil {
		return err
	}
	fmt.Fprintln(r.stdout)
	var b, l bytes.Buffer
	if err := sim.WriteOverbookingCSV(&b, r.sum.Overbooking); err != nil {
		return err
	}
	names := make([]string, len(specs))
	for i, sp := range specs {
		names[i] = sp.Name
	}
	if err := sim.WriteLimitsCSV(&l, names, res, r.compared); err != nil {
		return err
	}
	r.files["overbooking.csv"], r.files["overbooking_limits.csv"] = b.Bytes(), l.Bytes()
	charts, err := sim.OverbookingCharts(r.sum.Overbooking, runs, res, r.compared, r.order, r.s.Start.Unix(), r.s.Config.Currency)
	if err != nil {
		return err
	}
	maps.Copy(r.files, charts)
	return nil
}

// runElastic replays the trace's requests rigid, by first fit and by OSP.
func (r *simulation) runElastic() error {
	days, jobs := r.elasticDays, r.elasticJobs
	rows, err := sim.ElasticSweep(jobs, sim.ElasticCapacity, days)
	if err != nil {
		return err
	}
	r.sum.Elastic = rows
	fmt.Fprintf(r.stdout, "elastic: rigid vs first fit vs OSP (seed 004 Sec. 6.4), %s, first %d days (%d requests), %d nodes\n",
		traceName(r.f.traceFile), days, len(jobs), sim.ElasticCapacity)
	if err := sim.WriteElasticTable(r.stdout, rows); err != nil {
		return err
	}
	fmt.Fprintln(r.stdout)
	var b bytes.Buffer
	if err := sim.WriteElasticCSV(&b, rows); err != nil {
		return err
	}
	r.files["elastic.csv"] = b.Bytes()
	charts, err := sim.ElasticCharts(rows)
	if err != nil {
		return err
	}
	maps.Copy(r.files, charts)
	return nil
}

// runTimeouts measures the acceptance rate against the hold timeout.
func (r *simulation) runTimeouts(ctx context.Context) error {
	o := sim.DefaultTimeouts
	o.Seed = r.f.seed
	o.Progress = r.bar.track("timeouts", len(o.Rejecters)*len(o.Timeouts))
	t0 := time.Now()
	rows, err := sim.Timeouts(ctx, o, r.f.workers)
	r.bar.done()
	if err != nil {
		return err
	}
	r.sum.Timeouts = rows
	fmt.Fprintf(r.stdout, "timeouts: acceptance rate against the hold timeout (seed 003 Sec. 4.5, Fig. 9), %d accepters, 8 machines, slots of %d s, seed %d, %.1f s\n",
		o.Accepters, sim.TimeoutSlot, r.f.seed, time.Since(t0).Seconds())
	if err := sim.WriteTimeoutsTable(r.stdout, o, rows); err != nil {
		return err
	}
	fmt.Fprintln(r.stdout)
	var b bytes.Buffer
	if err := sim.WriteTimeoutsCSV(&b, rows); err != nil {
		return err
	}
	r.files["timeouts.csv"] = b.Bytes()
	charts, err := sim.TimeoutsCharts(o, rows)
	if err != nil {
		return err
	}
	maps.Copy(r.files, charts)
	return nil
}

// writeSimulation writes summary.json, index.html (with the tables
// printed) and every other file the experiments made into dir, in name
// order, and says which.
func writeSimulation(dir string, args []string, printed string, sum *sim.Summary, files map[string][]byte, currency string, stdout io.Writer) error {
	var b bytes.Buffer
	if err := sum.WriteJSON(&b); err != nil {
		return err
	}
	files["summary.json"] = b.Bytes()
	files["index.html"] = simIndex(args, printed, files, currency)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), files[n], 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "wrote %s in %s\n", strings.Join(names, ", "), dir)
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
	if err := checkSimMemory(specs, workers); err != nil {
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
		return nil, slotfare.E(slotfare.Invalid, slotfare.Field("--scenario"), err)
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

// simCPUProfile starts a CPU profile of the run into path when path is set
// (SLOTFARE_SIMULATE_CPUPROFILE): a whole simulate run shows where the
// longer runs spend, which a benchmark of one day does not (the show-rate
// history grows with the days). It returns the function that stops it.
func simCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, slotfare.E(slotfare.Invalid, slotfare.Field("SLOTFARE_SIMULATE_CPUPROFILE"), err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, slotfare.E(slotfare.Other, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
