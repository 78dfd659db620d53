package runs

import (
	"context"
	"sort"
	"sync"
	"time"

	"slotfare"
)

// Store is where runs outlive a process: the port this package owns.
// Contract:
//   - Append records r (normalised: durations and finished_at to the
//     millisecond, times in UTC) under its ResourceID and ID, durably, and
//     returns it with created true. A run whose ID the resource already has
//     is not recorded again: the stored run is returned with created false
//     if it says the same run (a retry), otherwise it is a Conflict naming
//     run_id. Run ids are per resource.
//   - Append keeps lim in the same atomic step as the write (Limits): a
//     new run past lim.PerHour is a LimitExceeded wrapping a *QuotaError
//     and records nothing; one finished before lim.MaxAge is Invalid naming
//     finished_at; the account's runs beyond lim.Kept and up to PruneBatch
//     of the resource's runs past lim.MaxAge are deleted. A retry is
//     answered before any limit is counted.
//   - Recent returns the resource's n most recent runs of profile, newest
//     first (by finished_at, then run id, descending).
//   - Transfers returns the resource's n most recent runs that moved data
//     (bytes and transfer time both positive), of any profile, newest
//     first: its bandwidth samples.
//   - Reads are bounded by n; n < 1 reads nothing. It is safe for
//     concurrent use, and a run appended is in every later read, from any
//     process on the same store.
//
// Memory keeps runs in the process (tests and the simulator); the
// adapters live with their dependency: booking/boltstore/runsbolt in a
// bbolt file of the data directory (serve), booking/redisstore.Runs on
// the Redis replicas share (serve --redis). Their contract suite is
// booking/internal/runstest.
type Store interface {
	Append(ctx context.Context, r Run, lim Limits) (stored Run, created bool, err error)
	Recent(ctx context.Context, resourceID, profile string, n int) ([]Run, error)
	Transfers(ctx context.Context, resourceID string, n int) ([]Run, error)
	Close() error
}

// Memory is a Store in the process's memory.
type Memory struct {
	mu     sync.Mutex
	runs   map[string]map[string]Run // resource -> run id -> run
	posted map[[2]string][]time.Time // resource, account -> when its runs were recorded, in the last hour
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty Memory.
func NewMemory() *Memory {
	return &Memory{runs: map[string]map[string]Run{}, posted: map[[2]string][]time.Time{}}
}

// CheckAppend is what every Store's Append checks first: r as stored
// (normalised), or why it is refused before the store is asked.
func CheckAppend(r Run, lim Limits) (Run, error) {
	r = normal(r)
	if r.ID == "" {
		return Run{}, slotfare.Errorf("runs.Append", "run_id", "a stored run needs an id")
	}
	if err := r.Validate(); err != nil {
		return Run{}, slotfare.E(slotfare.Op("runs.Append"), err)
	}
	if (lim.PerHour > 0 || lim.MaxAge > 0) && r.RecordedAt.IsZero() {
		return Run{}, slotfare.E(slotfare.Op("runs.Append"), slotfare.Other, "a run appended under limits needs recorded_at, the step's time")
	}
	if err := lim.tooOld(r); err != nil {
		return Run{}, err
	}
	return r, nil
}

// Append implements Store.
func (m *Memory) Append(ctx context.Context, r Run, lim Limits) (Run, bool, error) {
	r, err := CheckAppend(r, lim)
	if err != nil {
		return Run{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	byID := m.runs[r.ResourceID]
	if old, ok := byID[r.ID]; ok {
		if !same(old, r) {
			return Run{}, false, idConflict(r)
		}
		return old, false, nil
	}
	if lim.PerHour > 0 {
		if err := m.count(r, lim); err != nil {
			return Run{}, false, err
		}
	}
	if byID == nil {
		byID = map[string]Run{}
		m.runs[r.ResourceID] = byID
	}
	byID[r.ID] = r
	m.prune(byID, r, lim)
	return r, true, nil
}

// count counts r among its account's runs of the hour on its resource, or
// refuses it.
func (m *Memory) count(r Run, lim Limits) error {
	k := [2]string{r.ResourceID, r.AccountID}
	var hour []time.Time
	for _, t := range m.posted[k] {
		if t.After(r.RecordedAt.Add(-QuotaWindow)) {
			hour = append(hour, t)
		}
	}
	if len(hour) >= lim.PerHour {
		first := hour[0]
		for _, t := range hour {
			if t.Before(first) {
				first = t
			}
		}
		m.posted[k] = hour
		return OverQuota(r, lim, len(hour), first)
	}
	m.posted[k] = append(hour, r.RecordedAt)
	return nil
}

// prune deletes the runs of r's account beyond lim.Kept and up to
// PruneBatch runs of the resource past lim.MaxAge.
func (m *Memory) prune(byID map[string]Run, r Run, lim Limits) {
	if lim.Kept > 0 {
		var mine []Run
		for _, o := range byID {
			if o.AccountID == r.AccountID {
				mine = append(mine, o)
			}
		}
		sortNewest(mine)
		for _, o := range mine[min(lim.Kept, len(mine)):] {
			delete(byID, o.ID)
		}
	}
	if c := lim.Cutoff(r.RecordedAt); !c.IsZero() {
		var old []Run
		for _, o := range byID {
			if o.FinishedAt.Before(c) {
				old = append(old, o)
			}
		}
		sortNewest(old)
		for _, o := range old[max(0, len(old)-PruneBatch):] {
			delete(byID, o.ID)
		}
	}
}

// Recent implements Store.
func (m *Memory) Recent(ctx context.Context, resourceID, profile string, n int) ([]Run, error) {
	return m.newest(resourceID, n, func(r Run) bool { return r.Profile == profile }), nil
}

// Transfers implements Store.
func (m *Memory) Transfers(ctx context.Context, resourceID string, n int) ([]Run, error) {
	return m.newest(resourceID, n, Run.HasTransfer), nil
}

func (m *Memory) newest(resourceID string, n int, keep func(Run) bool) []Run {
	if n < 1 {
		return nil
	}
	m.mu.Lock()
	var out []Run
	for _, r := range m.runs[resourceID] {
		if keep(r) {
			out = append(out, r)
		}
	}
	m.mu.Unlock()
	sortNewest(out)
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// sortNewest orders runs newest first: by finished_at, then run id,
// descending (the stores' common order).
func sortNewest(rs []Run) {
	sort.Slice(rs, func(i, j int) bool {
		if !rs[i].FinishedAt.Equal(rs[j].FinishedAt) {
			return rs[i].FinishedAt.After(rs[j].FinishedAt)
		}
		return rs[i].ID > rs[j].ID
	})
}

// Close implements Store.
func (m *Memory) Close() error { return nil }
