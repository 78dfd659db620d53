// Package sim is slotfare's simulator: it runs the real booking service
// (service.Open on the embedded ports over an in-memory store, no HTTP) under a virtual clock, with
// synthetic users whose arrivals, choices, cancellations and no-shows follow
// the EU DataGrid evaluation of seed 004 (Sec. 7.7, Tables 7.7-7.9) or a
// provider's own scenario, and reports what the resources earned.
//
// The users make the calls the API makes: Offers, Hold on the chosen offer,
// Commit, CheckIn before the start (or not: a no-show), Cancel; the driver
// calls Tick at every slot boundary, so booking control forecasts and
// recomputes its limits from the history as it accumulates, exactly as in
// production.
package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"slotfare"
	"slotfare/booking/config"
	"slotfare/pricing"
)

// Choice is how a user picks among the resources' offers.
type Choice string

const (
	// EarliestCompletion takes the offer that ends first (seed 004 Sec.
	// 7.7.1: premium, Grid-level users).
	EarliestCompletion Choice = "earliest-completion"
	// Cheapest takes the offer with the lowest price (Sec. 7.7.1: budget,
	// VO-level users, "based on the cheapest price").
	Cheapest Choice = "cheapest"
)

// Scenario is one simulation's setup: the resources as `serve --config`
// configures them, and the workload.
type Scenario struct {
	Name   string
	Config config.Config
	// Start is the virtual clock's start (a Monday 00:00 UTC by default).
	Start time.Time
	// Days of arrivals; the run then goes on until every booking is over.
	Days int
	// Ratings are the resources' CPU ratings (Table 7.7), by resource id,
	// by which a level's runtimes are scaled (runtime x level rating /
	// resource rating). A resource without one is not scaled.
	Ratings map[string]float64
	// NoShow is the probability that a committed booking does not show, by
	// the rate period of its start on its resource (Sec. 7.7.1: 0.05, 0.10
	// and 0.15 in peak, off-peak and super saver).
	NoShow map[string]float64
	// Levels are the Poisson arrival streams (Tables 7.7-7.9).
	Levels []Level
	// Traces are SWF workload traces replayed as arrivals.
	Traces []Trace
}

// Users is what a stream's users do: which class they buy, on which
// resources, how they choose, and how far ahead and how flexibly they book.
type Users struct {
	// Class is the fare class the users buy (premium, business, budget).
	// Where a resource does not sell it, they buy the cheapest class of
	// that resource they may (a static-priced resource's one class).
	Class string
	// VO is the users' virtual organisation ("" = none).
	VO string
	// Resources they may book ("" / empty = every resource).
	Resources []string
	Choice    Choice
	// Rating is the CPU rating the runtimes are measured on (Table 7.8); 0
	// = no scaling.
	Rating float64
	// LeadSeconds is the booking period of Table 7.9: how far after its
	// arrival a job asks to start.
	LeadSeconds int64
	// SearchSeconds is the search limit of Table 7.9: how much later than
	// asked the job may end (Fig. 6.3: appended at the end of the job).
	SearchSeconds int64
	// CancelRate is lambda_c of Table 7.9: the share of committed bookings
	// that are cancelled. The thesis calls them unanticipated (Sec. 7.7.3):
	// they come shortly before the start, an exponential time with a mean
	// of one tick, too late for the nodes to be sold again.
	CancelRate float64
}

// Level is a Poisson arrival stream of users (one row of Table 7.7 or 7.8
// with its column of Table 7.9).
type Level struct {
	Name string
	Users
	// Rates are the arrivals per second by rate period, on the rate
	// calendar of the level's first resource.
	Rates map[string]float64
	// PerHour records that the scenario gave the rates per hour
	// ("arrivals": {"per_hour": ..}); Rates hold them per second all the
	// same. Errors name the field as it was given.
	PerHour bool
	// WillingnessToPay is the highest price the level's users accept; nil
	// is the thesis's model: no ceiling, and a user whose class is closed
	// walks away instead of buying up.
	WillingnessToPay *WillingnessToPay
	// MeanRuntime is the mean of the exponential runtime, in seconds.
	MeanRuntime float64
	// Nodes per job (1: bag-of-tasks, Sec. 7.7.1).
	Nodes int
}

