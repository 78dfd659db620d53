package service

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/booking/offersign"
	"slotfare/calendar"
	"slotfare/ledger"
	"slotfare/pricing"
)

// maxOffersPerResource bounds the alternatives one resource contributes.
const maxOffersPerResource = 5

// Offers answers an elastic query with priced offers (user only): per
// resource, the calendar's offers (seed 004 Sec. 6.2, Alg. 8; osp unless
// asked otherwise) in the asked class, filtered by booking control's nested
// limits; when the class is closed, the offers of the next higher open class
// the user may buy (Sec. 7.4), shown in fare_class. Each is priced by
// PriceReservation (Eq. 7.11-7.12) plus the delay premium when the resource
// has a queue snapshot (seed 001), and carries a signed offer_id valid for
// the configured offer TTL.
func (s *Service) Offers(ctx context.Context, p booking.Principal, q booking.OfferQuery) ([]booking.Offer, error) {
	return s.offers(ctx, p, q, offersSigned)
}

// InProcessOffers is Offers for a caller in this process that books the
// offer it takes at once by its terms (a HoldRequest with resource, start,
// end, nodes and fare class, priced at the same instant and so at the same
// price, on a resource without a queue snapshot): its offers carry no
// OfferID, which saves signing every offer the caller then discards (the
// simulator's users).
func (s *Service) InProcessOffers(ctx context.Context, p booking.Principal, q booking.OfferQuery) ([]booking.Offer, error) {
	return s.offers(ctx, p, q, offersInProcess)
}

// UnpricedOffers is InProcessOffers whose offers come unpriced (Price.Currency
// empty) where pricing them could not change which are made: no delay
// premium that may find one infeasible, no quote to count in the asked
// class (booking control sets no fares on the resource), a tau for every
// rate period, and each offer far enough above the smallest amount billed
// to be billable whatever its periods. The caller prices the offers it
// weighs with PriceOffer, at the same instant; pricing every offer a
// user then discards was a tenth of a simulated run.
func (s *Service) UnpricedOffers(ctx context.Context, p booking.Principal, q booking.OfferQuery) ([]booking.Offer, error) {
	return s.offers(ctx, p, q, offersUnpriced)
}

// PriceOffer is the price an offer of an offer query answered now would
// carry: what Offers prices it at, at the resource's fares in force.
func (s *Service) PriceOffer(o booking.Offer) (booking.Price, error) {
	const op slotfare.Op = "service.PriceOffer"
	r := s.resource(o.ResourceID)
	if r == nil {
		return booking.Price{}, slotfare.Errorf(op, "resource_id", "no resource %q", o.ResourceID)
	}
	r.mu.Lock()
	classes, rate, base, currency, pricer, queueNow := r.pricedClasses(), r.rate, r.rc.BaseCost, r.rc.Currency, r.pricer, r.queueNow
	r.mu.Unlock()
	i := slices.IndexFunc(classes, func(c pricing.FareClass) bool { return c.Name == o.FareClass })
	if i < 0 {
		return booking.Price{}, slotfare.Errorf(op, "fare_class", "resource %s has no fare class %q", o.ResourceID, o.FareClass)
	}
	price, ok, err := s.price(rate, classes[i], base, currency, pricer, queueNow, o.Nodes, o.Start, o.End, s.now())
	if err != nil {
		return booking.Price{}, slotfare.E(op, err)
	}
	if !ok {
		return booking.Price{}, slotfare.E(op, slotfare.NoCapacity, "the queue snapshot cannot take the offer")
	}
	return price, nil
}

// offerMode is how an offer query's offers are made.
type offerMode int

const (
	offersSigned    offerMode = iota // priced, with a signed offer id (the public path)
	offersInProcess                  // priced, no offer id: held by their terms
	offersUnpriced                   // no offer id, and unpriced where pricing decides nothing
)

