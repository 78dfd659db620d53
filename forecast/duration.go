package forecast

import (
	"fmt"
	"math"
	"sort"
	"time"

	"slotfare"
)

// PastRun is one finished execution of an application on a host: how long it
// executed and how long moving its data took. Runs of "the same application"
// share App (seed 002 Sec. 4.3 calls two jobs the same application type when
// their inputs and outputs match in number, type and size; the caller decides
// what App holds: an executable, a user, a job class).
type PastRun struct {
	Host, App string
	Finished  time.Time     // when it ended; only runs finished by now are history
	Execution time.Duration // time executing on the host
	Transfer  time.Duration // time moving its input and output (zero if unknown)
	// Bytes is how much data the run moved (zero if unknown); only
	// PredictDuration reads it, to score ETTS on the run.
	Bytes int64
}

// BandwidthSample is a recorded bandwidth to a host at an instant.
type BandwidthSample struct {
	Host           string
	At             time.Time
	BytesPerSecond float64
}

// DurationPredictor predicts how long a job will hold a host from the host's
// own history, not from the user's estimate (seed 002 Sec. 4.3): TCT, the
// mean total completion time (execution plus transfers) of the application's
// previous runs on the host; and ETTS, execution and transfer times
// separately: the mean execution time, plus the bytes to move divided by the
// mean bandwidth the host had the day before over the interval the job will
// run in. It is immutable once built and safe for concurrent use; every
// question takes now, so a replay sees only the past.
type DurationPredictor struct {
	runs      map[durationKey]*runHistory
	bandwidth map[string]*bandwidthHistory
	window    time.Duration
}

type durationKey struct{ host, app string }

// runHistory holds one (host, app)'s runs by end time with prefix sums, in
// seconds, of execution and completion times.
type runHistory struct {
	finished   []time.Time
	execSum    []float64 // execSum[k] = sum of the first k executions
	completion []float64 // completion[k] = sum of the first k executions + transfers
}

type bandwidthHistory struct {
	at  []time.Time
	sum []float64 // sum[k] = sum of the first k samples' bytes per second
}

// DefaultBandwidthWindow is the interval of the previous day whose bandwidth
// samples ETTS averages when no window is given: one hour from the job's
// start time, a day earlier.
const DefaultBandwidthWindow = time.Hour

// NewDurationPredictor indexes past runs and bandwidth samples. window is the
// length of the interval of the previous day averaged for the transfer rate
// (zero means DefaultBandwidthWindow). Errors are slotfare.Invalid naming the
// record ("runs[2].execution").
func NewDurationPredictor(runs []PastRun, samples []BandwidthSample, window time.Duration) (*DurationPredictor, error) {
	const op slotfare.Op = "forecast.NewDurationPredictor"
	if window == 0 {
		window = DefaultBandwidthWindow
	}
	if window < 0 {
		return nil, slotfare.Errorf(op, "window", "bandwidth window %s is negative", window)
	}
	p := &DurationPredictor{runs: map[durationKey]*runHistory{}, bandwidth: map[string]*bandwidthHistory{}, window: window}
	byKey := map[durationKey][]int{}
	for i, r := range runs {
		at := func(field string) string { return fmt.Sprintf("runs[%d].%s", i, field) }
		switch {
		case r.Host == "":
			return nil, slotfare.Errorf(op, at("host"), "no host")
		case r.App == "":
			return nil, slotfare.Errorf(op, at("app"), "no application")
		case r.Execution < 0:
			return nil, slotfare.Errorf(op, at("execution"), "execution time %s is negative", r.Execution)
		case r.Transfer < 0:
			return nil, slotfare.Errorf(op, at("transfer"), "transfer time %s is negative", r.Transfer)
		}
		k := durationKey{r.Host, r.App}
		byKey[k] = append(byKey[k], i)
	}
	for k, idx := range byKey {
		sort.SliceStable(idx, func(a, b int) bool { return runs[idx[a]].Finished.Before(runs[idx[b]].Finished) })
		h := &runHistory{finished: make([]time.Time, len(idx)), execSum: make([]float64, len(idx)+1), completion: make([]float64, len(idx)+1)}
		for j, i := range idx {
			r := runs[i]
			h.finished[j] = r.Finished
			h.execSum[j+1] = h.execSum[j] + r.Execution.Seconds()
			h.completion[j+1] = h.completion[j] + r.Execution.Seconds() + r.Transfer.Seconds()
		}
		p.runs[k] = h
	}
	byHost := map[string][]int{}
	for i, s := range samples {
		if s.Host == "" {
			return nil, slotfare.Errorf(op, fmt.Sprintf("samples[%d].host", i), "no host")
		}
		if !(s.BytesPerSecond > 0) || math.IsInf(s.BytesPerSecond, 0) {
			return nil, slotfare.Errorf(op, fmt.Sprintf("samples[%d].bytes_per_second", i), "bandwidth %v is not a positive number", s.BytesPerSecond)
		}
		byHost[s.Host] = append(byHost[s.Host], i)
	}
	for host, idx := range byHost {
		sort.SliceStable(idx, func(a, b int) bool { return samples[idx[a]].At.Before(samples[idx[b]].At) })
		h := &bandwidthHistory{at: make([]time.Time, len(idx)), sum: make([]float64, len(idx)+1)}
		for j, i := range idx {
			h.at[j] = samples[i].At
			h.sum[j+1] = h.sum[j] + samples[i].BytesPerSecond
		}
		p.bandwidth[host] = h
	}
	return p, nil
}

