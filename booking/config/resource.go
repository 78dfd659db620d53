package config

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/overbook"
	"slotfare/pricing"
)

// Resource is a resource as configured: its nodes, base cost (money per
// node-second, see pricing), currency, IANA time zone, slot and hold
// lengths, and what has been PUT on it since: every field of the
// configuration file's resource object, in its shape, so that the body GET
// /v1/resources/{id} answers can be PUT back unchanged (has_queue, which
// GET adds, is read-only).
type Resource struct {
	ID          string          `json:"id"`
	Nodes       int             `json:"nodes"`
	BaseCost    decimal.Decimal `json:"base_cost"`
	Currency    string          `json:"currency"`
	TimeZone    string          `json:"time_zone"`
	SlotSeconds int             `json:"slot_seconds"`
	HoldSeconds int             `json:"hold_seconds"`
	// VO is the virtual organisation the resource belongs to (null none).
	VO          pricing.VO           `json:"vo"`
	Tags        []string             `json:"tags"`
	FareClasses []pricing.FareClass  `json:"fare_classes"`
	RatePeriods []pricing.RatePeriod `json:"rate_periods"`
	Overbooking OverbookingSpec      `json:"overbooking"`
	// Limits is booking control as configured (the body of PUT
	// .../limits-config).
	Limits LimitsConfig `json:"limits"`
	// HasQueue is read-only: whether a queue snapshot was PUT (.../queue).
	HasQueue bool `json:"has_queue"`
	// HoldLimits are the limits in force (defaults filled in), in the
	// shape PUT takes them.
	HoldLimits HoldLimits `json:"hold_limits"`
}

// OverbookingSpec is a resource's overbooking policy (seed 004 Sec. 7.5)
// and denial strategy (Alg. 15-17), the body of PUT .../overbooking. A zero
// field (an empty name, a service level of 0) is one the request left out:
// Config fills it from DefaultOverbooking, as the configuration file does.
type OverbookingSpec struct {
	Policy       string  `json:"policy"`
	ServiceLevel float64 `json:"service_level"`
	Denial       string  `json:"denial"`
}

// Config is the setting the spec asks for, its left-out fields taken from
// DefaultOverbooking.
func (s OverbookingSpec) Config() OverbookingConfig {
	c := DefaultOverbooking()
	if s.Policy != "" {
		c.Policy = overbook.Policy(s.Policy)
	}
	if s.ServiceLevel != 0 {
		c.ServiceLevel = s.ServiceLevel
	}
	if s.Denial != "" {
		c.Denial = overbook.DenialStrategy(s.Denial)
	}
	return c
}

// Validate checks the setting the spec asks for (Config), naming the first
// bad field.
func (s OverbookingSpec) Validate() error {
	return s.Config().Validate("")
}

func (s OverbookingSpec) String() string {
	return fmt.Sprintf("%s/%g/%s", s.Policy, s.ServiceLevel, s.Denial)
}

// Pricing is a resource's fare classes and rate periods together: the body
// and answer of PUT /v1/resources/{id}/pricing and of its GET.
type Pricing struct {
	FareClasses []pricing.FareClass  `json:"fare_classes"`
	RatePeriods []pricing.RatePeriod `json:"rate_periods"`
}

type wirePricing struct {
	FareClasses json.RawMessage `json:"fare_classes"`
	RatePeriods json.RawMessage `json:"rate_periods"`
}

// DecodePricing reads the body of PUT /v1/resources/{id}/pricing strictly:
// both halves are required (they are replaced together), each decoded by
// pricing; errors name the field under op. Whether the classes price the
// periods is for the resource's validation.
func DecodePricing(op slotfare.Op, body []byte) (Pricing, error) {
	var w wirePricing
	if err := decodeStrict(body, &w, ""); err != nil {
		return Pricing{}, err
	}
	if absent(w.RatePeriods) {
		return Pricing{}, slotfare.Errorf(op, "rate_periods", "is required (both halves are replaced together)")
	}
	if absent(w.FareClasses) {
		return Pricing{}, slotfare.Errorf(op, "fare_classes", "is required (both halves are replaced together)")
	}
	periods, err := pricing.DecodeRatePeriods(w.RatePeriods)
	if err != nil {
		return Pricing{}, prefixErr(err, "rate_periods", "rate_periods")
	}
	classes, err := pricing.DecodeFareClasses(w.FareClasses)
	if err != nil {
		return Pricing{}, prefixErr(err, "fare_classes", "fare_classes")
	}
	return Pricing{FareClasses: classes, RatePeriods: periods}, nil
}

// PruneLimits is booking control after the fare classes or rate periods
// changed without new limits being given: a period's protection levels
// stay while the period exists and the number of classes is the same, its
// show rate while the period exists, a class's sell-up while the class
// exists; the rest would name periods or classes that are gone, and is
// dropped (the forecast or the defaults take over, seed 004 Sec. 7.7.2). Levels that no longer fit the nodes are
// kept, so that validation names them (limitsHint).
func PruneLimits(next ResourceConfig, old LimitsConfig) LimitsConfig {
	l := old.Clone()
	names := map[string]bool{}
	for _, p := range next.RatePeriods {
		names[p.Name] = true
	}
	for p, levels := range l.ProtectionLevels {
		if !names[p] || len(levels) != len(next.FareClasses)-1 {
			delete(l.ProtectionLevels, p)
		}
	}
	for p := range l.ShowRates {
		if !names[p] {
			delete(l.ShowRates, p)
		}
	}
	classes := map[string]bool{}
	for _, fc := range next.FareClasses {
		classes[fc.Name] = true
	}
	for name := range l.SellUp {
		if !classes[name] {
			delete(l.SellUp, name)
		}
	}
	if len(l.SellUp) == 0 {
		l.SellUp = nil
	}
	if len(l.ProtectionLevels) == 0 {
		l.ProtectionLevels = nil
	}
	if len(l.ShowRates) == 0 {
		l.ShowRates = nil
	}
	return l
}

// Clone is rc with slices and maps of its own, so that a change of the
// copy leaves rc as it was.
func (rc ResourceConfig) Clone() ResourceConfig {
	rc.FareClasses = append([]pricing.FareClass(nil), rc.FareClasses...)
	rc.RatePeriods = append([]pricing.RatePeriod(nil), rc.RatePeriods...)
	rc.Tags = append([]string(nil), rc.Tags...)
	rc.Limits = rc.Limits.Clone()
	return rc
}

// Clone is a deep copy (the maps are shared otherwise).
func (l LimitsConfig) Clone() LimitsConfig {
	if l.ProtectionLevels != nil {
		pl := make(map[string][]float64, len(l.ProtectionLevels))
		for k, v := range l.ProtectionLevels {
			pl[k] = append([]float64(nil), v...)
		}
		l.ProtectionLevels = pl
	}
	if l.ShowRates != nil {
		sr := make(map[string]float64, len(l.ShowRates))
		for k, v := range l.ShowRates {
			sr[k] = v
		}
		l.ShowRates = sr
	}
	if l.SellUp != nil {
		l.SellUp = maps.Clone(l.SellUp)
	}
	if l.Fares != nil {
		f := *l.Fares
		l.Fares = &f
	}
	return l
}
