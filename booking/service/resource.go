package service

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/calendar"
	"slotfare/ledger"
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
	if err := r.replaceFits(e, start, end, nodes); err != nil {
		return err
	}
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

// Resources lists every resource (any role).
func (s *Service) Resources(ctx context.Context, p booking.Principal) ([]config.Resource, error) {
	const op = "booking.Resources"
	if err := needRole(op, p, booking.RoleProvider, booking.RoleUser, booking.RoleBilling); err != nil {
		return nil, err
	}
	var out []config.Resource
	for _, r := range s.resourceList() {
		r.mu.Lock()
		if r.retired.IsZero() {
			out = append(out, r.view())
		}
		r.mu.Unlock()
	}
	return out, nil
}

// Resource returns one resource (any role); NotFound if unknown.
func (s *Service) Resource(ctx context.Context, p booking.Principal, id string) (config.Resource, error) {
	const op = "booking.Resource"
	if err := needRole(op, p, booking.RoleProvider, booking.RoleUser, booking.RoleBilling); err != nil {
		return config.Resource{}, err
	}
	r := s.resource(id)
	if r == nil {
		return config.Resource{}, slotfare.E(op, slotfare.NotFound, fmt.Sprintf("no resource %q", id))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.inService(op); err != nil {
		return config.Resource{}, err
	}
	return r.view(), nil
}

// inService is NotFound for a retired resource, saying when it was
// retired. The caller holds r.mu.
func (r *resource) inService(op string) error {
	if r.retired.IsZero() {
		return nil
	}
	return slotfare.E(op, slotfare.NotFound, fmt.Sprintf("resource %q was retired at %s; its bookings and invoices stay readable", r.id, r.retired.UTC().Format(time.RFC3339)))
}

// reconfigure validates a changed configuration of resource id (mut edits a
// copy; for a new resource, or one retired, the copy starts from the
// service's defaults and created is true), stores it and installs it,
// rebuilding the calendars with every live booking kept. The resource's
// lock is held throughout (provider changes are rare); bookings on it
// wait.
func (s *Service) reconfigure(ctx context.Context, op, id string, create bool, mut func(rc *config.ResourceConfig, queue *[]byte, created bool) error) (config.Resource, bool, error) {
	if err := s.checkOpen(op); err != nil {
		return config.Resource{}, false, err
	}
	if err := config.ValidateResourceID(op, "id", id); err != nil {
		return config.Resource{}, false, err
	}
	s.mu.Lock()
	r := s.resources[id]
	created := false
	if r == nil {
		if !create {
			s.mu.Unlock()
			return config.Resource{}, false, slotfare.E(op, slotfare.NotFound, fmt.Sprintf("no resource %q", id))
		}
		created = true
		r = &resource{id: id, svc: s, live: map[string]*entry{}}
		r.rc = s.newResourceConfig(id)
		r.mu.Lock() // nobody can reach r until it is in the map
		s.resources[id] = r
		s.mu.Unlock()
	} else {
		s.mu.Unlock()
		r.mu.Lock()
		if !r.retired.IsZero() {
			if !create {
				defer r.mu.Unlock()
				return config.Resource{}, false, r.inService(op)
			}
			// PUT on a retired id puts a new resource in service under
			// it; the old one's history (bookings, refusals) stays.
			created = true
		}
	}
	defer r.mu.Unlock()
	undo := func() {
		if created && r.retired.IsZero() {
			s.mu.Lock()
			delete(s.resources, id)
			s.mu.Unlock()
		}
	}
	rc := r.rc
	queue := r.queue
	if created {
		rc, queue = s.newResourceConfig(id), nil
	}
	rc.FareClasses = append([]pricing.FareClass(nil), rc.FareClasses...)
	rc.RatePeriods = append([]pricing.RatePeriod(nil), rc.RatePeriods...)
	rc.Tags = append([]string(nil), rc.Tags...)
	rc.Limits = rc.Limits.Clone()
	if err := mut(&rc, &queue, created); err != nil {
		undo()
		return config.Resource{}, false, err
	}
	if err := rc.Validate(""); err != nil {
		undo()
		return config.Resource{}, false, slotfare.E(op, err)
	}
	old := r.snapshot()
	if err := r.configure(rc, queue); err != nil {
		r.restore(old)
		undo()
		return config.Resource{}, false, slotfare.E(op, err)
	}
	now := s.now()
	r.replay(s.bookingsOf(id), now)
	if err := r.rebuild(now); err != nil {
		r.restore(old)
		undo()
		return config.Resource{}, false, slotfare.E(op, err)
	}
	stored, err := rc.Stored(queue, nil)
	if err != nil {
		r.restore(old)
		undo()
		return config.Resource{}, false, slotfare.E(op, err)
	}
	if err := s.store.Write(ctx, booking.Batch{Resources: []booking.ResourceRecord{stored}}); err != nil {
		r.restore(old)
		undo()
		return config.Resource{}, false, slotfare.E(op, slotfare.Unavailable, err)
	}
	r.retired = time.Time{}
	return r.view(), created, nil
}

// newResourceConfig is what a resource created over the API starts from:
// the configuration file's defaults, and the demo's fare classes and rate
// periods (seed 004 Tables 7.6, 7.9) until the provider PUTs its own.
func (s *Service) newResourceConfig(id string) config.ResourceConfig {
	rc := s.cfg.DefaultResource(id)
	rc.FareClasses, rc.RatePeriods = pricing.DemoFareClasses(""), pricing.DemoRatePeriods()
	return rc
}

// PutResource creates or updates a resource's basics from Go (provider
// only): nodes, base cost, currency, time zone and, when set, slot, hold
// and hold limits. PUT /v1/resources/{id} is PutResourceConfig, which takes
// every field.
func (s *Service) PutResource(ctx context.Context, p booking.Principal, id string, spec config.ResourceSpec) (config.Resource, bool, error) {
	const op = "booking.PutResource"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return config.Resource{}, false, err
	}
	if err := spec.Validate(); err != nil {
		return config.Resource{}, false, err
	}
	res, created, err := s.reconfigure(ctx, op, id, true, func(rc *config.ResourceConfig, _ *[]byte, _ bool) error {
		rc.Nodes, rc.BaseCost, rc.Currency, rc.TimeZone = spec.Nodes, spec.BaseCost, spec.Currency, spec.TimeZone
		if spec.SlotSeconds != nil {
			rc.SlotSeconds = *spec.SlotSeconds
		}
		if spec.HoldSeconds != nil {
			rc.HoldSeconds = *spec.HoldSeconds
		}
		if spec.HoldLimits != nil {
			rc.HoldLimits = *spec.HoldLimits
		}
		return nil
	})
	return res, created, limitsHint(err, id, false)
}

