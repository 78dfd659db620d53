package service

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/booking/records"
	"slotfare/pricing"
)

// horizonSlack is how far beyond the book-ahead horizon the calendars'
// capacities are laid out, so Tick only extends them about once a day.
const horizonSlack = 2 * 24 * 3600

// horizonStep is how far the horizon's end moves at a time (a day).
const horizonStep = 24 * 3600

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
	// groups is how many of the resource's nested class groups on the
	// inventory its fare classes use (rebuild); zero until it is laid out
	// there, under its id.
	groups int
	// capFrom..capTo is where the groups' capacities follow the limits.
	capFrom, capTo int64
	live           map[string]*entry // bookings holding capacity
	// admitting counts this replica's holds whose guarded step is under
	// way without r.mu (shared ports): DELETE counts them as held.
	admitting int
	lim       map[string][]int // limits by period (cache, reset by configure)
	// laid is true while the inventory holds lim from now to capTo (a
	// recompute laid it out there): a recompute whose limits come out as
	// lim again lays nothing out. Every reset of lim clears it.
	laid bool
	// ctl is booking control (seed 004 Sec. 7.3-7.5): the overbooking limit
	// and the nested class limits per rate period, from the forecast.
	ctl *control.Control
	// refusals are the refusals that closed a class somewhere (loaded from
	// the store, or seen since), replayed into every new ctl; unsaved are
	// the ones seen since that are not yet written (saveRefusals).
	refusals, unsaved []booking.RefusalRecord
	// demand are the demand records this replica counted and has not
	// stored yet (countDemand, flushDemand), keyed by the index of their
	// class's name in demandClasses. A new ctl is given the stored ones,
	// read from the records when it is made (replay).
	demand        map[demandKey]*booking.DemandRecord
	demandClasses []string
	// observed is the version of the stored observations (refusals and
	// demand records, records.Port's Observed) up to which booking control
	// has taken every one in: those read at that version, and this
	// replica's own writes since; -1 before any was read.
	observed int64
	// instances is countDemand's list of the instances a request spans,
	// reused from one request to the next.
	instances []control.Instance
	// leased is true while this replica holds the resource's ticker lease
	// (holdsLease): only then does it lay the limits out on the inventory,
	// fenced by the lease's grant (fence).
	leased bool
	fence  lease.Fence
	// wholeAt is when this replica's ticker last read every live booking
	// of the resource (tickSet), and partTicks how many ticks read only
	// the due ones since; guarded by mu.
	wholeAt   time.Time
	partTicks int
	// replayedAt is when booking control was last brought up to the
	// stored history (by the lease holder); following is
	// true while it follows the records' change log from cursor, from a
	// replay of the history while this replica held the lease.
	replayedAt time.Time
	// demandReadAt is when a replica without the ticker lease last read
	// every replica's demand records (refreshFares).
	demandReadAt time.Time
	following    bool
	cursor       int64
	// version is the resource's configuration's version in the catalog (0
	// while only the configuration file has it): a provider's change is
	// stored over it, so that of two racing changes one is refused.
	version int64
	// retired is when DELETE /v1/resources/{id} retired the resource
	// (zero while it is in service): it takes no offers or holds and is
	// no longer listed, while its bookings, postings and invoices stay
	// readable.
	retired time.Time
	// relaid is true from a layout made anew (rebuild, a provider's
	// change) until its limits are published: that publication is an
	// event even where they equal the nodes the layout starts with.
	relaid bool
}

func (s *Service) newResource(rc config.ResourceConfig, queue []byte) (*resource, error) {
	r := s.blankResource(rc.ID)
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
	r.lim, r.laid = nil, false
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

// blankResource is resource id before it is configured: its control has
// taken in none of the stored observations (observed).
func (s *Service) blankResource(id string) *resource {
	return &resource{id: id, svc: s, live: map[string]*entry{}, observed: -1}
}

// replay feeds booking control the history of the resource's bookings,
// oldest first, then the refusals it has seen, and recomputes its limits:
// Control keeps no state of its own across restarts or reconfigurations.
// The caller holds r.mu.
func (r *resource) replay(ctx context.Context, all []booking.Booking, demand booking.DemandBook, now time.Time) {
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
	r.ctl.SetDemand(demand.Since(r.id, time.Time{}))
	for _, f := range r.refusals {
		ev := control.Event{Kind: control.EventRefused, Class: f.Class, Start: f.Start, End: f.End, At: f.At}
		if err := r.ctl.Observe(ev); err != nil {
			// A class renamed since, say: the refusal no longer applies.
			r.svc.log.Warn("booking control: stored refusal", "resource", r.id, "class", f.Class, "err", err)
		}
	}
	r.recompute(ctx, now)
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

// saveRefusals writes the refusals r has seen since the last call to the
// records port, where the replica holding r's ticker lease reads them with
// the history (leaseTicker), whichever replica saw them. Offers
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
	v, err := s.records.Refused(ctx, r.id, recs, !wait)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.unsaved = append(recs, r.unsaved...)
		return slotfare.E(slotfare.Op("service.saveRefusals"), slotfare.Unavailable, err)
	}
	r.wrote(v)
	return nil
}

