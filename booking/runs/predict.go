package runs

import (
	"context"
	"encoding/json"
	"math"
	"time"

	"slotfare"
	"slotfare/forecast"
)

// DefaultRecent is how many of a resource's most recent runs of a profile
// (and runs that moved data, for its bandwidth) a prediction reads: enough
// for a stable mean, few enough that a prediction costs the same whatever
// the history's length.
const DefaultRecent = 100

// Prediction is a predicted duration as an offer, probe candidate or
// co-reservation part shows it: what is reserved (the prediction rounded up
// to whole seconds), which predictor made it, from how many runs, and the
// predictor's mean absolute error over the Scored runs it could have
// predicted before each was recorded.
type Prediction struct {
	Duration     time.Duration
	Predictor    string
	Runs         int
	Scored       int
	MeanAbsError time.Duration
}

type predictionJSON struct {
	Predictor    string  `json:"predictor"`
	Duration     int64   `json:"duration_seconds"`
	Runs         int     `json:"runs"`
	Scored       int     `json:"scored_runs"`
	MeanAbsError float64 `json:"mean_abs_error_seconds"`
}

// MarshalJSON writes the prediction with its times in seconds (the error to
// the millisecond).
func (p Prediction) MarshalJSON() ([]byte, error) {
	return json.Marshal(predictionJSON{Predictor: p.Predictor, Duration: int64(p.Duration / time.Second), Runs: p.Runs, Scored: p.Scored,
		MeanAbsError: math.Round(p.MeanAbsError.Seconds()*1000) / 1000})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (p *Prediction) UnmarshalJSON(data []byte) error {
	var j predictionJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*p = Prediction{Predictor: j.Predictor, Duration: time.Duration(j.Duration) * time.Second, Runs: j.Runs, Scored: j.Scored,
		MeanAbsError: seconds(j.MeanAbsError)}
	return nil
}

// Predictor predicts how long a job of a profile holds a resource from the
// runs on a Store: the resource's Recent most recent runs of the profile,
// and for ETTS its most recent runs that moved data, each a bandwidth
// sample (bytes over transfer time, taken at the run's finish). What it
// reads is bounded and it keeps nothing between calls: every replica on the
// same store predicts the same from the same runs. It is safe for
// concurrent use.
type Predictor struct {
	st     Store
	recent int
	maxAge time.Duration
}

// NewPredictor returns a Predictor over st reading at most recent runs per
// question (DefaultRecent when recent < 1), of those finished at most
// maxAge before now (any when maxAge is 0): the store deletes older runs
// as it writes, and until it has they do not count.
func NewPredictor(st Store, recent int, maxAge time.Duration) *Predictor {
	if recent < 1 {
		recent = DefaultRecent
	}
	return &Predictor{st: st, recent: recent, maxAge: maxAge}
}

// current is the prefix of runs (newest first) finished at most p.maxAge
// before now.
func (p *Predictor) current(runs []Run, now time.Time) []Run {
	if p.maxAge <= 0 {
		return runs
	}
	cutoff := now.Add(-p.maxAge)
	for i, r := range runs {
		if r.FinishedAt.Before(cutoff) {
			return runs[:i]
		}
	}
	return runs
}

// Predict predicts the duration of a job of profile on resourceID that
// starts at start and moves bytes (0: none), as known at now: ETTS when
// bytes > 0 and the resource has runs that moved data, TCT otherwise (seed
// 002 Sec. 4.3, forecast.PredictDuration). ok is false when the resource
// has no run of the profile finished by now. Duration is rounded up to
// whole seconds and is at least one.
func (p *Predictor) Predict(ctx context.Context, resourceID, profile string, bytes int64, start, now time.Time) (Prediction, bool, error) {
	const op slotfare.Op = "runs.Predict"
	if bytes < 0 {
		return Prediction{}, false, slotfare.Errorf(op, "bytes", "must be at least 0, not %d", bytes)
	}
	recent, err := p.st.Recent(ctx, resourceID, profile, p.recent)
	if err != nil {
		return Prediction{}, false, slotfare.E(op, err)
	}
	recent = p.current(recent, now)
	if len(recent) == 0 {
		return Prediction{}, false, nil
	}
	var samples []forecast.BandwidthSample
	if bytes > 0 {
		moved, err := p.st.Transfers(ctx, resourceID, p.recent)
		if err != nil {
			return Prediction{}, false, slotfare.E(op, err)
		}
		for _, r := range p.current(moved, now) {
			samples = append(samples, forecast.BandwidthSample{Host: resourceID, At: r.FinishedAt, BytesPerSecond: r.bandwidth()})
		}
	}
	past := make([]forecast.PastRun, len(recent))
	for i, r := range recent {
		past[i] = forecast.PastRun{Host: resourceID, App: profile, Finished: r.FinishedAt, Execution: r.Runtime, Transfer: r.Transfer, Bytes: r.Bytes}
	}
	fp, ok, err := forecast.PredictDuration(past, samples, forecast.DurationQuery{Host: resourceID, App: profile, Bytes: bytes, Start: start, Now: now})
	if err != nil || !ok {
		return Prediction{}, false, err
	}
	d := (fp.Duration + time.Second - 1).Truncate(time.Second)
	if d < time.Second {
		d = time.Second
	}
	return Prediction{Duration: d, Predictor: fp.Predictor, Runs: fp.Runs, Scored: fp.Scored, MeanAbsError: fp.MeanAbsError}, true, nil
}