// WillingnessToPay is the distribution of the highest price per
// node-second a user accepts, as a multiple of the resource's base cost
// (the unit of a fare class's tau, so that a user compares it with the
// fares of every resource alike): lognormal, exp(ln Median + Spread x Z)
// with Z standard normal. Seed 004 Table 7.2 has budget users "highly
// price sensitive", business and premium users less so; the scenario says
// how much.
type WillingnessToPay struct {
	Median float64
	// Spread is the standard deviation of the logarithm.
	Spread float64
}

// Draw is one user's ceiling from a standard normal variate z.
func (w WillingnessToPay) Draw(z float64) float64 { return w.Median * math.Exp(w.Spread*z) }

// Trace replays an SWF log: each job arrives at the scenario's start plus
// its submit time, with its run time and processors.
type Trace struct {
	Name string
	Users
	// Jobs are the log's jobs (read from File when decoded).
	Jobs []TraceJob
	// File is the SWF file (as given in the scenario).
	File string
}

// TraceJob is one job of a trace.
type TraceJob struct {
	Submit  int64 // seconds after the scenario's start
	Runtime int64 // seconds
	Nodes   int
}

// DefaultStart is the virtual clock's start when a scenario gives none: a
// Monday at 00:00 UTC.
var DefaultStart = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

// Validate checks a scenario built in Go or decoded: the configuration,
// then the workload against it. Errors are Invalid naming the field as
// DecodeScenario reads it.
func (s *Scenario) Validate() error {
	const op slotfare.Op = "sim.Scenario"
	if err := s.Config.Validate(); err != nil {
		return reroot(err, "config")
	}
	if s.Days < 1 || s.Days > 366 {
		return slotfare.Errorf(op, "days", "must be in 1..366, got %d", s.Days)
	}
	ids := map[string]config.ResourceConfig{}
	for _, rc := range s.Config.Resources {
		ids[rc.ID] = rc
	}
	for _, id := range sortedKeys(s.Ratings) {
		if _, ok := ids[id]; !ok {
			return slotfare.Errorf(op, "ratings."+id, "no resource %q in config", id)
		}
		if r := s.Ratings[id]; !(r > 0) || math.IsInf(r, 0) {
			return slotfare.Errorf(op, "ratings."+id, "must be a positive number, got %v", r)
		}
	}
	for _, p := range sortedKeys(s.NoShow) {
		if q := s.NoShow[p]; !(q >= 0 && q < 1) {
			return slotfare.Errorf(op, "no_show."+p, "must be in [0, 1), got %v", q)
		}
	}
	if len(s.Levels) == 0 && len(s.Traces) == 0 {
		return slotfare.Errorf(op, "levels", "the workload is empty: give levels or traces")
	}
	for i, l := range s.Levels {
		at := fmt.Sprintf("levels[%d]", i)
		if err := s.checkUsers(at, l.Name, l.Users, ids); err != nil {
			return err
		}
		if l.Nodes < 1 {
			return slotfare.Errorf(op, at+".nodes", "must be at least 1, got %d", l.Nodes)
		}
		if !(l.MeanRuntime >= 1) || math.IsInf(l.MeanRuntime, 0) {
			return slotfare.Errorf(op, at+".mean_runtime_seconds", "must be at least 1, got %v", l.MeanRuntime)
		}
		field, unit := at+".rates", 1.0
		if l.PerHour {
			field, unit = at+".arrivals.per_hour", 3600
		}
		if len(l.Rates) == 0 {
			return slotfare.Errorf(op, field, "is required: arrivals by rate period")
		}
		if w := l.WillingnessToPay; w != nil {
			if !(w.Median > 0) || math.IsInf(w.Median, 0) {
				return slotfare.Errorf(op, at+".willingness_to_pay.median", "must be a positive multiple of the base cost, got %v", w.Median)
			}
			if !(w.Spread > 0) || w.Spread > 5 {
				return slotfare.Errorf(op, at+".willingness_to_pay.spread", "must be in (0, 5], got %v", w.Spread)
			}
		}
		cal, err := ids[l.Resources[0]].RateCalendar()
		if err != nil {
			return slotfare.E(op, err)
		}
		known := map[string]bool{}
		for _, p := range cal.PeriodNames() {
			known[p] = true
		}
		for _, p := range sortedKeys(l.Rates) {
			if !known[p] {
				return slotfare.Errorf(op, field+"."+p, "%q is not a rate period of %s (have %s)", p, l.Resources[0], strings.Join(cal.PeriodNames(), ", "))
			}
			if r := l.Rates[p]; !(r >= 0) || r > 100 {
				return slotfare.Errorf(op, field+"."+p, "must be in [0, %v] arrivals, got %v", 100*unit, r*unit)
			}
		}
	}
	for i, tr := range s.Traces {
		at := fmt.Sprintf("traces[%d]", i)
		if err := s.checkUsers(at, tr.Name, tr.Users, ids); err != nil {
			return err
		}
	}
	return nil
}