// PutResourceConfig creates or changes a resource from the body of PUT
// /v1/resources/{id} (provider only): the configuration file's resource
// object, read by the file's own decoder, so that a resource created here
// is the resource the file would make. nodes, base_cost and time_zone are
// required; any other field left out keeps its value (a new resource: the
// file's default, and the demo's fare classes and rate periods); an object
// given (overbooking, limits, hold_limits) replaces the one in force whole.
// id may be repeated and has_queue, read-only, must say what is stored:
// what GET answers can be PUT back unchanged. When the fare classes or
// rate periods change and the body gives no limits, the stored booking
// control keeps what still fits (pruneLimits).
func (s *Service) PutResourceConfig(ctx context.Context, p booking.Principal, id string, body []byte) (config.Resource, bool, error) {
	const op = "booking.PutResourceConfig"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return config.Resource{}, false, err
	}
	var limitsGiven bool
	res, created, err := s.reconfigure(ctx, op, id, true, func(rc *config.ResourceConfig, queue *[]byte, _ bool) error {
		next, given, err := config.DecodeResource(body, "", *rc, config.APIResource, len(*queue) > 0)
		if err != nil {
			return err
		}
		limitsGiven = given
		*rc = next
		return nil
	})
	return res, created, limitsHint(err, id, limitsGiven)
}

