package service

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/booking/lease"
	"slotfare/booking/records"
	"slotfare/ledger"
	"slotfare/overbook"
	"slotfare/pricing"
)

// Tick moves the bookings' life cycle on to time now (serve calls it every
// second; a simulation with its virtual clock):
//   - holds past hold_expires_at or their start expire and give their
//     capacity back;
//   - a committed booking whose start has come and that checked in is a show:
//     the shows of a resource become active if they fit in the nodes left by
//     the bookings already running; if not, the resource's denial strategy
//     picks whom to deny (seed 004 Sec. 7.6.3, Alg. 15-17: lottery seeded from
//     the shows' ids, DCF, LC-DCF), and the denied are refunded and
//     compensated cost_ds (Eq. 7.11 with tau_ds);
//   - a committed booking not checked in by start + grace is a no-show and
//     pays its class's penalty (Sec. 7.6.2);
//   - an active booking at its end completes.
//
// Each resource's changes are stored in one batch. Tick extends the
// calendars' limits as the horizon moves.
//
// One booking that cannot move on (its ledger settlement or its store write
// fails) does not hold up the others: it is logged, counted through
// Options.OnTickError, left as it was and tried again on the next tick,
// while the rest of its resource's bookings move on.
func (s *Service) Tick(now time.Time) error {
	const op slotfare.Op = "service.Tick"
	if err := s.checkOpen(op); err != nil {
		return err
	}
	s.tickMu.Lock()
	defer s.tickMu.Unlock()
	ctx := s.life // on no request's behalf: Close cancels it
	var errs []error
	// Resources made, changed or retired by another replica.
	if err := s.syncCatalog(ctx, now.UTC()); err != nil {
		errs = append(errs, err)
	}
	for _, r := range s.resourceList() {
		// Every replica stores its demand counts, holder of the lease or
		// not: the holder's refresh reads them all.
		if err := s.flushDemand(ctx, r, now.UTC()); err != nil {
			errs = append(errs, fmt.Errorf("resource %s: %w", r.id, err))
		}
		held, err := s.leaseTicker(ctx, r, now)
		if err != nil {
			errs = append(errs, fmt.Errorf("resource %s: %w", r.id, err))
			continue
		}
		if !held {
			continue // another replica runs this resource's ticker
		}
		if err := s.tickResource(ctx, op, r, now.UTC()); err != nil {
			errs = append(errs, fmt.Errorf("resource %s: %w", r.id, err))
		}
		// What a replica that died between a write and its indexing left
		// out of the accounts' postings (invoices) is put back.
		if _, err := s.records.RepairIndex(ctx, r.id); err != nil {
			errs = append(errs, fmt.Errorf("resource %s: %w", r.id, err))
		}
		if err := s.saveRefusals(ctx, r, false); err != nil {
			errs = append(errs, fmt.Errorf("resource %s: %w", r.id, err))
		}
	}
	return errors.Join(errs...)
}

// tickResource moves resource r's due bookings on to time now: it lays the
// limits out first (as the lease's holder), then decides each due booking's
// step on its locked, refreshed record and stores the steps fenced by the
// lease.
func (s *Service) tickResource(ctx context.Context, op slotfare.Op, r *resource, now time.Time) error {
	p, ok, err := s.tickLimits(ctx, r, now)
	if err != nil || !ok {
		return err
	}
	live, whole, err := s.tickSet(ctx, r, now)
	if err != nil {
		return err
	}
	if whole {
		s.releaseOrphans(ctx, r)
	}
	due := s.dueOf(ctx, r, live, now)
	if len(due) == 0 {
		return nil
	}
	// Tick is the only caller that locks more than one entry: in id order.
	sort.Slice(due, func(i, j int) bool { return due[i].booking().ID < due[j].booking().ID })
	for _, e := range due {
		e.mu.Lock()
	}
	defer func() {
		for _, e := range due {
			e.mu.Unlock()
		}
	}()
	s.refreshDue(ctx, r, due)
	items, shows := s.tickSteps(ctx, r, due, now)
	if len(shows) > 0 {
		// The shows start in the nodes the running bookings leave, every
		// replica's, as the records store them: one read, not every live
		// booking read and adopted.
		running, err := s.records.Running(ctx, r.id, now)
		if err != nil {
			return err
		}
		items = append(items, s.startShows(r, running, shows, p.nodes, p.denial, p.classes, now)...)
	}
	items, money, err := s.settleTick(ctx, r, items)
	if err != nil {
		return err
	}
	done := s.applyTick(ctx, op, r, p.fence, items, money)
	r.tell(tickEvents(done, now)...)
	return nil
}

