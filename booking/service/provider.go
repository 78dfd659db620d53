package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/ledger"
	"slotfare/pricing"
)

// Provider operations: what providers (and, for reads, every role) do to
// resources over the API. Each change is validated whole, stored, then
// installed (reconfigure), with the resource's live bookings kept.

// Resources lists every resource (any role).
func (s *Service) Resources(ctx context.Context, p booking.Principal) ([]config.Resource, error) {
	const op slotfare.Op = "service.Resources"
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
	const op slotfare.Op = "service.Resource"
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
func (r *resource) inService(op slotfare.Op) error {
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
func (s *Service) reconfigure(ctx context.Context, op slotfare.Op, id string, create bool, mut func(rc *config.ResourceConfig, queue *[]byte, created bool) error) (config.Resource, bool, error) {
	if err := s.checkOpen(op); err != nil {
		return config.Resource{}, false, err
	}
	if err := config.ValidateResourceID(op, "id", id); err != nil {
		return config.Resource{}, false, err
	}
	r, created, err := s.lockToChange(op, id, create)
	if err != nil {
		return config.Resource{}, false, err
	}
	defer r.mu.Unlock()
	rc, queue := r.rc, r.queue
	if created {
		rc, queue = s.newResourceConfig(id), nil
	}
	rc = rc.Clone() // mut's changes are r's only once in force
	err = mut(&rc, &queue, created)
	if err == nil {
		if err = rc.Validate(""); err != nil {
			err = slotfare.E(op, err)
		}
	}
	if err == nil {
		err = s.changeConfig(ctx, op, r, rc, queue)
	}
	if err != nil {
		if created && r.retired.IsZero() { // nobody saw it: gone again
			s.mu.Lock()
			delete(s.resources, id)
			s.mu.Unlock()
		}
		return config.Resource{}, false, err
	}
	r.retired = time.Time{}
	// In service again (a PUT on a retired id, or one whose DELETE stopped
	// half way): its admissions are open again.
	if err := s.inv.Reinstate(ctx, r.id); err != nil {
		return config.Resource{}, false, slotfare.E(op, err)
	}
	return r.view(), created, nil
}

// lockToChange is resource id locked for a change of its configuration,
// made (in the map, locked before anyone can reach it) when create allows
// and it does not exist; created is true for one made, or put in service
// again on a retired id (its old history, bookings and refusals, stays).
func (s *Service) lockToChange(op slotfare.Op, id string, create bool) (r *resource, created bool, err error) {
	s.mu.Lock()
	r = s.resources[id]
	if r == nil {
		defer s.mu.Unlock()
		if !create {
			return nil, false, slotfare.E(op, slotfare.NotFound, fmt.Sprintf("no resource %q", id))
		}
		r = s.blankResource(id)
		r.rc = s.newResourceConfig(id)
		r.mu.Lock() // nobody can reach r until it is in the map
		s.resources[id] = r
		return r, true, nil
	}
	s.mu.Unlock()
	r.mu.Lock()
	if r.retired.IsZero() {
		return r, false, nil
	}
	if !create {
		defer r.mu.Unlock()
		return nil, false, r.inService(op)
	}
	return r, true, nil
}

// changeConfig puts rc and queue in force on r, whose lock the caller
// holds: booking control replayed under them, the layout laid out again
// and the configuration stored in the catalog; or, on any failure, r as
// it was.
func (s *Service) changeConfig(ctx context.Context, op slotfare.Op, r *resource, rc config.ResourceConfig, queue []byte) error {
	old := r.snapshot()
	fail := func(err error) error {
		r.restore(ctx, old)
		return err
	}
	if err := r.configure(rc, queue); err != nil {
		return fail(slotfare.E(op, err))
	}
	now := s.now()
	hist, err := s.historyOf(ctx, r.id)
	if err != nil {
		return fail(slotfare.E(op, slotfare.Unavailable, err))
	}
	demand, err := s.storedDemand(ctx, r.id, now)
	if err != nil {
		return fail(slotfare.E(op, slotfare.Unavailable, err))
	}
	r.replay(ctx, hist, demand, now)
	if err := r.rebuild(ctx, now, true); err != nil {
		return fail(slotfare.E(op, err))
	}
	stored, err := rc.Stored(queue, nil)
	if err != nil {
		return fail(slotfare.E(op, err))
	}
	v, err := s.putResource(ctx, r, stored)
	if err != nil {
		return fail(slotfare.E(op, err))
	}
	r.version = v
	return nil
}

// putResource stores a resource's configuration in the catalog over the
// version r was configured from, and returns the new version. A Conflict
// means another replica changed it meanwhile: the change is refused and the
// provider reads it again. The caller holds r.mu.
func (s *Service) putResource(ctx context.Context, r *resource, stored booking.ResourceRecord) (int64, error) {
	body, err := json.Marshal(stored)
	if err != nil {
		return 0, slotfare.E(slotfare.Op("service.putResource"), slotfare.Other, err)
	}
	v, err := s.ports.Catalog.Put(ctx, r.id, body, r.version)
	if err != nil {
		if slotfare.KindOf(err) == slotfare.Conflict {
			return 0, slotfare.E(slotfare.Op("service.putResource"), slotfare.Conflict, fmt.Sprintf("resource %s was changed meanwhile (by another replica); read it and try again", r.id), err)
		}
		return 0, slotfare.E(slotfare.Op("service.putResource"), slotfare.Unavailable, err)
	}
	return v, nil
}

// newResourceConfig is what a resource created over the API starts from:
// the configuration file's defaults, and the demo's fare classes and rate
// periods (seed 004 Tables 7.6, 7.9) until the provider PUTs its own.
func (s *Service) newResourceConfig(id string) config.ResourceConfig {
	rc := s.cfg.DefaultResource(id)
	rc.FareClasses, rc.RatePeriods = pricing.DemoFareClasses(""), pricing.DemoRatePeriods()
	return rc
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
	const op slotfare.Op = "service.PutResourceConfig"
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
	const op slotfare.Op = "service.PutPricing"
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
	const op slotfare.Op = "service.PutFareClasses"
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
	const op slotfare.Op = "service.PutRatePeriods"
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
	const op slotfare.Op = "service.PutLimitsConfig"
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
	return &slotfare.Error{Op: "service.reconfigure", Kind: slotfare.Invalid, Field: f,
		Msg: slotfare.MessageOf(err) + fmt.Sprintf("; this is the booking control in force, which the change would leave impossible: "+
			"change it first with PUT /v1/resources/%s/limits-config, or give limits in the same PUT /v1/resources/%s", id, id)}
}

// PutOverbooking replaces a resource's overbooking policy and denial
// strategy (provider only). A field left out takes DefaultOverbooking's
// value (OverbookingSpec.Config), not the one in force: PUT replaces. The
// answer is the setting as stored, every field filled, so that it can be
// PUT back unchanged.
func (s *Service) PutOverbooking(ctx context.Context, p booking.Principal, id string, spec config.OverbookingSpec) (config.OverbookingSpec, error) {
	const op slotfare.Op = "service.PutOverbooking"
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
	const op slotfare.Op = "service.PutQueue"
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
// /v1/resources/{id} puts a new resource in service under the id. On
// shared ports a DELETE that stops between the inventory's retirement and
// the catalog's leaves the resource listed but admitting nothing, until the
// provider sends the DELETE again or a PUT.
func (s *Service) DeleteResource(ctx context.Context, p booking.Principal, id string) error {
	const op slotfare.Op = "service.DeleteResource"
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
	// The bookings any replica made are in the records. A hold admitted
	// after this read is counted by the inventory's retirement below, or
	// refused by it. This replica's holds whose guarded step is under way
	// (not under r.mu) count as held: they may be stored after the read.
	sts, err := s.records.Live(ctx, id)
	if err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	n, counts := len(sts)+r.admitting, map[booking.Status]int{booking.Held: r.admitting}
	for _, st := range sts {
		counts[st.Record.Booking.Status]++
	}
	if n > 0 {
		return slotfare.E(op, slotfare.Conflict, fmt.Sprintf(
			"resource %q has %d live bookings (%d held, %d committed, %d active): it can be deleted once they have run their course or been cancelled",
			id, n, counts[booking.Held], counts[booking.Committed], counts[booking.Active]))
	}
	// The inventory marks the resource retired in the step that finds it
	// holds nothing, where every replica's admission reads it: a replica
	// that has not heard of the retirement yet cannot sell it meanwhile.
	laidOut := true
	held, err := s.inv.Retire(ctx, r.id)
	if slotfare.KindOf(err) == slotfare.NotFound {
		laidOut = false // never laid out there: nothing to admit on
	} else if err != nil {
		return slotfare.E(op, err)
	}
	if held > 0 { // admitted since Live was read, or not released yet
		return slotfare.E(op, slotfare.Conflict, fmt.Sprintf(
			"resource %q holds %d bookings on its inventory that were not live when its bookings were read: a hold made meanwhile, or a release not done yet; try again once they have run their course", id, held))
	}
	at := stamp(s.now())
	stored, err := r.rc.Stored(r.queue, &at)
	if err == nil {
		var v int64
		if v, err = s.putResource(ctx, r, stored); err == nil {
			r.retired, r.version = at, v
			return nil
		}
	}
	if laidOut {
		if rerr := s.inv.Reinstate(ctx, r.id); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	return slotfare.E(op, err)
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
	const op slotfare.Op = "service.Limits"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return control.LimitsReport{}, err
	}
	r := s.resource(id)
	if r == nil {
		return control.LimitsReport{}, slotfare.E(op, slotfare.NotFound, fmt.Sprintf("no resource %q", id))
	}
	r.mu.Lock()
	err := r.inService(op)
	r.mu.Unlock()
	if err != nil {
		return control.LimitsReport{}, err
	}
	// The stored records are read as they are: a report adopts no entry.
	live, err := s.records.Live(ctx, r.id)
	if err != nil {
		return control.LimitsReport{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	byClass := map[string][]booking.Booking{}
	for _, st := range live {
		if b := &st.Record.Booking; b.End.After(from) && b.Start.Before(to) {
			byClass[b.FareClass] = append(byClass[b.FareClass], *b)
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
