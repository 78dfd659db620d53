package config

import (
	"encoding/json"

	"slotfare"
)

// Run limits. Runs (POST /v1/runs) are what job durations are predicted
// from; without a bound one key could post runs as fast as it can, filling
// the store and crowding the runs every prediction of a resource reads.
// The runs store keeps them per account on each resource, in the step that
// writes a run (booking/runs.Limits); this is their configuration, the
// "runs" object of the configuration file.

const (
	// DefaultRunsPerHour is how many runs one account may post on a
	// resource in any hour: a run every few seconds, more than a
	// provider's script reporting each finished job of a busy resource
	// posts, far less than a loop.
	DefaultRunsPerHour = 1000
	// DefaultRunsKept is how many runs of one account a resource keeps (its
	// latest finished): a hundred times what a prediction reads.
	DefaultRunsKept = 10000
	// DefaultRunRetentionDays is how long after it finished a run counts
	// for predictions and is kept: a season of the resource's behaviour.
	DefaultRunRetentionDays = 90

	maxRunsPerHour      = 1_000_000
	maxRunsKept         = 10_000_000
	maxRunRetentionDays = 3660
)

// RunLimits bound the runs one account posts and keeps on each resource.
// Zero means the default.
type RunLimits struct {
	// MaxPerHour is how many runs one account may post on a resource in
	// any hour; one more is 429 with Retry-After.
	MaxPerHour int `json:"max_per_hour,omitempty"`
	// MaxKept is how many runs of one account a resource keeps: a new one
	// beyond it deletes the account's earliest finished.
	MaxKept int `json:"max_kept,omitempty"`
	// RetentionDays is how long after it finished a run counts; older runs
	// are deleted.
	RetentionDays int `json:"retention_days,omitempty"`
}

// Effective is l with every default filled in.
func (l RunLimits) Effective() RunLimits {
	if l.MaxPerHour == 0 {
		l.MaxPerHour = DefaultRunsPerHour
	}
	if l.MaxKept == 0 {
		l.MaxKept = DefaultRunsKept
	}
	if l.RetentionDays == 0 {
		l.RetentionDays = DefaultRunRetentionDays
	}
	return l
}

type wireRunLimits struct {
	MaxPerHour    *int `json:"max_per_hour"`
	MaxKept       *int `json:"max_kept"`
	RetentionDays *int `json:"retention_days"`
}

// decodeRunLimits reads the "runs" object: a field left out or null takes
// its default, a given one must be at least 1.
func decodeRunLimits(raw json.RawMessage) (RunLimits, error) {
	var l RunLimits
	if absent(raw) {
		return l.Effective(), nil
	}
	var w wireRunLimits
	if err := decodeStrict(raw, &w, "runs"); err != nil {
		return RunLimits{}, err
	}
	var errs []error
	for _, f := range []struct {
		name     string
		v        *int
		max      int
		def      int
		to       *int
		unitText string
	}{
		{"max_per_hour", w.MaxPerHour, maxRunsPerHour, DefaultRunsPerHour, &l.MaxPerHour, "runs an hour"},
		{"max_kept", w.MaxKept, maxRunsKept, DefaultRunsKept, &l.MaxKept, "runs"},
		{"retention_days", w.RetentionDays, maxRunRetentionDays, DefaultRunRetentionDays, &l.RetentionDays, "days"},
	} {
		if f.v == nil {
			continue
		}
		if *f.v < 1 || *f.v > f.max {
			errs = append(errs, slotfare.Errorf(opDecode, "runs."+f.name, "must be between 1 and %d %s (leave it out for the default %d), got %d",
				f.max, f.unitText, f.def, *f.v))
		}
		*f.to = *f.v
	}
	if err := slotfare.Join(errs...); err != nil {
		return RunLimits{}, err
	}
	return l.Effective(), nil
}