func (s *Service) offers(ctx context.Context, p booking.Principal, q booking.OfferQuery, mode offerMode) ([]booking.Offer, error) {
	const op slotfare.Op = "service.Offers"
	if err := s.checkOpen(op); err != nil {
		return nil, err
	}
	if err := needRole(op, p, booking.RoleUser); err != nil {
		return nil, err
	}
	now := s.now()
	cq, strat, err := s.offerQuery(op, q, now)
	if err != nil {
		return nil, err
	}
	rs, err := s.offerResources(op, q)
	if err != nil {
		return nil, err
	}
	out := []booking.Offer{}
	found := false
	for _, r := range rs {
		offs, err := s.resourceOffers(ctx, op, r, p, q, cq, strat, now, mode)
		// A class closed over the window is censored demand (Sec. 7.3):
		// stored now, so booking control is the same after a restart. The
		// offers stand if the store fails; the refusal stays queued for
		// Tick to store.
		if serr := s.saveRefusals(ctx, r, false); serr != nil {
			s.log.Error("storing a refusal", "resource", r.id, "err", serr)
		}
		if err != nil {
			if q.ResourceID != "" {
				return nil, err
			}
			continue // a resource without the class or too small is skipped
		}
		if len(offs) > 0 {
			found = true
		}
		if len(out) == 0 && len(offs) > 0 {
			out = offs // the resource's own list: no copy
			continue
		}
		out = append(out, offs...)
	}
	if q.ResourceID == "" && !found && q.FareClass != "" {
		// Tell apart "no resource sells this class" from "nothing free".
		known := false
		for _, r := range rs {
			r.mu.Lock()
			_, _, ok := r.classIndex(q.FareClass)
			r.mu.Unlock()
			known = known || ok
		}
		if !known {
			return nil, slotfare.Errorf(op, "fare_class", "no resource sells fare class %q", q.FareClass)
		}
	}
	solutionFirst(out)
	return out, nil
}

// solutionFirst moves the first solution to the front of out: a
// resource's solution leads its alternatives.
func solutionFirst(out []booking.Offer) {
	for i, o := range out {
		if o.Solution && i > 0 {
			copy(out[1:i+1], out[0:i])
			out[0] = o
			return
		}
	}
}

// offerQuery is q as the calendars take it at now: its window cut to
// now and to the book-ahead horizon, its duration and nodes checked, and
// the strategy (OSP when none is named).
func (s *Service) offerQuery(op slotfare.Op, q booking.OfferQuery, now time.Time) (calendar.Query, calendar.Strategy, error) {
	strat := calendar.OSP
	if q.Strategy != "" {
		st, err := calendar.ParseStrategy(q.Strategy)
		if err != nil {
			return calendar.Query{}, strat, slotfare.E(op, slotfare.Invalid, slotfare.Field("strategy"), err)
		}
		strat = st
	}
	if q.EarliestStart.IsZero() {
		return calendar.Query{}, strat, slotfare.Errorf(op, "earliest_start", "required")
	}
	if q.LatestEnd.IsZero() {
		return calendar.Query{}, strat, slotfare.Errorf(op, "latest_end", "required")
	}
	from := max(ceilSec(q.EarliestStart), ceilSec(now))
	to := q.LatestEnd.Unix()
	if to <= from {
		return calendar.Query{}, strat, slotfare.Errorf(op, "latest_end", "must be after earliest_start and after now")
	}
	if horizon := now.Unix() + int64(s.cfg.BookAheadSeconds); to > horizon {
		to = horizon
		if to <= from {
			return calendar.Query{}, strat, slotfare.Errorf(op, "earliest_start", "is beyond the book-ahead horizon (%d s)", s.cfg.BookAheadSeconds)
		}
	}
	cq := calendar.Query{EarliestStart: from, LatestEnd: to}
	if q.DurationSeconds != nil {
		if *q.DurationSeconds <= 0 {
			return calendar.Query{}, strat, slotfare.Errorf(op, "duration_seconds", "must be positive, got %d", *q.DurationSeconds)
		}
		cq.Duration = *q.DurationSeconds
	}
	if q.Nodes != nil {
		if *q.Nodes <= 0 || *q.Nodes > config.MaxNodes {
			return calendar.Query{}, strat, slotfare.Errorf(op, "nodes", "must be in 1..%d, got %d", config.MaxNodes, *q.Nodes)
		}
		cq.Nodes = *q.Nodes
	}
	return cq, strat, nil
}