// tickParams are what a tick of a resource decides its shows under, read
// with the resource's lock held, and the lease's fence its writes carry.
type tickParams struct {
	nodes   int
	denial  overbook.DenialStrategy
	classes []pricing.FareClass
	fence   lease.Fence
}

// tickLimits recomputes r's limits and extends them to the horizon at now;
// ok is false when r's ticker lease passed on meanwhile (r's limits were
// refused for their fence): another replica ticks r.
func (s *Service) tickLimits(ctx context.Context, r *resource, now time.Time) (p tickParams, ok bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recompute(ctx, now)
	if !r.holdsLease() { // recompute's limits were refused: the lease passed on
		return p, false, nil
	}
	if err := r.extend(ctx, now, r.fence); err != nil {
		if slotfare.KindOf(err) == slotfare.Fenced {
			return p, false, nil // another replica took the lease over and ticks r
		}
		return p, false, err
	}
	return tickParams{nodes: r.rc.Nodes, denial: r.rc.Overbooking.Denial, classes: r.classes, fence: r.fence}, true, nil
}

// releaseOrphans releases what the inventory holds for bookings stored as
// no longer holding whose release failed after (inventory.Port's
// ReleaseOrphans): the records' live set no longer lists them, so only the
// inventory itself can find them.
func (s *Service) releaseOrphans(ctx context.Context, r *resource) {
	ids, err := s.inv.ReleaseOrphans(ctx, r.id)
	switch {
	case err != nil:
		s.tickFailed(r.id, "", "inventory orphans", err)
	case len(ids) > 0:
		s.log.Warn("tick: released bookings the inventory held after they stopped holding", "resource", r.id, "bookings", ids)
	}
}

// dueOf are the bookings of live that look due at now on their views (the
// caller decides again on the locked records). A booking stored as no
// longer holding whose release the inventory refused is released again.
func (s *Service) dueOf(ctx context.Context, r *resource, live []*entry, now time.Time) []*entry {
	var due []*entry
	for _, e := range live {
		b := e.view.Load() // read in place: no copy per live booking
		if !b.Status.Holding() {
			if err := r.release(ctx, b.ID); err != nil {
				s.tickFailed(r.id, b.ID, "inventory release", err)
			}
			continue
		}
		switch b.Status {
		case booking.Held:
			if lapsed, _ := holdLapsed(*b, now); lapsed {
				due = append(due, e)
			}
		case booking.Committed:
			if !now.Before(b.Start) {
				due = append(due, e)
			}
		case booking.Active:
			if !now.Before(b.End) {
				due = append(due, e)
			}
		}
	}
	return due
}

// refreshDue brings the locked due entries up to their stored records (one
// that cannot be read is reported, and decided on what this replica has).
func (s *Service) refreshDue(ctx context.Context, r *resource, due []*entry) {
	for _, e := range due {
		if err := s.refresh(ctx, e); err != nil {
			s.tickFailed(r.id, e.booking().ID, "read", err)
		}
	}
}

// settleTick settles the tick's items that pay or are paid (no-shows,
// denials) on a ledger of their bookings' stored postings, read once for
// them all: a tick that only starts, completes or expires bookings reads
// and replays no posting. An item whose settlement fails is reported and
// left for the next tick.
func (s *Service) settleTick(ctx context.Context, r *resource, items []tickItem) ([]tickItem, *ledger.Ledger, error) {
	var ids []string
	for _, it := range items {
		if it.settle != nil {
			ids = append(ids, it.ch.rec.Booking.ID)
		}
	}
	if len(ids) == 0 {
		return items, nil, nil
	}
	money, err := s.moneyOf(ctx, ids...)
	if err != nil {
		return nil, nil, err
	}
	kept := items[:0]
	for _, it := range items {
		if it.settle != nil {
			posts, err := it.settle(money, &it.ch.rec.Booking)
			if err != nil {
				s.tickFailed(r.id, it.ch.rec.Booking.ID, it.step, err)
				continue
			}
			it.posts = posts
		}
		kept = append(kept, it)
	}
	return kept, money, nil
}

