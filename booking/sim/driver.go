package sim

import (
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/deploy"
	"slotfare/booking/embedded"
	"slotfare/booking/memstore"
	"slotfare/booking/service"
	"slotfare/ledger"
	"slotfare/pricing"
)

// Options are one run's settings besides the scenario. RunAll takes two
// specs of one scenario and equal options (Progress aside) for one run: a
// field added here joins its key.
type Options struct {
	// Seed makes the run: the same scenario, options and seed give the same
	// result.
	Seed uint64
	// Cancel lets users cancel and NoShow lets them not show; with both
	// this is Sec. 7.7.3's "allow CNS", with neither every committed
	// booking shows (Sec. 7.7.2).
	Cancel, NoShow bool
	// TickSeconds is the step of the virtual clock's ticks (default: the
	// smallest slot of the resources, 300 s in the thesis: GarQ's delta).
	TickSeconds int64
	// SampleSeconds is how often each resource's overbooking limit in force
	// is sampled (default 3600).
	SampleSeconds int64
	// Progress, if set, is called now and then with the share of the
	// arrivals done, in [0, 1].
	Progress func(done float64)
	// WarmupDays are the first simulated days left out of the in-window
	// accounting (ResourceResult.RevenueInWindow): booking control learns
	// its forecasts there.
	WarmupDays int
	// path is the service's offer path the users ask (the same bookings
	// at the same prices whichever: TestInProcessOffersBookTheSame).
	path offerPath
}

// offerPath is how the simulated users ask for offers.
type offerPath int

const (
	// unpricedOffers: in process, each offer priced only when a user
	// weighs its price (service.UnpricedOffers, PriceOffer), held by its
	// terms.
	unpricedOffers offerPath = iota
	// pricedOffers: in process, every offer priced (InProcessOffers).
	pricedOffers
	// signedOffers: the public path's signed offers, held by their ids.
	signedOffers
)

// ClassResult is what one user class did on one resource.
type ClassResult struct {
	// Bookings committed; of them cancelled, no-shows, denied.
	Bookings, Cancelled, NoShows, Denied int
	// Revenue is what the class's bookings left the resource: charges less
	// refunds and compensation (penalties kept).
	Revenue      decimal.Decimal
	Compensation decimal.Decimal
}

// LimitSample is the overbooking limit in force on a resource at At.
type LimitSample struct {
	At    time.Time
	Limit int
}

// ResourceResult is one resource's outcome.
type ResourceResult struct {
	ID    string
	Nodes int
	// NetRevenue is read off the ledger: service revenue plus penalties less
	// refunds and compensation (Sec. 7.7.3's net revenue).
	NetRevenue   decimal.Decimal
	Compensation decimal.Decimal
	// Classes by user class (premium, business, budget, or the scenario's).
	Classes map[string]*ClassResult
	Limits  []LimitSample
	// NodeSeconds is what the bookings that ran (active, completed) held.
	NodeSeconds int64
	// ByStartDay is the revenue of the bookings (as Classes count it) by
	// the day of their start, in whole days from the scenario's start: [0]
	// is the first simulated day. Days past the scenario's hold the
	// bookings that users made in its last days for later.
	ByStartDay []decimal.Decimal
	// RevenueInWindow is what the resource earned for the node-seconds of
	// the window (Result.Window: the simulated days after the warm-up):
	// each booking's net revenue times the share of its interval inside
	// the window, so a booking straddling an end counts pro rata.
	RevenueInWindow decimal.Decimal
	// RevenueAfterWindow is the net revenue of the bookings that start at
	// or after the window's end: sold in the run for days it does not
	// simulate.
	RevenueAfterWindow decimal.Decimal
	// NodeSecondsInWindow is what the bookings that ran held inside the
	// window: never more than Nodes x the window's length.
	NodeSecondsInWindow int64
	// DeniedInWindow counts the denied bookings that start in the window.
	DeniedInWindow int
}

// Occupancy is the share of the window's node-seconds the bookings that
// ran held.
func (r *ResourceResult) Occupancy(w Window) float64 {
	capacity := float64(r.Nodes) * w.End.Sub(w.Start).Seconds()
	if capacity <= 0 {
		return 0
	}
	return float64(r.NodeSecondsInWindow) / capacity
}