// offerResources are the resources q asks: the one it names, or all.
func (s *Service) offerResources(op slotfare.Op, q booking.OfferQuery) ([]*resource, error) {
	if q.ResourceID == "" {
		return s.resourceList(), nil
	}
	r := s.resource(q.ResourceID)
	if r == nil {
		return nil, slotfare.Errorf(op, "resource_id", "no resource %q", q.ResourceID)
	}
	return []*resource{r}, nil
}

func ceilSec(t time.Time) int64 {
	u := t.Unix()
	if t.Nanosecond() > 0 {
		u++
	}
	return u
}

// resourceOffers is Offers on one resource.
func (s *Service) resourceOffers(ctx context.Context, op slotfare.Op, r *resource, p booking.Principal, q booking.OfferQuery, cq calendar.Query, strat calendar.Strategy, now time.Time, mode offerMode) ([]booking.Offer, error) {
	vo := pricing.VO(p.VO)
	r.mu.Lock()
	k, err := r.offerClass(op, q, cq, vo)
	if err != nil {
		r.mu.Unlock()
		return nil, err
	}
	sn := offerSnapshot{classes: r.pricedClasses(), nodes: r.rc.Nodes, key: r.id, rate: r.rate, base: r.rc.BaseCost,
		pricer: r.pricer, queueNow: r.queueNow, currency: r.rc.Currency, fares: r.rc.Limits.Fares != nil}
	if bid, ok := r.bidClass(); ok {
		sn.bid = &bid
	}
	// Each profile may be a round trip to the inventory: the resource is
	// not locked across it, and the offers are made from the
	// configuration as it was when the query began. The layout read stays
	// (one per resource, under its id: rebuild).
	r.mu.Unlock()
	// The calendar's offers live in the view's storage until the offers
	// made of them are answered.
	pg := newProfiledGroup(ctx, s, sn, cq)
	defer pg.release()
	cals, class, err := s.offerCalendar(pg, k, vo, strat)
	r.mu.Lock()
	if err != nil {
		r.mu.Unlock()
		return nil, slotfare.E(op, err)
	}
	if class >= 0 && class < k {
		// The asked class is closed over the window: offered one up (Sec.
		// 7.4), and its demand is censored there.
		r.observe(control.Event{Kind: control.EventRefused, Class: sn.classes[k].Name, Start: time.Unix(cq.EarliestStart, 0).UTC(),
			End: time.Unix(cq.LatestEnd, 0).UTC(), At: now})
	}
	countOffered(r, sn.classes[k].Name, k, class, cals, cq, now)
	r.mu.Unlock()
	if class < 0 {
		return nil, nil
	}
	return s.offerList(op, r, p, q, sn, k, class, cals, now, mode)
}

