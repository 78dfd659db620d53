package service

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/calendar"
	"slotfare/pricing"
)

// horizonSlack is how far beyond the book-ahead horizon the calendars'
// capacities are laid out, so Tick only extends them about once a day.
const horizonSlack = 2 * 24 * 3600

// resource is one resource at run time: its configuration, rate calendar,
// fare classes by rank, delay pricer and one calendar per nested class group
// (seed 004 Sec. 7.4): group j holds every booking of rank index >= j and has
// capacity b_j, the nested booking limit of the j-th class in the rate period
// in force; a booking of class index k occupies groups 0..k and must fit in
// each. Group 0's capacity is b_1, the overbooking limit, so no instant ever
// holds more than the overbooking policy allows.
type resource struct {
	id  string
	svc *Service

	mu      sync.Mutex
	rc      config.ResourceConfig
	rate    *pricing.RateCalendar
	classes []pricing.FareClass // by rank, highest class first
	queue   []byte
	pricer  *pricing.DelayPricer
	// queueNow is the snapshot's own "now" (its clock's epoch is its own).
	queueNow int64
	groups   []calendar.Calendar
	// capFrom..capTo is where the groups' capacities follow the limits.
	capFrom, capTo int64
	live           map[string]*entry // bookings holding capacity
	lim            map[string][]int  // limits by period (cache, reset by configure)
	// ctl is booking control (seed 004 Sec. 7.3-7.5): the overbooking limit
	// and the nested class limits per rate period, from the forecast.
	ctl *control.Control
	// refusals are the refusals that closed a class somewhere (loaded from
	// the store, or seen since), replayed into every new ctl; unsaved are
	// the ones seen since that are not yet written (saveRefusals).
	refusals, unsaved []booking.RefusalRecord
	// heldBy indexes the holds among live by account and id, so hold
	// limits need not scan every live booking (holdlimits.go). An entry
	// counts only while live and held: the index may lag, never lead.
	heldBy map[string]map[string]*entry
	// retired is when DELETE /v1/resources/{id} retired the resource
	// (zero while it is in service): it takes no offers or holds and is
	// no longer listed, while its bookings, postings and invoices stay
	// readable.
	retired time.Time
}

func (s *Service) newResource(rc config.ResourceConfig, queue []byte) (*resource, error) {
	r := &resource{id: rc.ID, svc: s, live: map[string]*entry{}}
	if err := r.configure(rc, queue); err != nil {
		return nil, err
	}
	return r, nil
}

// configure installs rc (already validated) and a queue snapshot; the caller
// rebuilds the calendars.
func (r *resource) configure(rc config.ResourceConfig, queue []byte) error {
	rate, err := rc.RateCalendar()
	if err != nil {
		return err
	}
	var pricer *pricing.DelayPricer
	var qnow int64
	if len(queue) > 0 {
		q, err := pricing.ReadQueueSnapshot(bytes.NewReader(queue))
		if err != nil {
			return err
		}
		if pricer, err = pricing.NewDelayPricer(q); err != nil {
			return err
		}
		qnow = q.Now
	}
	ctl, err := control.New(rc)
	if err != nil {
		return err
	}
	r.rc, r.rate, r.queue, r.pricer, r.queueNow, r.ctl = rc, rate, queue, pricer, qnow, ctl
	r.lim = nil
	r.classes = pricing.FareClassesByRank(rc.FareClasses)
	return nil
}

// limits are the nested booking limits b_1 >= ... >= b_n by class index in
// a rate period, from booking control: b_1 is the overbooking limit of the
// resource's policy (seed 004 Sec. 7.5), the others nest the classes below
// it (Sec. 7.4, EMSR on the forecast or the provider's initial protection
// levels). The caller holds r.mu.
func (r *resource) limits(period string) []int {
	if l, ok := r.lim[period]; ok {
		return l
	}
	n := max(len(r.classes), 1)
	out := make([]int, n)
	pl := r.ctl.Limits(period)
	for i := range out {
		if i < len(pl.BookingLimits) {
			out[i] = pl.BookingLimits[i]
		} else {
			out[i] = r.rc.Nodes
		}
	}
	if r.lim == nil {
		r.lim = map[string][]int{}
	}
	r.lim[period] = out
	return out
}

