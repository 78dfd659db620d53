package coreserve

import (
	"fmt"
	"time"

	"slotfare"
	"slotfare/booking/runs"
)

// Policy is how the broker rates co-reservation candidates (seed 003 Sec.
// 3.3 step 4: "the scheduling strategy of the Grid broker").
type Policy string

// The policies.
const (
	// Earliest prefers the candidate whose last part starts first (then the
	// cheaper): seed 001's alpha = 0.
	Earliest Policy = "earliest"
	// Cheapest prefers the lowest total price (then the earlier): alpha = 1.
	Cheapest Policy = "cheapest"
	// Alpha weighs normalised price against normalised start by the
	// request's alpha in [0, 1] (seed 001, 001_1f92c1ecbfd58834.txt Sec. 4).
	Alpha Policy = "alpha"
)

// DefaultAlpha is alpha when the alpha policy is asked without one.
const DefaultAlpha = 0.5

// Part is one part of a co-reservation (or the body of a probe): a resource
// by id, or any resource carrying all of Tags; Nodes nodes for Duration
// inside [EarliestStart, LatestEnd); and at most one relation to an
// earlier-or-later part of the same request.
type Part struct {
	ResourceID    string
	Tags          []string
	Nodes         int
	EarliestStart time.Time
	LatestEnd     time.Time
	Duration      time.Duration
	// Profile, instead of Duration, names the application profile whose
	// recorded runs predict the part's duration on each candidate
	// resource (issue 13; seed 002 Sec. 4.3); Bytes is the data the job
	// moves, for ETTS (0: none, TCT). Left out of the JSON when empty, so
	// that a request without them keeps the Idempotency-Key fingerprint it
	// had before they existed (api's coFingerprint marshals the request).
	Profile string `json:",omitempty"`
	Bytes   int64  `json:",omitempty"`
	// FareClass, when set, is this part's class instead of the request's
	// (resources of other VOs sell the user other classes).
	FareClass string
	// After, when set, asks this part to start when part After.Part ends,
	// or at most After.MaxGap later.
	After *After
	// SameStartAs, when set, asks this part to start when that part does.
	SameStartAs *int

	// predicted is Profile's prediction on each candidate resource that
	// has runs of it and where it fits the window (Broker.predict).
	predicted map[string]runs.Prediction
}

// on is the part as placed on resource id: with the duration predicted
// there for a part by profile.
func (p Part) on(id string) Part {
	if pr, ok := p.predicted[id]; ok {
		p.Duration = pr.Duration
	}
	return p
}

// predictionOn is the prediction a part by profile has on resource id
// (nil for a part with a stated duration).
func (p Part) predictionOn(id string) *runs.Prediction {
	if pr, ok := p.predicted[id]; ok {
		return &pr
	}
	return nil
}

// After is the relation "starts after part Part ends, within MaxGap".
type After struct {
	Part   int
	MaxGap time.Duration
}

// parent is the part this part depends on (-1: none).
func (p Part) parent() int {
	switch {
	case p.After != nil:
		return p.After.Part
	case p.SameStartAs != nil:
		return *p.SameStartAs
	}
	return -1
}

// Request is the body of POST /v1/co-reservations as the broker takes it.
type Request struct {
	FareClass string
	Policy    Policy
	// Alpha is the weight of price for the alpha policy (nil: DefaultAlpha);
	// refused with the other policies.
	Alpha *float64
	Parts []Part
}

// partField names a part's field on the wire: parts[1].duration_seconds.
func partField(i int, field string) string {
	if field == "" {
		return fmt.Sprintf("parts[%d]", i)
	}
	return fmt.Sprintf("parts[%d].%s", i, field)
}