// offerList are the offers of cals in class (k the class asked for),
// priced (unless mode lets pricing wait and it decides nothing), quoted
// and signed as mode asks; none that could never be committed for nothing.
func (s *Service) offerList(op slotfare.Op, r *resource, p booking.Principal, q booking.OfferQuery, sn offerSnapshot, k, class int, cals []calendar.Offer, now time.Time, mode offerMode) ([]booking.Offer, error) {
	exp := now.Add(time.Duration(s.cfg.OfferTTLSeconds) * time.Second).Truncate(time.Second)
	requested := ""
	if class != k && q.FareClass != "" {
		requested = sn.classes[k].Name
	}
	unpriced := mode == offersUnpriced && sn.pricer == nil && (!sn.fares || class != k) && s.surelyBillable(sn, sn.classes[class], cals)
	out := make([]booking.Offer, 0, len(cals))
	var free error // why the last candidate was not offered for nothing
	for _, o := range cals {
		start, end := time.Unix(o.Start, 0).UTC(), time.Unix(o.End, 0).UTC()
		if unpriced {
			out = append(out, booking.Offer{ResourceID: r.id, Start: start, End: end, Nodes: o.Nodes, FareClass: sn.classes[class].Name,
				RequestedFareClass: requested, Solution: o.Solution, ExpiresAt: exp})
			continue
		}
		price, ok, err := s.price(sn.rate, sn.classes[class], sn.base, sn.currency, sn.pricer, sn.queueNow, o.Nodes, start, end, now)
		if err != nil {
			return nil, slotfare.E(op, err)
		}
		if !ok {
			continue // the queue snapshot cannot take it: the paper's infinite price
		}
		if err := s.billable(op, price); err != nil {
			free = err // an offer that could never be committed is not made
			continue
		}
		out = append(out, booking.Offer{ResourceID: r.id, Start: start, End: end, Nodes: o.Nodes, FareClass: sn.classes[class].Name,
			RequestedFareClass: requested, Solution: o.Solution, ExpiresAt: exp, Price: price})
	}
	if len(out) == 0 && free != nil {
		return nil, free
	}
	if class == k {
		s.quote(r, sn.classes[k].Name, out, now)
	} else {
		for i := range out {
			out[i].Quote = booking.NoQuote
		}
	}
	for i, off := range out {
		if mode == offersSigned {
			out[i].OfferID = s.signer.Sign(offersign.Claims{Resource: off.ResourceID, Start: off.Start.Unix(), End: off.End.Unix(),
				Nodes: off.Nodes, Class: off.FareClass, Base: off.Price.Base.String(), Delay: off.Price.DelayPremium.String(),
				Currency: off.Price.Currency, Account: p.AccountID, Expires: exp.Unix(), Quote: off.Quote,
				Requested: off.RequestedFareClass})
		}
	}
	return out, nil
}

// offerClass is the index of the class an offer query on r starts from:
// the one asked, or the cheapest the user's VO may buy; refused when r is
// retired, sells no class, or is too small. The caller holds r.mu.
func (r *resource) offerClass(op slotfare.Op, q booking.OfferQuery, cq calendar.Query, vo pricing.VO) (int, error) {
	if err := r.inService(op); err != nil {
		if q.ResourceID != "" {
			return -1, slotfare.E(op, slotfare.Invalid, slotfare.Field("resource_id"), slotfare.MessageOf(err))
		}
		return -1, err
	}
	if len(r.classes) == 0 {
		return -1, slotfare.E(op, slotfare.Conflict, fmt.Sprintf("resource %s sells no fare class", r.id))
	}
	k := -1
	if q.FareClass != "" {
		i, c, ok := r.classIndex(q.FareClass)
		if !ok {
			return -1, slotfare.Errorf(op, "fare_class", "resource %s has no fare class %q", r.id, q.FareClass)
		}
		if !c.Admits(vo) {
			return -1, slotfare.E(op, slotfare.Forbidden, fmt.Sprintf("fare class %q of %s is restricted to VO %s", c.Name, r.id, string(c.VO)))
		}
		k = i
	} else {
		for j := len(r.classes) - 1; j >= 0 && k < 0; j-- { // no class asked: the cheapest the user may buy
			if r.classes[j].Admits(vo) {
				k = j
			}
		}
		if k < 0 {
			return -1, slotfare.E(op, slotfare.Forbidden, fmt.Sprintf("every fare class of %s is restricted to another VO", r.id))
		}
	}
	if cq.Nodes > r.rc.Nodes {
		return -1, slotfare.Errorf(op, "nodes", "resource %s has %d nodes, %d asked", r.id, r.rc.Nodes, cq.Nodes)
	}
	return k, nil
}

