package records

import (
	"context"
	"fmt"
	"time"

	"slotfare"
	"slotfare/booking"
)

// DemandPort keeps what offer queries and bookings saw of each fare class
// (booking.DemandRecord): booking control's demand seen uncensored (seed
// 004 Sec. 7.3), shared by the replicas as the bookings are. Each replica
// counts in memory and flushes its counts now and then (one write per
// resource, not one per query); the replica holding the resource's ticker
// lease reads them all.
type DemandPort interface {
	// CountDemand adds w's counts to the stored records of the same key,
	// creating those missing, and drops the records of instances that
	// started before w.Forget: in one step, once per w.ID (a write sent
	// again after a timeout adds nothing). It answers the resource's
	// observations' version the write left (Port.Observed).
	CountDemand(ctx context.Context, w booking.DemandWrite) (version int64, err error)
	// Demand are resource's records of instances starting at or after
	// since, sorted by instance, class and day.
	Demand(ctx context.Context, resource string, since time.Time) ([]booking.DemandRecord, error)
}

// CheckDemand validates a demand write before any store sees it.
func CheckDemand(w booking.DemandWrite) error {
	const op slotfare.Op = "records.CountDemand"
	if w.Resource == "" {
		return slotfare.Errorf(op, "resource", "required")
	}
	if w.ID == "" {
		return slotfare.Errorf(op, "id", "required")
	}
	for i, r := range w.Records {
		field := func(f string) string { return fmt.Sprintf("records[%d].%s", i, f) }
		switch {
		case r.Resource != w.Resource:
			return slotfare.Errorf(op, field("resource"), "is %q, the write is on %q", r.Resource, w.Resource)
		case r.Class == "":
			return slotfare.Errorf(op, field("class"), "required")
		case r.Period == "":
			return slotfare.Errorf(op, field("period"), "required")
		case r.Instance.IsZero():
			return slotfare.Errorf(op, field("instance"), "required")
		case r.Day.IsZero() || !r.Day.Equal(r.Day.UTC().Truncate(24*time.Hour)):
			return slotfare.Errorf(op, field("day"), "must be a UTC midnight, got %s", r.Day)
		}
		if name, n, ok := r.Counts.Negative(); ok {
			return slotfare.Errorf(op, field("counts"), "%s is negative (%d)", name, n)
		}
	}
	return nil
}

// CountDemand implements DemandPort.
func (m *Memory) CountDemand(ctx context.Context, w booking.DemandWrite) (int64, error) {
	if err := CheckDemand(w); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	id := "demand\x00" + w.Resource + "\x00" + w.ID
	if m.writes[id] {
		return m.observed[w.Resource], nil
	}
	m.writes[id] = true
	m.demand.Count(w)
	m.observed[w.Resource]++
	return m.observed[w.Resource], nil
}

// Demand implements DemandPort.
func (m *Memory) Demand(ctx context.Context, resource string, since time.Time) ([]booking.DemandRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.demand.Since(resource, since), nil
}