// tickSteps decides the step of each locked due booking at now: holds
// lapse, no-shows pay their penalty (settled by settleTick), the active
// that ended complete; the shows whose start has come are returned apart
// (startShows decides them together).
func (s *Service) tickSteps(ctx context.Context, r *resource, due []*entry, now time.Time) (items []tickItem, shows []*entry) {
	grace := time.Duration(s.cfg.GraceSeconds) * time.Second
	for _, e := range due {
		rec := e.rec
		b := rec.Booking
		switch {
		case b.Status == booking.Held:
			if lapsed, _ := holdLapsed(b, now); !lapsed {
				continue
			}
			rec.Booking.Status, rec.Booking.UpdatedAt = booking.Expired, stamp(now)
			items = append(items, tickItem{ch: change{e, rec, booking.Held}})
		case b.Status == booking.Committed && !now.Before(b.Start) && b.CheckedIn:
			shows = append(shows, e)
		case b.Status == booking.Committed && !now.Before(b.Start.Add(grace)):
			terms := s.termsOf(r, b)
			rec.Booking.Terms = &terms
			rec.Booking.Status, rec.Booking.UpdatedAt = booking.NoShow, stamp(now)
			noShow := func(money *ledger.Ledger, b *booking.Booking) ([]ledger.Posting, error) {
				st, err := money.NoShow(b.ID, terms.NoShowPenaltyRate, now)
				if err != nil {
					return nil, err
				}
				settled(b, st)
				return st.Postings, nil
			}
			items = append(items, tickItem{ch: change{e, rec, booking.Committed}, settle: noShow, step: "no-show settlement"})
		case b.Status == booking.Active && !now.Before(b.End):
			if b.Profile != "" && s.opts.OnComplete != nil {
				if err := s.opts.OnComplete(ctx, b); err != nil {
					s.tickFailed(r.id, b.ID, "run record", err)
					continue
				}
			}
			rec.Booking.Status, rec.Booking.UpdatedAt = booking.Completed, stamp(now)
			items = append(items, tickItem{ch: change{e, rec, booking.Active}})
		}
	}
	return items, shows
}

// tickEvents are booking control's events of a tick's stored changes: the
// shows (started or denied) and the no-shows.
func tickEvents(done []change, now time.Time) []control.Event {
	var evs []control.Event
	for _, c := range done {
		b := c.rec.Booking
		ev := control.Event{BookingID: b.ID, Class: b.FareClass, Nodes: b.Nodes, Start: b.Start, End: b.End, At: now}
		switch {
		case c.from == booking.Committed && (b.Status == booking.Active || b.Status == booking.Denied):
			ev.Kind = control.EventShow
		case b.Status == booking.NoShow:
			ev.Kind = control.EventNoShow
		default:
			continue
		}
		evs = append(evs, ev)
	}
	return evs
}

// tickerLease is how long a replica runs a resource's ticker without
// renewing its lease: another replica takes over within it when the holder
// dies. Tick renews it every second.
const tickerLease = 5 * time.Second

// historyRefresh is how often the replica holding a resource's ticker
// lease brings its booking control up to the stored history, taking in
// what the other replicas booked, cancelled or modified since.
const historyRefresh = time.Minute