// surelyBillable reports whether every one of cals, priced in class,
// would be billable and priced without error: the class has a tau for
// every rate period (so pricing cannot fail) and each offer's
// node-seconds at the lowest of them cost at least twice the smallest
// amount billed (so no rounding makes one free, float error far inside
// the margin). Where not, the offers are priced as Offers prices them.
func (s *Service) surelyBillable(sn offerSnapshot, class pricing.FareClass, cals []calendar.Offer) bool {
	// In floats (a decimal division per query cost more than the pricing
	// it saves): their relative error, 1e-15, is far inside the factor 2.
	low := math.Inf(1)
	for i := range sn.rate.NumPeriods() {
		tau, ok := class.Tau[sn.rate.PeriodName(i)]
		if !ok {
			return false
		}
		low = min(low, tau.InexactFloat64())
	}
	for _, tau := range class.WeekendTau {
		low = min(low, tau.InexactFloat64())
	}
	base := sn.base.InexactFloat64()
	if !(low > 0) || !(base > 0) {
		return false
	}
	need := 2 * math.Pow10(-int(s.currencies.Rule(ledger.Currency(sn.currency)).Scale)) / (base * low)
	for _, o := range cals {
		if float64(o.Nodes)*float64(o.End-o.Start) < need {
			return false
		}
	}
	return true
}

// quote counts the fare a query was quoted in its own class, when booking
// control sets r's fares: the lowest mean tau of its offers that meet the
// request whole (a user who can afford any can afford that one; a user
// offered only less than it asked may leave for that reason, not the
// price), marked on each offer so that a hold counts its sale at the same
// fare. A query with no such offer is no quote: its offers are marked
// NoQuote.
func (s *Service) quote(r *resource, class string, offers []booking.Offer, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rc.Limits.Fares == nil {
		return
	}
	low, at := booking.NoQuote, -1
	for i, o := range offers {
		q := r.quoteOf(o.Price.Base, o.Nodes, o.Start, o.End)
		if !o.Solution || q == "" {
			continue
		}
		if at < 0 || decimal.RequireFromString(q).LessThan(decimal.RequireFromString(low)) {
			low, at = q, i
		}
	}
	for i := range offers {
		offers[i].Quote = low
	}
	if at >= 0 {
		o := offers[at]
		r.countDemand(class, demandQuoted, "", low, o.Nodes, o.Start, o.End, now)
	}
}

// billable refuses a price the ledger cannot charge: one that rounds to
// nothing at the currency's scale (a tiny base cost, few node-seconds). A
// hold at such a price could never be committed and would only block
// capacity until it expired, so none is offered or held.
func (s *Service) billable(op slotfare.Op, p booking.Price) error {
	r := s.currencies.Rule(ledger.Currency(p.Currency))
	if r.Round(p.Total).IsPositive() {
		return nil
	}
	return slotfare.Errorf(op, "nodes", "the reservation is priced %s %s, less than the smallest amount billed (%s %s): ask for more nodes or a longer interval",
		r.Format(p.Total), p.Currency, r.Format(decimal.New(1, -r.Scale)), p.Currency)
}

// price is what a reservation costs now: the base price of Eq. 7.11-7.12
// rounded to the currency's scale, plus the delay premium (seed 001) when the
// resource has a queue snapshot: the premium in node-seconds at the offer's
// start (shifted onto the snapshot's clock: the snapshot's now plus the
// offer's lead time), in money at base cost x the
// class's tau at the start. ok is false when the snapshot's machine cannot
// take the reservation at all.
func (s *Service) price(rate *pricing.RateCalendar, class pricing.FareClass, base decimal.Decimal, currency string,
	pricer *pricing.DelayPricer, snapNow int64, nodes int, start, end, now time.Time) (booking.Price, bool, error) {
	scale := s.currencies.Rule(ledger.Currency(currency)).Scale
	rp, err := pricing.PriceReservation(rate, class, base, nodes, start, end)
	if err != nil {
		return booking.Price{}, false, err
	}
	pr := booking.Price{Base: rp.Rounded(scale), DelayPremium: decimal.Zero, Currency: currency}
	if pricer != nil {
		lead := max(int64(0), start.Unix()-now.Unix())
		dp, err := pricer.Premium(int64(nodes), end.Unix()-start.Unix(), snapNow+lead)
		if err != nil {
			return booking.Price{}, false, err
		}
		if !dp.Feasible {
			return booking.Price{}, false, nil
		}
		tau, _ := class.TauAt(rate, rate.PeriodAt(start), start)
		amt, err := pricing.DelayPremiumAmount(dp.Premium, base, tau, scale)
		if err != nil {
			return booking.Price{}, false, err
		}
		pr.DelayPremium = amt
	}
	pr.Total = pr.Base.Add(pr.DelayPremium)
	return pr, true, nil
}

