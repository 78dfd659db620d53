package coreserve

import (
	"context"
	"slices"
	"sort"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/runs"
)

// Bookings is what the broker needs of the booking service: its public
// operations only (*service.Service satisfies it), so the broker runs on
// whatever store the service does and never reaches into it.
type Bookings interface {
	Resources(ctx context.Context, p booking.Principal) ([]config.Resource, error)
	Offers(ctx context.Context, p booking.Principal, q booking.OfferQuery) ([]booking.Offer, error)
	Hold(ctx context.Context, p booking.Principal, req booking.HoldRequest, idem booking.Idempotency) (booking.Booking, bool, error)
	Commit(ctx context.Context, p booking.Principal, id string) (booking.Booking, error)
	Cancel(ctx context.Context, p booking.Principal, id string) (booking.Booking, error)
	Get(ctx context.Context, p booking.Principal, id string) (booking.Booking, error)
	// Prepare answers the refusal Commit would answer now, changing
	// nothing; Unwind cancels a part the broker committed with all it was
	// billed refunded (its rollback, not the user's cancellation).
	Prepare(ctx context.Context, p booking.Principal, id string) (booking.Booking, error)
	Unwind(ctx context.Context, p booking.Principal, id string) (booking.Booking, error)
}

// Candidate is one reservation candidate a resource answers a probe with
// (seed 003 Sec. 3.1): a priced offer that meets the part's nodes and
// duration exactly, and its Rating among the probe's candidates (seed 001's
// alpha rule over price and start, 0 best).
type Candidate struct {
	Offer  booking.Offer
	Rating float64
	// Prediction, for a part by profile, is the prediction on the
	// candidate's resource that its duration came from.
	Prediction *runs.Prediction
}

// ProbeRequest is the body of POST /v1/probes: one part and the fare class
// and alpha to rate its candidates by.
type ProbeRequest struct {
	Part      Part
	FareClass string
	Alpha     float64
}

// counter counts the messages the broker sends the resources for one
// request (seed 003 Sec. 4.3's messages per co-reservation).
type counter struct{ n int }

// Probe asks every resource the part names or matches for reservation
// candidates (seed 003 Sec. 3.3 steps 2-3), at most CandidatesPerResource
// each, and rates them together by price and start (seed 001 Sec. 4, with
// the request's alpha): the best first.
func (b *Broker) Probe(ctx context.Context, p booking.Principal, req ProbeRequest) ([]Candidate, error) {
	const op slotfare.Op = "coreserve.Probe"
	if err := slotfare.Join(checkPart(op, "", req.Part)...); err != nil {
		return nil, err
	}
	if req.Alpha < 0 || req.Alpha > 1 || req.Alpha != req.Alpha {
		return nil, slotfare.Errorf(op, "alpha", "must be in [0, 1], not %v", req.Alpha)
	}
	ids, err := b.resourcesOf(ctx, op, p, req.Part, "")
	if err != nil {
		return nil, err
	}
	if ids, err = b.predict(ctx, op, "", &req.Part, ids); err != nil {
		return nil, err
	}
	var msgs counter
	var offers []booking.Offer
	class := req.FareClass
	if req.Part.FareClass != "" {
		class = req.Part.FareClass
	}
	for _, id := range ids {
		offs, err := b.probeResource(ctx, p, id, req.Part.on(id), class, req.Part.EarliestStart, req.Part.LatestEnd, nil, &msgs)
		if err != nil {
			if req.Part.ResourceID != "" {
				return nil, err
			}
			continue // a matched resource that cannot take the part is skipped, as Offers does
		}
		offers = append(offers, offs...)
	}
	cands := rate(offers, req.Alpha)
	for i := range cands {
		cands[i].Prediction = req.Part.predictionOn(cands[i].Offer.ResourceID)
	}
	return cands, nil
}

// rate gives each offer its alpha rating among the others and sorts them,
// best first (ties: earlier, then by resource).
func rate(offers []booking.Offer, alpha float64) []Candidate {
	out := make([]Candidate, len(offers))
	fs := make([]float64, len(offers))
	ss := make([]float64, len(offers))
	for i, o := range offers {
		fs[i], ss[i] = o.Price.Total.InexactFloat64(), float64(o.Start.Unix())
	}
	scores := alphaScores(fs, ss, alpha)
	for i, o := range offers {
		out[i] = Candidate{Offer: o, Rating: scores[i]}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Rating != b.Rating {
			return a.Rating < b.Rating
		}
		if !a.Offer.Start.Equal(b.Offer.Start) {
			return a.Offer.Start.Before(b.Offer.Start)
		}
		return a.Offer.ResourceID < b.Offer.ResourceID
	})
	return out
}

