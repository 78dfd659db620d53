package service

import (
	"context"
	"time"

	"slotfare/booking"
	"slotfare/booking/control"
	"slotfare/booking/records"
)

// historyPage is how many bookings one read of the history or of the
// change log asks the records for.
const historyPage = 512

// replayHistory rebuilds resource r's booking control from its whole
// stored history and observations, and notes the change log's cursor
// taken before the history was read, from which refreshHistory reads on:
// a change made during the read is read again, never missed. It lays the
// limits out over the whole horizon again.
func (s *Service) replayHistory(ctx context.Context, r *resource, now time.Time) error {
	cursor, err := s.records.ChangeCursor(ctx, r.id)
	if err != nil {
		return err
	}
	hist, err := s.historyOf(ctx, r.id)
	if err != nil {
		return err
	}
	obs, err := s.readObservations(ctx, r.id, now)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ctl, err := control.New(r.rc)
	if err != nil {
		return err
	}
	r.ctl, r.lim, r.laid, r.observed = ctl, nil, false, obs.version
	// Every replica's stored refusals, and this one's not stored yet.
	r.refusals = append(obs.refused, r.unsaved...)
	r.replay(ctx, hist, obs.demand, now)
	r.capTo, r.replayedAt, r.cursor, r.following = r.capFrom, now, cursor, true
	return nil
}

// refreshHistory brings resource r's booking control up to the records:
// the bookings changed since its cursor, each restated as stored now
// (control.Restate), and the observations other replicas stored since
// (newObservations). Its work grows with what changed since, not with the
// history. A change log that no longer reaches back to the cursor
// (trimmed, or another store's) makes it replay the whole history
// instead. A lease newly taken (relay) lays the limits out over the whole
// horizon again, under its fence: the previous holder's stand there until
// then.
func (s *Service) refreshHistory(ctx context.Context, r *resource, now time.Time, relay bool) error {
	r.mu.Lock()
	cursor := r.cursor
	r.mu.Unlock()
	var changed []booking.Booking
	for {
		page, err := s.records.Changes(ctx, r.id, cursor, historyPage)
		if err != nil {
			return err
		}
		if page.Lost {
			return s.replayHistory(ctx, r, now)
		}
		for _, st := range page.Bookings {
			changed = append(changed, st.Record.Booking)
		}
		cursor = page.Next
		if !page.More {
			break
		}
	}
	obs, fresh, err := s.newObservations(ctx, r, now)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if fresh {
		r.observed = obs.version
		r.ctl.SetDemand(obs.demand.Since(r.id, time.Time{}))
	}
	for _, b := range changed {
		if err := r.ctl.Restate(b); err != nil {
			s.log.Warn("booking control: stored booking", "resource", r.id, "booking", b.ID, "err", err)
		}
	}
	if fresh {
		r.takeRefusals(obs.refused)
	}
	if relay {
		r.capTo = r.capFrom
	}
	r.recompute(ctx, now)
	r.replayedAt, r.cursor = now, cursor
	return nil
}

// observations are a resource's stored refusals and demand records, read
// at version: taken before them, so that what is stored after it is read
// again at the next refresh, never missed.
type observations struct {
	version int64
	refused []booking.RefusalRecord
	demand  booking.DemandBook
}

// readObservations reads resource's stored observations.
func (s *Service) readObservations(ctx context.Context, resource string, now time.Time) (observations, error) {
	v, err := s.records.Observed(ctx, resource)
	if err != nil {
		return observations{}, err
	}
	return s.observationsAt(ctx, resource, v, now)
}

// observationsAt reads resource's stored observations, version v read
// before them.
func (s *Service) observationsAt(ctx context.Context, resource string, v int64, now time.Time) (obs observations, err error) {
	obs.version = v
	if obs.refused, err = s.records.Refusals(ctx, resource); err != nil {
		return obs, err
	}
	obs.demand, err = s.storedDemand(ctx, resource, now)
	return obs, err
}

// newObservations reads r's stored observations when another replica
// stored some that r's booking control has not taken in (the version
// moved past r.observed); fresh is false, and nothing is read but the
// version, when none did: a replica alone on its store never reads them
// again.
func (s *Service) newObservations(ctx context.Context, r *resource, now time.Time) (obs observations, fresh bool, err error) {
	v, err := s.records.Observed(ctx, r.id)
	if err != nil {
		return obs, false, err
	}
	r.mu.Lock()
	known := r.observed
	r.mu.Unlock()
	if v == known {
		return obs, false, nil
	}
	obs, err = s.observationsAt(ctx, r.id, v, now) // v was read first: nothing stored after it is missed
	return obs, err == nil, err
}

// takeRefusals observes the stored refusals r has not seen yet (another
// replica's) and keeps them with the others. The caller holds r.mu.
func (r *resource) takeRefusals(stored []booking.RefusalRecord) {
	seen := make(map[string]bool, len(r.refusals))
	for _, f := range r.refusals {
		seen[records.RefusalKey(f)] = true
	}
	for _, f := range stored {
		if seen[records.RefusalKey(f)] {
			continue
		}
		seen[records.RefusalKey(f)] = true
		r.refusals = append(r.refusals, f)
		ev := control.Event{Kind: control.EventRefused, Class: f.Class, Start: f.Start, End: f.End, At: f.At}
		if err := r.ctl.Observe(ev); err != nil {
			r.svc.log.Warn("booking control: stored refusal", "resource", r.id, "class", f.Class, "err", err)
		}
	}
}
