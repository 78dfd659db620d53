package runs

import (
	"fmt"
	"time"

	"slotfare"
)

// Limits are what one Append keeps of a resource's runs and what it
// refuses, counted per account on each resource: a resource's runs are
// one unit on every store (one Redis hash slot), so the count and the write
// are one step. The step's time is the run's RecordedAt. Zero fields limit
// nothing.
type Limits struct {
	// PerHour is how many runs one account may record on a resource in any
	// hour (RecordedAt in (t - 1h, t]); one more is a QuotaError.
	PerHour int
	// Kept is how many of one account's runs a resource keeps: beyond it
	// the account's earliest finished are deleted (the new run among them
	// if it finished first).
	Kept int
	// MaxAge is how long after it finished a run counts: a run finished
	// longer before the step's time is not recorded (Invalid naming
	// finished_at), and runs of the resource past it are deleted, at most
	// PruneBatch a step, so that a write stays bounded.
	MaxAge time.Duration
}

// PruneBatch bounds the runs past their age one Append deletes: an old
// backlog goes over the next writes, each bounded.
const PruneBatch = 32

// QuotaWindow is the span Limits.PerHour counts runs over.
const QuotaWindow = time.Hour

// Cutoff is the earliest finish that still counts at t (zero: all do).
func (l Limits) Cutoff(t time.Time) time.Time {
	if l.MaxAge <= 0 {
		return time.Time{}
	}
	return t.Add(-l.MaxAge)
}

// tooOld is the Invalid of a run that finished before the age limit.
func (l Limits) tooOld(r Run) error {
	if c := l.Cutoff(r.RecordedAt); !c.IsZero() && r.FinishedAt.Before(c) {
		return slotfare.Errorf("runs.Append", "finished_at", "is %s, more than %s before now: runs count for %s after they finish",
			r.FinishedAt.Format(time.RFC3339), days(l.MaxAge), days(l.MaxAge))
	}
	return nil
}

func days(d time.Duration) string {
	switch {
	case d == 24*time.Hour:
		return "1 day"
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	}
	return d.String()
}

// QuotaError says an account has recorded as many runs on a resource in
// the last hour as Limits.PerHour allows, and in how long the earliest of
// them leaves the hour. The api shows it in the problem body and the
// Retry-After header.
type QuotaError struct {
	ResourceID string
	AccountID  string
	Limit      int
	Posted     int
	RetryAfter time.Duration
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("account %s recorded %d runs on %s in the last hour, the most it may (runs.max_per_hour = %d): retry in %d s",
		e.AccountID, e.Posted, e.ResourceID, e.Limit, e.RetryAfterSeconds())
}

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up, at least one.
func (e *QuotaError) RetryAfterSeconds() int64 {
	s := int64((e.RetryAfter + time.Second - 1) / time.Second)
	return max(s, 1)
}

// OverQuota is the LimitExceeded of run r refused with posted runs in the
// hour, the earliest recorded at first.
func OverQuota(r Run, l Limits, posted int, first time.Time) error {
	qe := &QuotaError{ResourceID: r.ResourceID, AccountID: r.AccountID, Limit: l.PerHour, Posted: posted,
		RetryAfter: first.Add(QuotaWindow).Sub(r.RecordedAt)}
	return slotfare.E(slotfare.Op("runs.Append"), slotfare.LimitExceeded, slotfare.Field("runs.max_per_hour"), qe)
}