// wrote notes version v, answered by a write of this replica's own
// observations: booking control has them already, so when v follows the
// version it had taken in, nothing else was stored meanwhile. The caller
// holds r.mu.
func (r *resource) wrote(v int64) {
	if r.observed >= 0 && v == r.observed+1 {
		r.observed = v
	}
}

// recompute brings booking control up to now; when the limits changed, the
// group calendars' capacities are laid out again from now on. The caller
// holds r.mu.
func (r *resource) recompute(ctx context.Context, now time.Time) {
	changed, err := r.ctl.Recompute(now)
	if err != nil {
		r.svc.log.Warn("booking control", "resource", r.id, "err", err)
		if f := r.svc.opts.OnControlError; f != nil {
			f(r.id)
		}
		return
	}
	if changed && r.groups > 0 && r.holdsLease() {
		old, laid := r.lim, r.laid
		r.lim, r.laid = nil, false
		if laid && r.limitsAre(old) {
			// Only what the layout does not hold changed (a show rate, a
			// fare, a bid price): the groups' capacities stay.
			r.laid = true
			return
		}
		r.capTo = max(r.capFrom, now.Unix())
		if err := r.extend(ctx, now, r.fence); err != nil {
			if slotfare.KindOf(err) != slotfare.Fenced {
				r.svc.log.Error("booking limits", "resource", r.id, "err", err)
			}
			return
		}
		r.laid = true
	}
}

// limitsAre reports whether the limits of every period in lim are those
// booking control gives now. The caller holds r.mu.
func (r *resource) limitsAre(lim map[string][]int) bool {
	for p, l := range lim {
		if !slices.Equal(l, r.limits(p)) {
			return false
		}
	}
	return true
}

// rebuild lays the resource out on the inventory: it has one layout
// there, under its id, holding every live booking (the inventory's, laid
// out from the records when first ensured), so nothing is laid out anew
// and nothing re-admitted. Only the replica that lays the resource's
// limits out (holdsLease: the holder of the resource's ticker lease, at
// its Tick) lays them out over the horizon, so that replicas whose booking
// control saw different histories do not overwrite each other; the
// replica that changes the configuration (changed) lays it out once, from
// now on. Until the limits are laid out a group's capacity is the nodes,
// never above the overbooking limit (which is at least the nodes): no
// instant is sold beyond it. The caller holds r.mu.
//
// The layout has layoutGroups nested groups whatever the number of fare
// classes n, so that a provider can change that number without a layout
// made anew: the classes use groups 0..n-1, a booking occupies
// min(its groups, n) of them, and the reset opens the groups beyond them,
// which a booking admitted under more classes may still occupy. A layout
// made with exactly n groups (on Redis, by an earlier slotfare) is used as
// it is, and refuses another n (Conflict).
func (r *resource) rebuild(ctx context.Context, now time.Time, changed bool) error {
	inv := r.svc.inv
	n := max(len(r.classes), 1)
	if n > layoutGroups {
		return slotfare.E(slotfare.Op("service.layout"), slotfare.Invalid, slotfare.Field("fare_classes"), fmt.Sprintf(
			"resource %s: a resource has at most %d fare classes, not %d", r.id, layoutGroups, n))
	}
	layout := layoutGroups
	err := inv.Ensure(ctx, r.id, layoutGroups, r.rc.Nodes)
	if slotfare.KindOf(err) == slotfare.Conflict {
		layout, err = n, inv.Ensure(ctx, r.id, n, r.rc.Nodes)
	}
	if err != nil {
		if slotfare.KindOf(err) == slotfare.Conflict {
			return slotfare.E(slotfare.Op("service.layout"), slotfare.Conflict, slotfare.Field("fare_classes"), fmt.Sprintf(
				"resource %s is laid out for another number of fare classes on the shared inventory by an earlier slotfare; with several replicas that number cannot change on it", r.id), err)
		}
		return err
	}
	r.groups = n
	from := now.Unix() - 24*3600
	r.capFrom, r.capTo = from, from
	if !changed {
		return nil
	}
	for j := 0; j < layout; j++ {
		capacity := r.rc.Nodes
		if j >= n {
			capacity = inventory.MaxNodes // no class uses it: open
		}
		if err := inv.SetCapacity(ctx, r.id, lease.Fence{}, j, inventory.MinTime, inventory.MaxTime, capacity); err != nil {
			return err
		}
	}
	r.relaid = true
	return r.extend(ctx, now, lease.Fence{})
}