// finishedBy is how many runs ended at or before now.
func (h *runHistory) finishedBy(now time.Time) int {
	return sort.Search(len(h.finished), func(i int) bool { return h.finished[i].After(now) })
}

// TCT predicts a job's total completion time on host as the mean completion
// time (execution plus transfer) of the application's runs there that ended
// by now (seed 002 Sec. 4.3, technique 1). runs is how many; ok is false
// when there are none (fall back on the user's estimate).
func (p *DurationPredictor) TCT(host, app string, now time.Time) (d time.Duration, runs int, ok bool) {
	h := p.runs[durationKey{host, app}]
	if h == nil {
		return 0, 0, false
	}
	n := h.finishedBy(now)
	if n == 0 {
		return 0, 0, false
	}
	return secondsDuration(h.completion[n] / float64(n)), n, true
}

// DurationEstimate is an ETTS prediction.
type DurationEstimate struct {
	Execution time.Duration // mean execution time of past runs
	Transfer  time.Duration // bytes / Bandwidth
	Total     time.Duration // Execution + Transfer: what to reserve
	Runs      int           // past runs averaged
	// Bandwidth is the mean bytes per second used, from Samples samples;
	// DayBefore says they came from the previous day's window, not (for
	// lack of samples there) from the host's whole history before now.
	Bandwidth float64
	Samples   int
	DayBefore bool
}

// ETTS predicts a job's time on host with execution and transfer estimated
// separately (seed 002 Sec. 4.3, technique 2): the mean execution time of the
// application's runs there that ended by now, plus bytes over the mean
// bandwidth recorded to the host during [start, start + window) one calendar
// day earlier (start.AddDate(0, 0, -1) in start's location, so pass start in
// the resource's zone to keep the time of day across a clock change),
// counting only samples taken before now. With no sample in that window the
// mean of every sample before now is used (DayBefore false). ok is false
// without past runs, or with bytes > 0 and no sample at all.
func (p *DurationPredictor) ETTS(host, app string, bytes int64, start, now time.Time) (DurationEstimate, bool, error) {
	const op slotfare.Op = "forecast.DurationPredictor.ETTS"
	if bytes < 0 {
		return DurationEstimate{}, false, slotfare.Errorf(op, "bytes", "bytes to transfer %d is negative", bytes)
	}
	h := p.runs[durationKey{host, app}]
	if h == nil {
		return DurationEstimate{}, false, nil
	}
	n := h.finishedBy(now)
	if n == 0 {
		return DurationEstimate{}, false, nil
	}
	e := DurationEstimate{Execution: secondsDuration(h.execSum[n] / float64(n)), Runs: n}
	if bytes > 0 {
		b := p.bandwidth[host]
		if b == nil {
			return DurationEstimate{}, false, nil
		}
		from := start.AddDate(0, 0, -1)
		to := from.Add(p.window)
		if to.After(now) {
			to = now
		}
		mean, count := b.mean(from, to)
		e.DayBefore = count > 0
		if count == 0 {
			mean, count = b.mean(time.Time{}, now)
		}
		if count == 0 {
			return DurationEstimate{}, false, nil
		}
		e.Bandwidth, e.Samples = mean, count
		e.Transfer = secondsDuration(float64(bytes) / mean)
	}
	e.Total = e.Execution + e.Transfer
	return e, true, nil
}

// mean is the mean of the samples taken in [from, to).
func (b *bandwidthHistory) mean(from, to time.Time) (float64, int) {
	lo := sort.Search(len(b.at), func(i int) bool { return !b.at[i].Before(from) })
	hi := sort.Search(len(b.at), func(i int) bool { return !b.at[i].Before(to) })
	if hi <= lo {
		return 0, 0
	}
	return (b.sum[hi] - b.sum[lo]) / float64(hi-lo), hi - lo
}

// secondsDuration converts seconds to a Duration, rounded to the nanosecond
// and capped at the largest Duration.
func secondsDuration(s float64) time.Duration {
	ns := math.Round(s * 1e9)
	if ns >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ns)
}