// Window is the stretch of virtual time the in-window figures count.
type Window struct{ Start, End time.Time }

// inWindow is the number of seconds of [start, end) inside w.
func (w Window) inWindow(start, end time.Time) int64 {
	a, b := start, end
	if a.Before(w.Start) {
		a = w.Start
	}
	if b.After(w.End) {
		b = w.End
	}
	if !a.Before(b) {
		return 0
	}
	return int64(b.Sub(a) / time.Second)
}

// share is amount times the share of [start, end) that lies inside w.
func (w Window) share(amount decimal.Decimal, start, end time.Time) decimal.Decimal {
	in := w.inWindow(start, end)
	total := int64(end.Sub(start) / time.Second)
	switch {
	case in == 0 || total <= 0:
		return decimal.Zero
	case in == total:
		return amount
	}
	return amount.Mul(decimal.NewFromInt(in)).Div(decimal.NewFromInt(total))
}

// RevenueStartingWithin is the revenue of the bookings that start in the
// first days simulated (ByStartDay[:days]): the service sold for those
// days, without what the last days' users booked for after them.
func (r *ResourceResult) RevenueStartingWithin(days int) decimal.Decimal {
	sum := decimal.Zero
	for i, x := range r.ByStartDay {
		if i < days {
			sum = sum.Add(x)
		}
	}
	return sum
}

// MeanLimit is the mean of the sampled overbooking limits.
func (r *ResourceResult) MeanLimit() float64 {
	if len(r.Limits) == 0 {
		return float64(r.Nodes)
	}
	s := 0
	for _, l := range r.Limits {
		s += l.Limit
	}
	return float64(s) / float64(len(r.Limits))
}

// MaxLimit is the largest sampled overbooking limit.
func (r *ResourceResult) MaxLimit() int {
	m := r.Nodes
	for _, l := range r.Limits {
		m = max(m, l.Limit)
	}
	return m
}

// Class returns the result of a class, made if absent.
func (r *ResourceResult) Class(name string) *ClassResult {
	c := r.Classes[name]
	if c == nil {
		c = &ClassResult{Revenue: decimal.Zero, Compensation: decimal.Zero}
		r.Classes[name] = c
	}
	return c
}

// StreamResult counts one stream's jobs.
type StreamResult struct {
	Name string
	// Arrivals are the jobs that came; Booked found an offer and committed;
	// the rest were ignored for lack of an offer (Sec. 7.7.1).
	Arrivals, Booked int
	// BoughtUp of the booked took a higher class than theirs, offered
	// because theirs was closed (Sec. 7.4). Refused found an offer they
	// could use and priced all of them above their willingness to pay;
	// Closed were offered only a higher class and, without a willingness
	// to pay (the thesis's model), walked away.
	BoughtUp, Refused, Closed int
}

// BookingOutcome is one committed booking as the user made it.
type BookingOutcome struct {
	Resource, Stream string
	// Class is the class the user buys; FareClass the one it booked
	// (higher when it bought up).
	Class, FareClass string
	Start, End       time.Time
	Nodes            int
	// Price is what the offer charged (Total); WillingnessToPay the
	// user's ceiling as a multiple of the base cost (0: none).
	Price            decimal.Decimal
	WillingnessToPay float64
}

// Result is one run's outcome.
type Result struct {
	Resources []*ResourceResult // by id
	Streams   []StreamResult
	// Days are the scenario's days of arrivals.
	Days int
	// Window is what the in-window figures count: the simulated days
	// after Options.WarmupDays.
	Window Window
	// Bookings are the committed bookings in the order made.
	Bookings []BookingOutcome
	// End is when the last booking was over and the run stopped.
	End time.Time
}

// Resource finds a resource's result.
func (r *Result) Resource(id string) *ResourceResult {
	for _, x := range r.Resources {
		if x.ID == id {
			return x
		}
	}
	return nil
}

// stream is a level or a trace as the driver sees it.
type stream struct {
	name  string
	users Users
	p     booking.Principal
	// class per resource the users buy there; scale of runtimes.
	class map[string]string
	scale map[string]float64
	rng   *rand.Rand // fates: cancellation times and no-shows
}