// offerSnapshot is what an offer query reads of a resource's
// configuration, taken under its lock.
type offerSnapshot struct {
	classes  []pricing.FareClass
	nodes    int
	key      string // the inventory layout
	rate     *pricing.RateCalendar
	base     decimal.Decimal
	pricer   *pricing.DelayPricer
	queueNow int64
	currency string
	bid      *pricing.FareClass // the bid prices, under bid-price control
	fares    bool               // booking control sets the fares (quotes are counted)
}

// offerCalendar is the calendar's offers for a query in class index k, or
// in the nearest class above it open over the window (class; -1 for none),
// from the classes the user's VO may buy. Each group's free profile over
// the window is read once from the inventory: the offers come from the
// class's own group, and must fit the groups above it too (nested limits)
// and, under bid-price control, cover the bid prices of what they take.
func (s *Service) offerCalendar(pg *profiledGroup, k int, vo pricing.VO, strat calendar.Strategy) ([]calendar.Offer, int, error) {
	sn, cq := pg.sn, pg.cq
	profile := pg.group
	// Every offer of every class fits group 0 (the overbooking limit) on
	// at least the nodes asked: a window without that many free there has
	// none, whatever the class, and no class's offers are built (a full
	// resource answers most queries).
	top, err := profile(0)
	if err != nil {
		return nil, -1, err
	}
	need := max(cq.Nodes, 1)
	if !slices.ContainsFunc(top, func(st calendar.Step) bool { return st.Free >= need }) {
		return nil, -1, nil
	}
	for j := k; j >= 0; j-- {
		if !sn.classes[j].Admits(vo) {
			continue // a higher class the user may not buy is skipped
		}
		pg.g = j
		offs, err := calendar.OffersInto(pg.offs, pg, cq, strat, maxOffersPerResource)
		if err != nil {
			return nil, -1, err
		}
		pg.offs = offs
		cals := offs[:0] // the ones kept, in the calendar's own list
		for _, o := range offs {
			if o.Nodes > sn.nodes {
				o.Nodes = sn.nodes
			}
			ok, err := coversOffer(sn, sn.classes[j], o)
			if err != nil {
				return nil, -1, err
			}
			for g := 0; g <= j && ok; g++ {
				steps, err := profile(g)
				if err != nil {
					return nil, -1, err
				}
				ok = calendar.FitsProfile(steps, o.Start, o.End, o.Nodes)
			}
			if ok {
				cals = append(cals, o)
			}
		}
		if len(cals) > 0 {
			return cals, j, nil
		}
	}
	return nil, -1, nil
}

// profiledGroup is group g of a resource's layout as calendar.Offers reads
// it, from the profiles an offer query reads once per group (profiles, by
// group, over the query's window cq). One view serves a query, its class
// moved on as the classes are tried; the views and their profiles' storage
// are reused from query to query (profiledGroups), where the inventory
// can write a profile into it (profileReuser): a view, a closure and a
// profile per class and query were a tenth of a simulated run's
// allocation.
type profiledGroup struct {
	ctx      context.Context
	s        *Service
	sn       offerSnapshot
	cq       calendar.Query
	g        int
	profiles [][]calendar.Step // by group; nil: not read yet
	bufs     [][]calendar.Step // by group, the storage kept for profiles
	offs     []calendar.Offer  // the storage kept for a class's offers
}

// profileReuser is an inventory that writes a group's profile into
// storage its caller keeps (inventory.Memory).
type profileReuser interface {
	ProfileInto(ctx context.Context, buf []calendar.Step, res string, g int, from, to int64) ([]calendar.Step, error)
}