// leaseTicker takes or renews resource r's ticker lease for this replica
// and reports whether it holds it. A lease newly taken, and every
// historyRefresh while held, brings booking control up to the resource's
// stored bookings and observations (seed 004 Sec. 7.3: the forecast is of
// every booking, query and refused request, not only those this replica
// saw): those changed since its cursor and those other replicas stored
// (refreshHistory), or the whole history when control follows no change
// log. A lease taken from another holder, or a replay, lays the limits out
// over the whole horizon again: they are what every replica's admission
// then meets. Every deployment takes this path: a replica alone on its
// store holds every lease, and its refresh reads only its own changes.
//
// The grant's fencing token rides in every limit the holder lays out
// (r.fence): a holder paused past its lease (a slow history read, a long
// pause of the process) finds its writes refused once its successor wrote,
// and stops acting as the holder (extend).
func (s *Service) leaseTicker(ctx context.Context, r *resource, now time.Time) (bool, error) {
	g, ok, err := s.ports.Lease.Acquire(ctx, "tick:"+r.id, s.holder, tickerLease, now)
	if err != nil {
		return false, err
	}
	fence := lease.Fence{}
	if ok {
		fence = lease.Fence{Name: "tick:" + r.id, Token: g.Token}
	}
	r.mu.Lock()
	// A lease taken anew needs no replay while control follows the
	// records' change log (from the replay at Open or at an earlier
	// lease): the refresh reads what changed since, whoever held the lease
	// meanwhile, and lays the limits out under the new token. A log
	// trimmed past the cursor replays the history (refreshHistory).
	replay := ok && !r.following
	// Taken from another holder (or first): the limits are laid out
	// anew over the whole horizon under its fence. A lease that lapsed
	// between two ticks and came back to this replica was no one else's.
	taken := ok && (!r.leased || !fence.Follows(r.fence))
	refresh := ok && !replay && (taken || now.Sub(r.replayedAt) >= historyRefresh)
	r.leased, r.fence = ok, fence
	r.following = r.following && !replay
	// Under bid-price control every replica's admission reads its own
	// booking control's bid prices, which come from the bookings: a
	// replica without the lease follows the change log as the holder
	// does, so that its bid prices are the holder's a refresh apart.
	follow := !ok && r.following && r.rc.Limits.Method == pricing.BidPrice && now.Sub(r.replayedAt) >= historyRefresh
	fares := !ok && !follow && r.rc.Limits.Fares != nil && now.Sub(r.demandReadAt) >= historyRefresh
	r.mu.Unlock()
	if follow {
		return false, s.refreshHistory(ctx, r, now, false)
	}
	if fares {
		return false, s.refreshFares(ctx, r, now)
	}
	if !replay && !refresh {
		return ok, nil
	}
	if s.leaseTaken != nil {
		s.leaseTaken(r.id)
	}
	if replay {
		err = s.replayHistory(ctx, r, now)
	} else {
		err = s.refreshHistory(ctx, r, now, taken)
	}
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.leased, nil // lost if the limits' write was refused (extend)
}

// refreshFares brings a replica that does not hold r's ticker lease up to
// every replica's stored demand records, every historyRefresh, where
// booking control sets fares: the fares are computed from those records
// on each replica (the holder publishes only limits), so that offers on
// any replica are priced alike, a refresh apart.
func (s *Service) refreshFares(ctx context.Context, r *resource, now time.Time) error {
	demand, err := s.storedDemand(ctx, r.id, now)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.demandReadAt = now
	r.ctl.SetDemand(demand.Since(r.id, time.Time{}))
	r.recompute(ctx, now)
	return nil
}

// historyOf is every booking ever stored on resource, from the records.
func (s *Service) historyOf(ctx context.Context, resource string) ([]booking.Booking, error) {
	var out []booking.Booking
	after := ""
	for {
		page, next, err := s.records.History(ctx, resource, after, historyPage)
		if err != nil {
			return nil, err
		}
		for _, st := range page {
			out = append(out, st.Record.Booking)
		}
		if next == "" {
			return out, nil
		}
		after = next
	}
}

// wholeTick and wholeTicks are how often the ticker of a resource reads
// every live booking all the same, not only those due (records.Port.Due):
// a booking an index of a store misses (stored before the index existed)
// is moved on within it, and the inventory's holds are checked against the
// live set (releaseOrphans). Both must have passed since the last whole
// read: serve ticks every second, the simulator's virtual clock once a
// slot (a minute), where reading every live booking at each tick cost a
// tenth of a simulated run.
const (
	wholeTick  = time.Minute
	wholeTicks = 60
)

// tickSet are the bookings a tick of r looks at: those due by now, and
// every live one once a wholeTick and wholeTicks ticks (whole is then
// true).
func (s *Service) tickSet(ctx context.Context, r *resource, now time.Time) (set []*entry, whole bool, err error) {
	r.mu.Lock()
	part := !r.wholeAt.IsZero() && !now.Before(r.wholeAt) && (now.Sub(r.wholeAt) < wholeTick || r.partTicks < wholeTicks-1)
	if part {
		r.partTicks++
	}
	r.mu.Unlock()
	if !part {
		live, err := s.liveOf(ctx, r)
		if err == nil {
			r.mu.Lock()
			r.wholeAt, r.partTicks = now, 0
			r.mu.Unlock()
		}
		return live, true, err
	}
	sts, err := s.records.Due(ctx, r.id, now)
	if err != nil {
		return nil, false, err
	}
	return s.adoptAll(sts), false, nil
}