type arrival struct {
	at      int64 // unix ns
	stream  int
	runtime float64 // seconds, before scaling
	nodes   int
	// wtp is the user's willingness to pay, a multiple of the base cost;
	// 0 is no ceiling (the thesis's model).
	wtp float64
}

type simBooking struct {
	id       string
	stream   int
	resource string
	class    string
	start    time.Time
	end      time.Time
	wtp      float64
}

type evKind int

const (
	evCancel evKind = iota
	evCheckIn
)

type event struct {
	at   int64 // unix ns
	seq  uint64
	kind evKind
	b    *simBooking
}

type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// provider is the principal the driver reads limits as.
var provider = booking.Principal{AccountID: "sim-provider", Role: booking.RoleProvider}

// Run simulates s: it opens the booking service on an in-memory store with
// a virtual clock, replays the arrivals in time order, ticks at every slot
// boundary, and after the last arrival goes on until every booking is over.
func Run(ctx context.Context, s *Scenario, opts Options) (*Result, error) {
	const op slotfare.Op = "sim.Run"
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if opts.WarmupDays < 0 || opts.WarmupDays >= s.Days {
		return nil, slotfare.Errorf(op, "warmup", "must be in 0..%d (fewer than the %d days simulated), got %d", s.Days-1, s.Days, opts.WarmupDays)
	}
	d, err := newDriver(s, opts)
	if err != nil {
		return nil, slotfare.E(op, err)
	}
	defer d.svc.Close()
	if err := d.loop(ctx); err != nil {
		return nil, slotfare.E(op, err)
	}
	return d.result(ctx)
}

type driver struct {
	s       *Scenario
	opts    Options
	svc     *service.Service
	now     time.Time
	tick    int64 // seconds
	streams []*stream
	arr     []arrival
	events  eventHeap
	seq     uint64
	books   []*simBooking
	rates   map[string]*pricing.RateCalendar
	res     map[string]config.ResourceConfig
	out     map[string]*ResourceResult
	sres    []StreamResult
	maxEnd  time.Time
}

func newDriver(s *Scenario, opts Options) (*driver, error) {
	d, err := newWorkload(s, opts)
	if err != nil {
		return nil, err
	}
	// The service: the scenario's configuration with the provider's key
	// (the driver reads limits as a provider), its clock the driver's.
	secret := make([]byte, 32)
	for i := range secret {
		secret[i] = byte(opts.Seed >> (8 * (i % 8)))
	}
	// Booking ids end in bytes of a stream seeded from the run's seed, so
	// that they, and the lottery seeded from them, repeat.
	var idKey [32]byte
	binary.LittleEndian.PutUint64(idKey[:8], opts.Seed)
	copy(idKey[8:], "slotfare-simulated-booking-ids")
	ports, err := deploy.Embedded(context.Background(), memstore.Unlogged(), embedded.Options{})
	if err != nil {
		return nil, err
	}
	svc, err := service.Open(s.Config, ports, service.Options{Now: func() time.Time { return d.now }, Secret: secret,
		IDs: rand.NewChaCha8(idKey)})
	if err != nil {
		return nil, err
	}
	d.svc = svc
	return d, nil
}