// layoutGroups is how many nested groups a resource has on the inventory
// (rebuild), so how many fare classes it may have (config.MaxFareClasses).
const layoutGroups = config.MaxFareClasses

// holdsLease reports whether this replica lays r's limits out: while it
// holds r's ticker lease (a replica alone on its store always takes it).
// The caller holds r.mu.
func (r *resource) holdsLease() bool { return r.leased }

// loseLease makes this replica stop acting as r's lease holder after a
// store refused its write for an older fence than one it had seen: another
// replica took the lease over, and what that one wrote stands. The caller
// holds r.mu.
func (r *resource) loseLease(err error) {
	r.svc.log.Warn("tick: the ticker lease passed to another replica; its writes stand", "resource", r.id, "err", err)
	r.leased, r.fence = false, lease.Fence{}
}

// extend lays the limits out from capTo to the horizon (now + book-ahead +
// slack, up to a whole day, so that laying them out again within the day
// changes nothing): a capacity per group and rate-period piece, set in few
// steps on an inventory that can, each fenced by f (the holder's lease, or
// zero for a write no lease guards), and published: a layout that changes
// a stored capacity, or the first on a layout made anew (relaid), writes
// one limits.published event in the same step (inventory.Port's Publish).
// A write refused for its fence means another replica took the lease
// over: this one stops acting as the holder (the limits are that
// replica's now) and does not write again.
func (r *resource) extend(ctx context.Context, now time.Time, f lease.Fence) error {
	to := now.Unix() + int64(r.svc.cfg.BookAheadSeconds) + horizonSlack
	to += (horizonStep - to%horizonStep) % horizonStep
	if to-r.capTo < horizonSlack/2 && r.capTo > r.capFrom {
		return nil
	}
	pieces, err := r.rate.Split(time.Unix(r.capTo, 0), time.Unix(to, 0))
	if err != nil {
		return err
	}
	cs := make([]inventory.Capacity, 0, len(pieces)*r.groups)
	for _, pc := range pieces {
		lim := r.limits(pc.Period)
		for j := 0; j < r.groups; j++ {
			cs = append(cs, inventory.Capacity{Group: j, From: pc.Start.Unix(), To: pc.End.Unix(), Nodes: lim[j]})
		}
	}
	pub, err := r.publication(now, pieces)
	if err != nil {
		return err
	}
	_, err = r.svc.inv.Publish(ctx, r.id, f, cs, pub)
	if slotfare.KindOf(err) == slotfare.Fenced {
		r.loseLease(err)
	}
	if err != nil {
		return err
	}
	r.capTo, r.relaid = to, false
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
	groups         int
	capFrom, capTo int64
	ctl            *control.Control
}

func (r *resource) snapshot() resourceState {
	return resourceState{r.rc, r.rate, r.classes, r.queue, r.pricer, r.queueNow, r.groups, r.capFrom, r.capTo, r.ctl}
}

func (r *resource) restore(ctx context.Context, o resourceState) {
	r.lim, r.laid = nil, false
	r.rc, r.rate, r.classes, r.queue, r.pricer, r.queueNow, r.groups, r.capFrom, r.capTo, r.ctl =
		o.rc, o.rate, o.classes, o.queue, o.pricer, o.queueNow, o.groups, o.capFrom, o.capTo, o.ctl
}