// checkUsers checks a stream's users; it fills Resources with every
// resource when empty (sorted by id).
func (s *Scenario) checkUsers(at, name string, u Users, ids map[string]config.ResourceConfig) error {
	const op slotfare.Op = "sim.Scenario"
	if name == "" {
		return slotfare.Errorf(op, at+".name", "is required")
	}
	if u.Class == "" {
		return slotfare.Errorf(op, at+".class", "is required (the fare class the users buy)")
	}
	if len(u.Resources) == 0 {
		return slotfare.Errorf(op, at+".resources", "is required")
	}
	seen := map[string]bool{}
	for j, id := range u.Resources {
		rc, ok := ids[id]
		if !ok {
			return slotfare.Errorf(op, fmt.Sprintf("%s.resources[%d]", at, j), "no resource %q in config", id)
		}
		if seen[id] {
			return slotfare.Errorf(op, fmt.Sprintf("%s.resources[%d]", at, j), "%q appears twice", id)
		}
		seen[id] = true
		if !sellsTo(rc, u) {
			return slotfare.Errorf(op, fmt.Sprintf("%s.resources[%d]", at, j), "resource %s sells no fare class to VO %q", id, u.VO)
		}
	}
	switch u.Choice {
	case EarliestCompletion, Cheapest:
	default:
		return slotfare.Errorf(op, at+".choice", "%q is not a choice: want earliest-completion or cheapest", string(u.Choice))
	}
	if u.Rating < 0 || math.IsNaN(u.Rating) || math.IsInf(u.Rating, 0) {
		return slotfare.Errorf(op, at+".rating", "must be a positive number (or absent), got %v", u.Rating)
	}
	if u.LeadSeconds < 0 || u.LeadSeconds > 30*86400 {
		return slotfare.Errorf(op, at+".lead_seconds", "must be in 0..%d, got %d", 30*86400, u.LeadSeconds)
	}
	if u.SearchSeconds < 0 || u.SearchSeconds > 30*86400 {
		return slotfare.Errorf(op, at+".search_seconds", "must be in 0..%d, got %d", 30*86400, u.SearchSeconds)
	}
	if !(u.CancelRate >= 0) || u.CancelRate > 1 {
		return slotfare.Errorf(op, at+".cancel_rate", "must be a share in [0, 1], got %v", u.CancelRate)
	}
	return nil
}

// sellsTo reports whether rc sells the users any class: theirs, or one
// open to their VO.
func sellsTo(rc config.ResourceConfig, u Users) bool {
	for _, c := range rc.FareClasses {
		if c.Admits(pricing.VO(u.VO)) {
			return true
		}
	}
	return false
}