// newWorkload lays out a run without its service: the resources' rate
// calendars, the streams and every arrival, drawn from the seed alone.
func newWorkload(s *Scenario, opts Options) (*driver, error) {
	d := &driver{s: s, opts: opts, now: s.Start, rates: map[string]*pricing.RateCalendar{},
		res: map[string]config.ResourceConfig{}, out: map[string]*ResourceResult{}}
	for _, rc := range s.Config.Resources {
		cal, err := rc.RateCalendar()
		if err != nil {
			return nil, err
		}
		d.rates[rc.ID] = cal
		d.res[rc.ID] = rc
		d.out[rc.ID] = &ResourceResult{ID: rc.ID, Nodes: rc.Nodes, NetRevenue: decimal.Zero, Compensation: decimal.Zero,
			Classes: map[string]*ClassResult{}, RevenueInWindow: decimal.Zero, RevenueAfterWindow: decimal.Zero}
		if d.tick == 0 || int64(rc.SlotSeconds) < d.tick {
			d.tick = int64(rc.SlotSeconds)
		}
	}
	if opts.TickSeconds > 0 {
		d.tick = opts.TickSeconds
	}
	if d.opts.SampleSeconds <= 0 {
		d.opts.SampleSeconds = 3600
	}
	// Streams and their arrivals, each stream from its own random stream so
	// that one stream's draws never shift another's.
	for i, l := range s.Levels {
		st := d.newStream(l.Name, l.Users, uint64(2*i))
		d.streams = append(d.streams, st)
		// The willingness to pay comes from a stream of its own, so that a
		// level has the same arrivals with and without it.
		wtp := rand.New(rand.NewPCG(opts.Seed, uint64(2*i+1)|1<<40))
		if err := d.poisson(len(d.streams)-1, l, rand.New(rand.NewPCG(opts.Seed, uint64(2*i+1))), wtp); err != nil {
			return nil, err
		}
	}
	for i, tr := range s.Traces {
		k := uint64(2 * (len(s.Levels) + i))
		d.streams = append(d.streams, d.newStream(tr.Name, tr.Users, k))
		end := s.Start.Add(time.Duration(s.Days) * 24 * time.Hour).UnixNano()
		for _, j := range tr.Jobs {
			at := s.Start.UnixNano() + j.Submit*int64(time.Second)
			if at >= end {
				break
			}
			d.arr = append(d.arr, arrival{at: at, stream: len(d.streams) - 1, runtime: float64(j.Runtime), nodes: j.Nodes})
		}
	}
	sort.SliceStable(d.arr, func(i, j int) bool {
		if d.arr[i].at != d.arr[j].at {
			return d.arr[i].at < d.arr[j].at
		}
		return d.arr[i].stream < d.arr[j].stream
	})
	d.sres = make([]StreamResult, len(d.streams))
	for i, st := range d.streams {
		d.sres[i].Name = st.name
	}
	return d, nil
}

func (d *driver) newStream(name string, u Users, k uint64) *stream {
	st := &stream{name: name, users: u, class: map[string]string{}, scale: map[string]float64{},
		p:   booking.Principal{AccountID: "u-" + name, Role: booking.RoleUser, VO: u.VO},
		rng: rand.New(rand.NewPCG(d.opts.Seed, k+1<<32))}
	for _, id := range u.Resources {
		rc := d.res[id]
		st.class[id] = buyClass(rc, u)
		st.scale[id] = 1
		if r, ok := d.s.Ratings[id]; ok && u.Rating > 0 {
			st.scale[id] = u.Rating / r
		}
	}
	return st
}

// buyClass is the class users buy on rc: theirs if rc sells it to them,
// else the cheapest (highest rank) class rc sells them.
func buyClass(rc config.ResourceConfig, u Users) string {
	vo := pricing.VO(u.VO)
	best, rank := "", 0
	for _, c := range rc.FareClasses {
		if !c.Admits(vo) {
			continue
		}
		if c.Name == u.Class {
			return c.Name
		}
		if c.Rank > rank {
			best, rank = c.Name, c.Rank
		}
	}
	return best
}

// poisson lays out a level's arrivals: in each rate-period instance of its
// first resource, exponential gaps at that period's rate (a Poisson process
// with a piecewise-constant rate; memoryless, so each instance starts
// afresh), exponential runtimes of the level's mean.
func (d *driver) poisson(si int, l Level, rng, wtp *rand.Rand) error {
	cal := d.rates[l.Resources[0]]
	end := d.s.Start.Add(time.Duration(d.s.Days) * 24 * time.Hour)
	pieces, err := cal.Split(d.s.Start, end)
	if err != nil {
		return err
	}
	for _, pc := range pieces {
		rate := l.Rates[pc.Period]
		if rate <= 0 {
			continue
		}
		t := float64(pc.Start.UnixNano())
		stop := float64(pc.End.UnixNano())
		for {
			t += rng.ExpFloat64() / rate * 1e9
			if t >= stop {
				break
			}
			a := arrival{at: int64(t), stream: si, runtime: rng.ExpFloat64() * l.MeanRuntime, nodes: l.Nodes}
			if l.WillingnessToPay != nil {
				a.wtp = l.WillingnessToPay.Draw(wtp.NormFloat64())
			}
			d.arr = append(d.arr, a)
		}
	}
	return nil
}

