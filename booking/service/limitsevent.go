package service

import (
	"time"

	"slotfare/booking/events"
	"slotfare/booking/inventory"
	"slotfare/pricing"
)

// LimitsPublished is the data of a limits.published event: booking
// control's limits as one layout put them in force on the inventory. It
// stays small however long the layout: the limits once per rate period
// (each period's are the same over the layout), the rate-period pieces
// listed only when there are at most maxListedPieces of them.
type LimitsPublished struct {
	ResourceID string `json:"resource_id"`
	// From and To bound the time laid out.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Method is the resource's method of booking limits (emsr-b, ...).
	Method     string            `json:"method"`
	PieceCount int               `json:"piece_count"`
	Pieces     []PublishedPiece  `json:"pieces,omitempty"`
	Periods    []PublishedLimits `json:"periods"`
}

// PublishedPiece is one rate-period piece of a layout.
type PublishedPiece struct {
	RatePeriod string    `json:"rate_period"`
	From       time.Time `json:"from"`
	To         time.Time `json:"to"`
}

// PublishedLimits are the limits of one rate period: the overbooking
// limit (group 0's capacity, which no instant exceeds) and the nested
// booking limit of each fare class, highest first, in nodes.
type PublishedLimits struct {
	RatePeriod string `json:"rate_period"`
	// Source is where the nesting came from: forecast, prior, initial or
	// none (control.PeriodLimits).
	Source           string        `json:"source"`
	OverbookingLimit int           `json:"overbooking_limit"`
	FareClasses      []ClassLimits `json:"fare_classes"`
}

// ClassLimits is a fare class's nested booking limit b_j: the most nodes
// it and the classes below it may hold together at any instant.
type ClassLimits struct {
	FareClass    string `json:"fare_class"`
	BookingLimit int    `json:"booking_limit"`
}

// maxListedPieces is how many rate-period pieces an event lists; a longer
// layout (the whole horizon, after a recompute) is summarised by its
// periods' limits and the time it covers.
const maxListedPieces = 16

// publication is the limits.published event of laying pieces out at now,
// with its write id, written to the records' log by an in-process
// inventory, and forced on a layout made anew (relaid). The caller holds
// r.mu (limits).
func (r *resource) publication(now time.Time, pieces []pricing.PeriodPiece) (inventory.Publication, error) {
	d := LimitsPublished{ResourceID: r.id, Method: string(r.rc.Limits.Method), PieceCount: len(pieces)}
	if len(pieces) > 0 {
		d.From, d.To = pieces[0].Start.UTC(), pieces[len(pieces)-1].End.UTC()
	}
	seen := map[string]bool{}
	for _, pc := range pieces {
		if len(pieces) <= maxListedPieces {
			d.Pieces = append(d.Pieces, PublishedPiece{RatePeriod: pc.Period, From: pc.Start.UTC(), To: pc.End.UTC()})
		}
		if seen[pc.Period] {
			continue
		}
		seen[pc.Period] = true
		lim := r.limits(pc.Period)
		p := PublishedLimits{RatePeriod: pc.Period, Source: r.ctl.Limits(pc.Period).Source, OverbookingLimit: lim[0]}
		for j, c := range r.classes {
			p.FareClasses = append(p.FareClasses, ClassLimits{FareClass: c.Name, BookingLimit: lim[j]})
		}
		d.Periods = append(d.Periods, p)
	}
	id := r.svc.writeID()
	e, err := events.New("evt_limits_"+id, events.LimitsPublished, "resources/"+r.id, now, d)
	if err != nil {
		return inventory.Publication{}, err
	}
	return inventory.Publication{WriteID: id, Event: e, Log: r.svc.records, Force: r.relaid}, nil
}