// reroot puts an error's fields under prefix ("resources[3].nodes" becomes
// "config.resources[3].nodes"), every one of them when the configuration
// found several (slotfare.Join), as serve --config lists them.
func reroot(err error, prefix string) error {
	const op slotfare.Op = "sim.DecodeScenario"
	kind := slotfare.KindOf(err)
	if kind == slotfare.Other {
		kind = slotfare.Invalid
	}
	fields := slotfare.FieldsOf(err)
	if slotfare.FieldOf(err) == "" {
		fields = append([]slotfare.FieldMessage{{Message: slotfare.MessageOf(err)}}, fields...)
	}
	errs := make([]error, len(fields))
	for i, fm := range fields {
		f := prefix
		if fm.Field != "" {
			f = prefix + "." + fm.Field
		}
		errs[i] = &slotfare.Error{Op: op, Kind: kind, Field: f, Msg: fm.Message}
	}
	return slotfare.Join(errs...)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// wire forms of the scenario file.
type wireScenario struct {
	Name    *string            `json:"name"`
	Config  json.RawMessage    `json:"config"`
	Start   *time.Time         `json:"start"`
	Days    *int               `json:"days"`
	Ratings map[string]float64 `json:"ratings"`
	NoShow  map[string]float64 `json:"no_show"`
	Levels  []json.RawMessage  `json:"levels"`
	Traces  []json.RawMessage  `json:"traces"`
}

type wireUsers struct {
	Name          *string  `json:"name"`
	Class         *string  `json:"class"`
	VO            *string  `json:"vo"`
	Resources     []string `json:"resources"`
	Choice        *string  `json:"choice"`
	Rating        *float64 `json:"rating"`
	LeadSeconds   *int64   `json:"lead_seconds"`
	SearchSeconds *int64   `json:"search_seconds"`
	CancelRate    *float64 `json:"cancel_rate"`
}

type wireLevel struct {
	wireUsers
	Rates       map[string]float64 `json:"rates"`
	Arrivals    json.RawMessage    `json:"arrivals"`
	WTP         json.RawMessage    `json:"willingness_to_pay"`
	MeanRuntime *float64           `json:"mean_runtime_seconds"`
	Nodes       *int               `json:"nodes"`
}

// wireArrivals is a level's arrival rates with their unit.
type wireArrivals struct {
	PerHour   map[string]float64 `json:"per_hour"`
	PerSecond map[string]float64 `json:"per_second"`
}

type wireWTP struct {
	Distribution *string  `json:"distribution"`
	Median       *float64 `json:"median"`
	Spread       *float64 `json:"spread"`
}

type wireTrace struct {
	wireUsers
	File    *string `json:"file"`
	MaxJobs *int    `json:"max_jobs"`
}

// TraceReader opens a trace file named in a scenario and reads its jobs
// (the caller resolves the path and reads SWF).
type TraceReader func(file string, maxJobs int) ([]TraceJob, error)

// DecodeScenario reads a scenario file strictly, as DecodeConfig reads
// `serve --config`: malformed JSON, unknown or repeated fields, wrong types
// and trailing data are refused, and every error is Invalid naming the
// field ("config.resources[2].nodes", "levels[0].rates.peak"). The file is
//
//	{"name": "...", "config": {the serve configuration}, "start": RFC 3339,
//	 "days": 14, "ratings": {"RAL": 49000, ..}, "no_show": {"peak": 0.05, ..},
//	 "levels": [{"name", "class", "vo", "resources", "choice", "rating",
//	   "lead_seconds", "search_seconds", "cancel_rate",
//	   "rates": {"peak": 0.0167, ..} (per second) or
//	   "arrivals": {"per_hour": {"peak": 60, ..}},
//	   "willingness_to_pay": null or {"distribution": "lognormal",
//	     "median": 2.5, "spread": 0.3} (multiples of the base cost),
//	   "mean_runtime_seconds", "nodes"}],
//	 "traces": [{the same users fields, "file": "x.swf", "max_jobs": N}]}
//
// readTrace reads a trace's file; nil refuses traces.
func DecodeScenario(data []byte, readTrace TraceReader) (*Scenario, error) {
	var w wireScenario
	if err := decodeStrict(data, &w, ""); err != nil {
		return nil, err
	}
	s := &Scenario{Start: DefaultStart, Days: 14, Ratings: w.Ratings, NoShow: w.NoShow}
	if w.Name != nil {
		s.Name = *w.Name
	}
	if len(w.Config) == 0 || bytes.Equal(bytes.TrimSpace(w.Config), []byte("null")) {
		return nil, slotfare.Errorf("sim.DecodeScenario", "config", "is required: the resources as serve --config reads them")
	}
	cfg, err := config.DecodeConfig(w.Config)
	if err != nil {
		return nil, reroot(err, "config")
	}
	s.Config = cfg
	if w.Start != nil {
		s.Start = w.Start.UTC()
	}
	if w.Days != nil {
		s.Days = *w.Days
	}
	for i, raw := range w.Levels {
		at := fmt.Sprintf("levels[%d]", i)
		var wl wireLevel
		if err := decodeStrict(raw, &wl, at); err != nil {
			return nil, err
		}
		l := Level{Rates: wl.Rates, Nodes: 1}
		if err := wl.arrivals(&l, at); err != nil {
			return nil, err
		}
		if err := wl.willingness(&l, at); err != nil {
			return nil, err
		}
		l.Name, l.Users = wl.users(s)
		if wl.MeanRuntime != nil {
			l.MeanRuntime = *wl.MeanRuntime
		}
		if wl.Nodes != nil {
			l.Nodes = *wl.Nodes
		}
		s.Levels = append(s.Levels, l)
	}
	for i, raw := range w.Traces {
		at := fmt.Sprintf("traces[%d]", i)
		var wt wireTrace
		if err := decodeStrict(raw, &wt, at); err != nil {
			return nil, err
		}
		t := Trace{}
		t.Name, t.Users = wt.users(s)
		if wt.File == nil || *wt.File == "" {
			return nil, slotfare.Errorf("sim.DecodeScenario", at+".file", "is required (an SWF trace)")
		}
		t.File = *wt.File
		maxJobs := 0
		if wt.MaxJobs != nil {
			if *wt.MaxJobs < 1 {
				return nil, slotfare.Errorf("sim.DecodeScenario", at+".max_jobs", "must be at least 1, got %d", *wt.MaxJobs)
			}
			maxJobs = *wt.MaxJobs
		}
		if readTrace == nil {
			return nil, slotfare.Errorf("sim.DecodeScenario", at+".file", "traces cannot be read here")
		}
		jobs, err := readTrace(t.File, maxJobs)
		if err != nil {
			return nil, slotfare.E(slotfare.Op("sim.DecodeScenario"), slotfare.Invalid, slotfare.Field(at+".file"), err)
		}
		t.Jobs = jobs
		s.Traces = append(s.Traces, t)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// arrivals reads a level's rates: "rates" (per second, GridSim's unit,
// as the thesis's tables are read) or "arrivals" with an explicit unit,
// not both.
func (w wireLevel) arrivals(l *Level, at string) error {
	const op slotfare.Op = "sim.DecodeScenario"
	if isNull(w.Arrivals) {
		return nil
	}
	if w.Rates != nil {
		return slotfare.Errorf(op, at+".arrivals", "give the rates once: \"rates\" (per second) or \"arrivals\", not both")
	}
	var a wireArrivals
	if err := decodeStrict(w.Arrivals, &a, at+".arrivals"); err != nil {
		return err
	}
	switch {
	case a.PerHour != nil && a.PerSecond != nil:
		return slotfare.Errorf(op, at+".arrivals", "give one unit: per_hour or per_second")
	case a.PerHour != nil:
		l.Rates, l.PerHour = map[string]float64{}, true
		for p, r := range a.PerHour {
			l.Rates[p] = r / 3600
		}
	case a.PerSecond != nil:
		l.Rates = a.PerSecond
	default:
		return slotfare.Errorf(op, at+".arrivals", "give the rates per_hour or per_second")
	}
	return nil
}

// willingness reads "willingness_to_pay": null (the thesis's model) or
// {"distribution": "lognormal", "median": m, "spread": s}.
func (w wireLevel) willingness(l *Level, at string) error {
	const op slotfare.Op = "sim.DecodeScenario"
	if isNull(w.WTP) {
		return nil
	}
	at += ".willingness_to_pay"
	var ww wireWTP
	if err := decodeStrict(w.WTP, &ww, at); err != nil {
		return err
	}
	if ww.Distribution != nil && *ww.Distribution != "lognormal" {
		return slotfare.Errorf(op, at+".distribution", "%q is not a distribution: want lognormal", *ww.Distribution)
	}
	if ww.Median == nil {
		return slotfare.Errorf(op, at+".median", "is required: the median multiple of the base cost")
	}
	if ww.Spread == nil {
		return slotfare.Errorf(op, at+".spread", "is required: the standard deviation of the logarithm")
	}
	l.WillingnessToPay = &WillingnessToPay{Median: *ww.Median, Spread: *ww.Spread}
	return nil
}

// users reads the users' fields; resources default to every resource.
func (w wireUsers) users(s *Scenario) (string, Users) {
	var u Users
	name := ""
	if w.Name != nil {
		name = *w.Name
	}
	if w.Class != nil {
		u.Class = *w.Class
	}
	if w.VO != nil {
		u.VO = *w.VO
	}
	u.Resources = w.Resources
	if len(u.Resources) == 0 {
		for _, rc := range s.Config.Resources {
			u.Resources = append(u.Resources, rc.ID)
		}
		sort.Strings(u.Resources)
	}
	u.Choice = EarliestCompletion
	if w.Choice != nil {
		u.Choice = Choice(*w.Choice)
	}
	if w.Rating != nil {
		u.Rating = *w.Rating
	}
	if w.LeadSeconds != nil {
		u.LeadSeconds = *w.LeadSeconds
	}
	if w.SearchSeconds != nil {
		u.SearchSeconds = *w.SearchSeconds
	}
	if w.CancelRate != nil {
		u.CancelRate = *w.CancelRate
	}
	return name, u
}

// decodeStrict reads a scenario document as the configuration is read.
func decodeStrict(data []byte, v any, path string) error {
	return config.DecodeStrict("sim.DecodeScenario", data, v, path)
}