func (d *driver) push(at time.Time, k evKind, b *simBooking) {
	d.seq++
	heap.Push(&d.events, event{at: at.UnixNano(), seq: d.seq, kind: k, b: b})
}

// loop runs the events in time order. At one instant the tick comes first
// (starts, ends, no-shows and expiries at that instant), then the users'
// cancellations and check-ins, then the arrivals.
func (d *driver) loop(ctx context.Context) error {
	step := d.tick * int64(time.Second)
	nextTick := d.s.Start.UnixNano()
	sample := d.opts.SampleSeconds * int64(time.Second)
	nextSample := d.s.Start.UnixNano()
	grace := time.Duration(d.s.Config.GraceSeconds) * time.Second
	ai := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		next := nextTick
		if len(d.events) > 0 && d.events[0].at < next {
			next = d.events[0].at
		}
		if ai < len(d.arr) && d.arr[ai].at < next {
			next = d.arr[ai].at
		}
		if next == nextTick {
			if ai >= len(d.arr) && len(d.events) == 0 && !d.now.Before(d.maxEnd.Add(grace)) {
				return nil
			}
			d.now = time.Unix(0, nextTick).UTC()
			if err := d.svc.Tick(d.now); err != nil {
				return err
			}
			if nextTick >= nextSample {
				if err := d.sampleLimits(ctx); err != nil {
					return err
				}
				nextSample += sample
			}
			nextTick += step
			continue
		}
		d.now = time.Unix(0, next).UTC()
		if len(d.events) > 0 && d.events[0].at == next {
			ev := heap.Pop(&d.events).(event)
			if err := d.handle(ctx, ev); err != nil {
				return err
			}
			continue
		}
		if err := d.arrive(ctx, d.arr[ai]); err != nil {
			return err
		}
		ai++
		if d.opts.Progress != nil && ai%1000 == 0 {
			d.opts.Progress(float64(ai) / float64(len(d.arr)))
		}
	}
}

func (d *driver) sampleLimits(ctx context.Context) error {
	for _, rc := range d.s.Config.Resources {
		rep, err := d.svc.Limits(ctx, provider, rc.ID, d.now, d.now.Add(time.Second))
		if err != nil {
			return err
		}
		if len(rep.Periods) > 0 {
			r := d.out[rc.ID]
			r.Limits = append(r.Limits, LimitSample{At: d.now, Limit: rep.Periods[0].OverbookingLimit})
		}
	}
	return nil
}

// handle is a user's own step on a booking: a cancellation, or the
// check-in before the start that makes the booking a show.
func (d *driver) handle(ctx context.Context, ev event) error {
	p := d.streams[ev.b.stream].p
	var err error
	switch ev.kind {
	case evCancel:
		_, err = d.svc.Cancel(ctx, p, ev.b.id)
	case evCheckIn:
		_, err = d.svc.CheckIn(ctx, p, ev.b.id)
	}
	return err
}

// candidate is the offer a user would take on one resource.
type candidate struct {
	offer    booking.Offer
	order    int
	boughtUp bool
}

