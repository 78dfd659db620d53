package coreserve

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
)

// combo is a co-reservation candidate (seed 003 Sec. 3.3 step 4): one
// offer per part (nil: not placed yet).
type combo []*booking.Offer

// total is the sum of the placed parts' prices.
func (c combo) total() decimal.Decimal {
	t := decimal.Zero
	for _, o := range c {
		if o != nil {
			t = t.Add(o.Price.Total)
		}
	}
	return t
}

// lastStart is when the whole has begun: the latest start of its placed
// parts. The earliest policy minimises it.
func (c combo) lastStart() time.Time {
	var s time.Time
	for _, o := range c {
		if o != nil && o.Start.After(s) {
			s = o.Start
		}
	}
	return s
}

// key identifies a combo's placements, for ties and exclusions.
func placement(i int, o *booking.Offer) string {
	return fmt.Sprintf("%d/%s/%d", i, o.ResourceID, o.Start.Unix())
}

// beamWidth bounds the partial candidates kept after placing each part.
const beamWidth = 64

// alphaOf is the weight of price against start for a policy (seed 001
// Sec. 4: 0 earliest, 1 cheapest).
func alphaOf(req Request) float64 {
	switch req.Policy {
	case Earliest:
		return 0
	case Cheapest:
		return 1
	}
	return alphaWeight(req)
}

// alphaWeight is the alpha policy's weight: the request's, or DefaultAlpha.
func alphaWeight(req Request) float64 {
	if req.Alpha != nil {
		return *req.Alpha
	}
	return DefaultAlpha
}

// rank sorts combos by the policy, best first: the alpha rule over total
// price and last start (seed 001 Sec. 4); ties by last start, then price,
// then placements, so the order is deterministic.
func rank(cs []combo, alpha float64) {
	fs := make([]float64, len(cs))
	ss := make([]float64, len(cs))
	for i, c := range cs {
		fs[i], ss[i] = c.total().InexactFloat64(), float64(c.lastStart().Unix())
	}
	scores := alphaScores(fs, ss, alpha)
	idx := make([]int, len(cs))
	keys := make([]string, len(cs))
	for i, c := range cs {
		idx[i] = i
		for j, o := range c {
			if o != nil {
				keys[i] += placement(j, o) + ";"
			}
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := idx[a], idx[b]
		if scores[x] != scores[y] {
			return scores[x] < scores[y]
		}
		if ss[x] != ss[y] {
			return ss[x] < ss[y]
		}
		if c := cs[x].total().Cmp(cs[y].total()); c != 0 {
			return c < 0
		}
		return keys[x] < keys[y]
	})
	out := make([]combo, len(cs))
	for i, j := range idx {
		out[i] = cs[j]
	}
	copy(cs, out)
}

// noCandidate is the broker's 409 for a part no resource can place (with
// the parts placed before it): nothing was held.
func noCandidate(op slotfare.Op, i int) error {
	return slotfare.E(op, slotfare.NoCapacity, slotfare.Field(partField(i, "")),
		fmt.Sprintf("no resource has a candidate for part %d within its window and relation; nothing is held", i))
}

// candidates probes the parts in dependency order (parents first) and
// builds the co-reservation candidates, best first by the policy. A part
// without a relation is probed once over its window on each of its
// resources; a part related to another is probed for each placement of
// that part, over the window the relation leaves: starting at its start
// (same_start_as), or from its end to its end plus the maximum gap
// (after). At most beamWidth partial candidates are kept after each part.
func (b *Broker) candidates(ctx context.Context, op slotfare.Op, p booking.Principal, req Request, resources [][]string, msgs *counter) ([]combo, error) {
	alpha := alphaOf(req)
	partial := []combo{make(combo, len(req.Parts))}
	type probeKey struct {
		part     int
		resource string
		from, to int64
	}
	cache := map[probeKey][]booking.Offer{}
	for _, i := range order(req.Parts) {
		var next []combo
		class := req.FareClass
		if req.Parts[i].FareClass != "" {
			class = req.Parts[i].FareClass
		}
		for _, c := range partial {
			for _, id := range resources[i] {
				part := req.Parts[i].on(id) // a part by profile takes the duration predicted on id
				from, to := part.EarliestStart, part.LatestEnd
				var latest *time.Time
				if par := part.parent(); par >= 0 {
					po := c[par]
					if part.SameStartAs != nil {
						from, to = po.Start, po.Start.Add(part.Duration)
						if po.Start.Before(part.EarliestStart) || to.After(part.LatestEnd) {
							continue // the parent's start is outside this part's window
						}
					} else {
						from = po.End
						if from.Before(part.EarliestStart) {
							from = part.EarliestStart
						}
						ls := po.End.Add(part.After.MaxGap)
						latest = &ls
						if e := ls.Add(part.Duration); e.Before(to) {
							to = e
						}
						if to.Sub(from) < part.Duration {
							continue
						}
					}
				}
				k := probeKey{i, id, from.Unix(), to.Unix()}
				offs, seen := cache[k]
				if !seen {
					o, err := b.probeResource(ctx, p, id, part, class, from, to, latest, msgs)
					if err != nil && part.ResourceID != "" {
						return nil, renameField(op, i, err)
					}
					offs = o // a matched resource that cannot take the part has none
					cache[k] = offs
				}
				for j := range offs {
					n := make(combo, len(c))
					copy(n, c)
					n[i] = &offs[j]
					next = append(next, n)
				}
			}
		}
		if len(next) == 0 {
			return nil, noCandidate(op, i)
		}
		rank(next, alpha)
		if len(next) > beamWidth {
			next = next[:beamWidth]
		}
		partial = next
	}
	return partial, nil
}

// renameField names a service error against the part: an invalid request
// field as parts[i].field, anything else as parts[i].
func renameField(op slotfare.Op, i int, err error) error {
	f := slotfare.FieldOf(err)
	switch f {
	case "resource_id", "nodes", "fare_class", "earliest_start", "latest_end", "duration_seconds":
		if f == "fare_class" {
			return slotfare.E(op, slotfare.Field("fare_class"), err) // the request's own fare_class
		}
		return slotfare.E(op, slotfare.Field(partField(i, f)), err)
	}
	return slotfare.E(op, slotfare.Field(partField(i, "")), err)
}