// PutPricing replaces a resource's fare classes and rate periods in one
// step (provider only), validated as a whole: the classes must price the
// new periods, not the old ones, so periods can be added, renamed or
// removed with their taus in one request. Both halves are required.
// Booking control keeps the protection levels and show rates that still
// fit (pruneLimits).
func (s *Service) PutPricing(ctx context.Context, p booking.Principal, id string, body []byte) (config.Pricing, error) {
	const op = "booking.PutPricing"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return config.Pricing{}, err
	}
	pr, err := config.DecodePricing(op, body)
	if err != nil {
		return config.Pricing{}, err
	}
	classes, periods := pr.FareClasses, pr.RatePeriods
	res, _, err := s.reconfigure(ctx, op, id, false, func(rc *config.ResourceConfig, _ *[]byte, _ bool) error {
		next := *rc
		next.FareClasses, next.RatePeriods = classes, periods
		next.Limits = config.PruneLimits(next, rc.Limits)
		*rc = next
		return nil
	})
	if err != nil {
		return config.Pricing{}, limitsHint(err, id, false)
	}
	return config.Pricing{FareClasses: res.FareClasses, RatePeriods: res.RatePeriods}, nil
}

// PutFareClasses replaces a resource's fare classes (provider only): the
// body is decoded strictly by pricing and must price every rate period in
// force (to change both, PUT .../pricing).
func (s *Service) PutFareClasses(ctx context.Context, p booking.Principal, id string, body []byte) ([]pricing.FareClass, error) {
	const op = "booking.PutFareClasses"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return nil, err
	}
	classes, err := pricing.DecodeFareClasses(body)
	if err != nil {
		return nil, err
	}
	_, _, err = s.reconfigure(ctx, op, id, false, func(rc *config.ResourceConfig, _ *[]byte, _ bool) error {
		rate, err := rc.RateCalendar()
		if err != nil {
			return err
		}
		if err := pricing.ValidateFareClasses(classes, rate.PeriodNames()); err != nil {
			if !pricesOtherPeriods(classes) {
				return err
			}
			return slotfare.E(op, slotfare.Invalid, slotfare.Field(slotfare.FieldOf(err)),
				slotfare.MessageOf(err)+fmt.Sprintf("; the fare classes must price the rate periods in force (to change both, PUT /v1/resources/%s/pricing)", id))
		}
		next := *rc
		next.FareClasses = classes
		next.Limits = config.PruneLimits(next, rc.Limits)
		*rc = next
		return nil
	})
	if err != nil {
		return nil, limitsHint(err, id, false)
	}
	return classes, nil
}

// pricesOtherPeriods reports whether classes are sound on their own terms,
// priced for the periods their first class names: then what is wrong is
// only which periods they price.
func pricesOtherPeriods(classes []pricing.FareClass) bool {
	if len(classes) == 0 {
		return false
	}
	var names []string
	for p := range classes[0].Tau {
		names = append(names, p)
	}
	return pricing.ValidateFareClasses(classes, names) == nil
}

// PutRatePeriods replaces a resource's rate periods (provider only); the
// fare classes in force must have a tau for every new period name (to
// change both, PUT .../pricing).
func (s *Service) PutRatePeriods(ctx context.Context, p booking.Principal, id string, body []byte) ([]pricing.RatePeriod, error) {
	const op = "booking.PutRatePeriods"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return nil, err
	}
	periods, err := pricing.DecodeRatePeriods(body)
	if err != nil {
		return nil, err
	}
	_, _, err = s.reconfigure(ctx, op, id, false, func(rc *config.ResourceConfig, _ *[]byte, _ bool) error {
		loc, err := rc.Location()
		if err != nil {
			return err
		}
		rate, err := pricing.NewRateCalendar(loc, periods)
		if err != nil {
			return err
		}
		if err := pricing.ValidateFareClasses(rc.FareClasses, rate.PeriodNames()); err != nil {
			return slotfare.E(op, slotfare.Invalid, slotfare.Field("rate_periods"),
				fmt.Sprintf("the fare classes in force do not price the new periods; to change both, PUT /v1/resources/%s/pricing", id), err)
		}
		next := *rc
		next.RatePeriods = periods
		next.Limits = config.PruneLimits(next, rc.Limits)
		*rc = next
		return nil
	})
	if err != nil {
		return nil, limitsHint(err, id, false)
	}
	return periods, nil
}