// replay feeds booking control the history of the resource's bookings,
// oldest first, then the refusals it has seen, and recomputes its limits:
// Control keeps no state of its own across restarts or reconfigurations.
// The caller holds r.mu.
func (r *resource) replay(all []booking.Booking, now time.Time) {
	sort.Slice(all, func(i, j int) bool {
		if !all[i].CreatedAt.Equal(all[j].CreatedAt) {
			return all[i].CreatedAt.Before(all[j].CreatedAt)
		}
		return all[i].ID < all[j].ID
	})
	for _, b := range all {
		for _, ev := range control.History(b) {
			r.observe(ev)
		}
	}
	for _, f := range r.refusals {
		ev := control.Event{Kind: control.EventRefused, Class: f.Class, Start: f.Start, End: f.End, At: f.At}
		if err := r.ctl.Observe(ev); err != nil {
			// A class renamed since, say: the refusal no longer applies.
			r.svc.log.Warn("booking control: stored refusal", "resource", r.id, "class", f.Class, "err", err)
		}
	}
	r.recompute(now)
}

// observe tells booking control; its errors are logged, not fatal (the
// limits then stay as they were). A refusal that closed a class somewhere
// is kept to be stored (saveRefusals) and replayed into later controls, so
// that booking control after a restart is what it was before. The caller
// holds r.mu.
func (r *resource) observe(ev control.Event) {
	if ev.Kind == control.EventRefused {
		closed, err := r.ctl.ObserveRefusal(ev)
		if err != nil {
			r.svc.log.Warn("booking control", "resource", r.id, "event", ev.Kind.String(), "err", err)
			return
		}
		if closed {
			f := booking.RefusalRecord{Resource: r.id, Class: ev.Class, Start: ev.Start.UTC(), End: ev.End.UTC(), At: ev.At.UTC()}
			r.refusals = append(r.refusals, f)
			r.unsaved = append(r.unsaved, f)
		}
		return
	}
	if err := r.ctl.Observe(ev); err != nil {
		r.svc.log.Warn("booking control", "resource", r.id, "event", ev.Kind.String(), "booking", ev.BookingID, "err", err)
	}
}

// saveRefusals writes the refusals r has seen since the last call. Offers
// call it after they observed, Tick every second, Close at the end; until
// then a refusal is in memory only, like a NoWait hold. On failure they are
// kept for the next call, and the error is returned.
func (s *Service) saveRefusals(ctx context.Context, r *resource, wait bool) error {
	r.mu.Lock()
	recs := r.unsaved
	r.unsaved = nil
	r.mu.Unlock()
	if len(recs) == 0 {
		return nil
	}
	if err := s.store.Write(ctx, booking.Batch{Refusals: recs, NoWait: !wait}); err != nil {
		r.mu.Lock()
		r.unsaved = append(recs, r.unsaved...)
		r.mu.Unlock()
		return slotfare.E("booking.saveRefusals", slotfare.Unavailable, err)
	}
	return nil
}

// recompute brings booking control up to now; when the limits changed, the
// group calendars' capacities are laid out again from now on. The caller
// holds r.mu.
func (r *resource) recompute(now time.Time) {
	changed, err := r.ctl.Recompute(now)
	if err != nil {
		r.svc.log.Warn("booking control", "resource", r.id, "err", err)
		return
	}
	if changed && r.groups != nil {
		r.lim = nil
		r.capTo = max(r.capFrom, now.Unix())
		if err := r.extend(now); err != nil {
			r.svc.log.Error("booking limits", "resource", r.id, "err", err)
		}
	}
}

