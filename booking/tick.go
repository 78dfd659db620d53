package booking

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
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
func (s *Service) Tick(now time.Time) error {
	const op = "booking.Tick"
	if err := s.checkOpen(op); err != nil {
		return err
	}
	s.tickMu.Lock()
	defer s.tickMu.Unlock()
	var errs []error
	for _, r := range s.resourceList() {
		if err := s.tickResource(op, r, now.UTC()); err != nil {
			errs = append(errs, fmt.Errorf("resource %s: %w", r.id, err))
		}
	}
	return errors.Join(errs...)
}

func (s *Service) tickResource(op string, r *resource, now time.Time) error {
	r.mu.Lock()
	r.recompute(now)
	if err := r.extend(now); err != nil {
		r.mu.Unlock()
		return err
	}
	live := make([]*entry, 0, len(r.live))
	for _, e := range r.live {
		live = append(live, e)
	}
	nodes, denial := r.rc.Nodes, r.rc.Overbooking.Denial
	classes := r.classes
	r.mu.Unlock()
	grace := time.Duration(s.cfg.GraceSeconds) * time.Second

	// Decide who is due on the views, then lock the due entries (in id
	// order; Tick is the only caller that locks more than one) and decide
	// again on the locked records.
	var due []*entry
	for _, e := range live {
		b := e.view.Load() // read in place: no copy per live booking
		switch b.Status {
		case Held:
			if lapsed, _ := holdLapsed(*b, now); lapsed {
				due = append(due, e)
			}
		case Committed:
			if !now.Before(b.Start) {
				due = append(due, e)
			}
		case Active:
			if !now.Before(b.End) {
				due = append(due, e)
			}
		}
	}
	if len(due) == 0 {
		return nil
	}
	sort.Slice(due, func(i, j int) bool { return due[i].booking().ID < due[j].booking().ID })
	for _, e := range due {
		e.mu.Lock()
	}
	defer func() {
		for _, e := range due {
			e.mu.Unlock()
		}
	}()
	var changes []change
	var posts []ledger.Posting
	var shows []*entry
	for _, e := range due {
		rec := e.rec
		b := rec.Booking
		switch {
		case b.Status == Held:
			if lapsed, _ := holdLapsed(b, now); !lapsed {
				continue
			}
			rec.Booking.Status, rec.Booking.UpdatedAt = Expired, stamp(now)
			changes = append(changes, change{e, rec, Held})
		case b.Status == Committed && !now.Before(b.Start) && b.CheckedIn:
			shows = append(shows, e)
		case b.Status == Committed && !now.Before(b.Start.Add(grace)):
			st, err := s.ledger.NoShow(b.ID, classPenalty(classes, b.FareClass), now)
			if err != nil {
				return err
			}
			posts = append(posts, st.Postings...)
			pen, ref := st.Penalty, st.Refund
			rec.Booking.Status, rec.Booking.UpdatedAt, rec.Booking.Penalty, rec.Booking.Refund = NoShow, stamp(now), &pen, &ref
			changes = append(changes, change{e, rec, Committed})
		case b.Status == Active && !now.Before(b.End):
			rec.Booking.Status, rec.Booking.UpdatedAt = Completed, stamp(now)
			changes = append(changes, change{e, rec, Active})
		}
	}
	if len(shows) > 0 {
		// Nodes already in use: bookings running now that are not among the
		// shows being started.
		used := 0
		r.mu.Lock()
		for _, e := range r.live {
			b := e.booking()
			if b.Status == Active && b.End.After(now) {
				used += b.Nodes
			}
		}
		r.mu.Unlock()
		ss := make([]overbook.Show, len(shows))
		h := fnv.New64a()
		for i, e := range shows {
			b := e.rec.Booking
			rank := len(classes)
			cost := b.Price.Total
			for j, c := range classes {
				if c.Name == b.FareClass {
					rank = j + 1
					if d, err := pricing.DeniedServiceCost(c, b.Price.Total); err == nil {
						cost = d
					}
				}
			}
			ss[i] = overbook.Show{ID: b.ID, ClassRank: rank, Nodes: b.Nodes, DeniedCost: cost, BookedAt: b.CreatedAt}
			h.Write([]byte(b.ID))
		}
		strat := denial
		if strat == "" {
			strat = overbook.DCF
		}
		var d overbook.Denial
		if free := nodes - used; free > 0 {
			var err error
			if d, err = overbook.Deny(strat, free, ss, overbook.DenialOptions{Seed: h.Sum64()}); err != nil {
				return err
			}
		} else {
			// Nothing is free: every show is denied (Deny wants room > 0).
			d = overbook.Denial{Strategy: strat, Compensation: decimal.Zero}
			for _, x := range ss {
				d.Denied = append(d.Denied, overbook.DeniedBooking{ID: x.ID, ClassRank: x.ClassRank, Nodes: x.Nodes, Compensation: x.DeniedCost})
				d.Compensation = d.Compensation.Add(x.DeniedCost)
			}
		}
		denied := map[string]decimal.Decimal{}
		for _, x := range d.Denied {
			denied[x.ID] = x.Compensation
		}
		for _, e := range shows {
			rec := e.rec
			if comp, ok := denied[rec.Booking.ID]; ok {
				st, err := s.ledger.Denial(rec.Booking.ID, s.ledger.Rule(ledger.Currency(rec.Booking.Price.Currency)).Round(comp), now)
				if err != nil {
					return err
				}
				posts = append(posts, st.Postings...)
				zero, ref, c := decimal.Zero, st.Refund, st.Compensation
				rec.Booking.Status, rec.Booking.UpdatedAt = Denied, stamp(now)
				rec.Booking.Penalty, rec.Booking.Refund, rec.Booking.Compensation = &zero, &ref, &c
				changes = append(changes, change{e, rec, Committed})
				continue
			}
			rec.Booking.Status, rec.Booking.UpdatedAt = Active, stamp(now)
			changes = append(changes, change{e, rec, Committed})
		}
		if len(d.Denied) > 0 {
			s.log.Info("overbooked start resolved", "resource", r.id, "strategy", string(strat), "shows", len(shows),
				"free", max(0, nodes-used), "denied", len(d.Denied), "compensation", d.Compensation.String())
		}
	}
	if len(changes) == 0 {
		return nil
	}
	if err := s.apply(context.Background(), op, changes, posts); err != nil {
		return slotfare.E(op, err)
	}
	var evs []ControlEvent
	for _, c := range changes {
		b := c.rec.Booking
		ev := ControlEvent{BookingID: b.ID, Class: b.FareClass, Nodes: b.Nodes, Start: b.Start, End: b.End, At: now}
		switch {
		case c.from == Committed && (b.Status == Active || b.Status == Denied):
			ev.Kind = EventShow
		case b.Status == NoShow:
			ev.Kind = EventNoShow
		default:
			continue
		}
		evs = append(evs, ev)
	}
	r.tell(evs...)
	return nil
}

func classPenalty(classes []pricing.FareClass, name string) decimal.Decimal {
	for _, c := range classes {
		if c.Name == name {
			return c.PenaltyRate
		}
	}
	return decimal.Zero
}