// admitGuarded claims the hold's place in its account's hold limits (c),
// admits the entry of class index k to groups 0..k of the resource's
// shared layout (of groups, as the caller read r.groups) and stores w, in
// one guarded step (records.Guarded). It does not need r.mu.
func (r *resource) admitGuarded(ctx context.Context, e *entry, k, groups int, start, end int64, nodes int, w records.Write, c records.HoldClaim) error {
	t := inventory.Terms{Start: start, End: end, Nodes: nodes}
	ok, counted, err := r.svc.records.AdmitApply(ctx, r.id, e.view.Load().ID, min(k+1, groups), t, w, c)
	if err == nil && !ok {
		return r.holdLimitError(c, counted)
	}
	return r.admitError(err, t, e.view.Load().FareClass)
}

// admitError is an admission's error as the hold answers it: NoCapacity
// says which nodes and interval do not fit in which class (a buy-up offer
// held after its class closed names the class it was offered in).
func (r *resource) admitError(err error, t inventory.Terms, class string) error {
	if slotfare.KindOf(err) == slotfare.NoCapacity {
		return slotfare.E(slotfare.Op("service.admit"), slotfare.NoCapacity,
			fmt.Sprintf("%d nodes over [%s, %s) do not fit on %s in fare class %q (closed or full there)", t.Nodes,
				time.Unix(t.Start, 0).UTC().Format(time.RFC3339), time.Unix(t.End, 0).UTC().Format(time.RFC3339), r.id, class))
	}
	return err
}

// replaceWith is the write of a change of a booking's terms (its change
// in the write, its entry's mu held): stored in one step with the
// booking's move to them on every group it occupies (records.Guarded's ReplaceApply). A refusal that is not the
// write's own (moved, posted) is left in *refused: NoCapacity, saying
// which nodes and interval do not fit, or the Conflict of a booking the
// inventory no longer holds (released meanwhile: decided again). The
// caller holds r.mu.
func (r *resource) replaceWith(ctx context.Context, op slotfare.Op, refused *error) func(records.Write) error {
	return func(w records.Write) error {
		b := w.Changes[0].Record.Booking
		t := inventory.Terms{Start: b.Start.Unix(), End: b.End.Unix(), Nodes: b.Nodes}
		err := r.svc.records.ReplaceApply(ctx, r.id, b.ID, t, w)
		switch slotfare.KindOf(err) {
		case slotfare.NoCapacity:
			*refused = r.admitError(err, t, b.FareClass)
			return *refused
		case slotfare.NotFound:
			*refused = goneMeanwhile(op, b.ID, err)
			return *refused
		}
		return err
	}
}

// within reports whether a booking's entry is within the limits in force
// on every group it occupies: false where a limit was lowered below what is
// held there. The caller holds r.mu.
func (r *resource) within(ctx context.Context, e *entry) (bool, error) {
	return r.svc.inv.Within(ctx, r.id, e.view.Load().ID)
}

// remove takes a booking off the inventory. The caller holds r.mu.
func (r *resource) remove(ctx context.Context, id string) error {
	return r.svc.inv.Release(ctx, r.id, id)
}

// tell locks the resource and observes the events.
func (r *resource) tell(evs ...control.Event) {
	r.mu.Lock()
	for _, ev := range evs {
		r.observe(ev)
	}
	r.mu.Unlock()
}

// release gives a booking's capacity back and forgets it as live. When the
// inventory refuses, the booking stays live (its capacity held, never sold
// twice) and the error is returned: the next Tick releases it again.
func (r *resource) release(ctx context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.remove(ctx, id); err != nil {
		return err
	}
	delete(r.live, id)
	return nil
}

// classIndex finds a class by name: its index by rank and the class.
func (r *resource) classIndex(name string) (int, pricing.FareClass, bool) {
	for i, c := range r.pricedClasses() {
		if c.Name == name {
			return i, c, true
		}
	}
	return 0, pricing.FareClass{}, false
}

// pricedClasses are the fare classes by rank as they sell now: at booking
// control's fares where it sets them (limits.fares), else as configured.
// The caller holds r.mu and does not change them.
func (r *resource) pricedClasses() []pricing.FareClass {
	if r.ctl == nil {
		return r.classes
	}
	if pc := r.ctl.PricedClasses(); len(pc) == len(r.classes) {
		return pc
	}
	return r.classes
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