// rebuild makes fresh calendars holding every live booking, then lays out
// the capacities over the horizon. Bookings are added before capacities are
// lowered so that none is lost (an overbooked past stays overbooked).
func (r *resource) rebuild(now time.Time) error {
	n := max(len(r.classes), 1)
	groups := make([]calendar.Calendar, n)
	for j := range groups {
		c, err := r.svc.opts.NewCalendar(r.rc.Nodes)
		if err != nil {
			return err
		}
		if err := c.SetCapacity(calendar.MinTime, calendar.MaxTime, config.MaxNodes*64); err != nil {
			return err
		}
		groups[j] = c
	}
	for id, e := range r.live {
		// What the entry holds on the calendars (guarded by r.mu), which
		// leads its stored record while a change is being written.
		g := min(e.groups, n) // fixed at creation: no need for e.mu
		for j := 0; j < g; j++ {
			if err := groups[j].Add(calendar.Reservation{ID: id, Start: e.calStart, End: e.calEnd, Nodes: e.calNodes}); err != nil {
				return err
			}
		}
	}
	for _, c := range groups {
		if err := c.SetCapacity(calendar.MinTime, calendar.MaxTime, r.rc.Nodes); err != nil {
			return err
		}
	}
	r.groups = groups
	from := now.Unix() - 24*3600
	r.capFrom, r.capTo = from, from
	return r.extend(now)
}

// extend lays the limits out from capTo to the horizon (now + book-ahead +
// slack), one SetCapacity per group and rate-period piece.
func (r *resource) extend(now time.Time) error {
	to := now.Unix() + int64(r.svc.cfg.BookAheadSeconds) + horizonSlack
	if to-r.capTo < horizonSlack/2 && r.capTo > r.capFrom {
		return nil
	}
	pieces, err := r.rate.Split(time.Unix(r.capTo, 0), time.Unix(to, 0))
	if err != nil {
		return err
	}
	for _, pc := range pieces {
		lim := r.limits(pc.Period)
		for j, c := range r.groups {
			if err := c.SetCapacity(pc.Start.Unix(), pc.End.Unix(), lim[j]); err != nil {
				return err
			}
		}
	}
	r.capTo = to
	return nil
}

// resourceState is what reconfigure restores when a change fails.
type resourceState struct {
	rc             config.ResourceConfig
	rate           *pricing.RateCalendar
	classes        []pricing.FareClass
	queue          []byte
	pricer         *pricing.DelayPricer
	queueNow       int64
	groups         []calendar.Calendar
	capFrom, capTo int64
	ctl            *control.Control
}

func (r *resource) snapshot() resourceState {
	return resourceState{r.rc, r.rate, r.classes, r.queue, r.pricer, r.queueNow, r.groups, r.capFrom, r.capTo, r.ctl}
}

func (r *resource) restore(o resourceState) {
	r.lim = nil
	r.rc, r.rate, r.classes, r.queue, r.pricer, r.queueNow, r.groups, r.capFrom, r.capTo, r.ctl =
		o.rc, o.rate, o.classes, o.queue, o.pricer, o.queueNow, o.groups, o.capFrom, o.capTo, o.ctl
}

// fits reports whether nodes over [start, end) fit class index k: in every
// group 0..k. The caller holds r.mu.
func (r *resource) fits(k int, start, end int64, nodes int) bool {
	for j := 0; j <= k && j < len(r.groups); j++ {
		ok, err := r.groups[j].Fits(start, end, nodes)
		if err != nil || !ok {
			return false
		}
	}
	return true
}

// admit adds a booking of class index k to groups 0..k if it fits there.
// The caller holds r.mu.
func (r *resource) admit(id string, k int, start, end int64, nodes int) error {
	if !r.fits(k, start, end, nodes) {
		return slotfare.E("booking.admit", slotfare.NoCapacity,
			fmt.Sprintf("%d nodes over [%s, %s) do not fit on %s in this fare class", nodes,
				time.Unix(start, 0).UTC().Format(time.RFC3339), time.Unix(end, 0).UTC().Format(time.RFC3339), r.id))
	}
	for j := 0; j <= k && j < len(r.groups); j++ {
		if err := r.groups[j].Add(calendar.Reservation{ID: id, Start: start, End: end, Nodes: nodes}); err != nil {
			r.remove(id)
			return err
		}
	}
	return nil
}

// admitEntry is admit for a booking's entry, and records the interval now
// on the calendars in the entry (rebuild reads it). The caller holds r.mu.
func (r *resource) admitEntry(e *entry, k int, start, end int64, nodes int) error {
	if err := r.admit(e.view.Load().ID, k, start, end, nodes); err != nil {
		return err
	}
	e.calStart, e.calEnd, e.calNodes = start, end, nodes
	return nil
}