// PutLimitsConfig replaces a resource's booking control (provider only):
// the "limits" object of the configuration file (DecodeLimits), validated
// against the resource's nodes, fare classes and rate periods. The answer
// is the setting as stored, every field filled.
func (s *Service) PutLimitsConfig(ctx context.Context, p booking.Principal, id string, body []byte) (config.LimitsConfig, error) {
	const op = "booking.PutLimitsConfig"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return config.LimitsConfig{}, err
	}
	l, err := config.DecodeLimits(body, "")
	if err != nil {
		return config.LimitsConfig{}, err
	}
	res, _, err := s.reconfigure(ctx, op, id, false, func(rc *config.ResourceConfig, _ *[]byte, _ bool) error {
		rc.Limits = l
		return nil
	})
	if err != nil {
		// The body is the limits object itself: its fields are named
		// without the "limits." the resource's validation gives them.
		if f := slotfare.FieldOf(err); strings.HasPrefix(f, "limits.") {
			return config.LimitsConfig{}, &slotfare.Error{Op: op, Kind: slotfare.KindOf(err), Field: strings.TrimPrefix(f, "limits."), Msg: slotfare.MessageOf(err)}
		}
		return config.LimitsConfig{}, err
	}
	return res.Limits, nil
}

// limitsHint adds to an error on the stored booking control (a protection
// level above the nodes after they were lowered, the thesis method with
// other than three classes) what to change and where: the request changed
// something else, so the limits in force must change first, or in the same
// PUT /v1/resources/{id}. given says the request gave the limits itself.
func limitsHint(err error, id string, given bool) error {
	f := slotfare.FieldOf(err)
	if err == nil || given || !strings.HasPrefix(f, "limits.") || slotfare.KindOf(err) != slotfare.Invalid {
		return err
	}
	return &slotfare.Error{Op: "booking.reconfigure", Kind: slotfare.Invalid, Field: f,
		Msg: slotfare.MessageOf(err) + fmt.Sprintf("; this is the booking control in force, which the change would leave impossible: "+
			"change it first with PUT /v1/resources/%s/limits-config, or give limits in the same PUT /v1/resources/%s", id, id)}
}

// PutOverbooking replaces a resource's overbooking policy and denial
// strategy (provider only). A field left out takes DefaultOverbooking's
// value (OverbookingSpec.Config), not the one in force: PUT replaces. The
// answer is the setting as stored, every field filled, so that it can be
// PUT back unchanged.
func (s *Service) PutOverbooking(ctx context.Context, p booking.Principal, id string, spec config.OverbookingSpec) (config.OverbookingSpec, error) {
	const op = "booking.PutOverbooking"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return config.OverbookingSpec{}, err
	}
	if err := spec.Validate(); err != nil {
		return config.OverbookingSpec{}, slotfare.E(op, err)
	}
	res, _, err := s.reconfigure(ctx, op, id, false, func(rc *config.ResourceConfig, _ *[]byte, _ bool) error {
		rc.Overbooking = spec.Config()
		return nil
	})
	if err != nil {
		return config.OverbookingSpec{}, err
	}
	return res.Overbooking, nil
}

// PutQueue sets the best-effort queue snapshot the delay premium of a
// resource's offers is computed from (seed 001; provider only).
func (s *Service) PutQueue(ctx context.Context, p booking.Principal, id string, body []byte) error {
	const op = "booking.PutQueue"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return err
	}
	q, err := pricing.ReadQueueSnapshot(bytes.NewReader(body))
	if err != nil {
		return err
	}
	if _, err := pricing.NewDelayPricer(q); err != nil {
		return err
	}
	_, _, err = s.reconfigure(ctx, op, id, false, func(_ *config.ResourceConfig, queue *[]byte, _ bool) error {
		*queue = append([]byte(nil), body...)
		return nil
	})
	return err
}