// alphaScores is seed 001's preference rule (001_1f92c1ecbfd58834.txt Sec.
// 4): alpha x (f - fmin) / (fmax - fmin) + (1 - alpha) x (s - smin) / (smax
// - smin) for each price f and start s; a term whose range is empty is 0.
func alphaScores(fs, ss []float64, alpha float64) []float64 {
	out := make([]float64, len(fs))
	if len(fs) == 0 {
		return out
	}
	fmin, fmax := slices.Min(fs), slices.Max(fs)
	smin, smax := slices.Min(ss), slices.Max(ss)
	for i := range fs {
		var f, s float64
		if fmax > fmin {
			f = (fs[i] - fmin) / (fmax - fmin)
		}
		if smax > smin {
			s = (ss[i] - smin) / (smax - smin)
		}
		out[i] = alpha*f + (1-alpha)*s
	}
	return out
}

// resourcesOf lists the resources a part may be placed on: the one it
// names, or every resource carrying all its tags. prefix is how the part's
// fields are named ("" for a probe, "parts[i]." in a co-reservation).
func (b *Broker) resourcesOf(ctx context.Context, op slotfare.Op, p booking.Principal, part Part, prefix string) ([]string, error) {
	all, err := b.b.Resources(ctx, p)
	if err != nil {
		return nil, slotfare.E(op, err)
	}
	var out []string
	for _, r := range all {
		switch {
		case part.ResourceID != "":
			if r.ID == part.ResourceID {
				out = append(out, r.ID)
			}
		case hasAll(r.Tags, part.Tags):
			out = append(out, r.ID)
		}
	}
	if len(out) == 0 {
		if part.ResourceID != "" {
			return nil, slotfare.Errorf(op, prefix+"resource_id", "no resource %q", part.ResourceID)
		}
		return nil, slotfare.Errorf(op, prefix+"tags", "no resource carries all of the tags %q", part.Tags)
	}
	sort.Strings(out)
	return out, nil
}

func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// probeResource asks one resource for candidates for part inside [from,
// to): offers by first fit (seed 002 Sec. 4.1: the earliest gap first) that
// meet the nodes and duration exactly. One Offers query answers a candidate
// per free gap; the next query starts one duration after the last
// candidate, so the candidates spread over the window, at most
// CandidatesPerResource of them. latestStart, when set, drops candidates
// that start after it (the after relation's maximum gap).
func (b *Broker) probeResource(ctx context.Context, p booking.Principal, resourceID string, part Part, class string,
	from, to time.Time, latestStart *time.Time, msgs *counter) ([]booking.Offer, error) {
	limit := b.o.CandidatesPerResource
	dur := int64(part.Duration / time.Second)
	nodes := part.Nodes
	var out []booking.Offer
	ws := from
	for len(out) < limit && to.Sub(ws) >= part.Duration {
		q := booking.OfferQuery{ResourceID: resourceID, EarliestStart: ws, LatestEnd: to, DurationSeconds: &dur,
			Nodes: &nodes, FareClass: class, Strategy: "first-fit"}
		msgs.n++
		offs, err := b.b.Offers(ctx, p, q)
		if err != nil {
			// A later query, or a window narrowed by a relation, may run
			// past now or the horizon: what was found stands. The part's
			// own window refused is the caller's fault, reported.
			conditioned := !from.Equal(part.EarliestStart) || !to.Equal(part.LatestEnd)
			if !ws.Equal(from) || (conditioned && windowGone(err)) {
				break
			}
			return nil, err
		}
		next := ws
		for _, o := range offs {
			if o.End.Sub(o.Start) != part.Duration || o.Nodes != nodes {
				continue
			}
			if latestStart != nil && o.Start.After(*latestStart) {
				continue
			}
			if len(out) < limit && !slices.ContainsFunc(out, func(x booking.Offer) bool { return x.Start.Equal(o.Start) }) {
				out = append(out, o)
			}
			if e := o.Start.Add(part.Duration); e.After(next) {
				next = e
			}
		}
		if !next.After(ws) {
			break
		}
		ws = next
	}
	return out, nil
}

// windowGone reports whether Offers refused the window itself (past, or
// beyond the book-ahead horizon): the probe then has no more to find.
func windowGone(err error) bool {
	if slotfare.KindOf(err) != slotfare.Invalid {
		return false
	}
	f := slotfare.FieldOf(err)
	return f == "earliest_start" || f == "latest_end" || f == "duration_seconds"
}