var profiledGroups = sync.Pool{New: func() any { return new(profiledGroup) }}

// newProfiledGroup is a view for a query over cq on sn's layout, with no
// profile read yet.
func newProfiledGroup(ctx context.Context, s *Service, sn offerSnapshot, cq calendar.Query) *profiledGroup {
	pg := profiledGroups.Get().(*profiledGroup)
	pg.ctx, pg.s, pg.sn, pg.cq, pg.g = ctx, s, sn, cq, 0
	n := len(sn.classes)
	if cap(pg.profiles) < n {
		pg.profiles = make([][]calendar.Step, n)
	}
	pg.profiles = pg.profiles[:n]
	clear(pg.profiles)
	for len(pg.bufs) < n {
		pg.bufs = append(pg.bufs, nil)
	}
	return pg
}

// release returns pg to the pool, keeping the storage of the profiles it
// read but nothing of its query. pg is not used after.
func (v *profiledGroup) release() {
	for g, steps := range v.profiles {
		if steps != nil {
			v.bufs[g] = steps[:0]
		}
	}
	clear(v.profiles)
	// The snapshot stays until the next query's replaces it: it holds
	// what its resource holds anyway, and clearing it every query cost
	// more than the rest of the release.
	v.ctx = nil
	profiledGroups.Put(v)
}

// group is group g's free profile over the query's window, read from the
// inventory once.
func (v *profiledGroup) group(g int) ([]calendar.Step, error) {
	if v.profiles[g] != nil {
		return v.profiles[g], nil
	}
	var steps []calendar.Step
	var err error
	if inv, ok := v.s.inv.(profileReuser); ok {
		steps, err = inv.ProfileInto(v.ctx, v.bufs[g], v.sn.key, g, v.cq.EarliestStart, v.cq.LatestEnd)
	} else {
		steps, err = v.s.inv.Profile(v.ctx, v.sn.key, g, v.cq.EarliestStart, v.cq.LatestEnd)
	}
	if err != nil {
		return nil, err
	}
	if steps == nil {
		steps = []calendar.Step{} // read: an empty profile is not read again
	}
	v.profiles[g] = steps
	return steps, nil
}

// Profile answers the query's own window from the profile read once; any
// other window is read from the inventory.
func (v *profiledGroup) Profile(from, to int64) ([]calendar.Step, error) {
	steps, err := v.group(v.g)
	if err != nil {
		return nil, err
	}
	if len(steps) > 0 && steps[0].Start == from && steps[len(steps)-1].End == to {
		return steps, nil
	}
	return v.s.inv.Profile(v.ctx, v.sn.key, v.g, from, to)
}

func (v *profiledGroup) MaxCapacity() int { return v.sn.nodes }

// countOffered counts an offer query's outcome for the class asked (index
// k) in the resource's demand records: offered where its class had room,
// refused closed where it was offered a class up, refused full where no
// class had room, each over what was asked (its nodes and duration at the
// earliest start: the demand, whatever the offers made of it; a query of
// no duration, over its first offer). The caller holds r.mu.
func countOffered(r *resource, asked string, k, class int, cals []calendar.Offer, cq calendar.Query, now time.Time) {
	outcome := demandRefusedFull
	switch {
	case class == k && len(cals) > 0:
		outcome = demandOffered
	case class >= 0 && len(cals) > 0:
		outcome = demandRefusedClosed
	}
	if len(cals) > 0 && cq.Duration <= 0 {
		o := cals[0]
		r.countDemand(asked, outcome, "", "", o.Nodes, time.Unix(o.Start, 0), time.Unix(o.End, 0), now)
		return
	}
	end := cq.LatestEnd
	if cq.Duration > 0 {
		end = min(end, cq.EarliestStart+cq.Duration)
	}
	r.countDemand(asked, outcome, "", "", max(cq.Nodes, 1), time.Unix(cq.EarliestStart, 0), time.Unix(end, 0), now)
}
