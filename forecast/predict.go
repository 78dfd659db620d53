package forecast

import (
	"math"
	"sort"
	"time"

	"slotfare"
)

// PredictorETTS names the execution-and-transfer-separately predictor in a
// Prediction (seed 002 Sec. 4.3, technique 2).
const PredictorETTS = "ETTS"

// DurationQuery is what PredictDuration is asked: the job of App on Host,
// moving Bytes, starting at Start, as known at Now. Window is ETTS's
// bandwidth window (zero: DefaultBandwidthWindow).
type DurationQuery struct {
	Host, App  string
	Bytes      int64
	Start, Now time.Time
	Window     time.Duration
}

// PredictDuration predicts the job of q from a history of runs and
// bandwidth samples, and says how well the chosen predictor did on that
// history: ETTS (seed 002 Sec. 4.3, technique 2) when the job moves bytes
// and the host has bandwidth samples, TCT (technique 1) otherwise. The
// error is scored as the runs came in: each run of the application on the
// host, in finishing order, predicted from the runs and samples from before
// it finished (for ETTS with its own bytes and start), against its
// execution plus transfer time. ok is false with no run of the application
// on the host finished by q.Now. It is a pure function of its arguments, so
// callers keep the history wherever it must live (the service keeps it on a
// store every replica reads). Errors are slotfare.Invalid naming the field.
func PredictDuration(runs []PastRun, samples []BandwidthSample, q DurationQuery) (Prediction, bool, error) {
	const op slotfare.Op = "forecast.PredictDuration"
	if q.Bytes < 0 {
		return Prediction{}, false, slotfare.Errorf(op, "bytes", "bytes to transfer %d is negative", q.Bytes)
	}
	p, err := NewDurationPredictor(runs, samples, q.Window)
	if err != nil {
		return Prediction{}, false, err
	}
	pr := Prediction{Predictor: PredictorTCT}
	if q.Bytes > 0 {
		e, ok, err := p.ETTS(q.Host, q.App, q.Bytes, q.Start, q.Now)
		if err != nil {
			return Prediction{}, false, err
		}
		if ok {
			pr = Prediction{Duration: e.Total, Predictor: PredictorETTS, Runs: e.Runs}
		}
	}
	if pr.Predictor == PredictorTCT {
		d, n, ok := p.TCT(q.Host, q.App, q.Now)
		if !ok {
			return Prediction{}, false, nil
		}
		pr.Duration, pr.Runs = d, n
	}
	// Score the predictor on the history, oldest run first.
	var own []PastRun
	for _, r := range runs {
		if r.Host == q.Host && r.App == q.App && !r.Finished.After(q.Now) {
			own = append(own, r)
		}
	}
	sort.SliceStable(own, func(i, j int) bool { return own[i].Finished.Before(own[j].Finished) })
	var sum float64
	for _, r := range own {
		before := r.Finished.Add(-time.Nanosecond)
		actual := (r.Execution + r.Transfer).Seconds()
		var guess time.Duration
		var ok bool
		if pr.Predictor == PredictorETTS {
			var e DurationEstimate
			start := r.Finished.Add(-r.Execution - r.Transfer)
			if e, ok, err = p.ETTS(q.Host, q.App, r.Bytes, start, before); err != nil {
				return Prediction{}, false, err
			}
			guess = e.Total
		} else {
			guess, _, ok = p.TCT(q.Host, q.App, before)
		}
		if !ok {
			continue
		}
		pr.Scored++
		sum += math.Abs(guess.Seconds() - actual)
	}
	if pr.Scored > 0 {
		pr.MeanAbsError = secondsDuration(sum / float64(pr.Scored))
	}
	return pr, true, nil
}