// DeleteResource retires a resource (provider only). While it has live
// bookings (held, committed or active: they hold its capacity and money
// may still move) it is a Conflict naming how many. Otherwise the
// retirement is stored: the resource takes no offers or holds, leaves the
// listing and answers 404 with when it was retired, and its bookings,
// postings and invoices stay readable, after a restart too. A later PUT
// /v1/resources/{id} puts a new resource in service under the id.
func (s *Service) DeleteResource(ctx context.Context, p booking.Principal, id string) error {
	const op = "booking.DeleteResource"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return err
	}
	if err := s.checkOpen(op); err != nil {
		return err
	}
	r := s.resource(id)
	if r == nil {
		return slotfare.E(op, slotfare.NotFound, fmt.Sprintf("no resource %q", id))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.inService(op); err != nil {
		return err
	}
	// r.live is every booking holding capacity, joined and left under
	// r.mu: a hold admitted after this check sees retired and is refused.
	counts := map[booking.Status]int{}
	for _, e := range r.live {
		counts[e.booking().Status]++
	}
	if n := len(r.live); n > 0 {
		return slotfare.E(op, slotfare.Conflict, fmt.Sprintf(
			"resource %q has %d live bookings (%d held, %d committed, %d active): it can be deleted once they have run their course or been cancelled",
			id, n, counts[booking.Held], counts[booking.Committed], counts[booking.Active]))
	}
	at := stamp(s.now())
	stored, err := r.rc.Stored(r.queue, &at)
	if err != nil {
		return slotfare.E(op, err)
	}
	if err := s.store.Write(ctx, booking.Batch{Resources: []booking.ResourceRecord{stored}}); err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	r.retired = at
	return nil
}

// bookingRef is what the ledger needs to know of a booking.
func bookingRef(b booking.Booking) ledger.BookingRef {
	return ledger.BookingRef{ID: b.ID, Customer: b.AccountID, Resource: b.ResourceID, Currency: ledger.Currency(b.Price.Currency)}
}

// Limits reports booking control's limits for every rate-period instance in
// [from, to) (provider only): capacity, overbooking limit, protection
// levels, nested booking limits per class and the nodes each class holds
// (the most held at any instant of the instance, by held, committed and
// active bookings).
func (s *Service) Limits(ctx context.Context, p booking.Principal, id string, from, to time.Time) (control.LimitsReport, error) {
	const op = "booking.Limits"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return control.LimitsReport{}, err
	}
	r := s.resource(id)
	if r == nil {
		return control.LimitsReport{}, slotfare.E(op, slotfare.NotFound, fmt.Sprintf("no resource %q", id))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.inService(op); err != nil {
		return control.LimitsReport{}, err
	}
	byClass := map[string][]booking.Booking{}
	for _, e := range r.live {
		b := e.booking()
		if b.End.After(from) && b.Start.Before(to) {
			byClass[b.FareClass] = append(byClass[b.FareClass], b)
		}
	}
	rep, err := control.BuildLimitsReport(r.ctl, from, to, func(class string, from, to time.Time) int {
		return peakNodes(byClass[class], from, to)
	})
	if err != nil {
		return control.LimitsReport{}, slotfare.E(op, err)
	}
	return rep, nil
}

// peakNodes is the most nodes the bookings hold together at any instant of
// [from, to): a sweep over their starts and ends.
func peakNodes(bs []booking.Booking, from, to time.Time) int {
	type ev struct {
		t time.Time
		d int
	}
	var evs []ev
	for _, b := range bs {
		if !b.End.After(from) || !b.Start.Before(to) {
			continue
		}
		st := b.Start
		if st.Before(from) {
			st = from
		}
		evs = append(evs, ev{st, b.Nodes}, ev{b.End, -b.Nodes})
	}
	sort.Slice(evs, func(i, j int) bool {
		if !evs[i].t.Equal(evs[j].t) {
			return evs[i].t.Before(evs[j].t)
		}
		return evs[i].d < evs[j].d // ends before starts at the same instant
	})
	cur, peak := 0, 0
	for _, e := range evs {
		cur += e.d
		peak = max(peak, cur)
	}
	return peak
}
