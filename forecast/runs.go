package forecast

import (
	"math"
	"sync"
	"time"

	"slotfare"
)

// PredictorTCT names the total-completion-time predictor in a Prediction
// (seed 002 Sec. 4.3, technique 1), so an offer can say which was used.
const PredictorTCT = "TCT"

// Runs records finished runs per application profile as they are posted
// (issue 13: completed bookings and POST /v1/runs) and predicts a new job's
// duration from them, with the predictor's own error on the runs already
// recorded, so that an offer built on a prediction can say how far to trust
// it. Unlike DurationPredictor, which is built once over a history, Runs
// grows one run at a time; it keeps running sums only, so recording and
// predicting are O(1). It is safe for concurrent use; the zero value is
// empty and ready. It lives in one process's memory, so the service does
// not decide on it: serve keeps runs on booking/runs' store, which every
// replica reads, and predicts with PredictDuration, whose TCT and error
// agree with Runs on the same runs (TestPredictDurationAgreesWithRuns).
type Runs struct {
	mu       sync.Mutex
	profiles map[string]*profileRuns
}

// profileRuns is one profile's running sums, in seconds: of the completion
// times recorded, and of the absolute errors TCT made predicting each
// recorded run (after the first) from the runs recorded before it.
type profileRuns struct {
	n       int
	sum     float64
	scored  int
	absErrs float64
}

// Prediction is a predicted duration, the predictor that made it, and that
// predictor's record on the profile.
type Prediction struct {
	Duration  time.Duration // what to reserve
	Predictor string        // PredictorTCT
	Runs      int           // runs averaged
	// MeanAbsError is the mean absolute error of the predictor over the
	// Scored runs of the profile it could have predicted: each run
	// predicted, when it was recorded, from the runs recorded before it.
	// Zero with Scored zero (a single run says nothing about the error).
	MeanAbsError time.Duration
	Scored       int
}

// Record adds a finished run of profile: execution plus transfer is its
// total completion time (seed 002 Sec. 4.3: TCT averages completion times,
// transfers included). Before adding it, Record scores what TCT would have
// predicted for it from the runs recorded so far, which is the error
// Predict reports. Errors are slotfare.Invalid naming the field.
func (r *Runs) Record(profile string, execution, transfer time.Duration) error {
	const op slotfare.Op = "forecast.Runs.Record"
	switch {
	case profile == "":
		return slotfare.Errorf(op, "profile", "no application profile")
	case execution <= 0:
		return slotfare.Errorf(op, "execution", "execution time %s is not positive", execution)
	case transfer < 0:
		return slotfare.Errorf(op, "transfer", "transfer time %s is negative", transfer)
	}
	total := (execution + transfer).Seconds()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.profiles == nil {
		r.profiles = map[string]*profileRuns{}
	}
	p := r.profiles[profile]
	if p == nil {
		p = &profileRuns{}
		r.profiles[profile] = p
	}
	if p.n > 0 {
		p.scored++
		p.absErrs += math.Abs(p.sum/float64(p.n) - total)
	}
	p.n++
	p.sum += total
	return nil
}

// Predict predicts a job of profile by TCT: the mean completion time of the
// profile's recorded runs (seed 002 Sec. 4.3). ok is false for a profile
// with no run; the caller then needs a stated duration (issue 13 answers
// 422 for an unknown profile).
func (r *Runs) Predict(profile string) (Prediction, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.profiles[profile]
	if p == nil || p.n == 0 {
		return Prediction{}, false
	}
	pr := Prediction{Duration: secondsDuration(p.sum / float64(p.n)), Predictor: PredictorTCT, Runs: p.n, Scored: p.scored}
	if p.scored > 0 {
		pr.MeanAbsError = secondsDuration(p.absErrs / float64(p.scored))
	}
	return pr, true
}
