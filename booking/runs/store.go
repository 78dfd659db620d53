package runs

import (
	"context"
	"sort"
	"sync"

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
//   - Recent returns the resource's n most recent runs of profile, newest
//     first (by finished_at, then run id, descending).
//   - Transfers returns the resource's n most recent runs that moved data
//     (bytes and transfer time both positive), of any profile, newest
//     first: its bandwidth samples.
//   - Reads are bounded by n; n < 1 reads nothing. It is safe for
//     concurrent use, and a run appended is in every later read, from any
//     process on the same store.
//
// Memory keeps runs in the process (tests); Bolt in a bbolt file of the
// data directory (serve); Redis on the Redis replicas share (serve
// --redis).
type Store interface {
	Append(ctx context.Context, r Run) (stored Run, created bool, err error)
	Recent(ctx context.Context, resourceID, profile string, n int) ([]Run, error)
	Transfers(ctx context.Context, resourceID string, n int) ([]Run, error)
	Close() error
}

// Memory is a Store in the process's memory.
type Memory struct {
	mu   sync.Mutex
	runs map[string]map[string]Run // resource -> run id -> run
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{runs: map[string]map[string]Run{}} }

// checkAppend is what every Append checks first.
func checkAppend(r Run) (Run, error) {
	r = normal(r)
	if r.ID == "" {
		return Run{}, slotfare.Errorf("runs.Append", "run_id", "a stored run needs an id")
	}
	if err := r.Validate(); err != nil {
		return Run{}, slotfare.E("runs.Append", err)
	}
	return r, nil
}

// Append implements Store.
func (m *Memory) Append(ctx context.Context, r Run) (Run, bool, error) {
	r, err := checkAppend(r)
	if err != nil {
		return Run{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	byID := m.runs[r.ResourceID]
	if byID == nil {
		byID = map[string]Run{}
		m.runs[r.ResourceID] = byID
	}
	if old, ok := byID[r.ID]; ok {
		if !same(old, r) {
			return Run{}, false, idConflict(r)
		}
		return old, false, nil
	}
	byID[r.ID] = r
	return r, true, nil
}

// Recent implements Store.
func (m *Memory) Recent(ctx context.Context, resourceID, profile string, n int) ([]Run, error) {
	return m.newest(resourceID, n, func(r Run) bool { return r.Profile == profile }), nil
}

// Transfers implements Store.
func (m *Memory) Transfers(ctx context.Context, resourceID string, n int) ([]Run, error) {
	return m.newest(resourceID, n, Run.hasTransfer), nil
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