// replaceFits reports whether a booking's entry could move to new terms:
// on every group it occupies, wherever the new terms hold more nodes than
// the old, they must fit (calendar.ReplaceFits). Nothing changes. The
// caller holds r.mu.
func (r *resource) replaceFits(e *entry, start, end int64, nodes int) error {
	id := e.view.Load().ID
	nr := calendar.Reservation{ID: id, Start: start, End: end, Nodes: nodes}
	for j := 0; j < min(e.groups, len(r.groups)); j++ {
		ok, err := calendar.ReplaceFits(r.groups[j], id, nr)
		if err != nil {
			return err
		}
		if !ok {
			return slotfare.E("booking.replace", slotfare.NoCapacity,
				fmt.Sprintf("%d nodes over [%s, %s) do not fit on %s in this fare class", nodes,
					time.Unix(start, 0).UTC().Format(time.RFC3339), time.Unix(end, 0).UTC().Format(time.RFC3339), r.id))
		}
	}
	return nil
}

// replaceEntry moves a booking's entry to new terms on every group it
// occupies, in one step: all groups take the new terms or none changes, so
// a failed change never drops a booking from the capacity it counts
// against. The caller holds r.mu and calls it right after replaceFits
// answered nil with the lock held since.
func (r *resource) replaceEntry(e *entry, start, end int64, nodes int) error {
	id := e.view.Load().ID
	nr := calendar.Reservation{ID: id, Start: start, End: end, Nodes: nodes}
	for j := 0; j < min(e.groups, len(r.groups)); j++ {
		if err := r.groups[j].Replace(id, nr); err != nil {
			// Every group was checked with the lock held: a failure here is
			// a calendar bug, and the groups before j hold the new terms.
			return slotfare.E("booking.replace", slotfare.Other, fmt.Sprintf("group %d of %s refused a checked replacement", j, r.id), err)
		}
	}
	e.calStart, e.calEnd, e.calNodes = start, end, nodes
	return nil
}

// within reports whether a booking's entry is within the limits in force
// on every group it occupies (calendar.WithinCapacity over its interval):
// false where a limit was lowered below what is held there. The caller
// holds r.mu.
func (r *resource) within(e *entry) (bool, error) {
	for j := 0; j < min(e.groups, len(r.groups)); j++ {
		ok, err := calendar.WithinCapacity(r.groups[j], e.calStart, e.calEnd)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// remove takes a booking off every group calendar. The caller holds r.mu.
func (r *resource) remove(id string) {
	for _, c := range r.groups {
		if _, ok := c.Get(id); ok {
			_, _ = c.Delete(id)
		}
	}
}

// tell locks the resource and observes the events.
func (r *resource) tell(evs ...control.Event) {
	r.mu.Lock()
	for _, ev := range evs {
		r.observe(ev)
	}
	r.mu.Unlock()
}

// release gives a booking's capacity back and forgets it as live.
func (r *resource) release(id string) {
	r.mu.Lock()
	r.remove(id)
	if e := r.live[id]; e != nil && r.heldBy != nil {
		delete(r.heldBy[e.booking().AccountID], id)
	}
	delete(r.live, id)
	r.mu.Unlock()
}

// classIndex finds a class by name: its index by rank and the class.
func (r *resource) classIndex(name string) (int, pricing.FareClass, bool) {
	for i, c := range r.classes {
		if c.Name == name {
			return i, c, true
		}
	}
	return 0, pricing.FareClass{}, false
}

// view is the resource as the API shows it. The caller holds r.mu.
func (r *resource) view() config.Resource {
	rc := r.rc
	tags := append([]string(nil), rc.Tags...)
	if tags == nil {
		tags = []string{}
	}
	return config.Resource{ID: rc.ID, Nodes: rc.Nodes, BaseCost: rc.BaseCost, Currency: rc.Currency, TimeZone: rc.TimeZone,
		SlotSeconds: rc.SlotSeconds, HoldSeconds: rc.HoldSeconds, HoldLimits: rc.HoldLimits.Effective(rc.Nodes), VO: rc.VO, Tags: tags,
		FareClasses: append([]pricing.FareClass{}, rc.FareClasses...), RatePeriods: append([]pricing.RatePeriod{}, rc.RatePeriods...),
		Overbooking: rc.Overbooking.Spec(), Limits: rc.Limits.Clone(),
		HasQueue: r.pricer != nil}
}