// liveOf are resource r's bookings that hold capacity: the records port's
// live set, where every replica's bookings are, each booking's entry
// brought up to its stored record.
func (s *Service) liveOf(ctx context.Context, r *resource) ([]*entry, error) {
	sts, err := s.records.Live(ctx, r.id)
	if err != nil {
		return nil, err
	}
	return s.adoptAll(sts), nil
}

// adoptAll are the entries of bookings read from the records, each brought
// up to what was read. The caller holds no entry's lock.
func (s *Service) adoptAll(sts []*records.Stored) []*entry {
	live := make([]*entry, 0, len(sts))
	for _, st := range sts {
		e := s.adopt(st) // the live set holds the records: no second read
		e.mu.Lock()
		if st.Version > e.version {
			e.take(st)
		}
		e.mu.Unlock()
		live = append(live, e)
	}
	return live
}

// tickItem is one booking's step in a tick: its new record and the postings
// that settle it. A step that settles money (a no-show, a denial) has
// settle, which settleTick runs on the tick's ledger: it completes the
// booking's record and answers its postings (step names it in a report of
// its failure).
type tickItem struct {
	ch     change
	posts  []ledger.Posting
	settle func(money *ledger.Ledger, b *booking.Booking) ([]ledger.Posting, error)
	step   string
}

// startShows decides the shows whose start has come: active if they fit in
// the nodes the running bookings leave (nodes less running), else the denial strategy picks whom
// to deny, and they are refunded and compensated. A show whose settlement
// fails is left committed for the next tick; if the denial itself cannot be
// decided, every show waits.
func (s *Service) startShows(r *resource, running int, shows []*entry, nodes int, denial overbook.DenialStrategy, classes []pricing.FareClass, now time.Time) []tickItem {
	ss, terms := s.showsOf(r, shows, classes)
	strat := denial
	if strat == "" {
		strat = config.DefaultDenial
	}
	free := nodes - running
	d, err := denyShows(strat, free, ss)
	if err != nil {
		for _, e := range shows {
			s.tickFailed(r.id, e.rec.Booking.ID, "denial decision", err)
		}
		return nil
	}
	items := showSteps(shows, terms, d, now)
	if len(d.Denied) > 0 {
		s.log.Info("overbooked start resolved", "resource", r.id, "strategy", string(strat), "shows", len(shows),
			"free", max(0, free), "denied", len(d.Denied), "compensation", d.Compensation.String())
	}
	return items
}

// showsOf are the shows as the denial decides on them (class rank, nodes,
// what a denial would owe) with the terms each was sold under.
func (s *Service) showsOf(r *resource, shows []*entry, classes []pricing.FareClass) ([]overbook.Show, []booking.SaleTerms) {
	ss := make([]overbook.Show, len(shows))
	terms := make([]booking.SaleTerms, len(shows))
	for i, e := range shows {
		b := e.rec.Booking
		rank := len(classes)
		for j, c := range classes {
			if c.Name == b.FareClass {
				rank = j + 1
			}
		}
		// Owed tau_ds / tau times its price (seed 004 Sec. 7.6.3), by the
		// terms it was sold under.
		terms[i] = s.termsOf(r, b)
		cost := terms[i].DeniedCostFactor.Mul(b.Price.Total)
		ss[i] = overbook.Show{ID: b.ID, ClassRank: rank, Nodes: b.Nodes, DeniedCost: cost, BookedAt: b.CreatedAt}
	}
	return ss, terms
}

// denyShows decides which shows are denied when free nodes are left for
// them, by strategy strat; the lottery is seeded from the shows' ids, so a
// tick decided again decides the same (seed 004 Alg. 15). With nothing
// free every show is denied.
func denyShows(strat overbook.DenialStrategy, free int, ss []overbook.Show) (overbook.Denial, error) {
	if free > 0 {
		h := fnv.New64a()
		for _, x := range ss {
			h.Write([]byte(x.ID))
		}
		return overbook.Deny(strat, free, ss, overbook.DenialOptions{Seed: h.Sum64()})
	}
	d := overbook.Denial{Strategy: strat, Compensation: decimal.Zero}
	for _, x := range ss {
		d.Denied = append(d.Denied, overbook.DeniedBooking{ID: x.ID, ClassRank: x.ClassRank, Nodes: x.Nodes, Compensation: x.DeniedCost})
		d.Compensation = d.Compensation.Add(x.DeniedCost)
	}
	return d, nil
}