// arrive is one job's user: offers from each resource it may book, Alg.
// 9's pick on each (seed 004 Sec. 6.4.2: the longest offer of at least
// half the duration and half the nodes) among those it can afford, then
// the stream's choice across resources, held and committed. Where its
// class is closed the service offers the next one up (Sec. 7.4): a user
// with a willingness to pay buys up if it can afford it; without one (the
// thesis's model) it does not, the users' classes being independent
// demand, as EMSR assumes. A job that finds no offer is ignored (Sec.
// 7.7.1).
func (d *driver) arrive(ctx context.Context, a arrival) error {
	st := d.streams[a.stream]
	d.sres[a.stream].Arrivals++
	var cands []candidate
	var why outcome
	for i, id := range st.users.Resources {
		rc := d.res[id]
		start, dur, nodes := d.ask(a, id)
		q := booking.OfferQuery{ResourceID: id, EarliestStart: time.Unix(start, 0).UTC(),
			LatestEnd: time.Unix(start+dur+st.users.SearchSeconds, 0).UTC(), DurationSeconds: &dur, Nodes: &nodes, FareClass: st.class[id]}
		offers := d.svc.UnpricedOffers
		switch d.opts.path {
		case pricedOffers:
			offers = d.svc.InProcessOffers
		case signedOffers:
			offers = d.svc.Offers
		}
		offs, err := offers(ctx, st.p, q)
		if err != nil {
			switch slotfare.KindOf(err) {
			case slotfare.Invalid, slotfare.NoCapacity, slotfare.Conflict:
				continue // nothing this resource can offer the job
			}
			return err
		}
		afford := affordable(a.wtp, rc.BaseCost)
		if afford != nil {
			// a user weighs the price of every offer it could use
			if err := d.price(offs, func(o booking.Offer) bool { return usable(o, dur, nodes, d.tick) }); err != nil {
				return err
			}
		}
		o, out := pick(offs, dur, nodes, d.tick, afford)
		switch out {
		case took, tookUp:
			// the offers across resources compare by price
			one := []booking.Offer{o}
			if err := d.price(one, nil); err != nil {
				return err
			}
			cands = append(cands, candidate{one[0], i, out == tookUp})
		default:
			why = max(why, out)
		}
	}
	sortCandidates(cands, st.users.Choice)
	for _, c := range cands {
		o := c.offer
		req := booking.HoldRequest{ResourceID: o.ResourceID, Start: o.Start, End: o.End, Nodes: o.Nodes, FareClass: o.FareClass, Quote: o.Quote,
			RequestedFareClass: o.RequestedFareClass}
		if o.OfferID != "" {
			req = booking.HoldRequest{OfferID: o.OfferID}
		}
		b, _, err := d.svc.Hold(ctx, st.p, req, booking.Idempotency{})
		if err != nil {
			var hle *service.HoldLimitError
			if k := slotfare.KindOf(err); k == slotfare.NoCapacity || k == slotfare.Conflict || errors.As(err, &hle) {
				continue // taken meanwhile, or more than the provider lets one account hold
			}
			return err
		}
		if _, err := d.svc.Commit(ctx, st.p, b.ID); err != nil {
			if k := slotfare.KindOf(err); k == slotfare.NoCapacity || k == slotfare.Conflict {
				continue
			}
			return err
		}
		d.booked(a.stream, st, b, a.wtp, c.boughtUp)
		return nil
	}
	switch why {
	case refused:
		d.sres[a.stream].Refused++
	case closed:
		d.sres[a.stream].Closed++
	}
	return nil
}

// price prices in place the offers the service left unpriced (of them,
// those want takes; nil: all), as the service prices an offer now.
func (d *driver) price(offs []booking.Offer, want func(booking.Offer) bool) error {
	for i, o := range offs {
		if o.Price.Currency != "" || want != nil && !want(o) {
			continue
		}
		p, err := d.svc.PriceOffer(o)
		if err != nil {
			return err
		}
		offs[i].Price = p
	}
	return nil
}

// ask is what an arrival asks resource id for: the earliest start (its
// arrival plus the lead, rounded up to the tick), the duration (the
// runtime scaled to the resource, in whole ticks) and the nodes; the
// latest end is start + duration + the search limit.
func (d *driver) ask(a arrival, id string) (start, dur int64, nodes int) {
	st := d.streams[a.stream]
	slot := d.tick
	start = ceilTo(time.Unix(0, a.at).Add(time.Duration(st.users.LeadSeconds)*time.Second).Unix(), slot)
	dur = max(ceilTo(int64(math.Ceil(a.runtime*st.scale[id])), slot), slot)
	return start, dur, min(a.nodes, d.res[id].Nodes)
}

// sortCandidates orders the offers across resources by the users'
// choice: premium users the earliest end, budget users the lowest price
// (Sec. 7.7.1).
func sortCandidates(cands []candidate, choice Choice) {
	switch choice {
	case Cheapest:
		slices.SortStableFunc(cands, func(x, y candidate) int {
			if c := x.offer.Price.Total.Cmp(y.offer.Price.Total); c != 0 {
				return c
			}
			return x.offer.End.Compare(y.offer.End)
		})
	default:
		slices.SortStableFunc(cands, func(x, y candidate) int {
			if c := x.offer.End.Compare(y.offer.End); c != 0 {
				return c
			}
			return x.offer.Price.Total.Cmp(y.offer.Price.Total)
		})
	}
}