// checkPart validates one part, naming its fields with prefix (for a probe,
// ""; for a co-reservation, "parts[i].").
func checkPart(op slotfare.Op, prefix string, p Part) []error {
	f := func(name string) string { return prefix + name }
	var errs []error
	if p.ResourceID == "" && len(p.Tags) == 0 {
		errs = append(errs, slotfare.Errorf(op, f("resource_id"), "give resource_id or tags"))
	}
	if p.ResourceID != "" && len(p.Tags) > 0 {
		errs = append(errs, slotfare.Errorf(op, f("tags"), "give resource_id or tags, not both"))
	}
	for j, t := range p.Tags {
		if t == "" {
			errs = append(errs, slotfare.Errorf(op, f(fmt.Sprintf("tags[%d]", j)), "must not be empty"))
		}
	}
	if p.Nodes < 1 {
		errs = append(errs, slotfare.Errorf(op, f("nodes"), "must be at least 1, not %d", p.Nodes))
	}
	if p.EarliestStart.IsZero() {
		errs = append(errs, slotfare.Errorf(op, f("earliest_start"), "is required"))
	}
	if p.LatestEnd.IsZero() {
		errs = append(errs, slotfare.Errorf(op, f("latest_end"), "is required"))
	}
	window := p.LatestEnd.Sub(p.EarliestStart)
	if !p.EarliestStart.IsZero() && !p.LatestEnd.IsZero() && window <= 0 {
		errs = append(errs, slotfare.Errorf(op, f("latest_end"), "must be after earliest_start"))
	}
	switch {
	case p.Profile != "" && p.Duration != 0:
		errs = append(errs, slotfare.Errorf(op, f("profile"), "give duration_seconds or profile, not both"))
	case p.Profile != "":
		if err := runs.CheckProfile(op, f("profile"), p.Profile); err != nil {
			errs = append(errs, err)
		}
	case p.Duration <= 0:
		errs = append(errs, slotfare.Errorf(op, f("duration_seconds"), "must be a positive number of seconds (or give profile)"))
	case p.Duration%time.Second != 0:
		errs = append(errs, slotfare.Errorf(op, f("duration_seconds"), "must be whole seconds"))
	case window > 0 && p.Duration > window:
		errs = append(errs, slotfare.Errorf(op, f("duration_seconds"), "is %d s, longer than the window from earliest_start to latest_end (%d s)",
			int64(p.Duration/time.Second), int64(window/time.Second)))
	}
	switch {
	case p.Bytes < 0:
		errs = append(errs, slotfare.Errorf(op, f("bytes"), "must be at least 0, not %d", p.Bytes))
	case p.Bytes > 0 && p.Profile == "":
		errs = append(errs, slotfare.Errorf(op, f("bytes"), "is the data a job of profile moves: give it with profile"))
	}
	return errs
}

// Validate checks a co-reservation request whole and names every fault by
// part index and field (parts[1].duration_seconds): at least one part and
// at most maxParts, each part valid, relations naming another part of the
// request, at most one relation per part, and no cycle among them.
func (r Request) Validate(maxParts int) error {
	const op slotfare.Op = "coreserve.Validate"
	var errs []error
	switch r.Policy {
	case Earliest, Cheapest, Alpha:
	default:
		errs = append(errs, slotfare.Errorf(op, "policy", "must be one of earliest, cheapest, alpha, not %q", r.Policy))
	}
	if a := r.Alpha; a != nil {
		switch {
		case r.Policy != Alpha:
			errs = append(errs, slotfare.Errorf(op, "alpha", "is only taken with policy alpha"))
		case *a < 0 || *a > 1 || *a != *a:
			errs = append(errs, slotfare.Errorf(op, "alpha", "must be in [0, 1], not %v", *a))
		}
	}
	if len(r.Parts) == 0 {
		errs = append(errs, slotfare.Errorf(op, "parts", "give at least one part"))
	}
	if len(r.Parts) > maxParts {
		errs = append(errs, slotfare.Errorf(op, "parts", "at most %d parts, not %d", maxParts, len(r.Parts)))
		return slotfare.Join(errs...)
	}
	for i, p := range r.Parts {
		errs = append(errs, checkPart(op, partField(i, "")+".", p)...)
		if p.After != nil && p.SameStartAs != nil {
			errs = append(errs, slotfare.Errorf(op, partField(i, "same_start_as"), "give after or same_start_as, not both"))
			continue
		}
		if p.After != nil {
			if p.After.Part < 0 || p.After.Part >= len(r.Parts) || p.After.Part == i {
				errs = append(errs, slotfare.Errorf(op, partField(i, "after.part"), "must be the index of another part (0..%d)", len(r.Parts)-1))
			}
			if p.After.MaxGap < 0 || p.After.MaxGap%time.Second != 0 {
				errs = append(errs, slotfare.Errorf(op, partField(i, "after.max_gap_seconds"), "must be whole seconds, at least 0"))
			}
		}
		if s := p.SameStartAs; s != nil && (*s < 0 || *s >= len(r.Parts) || *s == i) {
			errs = append(errs, slotfare.Errorf(op, partField(i, "same_start_as"), "must be the index of another part (0..%d)", len(r.Parts)-1))
		}
	}
	if err := slotfare.Join(errs...); err != nil {
		return err
	}
	if i, ok := cycleAt(r.Parts); ok {
		field := "same_start_as"
		if r.Parts[i].After != nil {
			field = "after.part"
		}
		return slotfare.Errorf(op, partField(i, field), "the relations between the parts are circular")
	}
	return nil
}

// cycleAt finds a part on a cycle of relations (each part names at most one
// parent, so following parents either ends at a root or loops).
func cycleAt(parts []Part) (int, bool) {
	for i := range parts {
		seen := map[int]bool{}
		for j := i; j >= 0; j = parts[j].parent() {
			if seen[j] {
				return j, true
			}
			seen[j] = true
		}
	}
	return 0, false
}

// order lists the parts parents first (a valid request has no cycle).
func order(parts []Part) []int {
	var out []int
	done := make([]bool, len(parts))
	var visit func(i int)
	visit = func(i int) {
		if done[i] {
			return
		}
		if p := parts[i].parent(); p >= 0 {
			visit(p)
		}
		done[i] = true
		out = append(out, i)
	}
	for i := range parts {
		visit(i)
	}
	return out
}