// showSteps are the shows' steps: denied (settled with their
// compensation by settleTick) or started.
func showSteps(shows []*entry, terms []booking.SaleTerms, d overbook.Denial, now time.Time) []tickItem {
	denied := map[string]decimal.Decimal{}
	for _, x := range d.Denied {
		denied[x.ID] = x.Compensation
	}
	var items []tickItem
	for i, e := range shows {
		rec := e.rec
		rec.Booking.Terms = &terms[i]
		if comp, ok := denied[rec.Booking.ID]; ok {
			rec.Booking.Status, rec.Booking.UpdatedAt = booking.Denied, stamp(now)
			deny := func(money *ledger.Ledger, b *booking.Booking) ([]ledger.Posting, error) {
				st, err := money.Denial(b.ID, money.Rule(ledger.Currency(b.Price.Currency)).Round(comp), now)
				if err != nil {
					return nil, err
				}
				settled(b, st)
				c := st.Compensation // shown even when zero, as a denial always was
				b.Compensation = &c
				return st.Postings, nil
			}
			items = append(items, tickItem{ch: change{e, rec, booking.Committed}, settle: deny, step: "denial settlement"})
			continue
		}
		started := stamp(now)
		rec.Booking.Status, rec.Booking.UpdatedAt, rec.Booking.StartedAt = booking.Active, started, &started
		items = append(items, tickItem{ch: change{e, rec, booking.Committed}})
	}
	return items
}

// applyTick stores a tick's steps of one resource, in one batch when it
// can, each write fenced by the holder's lease (fence). When the batch
// fails, each step is stored on its own, so that one booking the store
// refuses does not keep the others from moving on; the steps that failed
// are reported (tickFailed) and stay for the next tick. A write refused for
// its fence means another replica took the lease over: this one stops
// acting as the holder and tries nothing more. It returns the changes
// stored.
func (s *Service) applyTick(ctx context.Context, op slotfare.Op, r *resource, fence lease.Fence, items []tickItem, money *ledger.Ledger) []change {
	if len(items) == 0 {
		return nil
	}
	fenced := func(w records.Write) error {
		w.Fence = fence
		return s.records.Apply(ctx, w)
	}
	changes := make([]change, len(items))
	var posts []ledger.Posting
	for i, it := range items {
		changes[i] = it.ch
		posts = append(posts, it.posts...)
	}
	err := s.applyWith(ctx, op, changes, posts, money, fenced)
	if err == nil {
		return changes
	}
	if len(items) == 1 || slotfare.KindOf(err) == slotfare.Fenced {
		s.storeFailed(r, items, err)
		return nil
	}
	var done []change
	for i, it := range items {
		if err := s.applyWith(ctx, op, []change{it.ch}, it.posts, money, fenced); err != nil {
			if slotfare.KindOf(err) == slotfare.Fenced {
				s.storeFailed(r, items[i:], err)
				return done
			}
			s.tickFailed(r.id, it.ch.rec.Booking.ID, "store", err)
			continue
		}
		done = append(done, it.ch)
	}
	return done
}

// storeFailed reports the tick's steps the store refused with err; when it
// refused them for their fence, the replica lost r's lease and stops acting
// as its holder (the steps are the new holder's to take).
func (s *Service) storeFailed(r *resource, items []tickItem, err error) {
	if slotfare.KindOf(err) == slotfare.Fenced {
		r.mu.Lock()
		r.loseLease(err)
		r.mu.Unlock()
		return
	}
	for _, it := range items {
		s.tickFailed(r.id, it.ch.rec.Booking.ID, "store", err)
	}
}

// tickFailed reports a booking that could not move on in this tick: an
// error log naming it and the step, and Options.OnTickError for /metrics.
func (s *Service) tickFailed(resource, bookingID, step string, err error) {
	s.log.Error("tick: booking left for the next tick", "resource", resource, "booking", bookingID, "step", step, "err", err)
	if s.opts.OnTickError != nil {
		s.opts.OnTickError(resource)
	}
}