// affordable is a user's test of an offer: its price per node-second at
// most wtp times the resource's base cost; nil when wtp is 0 (the
// thesis's user: no ceiling, no buying up).
func affordable(wtp float64, base decimal.Decimal) func(booking.Offer) bool {
	if wtp <= 0 {
		return nil
	}
	ceiling := decimal.NewFromFloat(wtp).Mul(base)
	return func(o booking.Offer) bool {
		nodeSeconds := decimal.NewFromInt(int64(o.Nodes) * (o.End.Unix() - o.Start.Unix()))
		return o.Price.Total.LessThanOrEqual(ceiling.Mul(nodeSeconds))
	}
}

// booked records a commit and lays out the booking's fate: cancelled with
// probability lambda_c (Table 7.9) shortly before its start (an
// exponential time with a mean of one tick: unanticipated, Sec. 7.7.3),
// else a no-show with the probability of its start's rate period (Sec.
// 7.7.1), else checked in one tick before the start. The draws are made
// with or without CNS, so that both runs see the same users.
func (d *driver) booked(si int, st *stream, b booking.Booking, wtp float64, boughtUp bool) {
	d.sres[si].Booked++
	if boughtUp {
		d.sres[si].BoughtUp++
	}
	sb := &simBooking{id: b.ID, stream: si, resource: b.ResourceID, class: st.users.Class, start: b.Start, end: b.End, wtp: wtp}
	d.books = append(d.books, sb)
	if b.End.After(d.maxEnd) {
		d.maxEnd = b.End
	}
	u1, u2, u3 := st.rng.Float64(), st.rng.Float64(), st.rng.ExpFloat64()
	cancel := u1 < st.users.CancelRate
	noShow := u2 < d.s.NoShow[d.rates[b.ResourceID].PeriodAt(b.Start)]
	tick := time.Duration(d.tick) * time.Second
	if d.opts.Cancel && cancel {
		{
			at := b.Start.Add(-time.Duration(u3 * float64(tick)))
			if !at.Before(b.Start) {
				at = b.Start.Add(-time.Second)
			}
			if at.Before(d.now) {
				at = d.now
			}
			d.push(at, evCancel, sb)
			return
		}
	}
	if d.opts.NoShow && noShow {
		return
	}
	in := b.Start.Add(-tick)
	if in.Before(d.now) {
		in = d.now
	}
	d.push(in, evCheckIn, sb)
}

// window is the stretch the in-window figures count: the scenario's days
// after the warm-up.
func (d *driver) window() Window {
	day := 24 * time.Hour
	return Window{Start: d.s.Start.Add(time.Duration(d.opts.WarmupDays) * day), End: d.s.Start.Add(time.Duration(d.s.Days) * day)}
}

func ceilTo(x, step int64) int64 {
	if r := x % step; r != 0 {
		return x + step - r
	}
	return x
}

// outcome is what a user made of one resource's offers, in the order of
// precedence the stream's counts take across resources.
type outcome int

const (
	noOffer outcome = iota // nothing of the size it can use
	closed                 // only a higher class, and no willingness to pay
	refused                // offers it could use, priced above its willingness to pay
	took                   // an offer in its class
	tookUp                 // an offer one class up: it bought up
)

// pick is Alg. 9 of seed 004 (Sec. 6.4.2) on one resource's offers: of the
// offers it can afford, the longest one of at least max(dur/2, delta) and
// max(nodes/2, 1) nodes (ties: the earlier, as offered). The offers are
// all in the class the user asked, or, when the counter sold that class
// out there, all buy-ups it marked (RequestedFareClass, Sec. 7.4): a user
// takes one only if its willingness to pay covers the upgrade price
// (afford is nil for the thesis's users, who have none and walk away).
func pick(offs []booking.Offer, dur int64, nodes int, delta int64, afford func(booking.Offer) bool) (booking.Offer, outcome) {
	best, found, anyUsable, up := booking.Offer{}, false, false, false
	for _, o := range offs {
		if !usable(o, dur, nodes, delta) {
			continue
		}
		l := o.End.Unix() - o.Start.Unix()
		anyUsable = true
		up = o.RequestedFareClass != ""
		if up && afford == nil || afford != nil && !afford(o) {
			continue
		}
		if !found || l > best.End.Unix()-best.Start.Unix() {
			best, found = o, true
		}
	}
	switch {
	case found && up:
		return best, tookUp
	case found:
		return best, took
	case anyUsable && up && afford == nil:
		return best, closed
	case anyUsable:
		return best, refused
	}
	return best, noOffer
}

// usable is Alg. 9's test of an offer's size: at least max(dur/2, delta)
// long and max(nodes/2, 1) nodes.
func usable(o booking.Offer, dur int64, nodes int, delta int64) bool {
	return o.End.Unix()-o.Start.Unix() >= max(dur/2, delta) && o.Nodes >= max(nodes/2, 1)
}

// result reads every booking's final state back from the service and the
// resources' net revenue from the ledger.
func (d *driver) result(ctx context.Context) (*Result, error) {
	w := d.window()
	outcomes := make([]BookingOutcome, 0, len(d.books))
	for _, sb := range d.books {
		b, err := d.svc.Get(ctx, d.streams[sb.stream].p, sb.id)
		if err != nil {
			return nil, err
		}
		outcomes = append(outcomes, BookingOutcome{Resource: sb.resource, Stream: d.streams[sb.stream].name, Class: sb.class, FareClass: b.FareClass,
			Start: b.Start, End: b.End, Nodes: b.Nodes, Price: b.Price.Total, WillingnessToPay: sb.wtp})
		r := d.out[sb.resource]
		c := r.Class(sb.class)
		c.Bookings++
		net := b.Price.Total // price + penalty - refund - compensation, as invoiced
		if b.Penalty != nil {
			net = net.Add(*b.Penalty)
		}
		if b.Refund != nil {
			net = net.Sub(*b.Refund)
		}
		if b.Compensation != nil {
			net = net.Sub(*b.Compensation)
			c.Compensation = c.Compensation.Add(*b.Compensation)
			r.Compensation = r.Compensation.Add(*b.Compensation)
		}
		c.Revenue = c.Revenue.Add(net)
		day := int(sb.start.Sub(d.s.Start) / (24 * time.Hour))
		for len(r.ByStartDay) <= day {
			r.ByStartDay = append(r.ByStartDay, decimal.Zero)
		}
		r.ByStartDay[day] = r.ByStartDay[day].Add(net)
		r.RevenueInWindow = r.RevenueInWindow.Add(w.share(net, b.Start, b.End))
		if !b.Start.Before(w.End) {
			r.RevenueAfterWindow = r.RevenueAfterWindow.Add(net)
		}
		switch b.Status {
		case booking.Cancelled:
			c.Cancelled++
		case booking.NoShow:
			c.NoShows++
		case booking.Denied:
			c.Denied++
			if w.inWindow(b.Start, b.Start.Add(time.Second)) > 0 {
				r.DeniedInWindow++
			}
		case booking.Active, booking.Completed:
			r.NodeSeconds += int64(b.Nodes) * (b.End.Unix() - b.Start.Unix())
			r.NodeSecondsInWindow += int64(b.Nodes) * w.inWindow(b.Start, b.End)
		}
	}
	l, err := d.svc.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	res := &Result{Streams: d.sres, Days: d.s.Days, End: d.now, Window: w, Bookings: outcomes}
	for _, rc := range d.s.Config.Resources {
		r := d.out[rc.ID]
		net := decimal.Zero
		for _, role := range []ledger.Role{ledger.Revenue, ledger.PenaltyRevenue, ledger.Refunds, ledger.CompensationExpense} {
			if b, ok := l.Balance(ledger.Account(role, rc.ID))[ledger.Currency(rc.Currency)]; ok {
				net = net.Sub(b)
			}
		}
		r.NetRevenue = net
		res.Resources = append(res.Resources, r)
	}
	sort.Slice(res.Resources, func(i, j int) bool { return res.Resources[i].ID < res.Resources[j].ID })
	return res, nil
}
