package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // resources name IANA zones; a fresh machine may have no zoneinfo

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/ledger"
	"slotfare/overbook"
	"slotfare/pricing"
)

// Defaults filled in by DecodeConfig for fields the file leaves out.
const (
	// DefaultHoldSeconds is how long a hold lasts before it expires (10 minutes,
	// the default; seed 003 Sec. 3: a preliminary reservation times out).
	DefaultHoldSeconds = 600
	// DefaultGraceSeconds is how long after its start a committed booking may
	// still check in before it is a no-show.
	DefaultGraceSeconds = 900
	// DefaultCheckinOpenSeconds is how long before its start a booking may
	// check in.
	DefaultCheckinOpenSeconds = 3600
	// DefaultOfferTTLSeconds is how long a priced offer can be held at its price.
	DefaultOfferTTLSeconds = 300
	// DefaultBookAheadSeconds is the booking horizon: 90 days.
	DefaultBookAheadSeconds = 90 * 24 * 3600
	// DefaultSlotSeconds is the calendar's slot, the thesis's delta of 5
	// minutes (seed 004 Sec. 7.7.1).
	DefaultSlotSeconds = 300
	// DefaultServiceLevel is the service-level policy's ds_threshold of the
	// thesis's evaluation, 1% (seed 004 Sec. 7.7.1).
	DefaultServiceLevel = 0.01
	// DefaultPolicy and DefaultDenial are the overbooking of a resource that
	// names none: sell the nodes and no more; should an overbooked start
	// happen anyway (the nodes were lowered), deny the cheapest compensation
	// first (DCF, seed 004 Alg. 16, the lowest total cost in Sec. 7.7.3).
	DefaultPolicy = overbook.None
	DefaultDenial = overbook.DCF
	// DefaultMinHistory is how many past instances of a rate period booking
	// control wants before the forecast replaces the provider's initial
	// protection levels (seed 004 Sec. 7.7.2: the initial levels are only an
	// estimate until demand has been observed).
	DefaultMinHistory = 4
)

// Bounds on configuration values: generous, but small enough that sums of
// seconds and nodes never overflow and a typo (a horizon in milliseconds)
// is caught.
const (
	MaxNodes            = 1 << 20
	maxHoldSeconds      = 7 * 24 * 3600
	maxGraceSeconds     = 24 * 3600
	maxCheckinSeconds   = 7 * 24 * 3600
	maxOfferTTLSeconds  = 24 * 3600
	maxBookAheadSeconds = 3 * 366 * 24 * 3600
	maxMinHistory       = 1000
	maxBaseCostPlaces   = 12
	maxNameLen          = 64
	// MaxFareClasses bounds a resource's fare classes: the inventory lays
	// a resource out in this many nested groups, whatever its classes,
	// so that a provider may change how many it has without a layout
	// made anew under every replica.
	MaxFareClasses = 8
)

// Config is the service's configuration: the file given to `slotfare serve
// --config`, or the demo of testdata/demo.json (slotfare.DemoConfig). Read it
// with DecodeConfig, which fills defaults and validates every field.
type Config struct {
	// Currency is the currency a resource sells in when it names none
	// (ledger.Currency: three upper-case letters; the demo's GRD is the
	// thesis's G$). A resource may name another: one service can sell in
	// several currencies. The ledger keeps one currency per posting, a
	// booking keeps its resource's currency of the day it was held for
	// life, and invoices and balances are per account, month and currency.
	Currency           string `json:"currency"`
	HoldSeconds        int    `json:"hold_seconds"`
	GraceSeconds       int    `json:"grace_seconds"`
	CheckinOpenSeconds int    `json:"checkin_open_seconds"`
	OfferTTLSeconds    int    `json:"offer_ttl_seconds"`
	BookAheadSeconds   int    `json:"book_ahead_seconds"`
	// Keys are the API keys, stored as sha256 hashes only (HashKey); none
	// (left out, null or []) leaves the keys made over the API, and serve
	// makes a provider key when there is none of either.
	Keys      []KeyConfig      `json:"keys"`
	Resources []ResourceConfig `json:"resources"`
	// Runs bound the runs each account posts and keeps on a resource
	// (runlimits.go), defaults filled in.
	Runs RunLimits `json:"runs"`
}

// KeyConfig is one API key: its hash, a label, the role it grants, the
// account it acts for and, for users, the virtual organisation that decides
// which VO-restricted fare classes it may buy (seed 004 Table 7.1).
type KeyConfig struct {
	KeySHA256 string `json:"key_sha256"`
	Name      string `json:"name"`
	// Role is "provider", "user" or "billing".
	Role      booking.Role `json:"role"`
	AccountID string       `json:"account_id"`
	VO        pricing.VO   `json:"vo"`
}

// ResourceConfig is one resource as configured: what PUT /v1/resources/{id}
// and its sub-resources set, all in one object.
type ResourceConfig struct {
	ID string `json:"id"`
	// Nodes is the physical capacity C.
	Nodes int `json:"nodes"`
	// BaseCost is money per node-second (pricing's one unit; see
	// pricing/price.go and testdata/README.md).
	BaseCost    decimal.Decimal `json:"base_cost"`
	Currency    string          `json:"currency"`
	TimeZone    string          `json:"time_zone"`
	SlotSeconds int             `json:"slot_seconds"`
	HoldSeconds int             `json:"hold_seconds"`
	// VO is the virtual organisation the resource belongs to ("" none).
	VO          pricing.VO           `json:"vo"`
	Tags        []string             `json:"tags"`
	FareClasses []pricing.FareClass  `json:"fare_classes"`
	RatePeriods []pricing.RatePeriod `json:"rate_periods"`
	Overbooking OverbookingConfig    `json:"overbooking"`
	Limits      LimitsConfig         `json:"limits"`
	// HoldLimits bound what one account may hold on the resource at once
	// (holdlimits.go); zero fields take the defaults.
	HoldLimits HoldLimits `json:"hold_limits"`
}

// Stored is the store's record of the resource: its configuration as JSON
// (booking.ResourceRecord keeps it opaque), the queue snapshot in force
// and, once retired, when.
func (rc ResourceConfig) Stored(queue []byte, retiredAt *time.Time) (booking.ResourceRecord, error) {
	raw, err := json.Marshal(rc)
	if err != nil {
		return booking.ResourceRecord{}, slotfare.E(slotfare.Op("config.ResourceConfig.Stored"), slotfare.Other, err)
	}
	return booking.ResourceRecord{ID: rc.ID, Config: raw, Queue: queue, RetiredAt: retiredAt}, nil
}

// DecodeStored reads the configuration a store kept (Stored wrote it, or
// the code before the store held it opaque: the bytes are the same). It is
// not validated here: the service validates every resource it installs.
func DecodeStored(rr booking.ResourceRecord) (ResourceConfig, error) {
	var rc ResourceConfig
	if err := json.Unmarshal(rr.Config, &rc); err != nil {
		return ResourceConfig{}, slotfare.E(slotfare.Op("config.DecodeStored"), slotfare.Other, fmt.Sprintf("stored resource %q", rr.ID), err)
	}
	if rc.ID != rr.ID {
		return ResourceConfig{}, slotfare.E(slotfare.Op("config.DecodeStored"), slotfare.Other, fmt.Sprintf("stored resource %q holds the configuration of %q", rr.ID, rc.ID))
	}
	return rc, nil
}

// OverbookingConfig is a resource's overbooking policy (seed 004 Sec. 7.5)
// and denial strategy (Sec. 7.6.3): the body of PUT .../overbooking.
type OverbookingConfig struct {
	Policy overbook.Policy `json:"policy"`
	// ServiceLevel is ds_threshold of the service-level policy, in
	// (0, overbook.MaxServiceLevel].
	ServiceLevel float64                 `json:"service_level"`
	Denial       overbook.DenialStrategy `json:"denial"`
}

// DefaultOverbooking is the overbooking setting a field left out takes: the
// one default of the configuration file, of a resource created over the API
// and of PUT .../overbooking (through OverbookingSpec.Config), so that
// leaving a field out means the same everywhere.
func DefaultOverbooking() OverbookingConfig {
	return OverbookingConfig{Policy: DefaultPolicy, ServiceLevel: DefaultServiceLevel, Denial: DefaultDenial}
}

// Spec is the setting as the API shows it; Spec().Config() gives it back.
func (o OverbookingConfig) Spec() OverbookingSpec {
	return OverbookingSpec{Policy: string(o.Policy), ServiceLevel: o.ServiceLevel, Denial: string(o.Denial)}
}

// LimitsConfig tunes booking control's nested limits (seed 004 Sec. 7.3-7.4).
type LimitsConfig struct {
	// Method computes protection levels from the forecast: emsr-a, emsr-b
	// (default), emsr-b-mr (EMSR-b on marginal-revenue-transformed fares,
	// with SellUp), bid-price (classes below the LP bid price closed) or
	// thesis (Alg. 11, three classes only).
	Method pricing.LimitMethod `json:"method"`
	// SellUp is, per fare class name, the probability that a request for
	// the class, finding it closed, buys a higher class (in [0, 1]; a
	// class left out has 0). emsr-b-mr's fare transformation reads it
	// through the booking control's SellUp.
	SellUp map[string]float64 `json:"sell_up,omitempty"`
	// ProtectionLevels are the provider's initial levels per rate period
	// (Table 7.10): used until an instance of the period has ended, then
	// the forecast's prior until MinHistory have. They are nested as
	// everywhere in slotfare (pricing.
	// Allocation, `slotfare limits`, GET .../limits): level j is what is
	// protected for classes 1..j+1 together, so the thesis's y_1 = 10,
	// y_2 = 20 is [10, 30]. n-1 values for n classes, non-decreasing, at
	// most the nodes.
	ProtectionLevels map[string][]float64 `json:"protection_levels,omitempty"`
	// ShowRates are the default show rates q per rate period (seed 004 Sec.
	// 7.7.1: 1 - q_ns), in [MinShowRate, 1], blended with the observed
	// rate as bookings settle; a period without one has q = 1.
	ShowRates map[string]float64 `json:"show_rates,omitempty"`
	// MinHistory is how many past instances of a period it takes for the
	// forecast to replace the initial levels: it weighs seen/MinHistory of
	// the nesting after seen instances.
	MinHistory int `json:"min_history"`
	// Fares, when set, lets booking control choose each class's tau per
	// rate period within its bounds, from the price response it learns
	// (control.Control's fares); nil sells at the configured taus.
	Fares *FareBounds `json:"fares,omitempty"`
}

// FareBounds are the lowest and highest tau booking control may set a
// class's fare to, in steps of FareStep from MinTau.
type FareBounds struct {
	MinTau decimal.Decimal `json:"min_tau"`
	MaxTau decimal.Decimal `json:"max_tau"`
}

// FareStep is the spacing of the taus booking control chooses fares from.
var FareStep = decimal.New(5, -2)

// Grid is the taus from MinTau to MaxTau in FareStep steps, MaxTau last.
func (f FareBounds) Grid() []decimal.Decimal {
	var out []decimal.Decimal
	for t := f.MinTau; t.LessThan(f.MaxTau); t = t.Add(FareStep) {
		out = append(out, t)
	}
	return append(out, f.MaxTau)
}

type wireFares struct {
	MinTau *string `json:"min_tau"`
	MaxTau *string `json:"max_tau"`
}

var (
	idPattern  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	tagPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	hexPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)
	// moneyPattern is a plain non-negative decimal: no sign, exponent or
	// blanks, so "0.49" and "12" but not "1e3" or " 1".
	moneyPattern = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
)

// ValidateResourceID checks a resource id: 1-64 letters, digits, '.', '_'
// or '-', starting with a letter or digit, so it is safe in a URL path.
func ValidateResourceID(op slotfare.Op, field, id string) error {
	if !idPattern.MatchString(id) {
		return slotfare.Errorf(op, field, "%q is not a resource id: want 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", id)
	}
	return nil
}

// wire forms: pointers tell a missing field (default) from a zero.
type wireConfig struct {
	Currency           *string           `json:"currency"`
	HoldSeconds        *int              `json:"hold_seconds"`
	GraceSeconds       *int              `json:"grace_seconds"`
	CheckinOpenSeconds *int              `json:"checkin_open_seconds"`
	OfferTTLSeconds    *int              `json:"offer_ttl_seconds"`
	BookAheadSeconds   *int              `json:"book_ahead_seconds"`
	Keys               []json.RawMessage `json:"keys"`
	Resources          []json.RawMessage `json:"resources"`
	Runs               json.RawMessage   `json:"runs"`
}

type wireResource struct {
	ID          *string         `json:"id"`
	Nodes       *int            `json:"nodes"`
	BaseCost    *string         `json:"base_cost"`
	Currency    *string         `json:"currency"`
	TimeZone    *string         `json:"time_zone"`
	SlotSeconds *int            `json:"slot_seconds"`
	HoldSeconds *int            `json:"hold_seconds"`
	VO          json.RawMessage `json:"vo"`
	Tags        json.RawMessage `json:"tags"`
	FareClasses json.RawMessage `json:"fare_classes"`
	RatePeriods json.RawMessage `json:"rate_periods"`
	Overbooking json.RawMessage `json:"overbooking"`
	Limits      json.RawMessage `json:"limits"`
	HoldLimits  json.RawMessage `json:"hold_limits"`
	// HasQueue is GET's read-only has_queue (APIResource only).
	HasQueue *bool `json:"has_queue"`
}

type wireOverbooking struct {
	Policy       *string  `json:"policy"`
	ServiceLevel *float64 `json:"service_level"`
	Denial       *string  `json:"denial"`
}

type wireHoldLimits struct {
	MaxHolds           *int   `json:"max_holds"`
	MaxHeldNodeSeconds *int64 `json:"max_held_node_seconds"`
}

type wireLimits struct {
	Method           *string              `json:"method"`
	ProtectionLevels map[string][]float64 `json:"protection_levels"`
	ShowRates        map[string]float64   `json:"show_rates"`
	SellUp           map[string]float64   `json:"sell_up"`
	MinHistory       *int                 `json:"min_history"`
	Fares            json.RawMessage      `json:"fares"`
}

const opDecode slotfare.Op = "config.DecodeConfig"

// DecodeConfig reads a configuration file strictly: malformed JSON, unknown
// fields, wrong types and trailing data are rejected; missing optional
// fields get their defaults (hold 600 s, grace 900 s, check-in opens 3600 s
// before start, offer ttl 300 s, book-ahead 90 days, slot 300 s, policy
// none with denial dcf, limits by emsr-b, runs 1000 an hour, 10000 kept,
// 90 days); then Validate checks every value.
// Every error is a slotfare.Invalid naming the JSON path at fault, such as
// "resources[3].nodes" or "resources[0].fare_classes[1].tau.peak".
func DecodeConfig(data []byte) (Config, error) {
	var w wireConfig
	if err := decodeStrict(data, &w, ""); err != nil {
		return Config{}, err
	}
	cfg := Config{
		HoldSeconds:        intOr(w.HoldSeconds, DefaultHoldSeconds),
		GraceSeconds:       intOr(w.GraceSeconds, DefaultGraceSeconds),
		CheckinOpenSeconds: intOr(w.CheckinOpenSeconds, DefaultCheckinOpenSeconds),
		OfferTTLSeconds:    intOr(w.OfferTTLSeconds, DefaultOfferTTLSeconds),
		BookAheadSeconds:   intOr(w.BookAheadSeconds, DefaultBookAheadSeconds),
	}
	if w.Currency == nil {
		return Config{}, slotfare.Errorf(opDecode, "currency", "is required (three upper-case letters, e.g. GRD)")
	}
	runs, err := decodeRunLimits(w.Runs)
	if err != nil {
		return Config{}, err
	}
	cfg.Runs = runs
	cfg.Currency = *w.Currency
	for i, raw := range w.Keys {
		path := fmt.Sprintf("keys[%d]", i)
		var k KeyConfig
		if err := decodeStrict(raw, &k, path); err != nil {
			return Config{}, err
		}
		cfg.Keys = append(cfg.Keys, k)
	}
	cfg.Resources = make([]ResourceConfig, 0, len(w.Resources))
	for i, raw := range w.Resources {
		path := fmt.Sprintf("resources[%d]", i)
		rc, _, err := DecodeResource(raw, path, cfg.DefaultResource(""), FileResource, false)
		if err != nil {
			return Config{}, err
		}
		cfg.Resources = append(cfg.Resources, rc)
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// ResourceMode is who is writing a resource object: the configuration file
// or PUT /v1/resources/{id}. Both read the same fields the same way; they
// differ in what a field left out means and in the read-only fields GET
// adds.
type ResourceMode int

const (
	// FileResource: id, nodes, base_cost, time_zone, rate_periods and
	// fare_classes are required; the others take the file's defaults.
	FileResource ResourceMode = iota
	// APIResource: nodes, base_cost and time_zone are required; any other
	// field left out keeps its value in base (the stored resource, or the
	// defaults of a new one). id, when given, must be the path's id, and
	// has_queue, which GET adds, must say what is stored (a queue is set
	// with PUT .../queue).
	APIResource
)

// absent reports whether a raw field was left out or null.
func absent(raw json.RawMessage) bool {
	return len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// DecodeResource reads one resource object onto base: the fields given
// replace base's (an object such as overbooking or limits is replaced
// whole, its own left-out fields taking the file's defaults), the others
// are base's or, in the file, required. hasQueue is whether base has a
// queue snapshot (APIResource only). When the object gives no limits but
// other fare classes or rate periods, base's limits are pruned to what
// still fits them (PruneLimits); limitsGiven says whether it gave limits.
func DecodeResource(raw []byte, path string, base ResourceConfig, mode ResourceMode, hasQueue bool) (rc ResourceConfig, limitsGiven bool, err error) {
	rc, err = decodeResourceFields(raw, path, base, mode, hasQueue)
	if err != nil {
		return rc, false, err
	}
	var w struct {
		Limits json.RawMessage `json:"limits"`
	}
	if json.Unmarshal(raw, &w) == nil && !absent(w.Limits) {
		return rc, true, nil
	}
	rc.Limits = PruneLimits(rc, base.Limits)
	return rc, false, nil
}

func decodeResourceFields(raw []byte, path string, base ResourceConfig, mode ResourceMode, hasQueue bool) (ResourceConfig, error) {
	d := resourceDecoder{path: path, base: base, mode: mode, hasQueue: hasQueue}
	if err := decodeStrict(raw, &d.w, path); err != nil {
		return ResourceConfig{}, err
	}
	d.rc = base
	for _, step := range []func() error{d.identity, d.scalars, d.parts} {
		if err := step(); err != nil {
			return d.rc, err
		}
	}
	return d.rc, nil
}

// resourceDecoder reads one resource object (w, as decoded) onto rc, the
// resource it changes (base) or the file's defaults. mode says whether it
// is the file's object or an API body (whose id is the path's).
type resourceDecoder struct {
	path     string
	base, rc ResourceConfig
	mode     ResourceMode
	hasQueue bool
	w        wireResource
}

// at names field f of the object in errors.
func (d *resourceDecoder) at(f string) string {
	if d.path == "" {
		return f
	}
	return d.path + "." + f
}

func (d *resourceDecoder) required(field, hint string) error {
	return slotfare.Errorf(opDecode, d.at(field), "is required%s", hint)
}

// identity checks the id (the file's, or the path's repeated) and the
// read-only has_queue of an API body.
func (d *resourceDecoder) identity() error {
	switch {
	case d.w.ID != nil && d.mode == APIResource && *d.w.ID != d.base.ID:
		return slotfare.Errorf(opDecode, d.at("id"), "%q is not this resource's id %q (the id is the path's; leave it out or repeat it)", *d.w.ID, d.base.ID)
	case d.w.ID != nil:
		d.rc.ID = *d.w.ID
	case d.mode == FileResource:
		return d.required("id", "")
	}
	if d.w.HasQueue != nil {
		if d.mode == FileResource {
			return slotfare.Errorf(opDecode, d.at("has_queue"), "unknown field")
		}
		if *d.w.HasQueue != d.hasQueue {
			return slotfare.Errorf(opDecode, d.at("has_queue"), "is read-only and is %v: a queue snapshot is set with PUT /v1/resources/%s/queue (leave has_queue out or repeat it)", d.hasQueue, d.base.ID)
		}
	}
	return nil
}

// scalars reads the required nodes, base cost and time zone, and the
// optional currency, slot and hold lengths, VO and tags.
func (d *resourceDecoder) scalars() error {
	if d.w.Nodes == nil {
		return d.required("nodes", "")
	}
	d.rc.Nodes = *d.w.Nodes
	if d.w.BaseCost == nil {
		return d.required("base_cost", " (money per node-second, a decimal string)")
	}
	bc, err := parseMoney(*d.w.BaseCost)
	if err != nil {
		return slotfare.Errorf(opDecode, d.at("base_cost"), "%v", err)
	}
	d.rc.BaseCost = bc
	if d.w.Currency != nil {
		d.rc.Currency = *d.w.Currency
	}
	if d.w.TimeZone == nil {
		return d.required("time_zone", " (an IANA zone such as Europe/London)")
	}
	d.rc.TimeZone = *d.w.TimeZone
	if d.w.SlotSeconds != nil {
		d.rc.SlotSeconds = *d.w.SlotSeconds
	}
	if d.w.HoldSeconds != nil {
		d.rc.HoldSeconds = *d.w.HoldSeconds
	}
	if len(d.w.VO) > 0 {
		var vo pricing.VO
		if err := vo.UnmarshalJSON(d.w.VO); err != nil {
			return slotfare.Errorf(opDecode, d.at("vo"), "%s", slotfare.MessageOf(err))
		}
		d.rc.VO = vo
	}
	if len(d.w.Tags) > 0 {
		var tags []string
		if err := decodeStrict(d.w.Tags, &tags, d.at("tags")); err != nil {
			return err
		}
		d.rc.Tags = tags
	}
	return nil
}

// parts reads the parts a resource has its own PUT for: rate periods and
// fare classes (required in the file), overbooking, limits, hold limits.
func (d *resourceDecoder) parts() error {
	if absent(d.w.RatePeriods) {
		if d.mode == FileResource {
			return d.required("rate_periods", "")
		}
	} else {
		periods, err := pricing.DecodeRatePeriods(d.w.RatePeriods)
		if err != nil {
			return prefixErr(err, d.at("rate_periods"), "rate_periods")
		}
		d.rc.RatePeriods = periods
	}
	if absent(d.w.FareClasses) {
		if d.mode == FileResource {
			return d.required("fare_classes", "")
		}
	} else {
		classes, err := pricing.DecodeFareClasses(d.w.FareClasses)
		if err != nil {
			return prefixErr(err, d.at("fare_classes"), "fare_classes")
		}
		d.rc.FareClasses = classes
	}
	if !absent(d.w.Overbooking) {
		ob, err := decodeOverbooking(d.w.Overbooking, d.at("overbooking"))
		if err != nil {
			return err
		}
		d.rc.Overbooking = ob
	}
	if !absent(d.w.Limits) {
		l, err := DecodeLimits(d.w.Limits, d.at("limits"))
		if err != nil {
			return err
		}
		d.rc.Limits = l
	}
	if !absent(d.w.HoldLimits) {
		hl, err := decodeHoldLimits(d.w.HoldLimits, d.at("hold_limits"))
		if err != nil {
			return err
		}
		d.rc.HoldLimits = hl
	}
	return nil
}

// DefaultResource is a resource before its object is read: the file's
// defaults for everything the object may leave out.
func (c Config) DefaultResource(id string) ResourceConfig {
	return ResourceConfig{ID: id, Currency: c.Currency, SlotSeconds: DefaultSlotSeconds, HoldSeconds: c.HoldSeconds,
		Overbooking: DefaultOverbooking(), Limits: DefaultLimits()}
}

// DefaultLimits is booking control as a resource that says nothing of it
// has it: EMSR-b, DefaultMinHistory, no initial protection levels and no
// default show rates.
func DefaultLimits() LimitsConfig {
	return LimitsConfig{Method: pricing.EMSRb, MinHistory: DefaultMinHistory}
}

func decodeOverbooking(raw []byte, path string) (OverbookingConfig, error) {
	out := DefaultOverbooking()
	var ob wireOverbooking
	if err := decodeStrict(raw, &ob, path); err != nil {
		return out, err
	}
	if ob.Policy != nil {
		out.Policy = overbook.Policy(*ob.Policy)
	}
	if ob.ServiceLevel != nil {
		out.ServiceLevel = *ob.ServiceLevel
	}
	if ob.Denial != nil {
		out.Denial = overbook.DenialStrategy(*ob.Denial)
	}
	return out, nil
}

// DecodeLimits reads a "limits" object (booking control) strictly, as the
// configuration file, PUT /v1/resources/{id} and PUT .../limits-config
// take it: method and min_history left out take DefaultLimits' values,
// protection_levels and show_rates left out (or null) are none. path
// prefixes the field names in errors ("" for a body of its own).
func DecodeLimits(raw []byte, path string) (LimitsConfig, error) {
	out := DefaultLimits()
	var l wireLimits
	if err := decodeStrict(raw, &l, path); err != nil {
		return out, err
	}
	if l.Method != nil {
		out.Method = pricing.LimitMethod(*l.Method)
	}
	out.ProtectionLevels = l.ProtectionLevels
	out.ShowRates = l.ShowRates
	out.SellUp = l.SellUp
	if l.MinHistory != nil {
		out.MinHistory = *l.MinHistory
	}
	if len(l.Fares) > 0 && string(l.Fares) != "null" {
		f, err := decodeFares(l.Fares, joinPath(path, "fares"))
		if err != nil {
			return out, err
		}
		out.Fares = &f
	}
	return out, nil
}

// decodeFares reads limits.fares: both bounds, positive decimal taus of
// at most two places, the lowest below the highest.
func decodeFares(raw []byte, path string) (FareBounds, error) {
	var w wireFares
	if err := decodeStrict(raw, &w, path); err != nil {
		return FareBounds{}, err
	}
	var out FareBounds
	for _, b := range []struct {
		name string
		in   *string
		to   *decimal.Decimal
	}{{"min_tau", w.MinTau, &out.MinTau}, {"max_tau", w.MaxTau, &out.MaxTau}} {
		field := joinPath(path, b.name)
		if b.in == nil {
			return out, slotfare.Errorf(opDecode, field, "required: a tau (multiple of the base cost) as a decimal string")
		}
		d, err := decimal.NewFromString(*b.in)
		if err != nil || !d.IsPositive() || d.Exponent() < -2 || d.GreaterThan(decimal.NewFromInt(1000)) {
			return out, slotfare.Errorf(opDecode, field, "want a decimal string in (0, 1000] with at most 2 places, got %q", *b.in)
		}
		*b.to = d
	}
	if !out.MinTau.LessThan(out.MaxTau) {
		return out, slotfare.Errorf(opDecode, joinPath(path, "max_tau"), "must be above min_tau (%s), got %s", out.MinTau, out.MaxTau)
	}
	return out, nil
}

func decodeHoldLimits(raw []byte, path string) (HoldLimits, error) {
	var out HoldLimits
	var hl wireHoldLimits
	if err := decodeStrict(raw, &hl, path); err != nil {
		return out, err
	}
	// Zero is how the default is kept: a zero written out is refused
	// rather than read as "the default".
	if hl.MaxHolds != nil {
		if *hl.MaxHolds < 1 {
			return out, slotfare.Errorf(opDecode, path+".max_holds", "must be at least 1 (leave it out for the default %d), got %d", DefaultMaxHolds, *hl.MaxHolds)
		}
		out.MaxHolds = *hl.MaxHolds
	}
	if hl.MaxHeldNodeSeconds != nil {
		if *hl.MaxHeldNodeSeconds < 1 {
			return out, slotfare.Errorf(opDecode, path+".max_held_node_seconds", "must be at least 1 (leave it out for the default of nodes x %d), got %d", DefaultHeldSecondsPerNode, *hl.MaxHeldNodeSeconds)
		}
		out.MaxHeldNodeSeconds = *hl.MaxHeldNodeSeconds
	}
	return out, nil
}

// Validate checks a whole configuration, as DecodeConfig leaves it or as
// built in Go: the service settings, every key and every resource, and that
// resource ids (case-insensitively), key hashes, key names and account ids
// are unique. Errors are slotfare.Invalid naming the JSON path.
func (c Config) Validate() error {
	const op slotfare.Op = "config.Config"
	// Every fault is kept (slotfare.Join): a provider fixes the file once.
	var errs []error
	bad := func(err error) { errs = append(errs, err) }
	if !ledger.Currency(c.Currency).Valid() {
		bad(slotfare.Errorf(op, "currency", "%q is not a currency code: want three upper-case letters such as EUR or GRD", c.Currency))
	}
	checks := []struct {
		field    string
		v        int
		min, max int
	}{
		{"hold_seconds", c.HoldSeconds, 1, maxHoldSeconds},
		{"grace_seconds", c.GraceSeconds, 0, maxGraceSeconds},
		{"checkin_open_seconds", c.CheckinOpenSeconds, 0, maxCheckinSeconds},
		{"offer_ttl_seconds", c.OfferTTLSeconds, 1, maxOfferTTLSeconds},
		{"book_ahead_seconds", c.BookAheadSeconds, 3600, maxBookAheadSeconds},
	}
	for _, ch := range checks {
		if ch.v < ch.min || ch.v > ch.max {
			bad(slotfare.Errorf(op, ch.field, "must be between %d and %d seconds, got %d", ch.min, ch.max, ch.v))
		}
	}
	hashes := map[string]int{}
	names := map[string]int{}
	accounts := map[string]int{}
	for i, k := range c.Keys {
		path := fmt.Sprintf("keys[%d]", i)
		if err := k.Validate(op, path); err != nil {
			bad(err)
			continue
		}
		if j, dup := hashes[k.KeySHA256]; dup {
			bad(slotfare.Errorf(op, path+".key_sha256", "the same key as keys[%d]", j))
		}
		hashes[k.KeySHA256] = i
		if j, dup := names[k.Name]; dup {
			bad(slotfare.Errorf(op, path+".name", "%q is already the name of keys[%d]", k.Name, j))
		}
		names[k.Name] = i
		if j, dup := accounts[k.AccountID]; dup {
			bad(slotfare.Errorf(op, path+".account_id", "%q already has a key (keys[%d]); one key per account", k.AccountID, j))
		}
		accounts[k.AccountID] = i
	}
	ids := map[string]int{}
	for i, rc := range c.Resources {
		path := fmt.Sprintf("resources[%d]", i)
		if err := rc.Validate(path); err != nil {
			bad(err)
		}
		low := strings.ToLower(rc.ID)
		if j, dup := ids[low]; dup {
			bad(slotfare.Errorf(op, path+".id", "%q is already the id of resources[%d]", rc.ID, j))
		}
		ids[low] = i
	}
	return slotfare.Join(errs...)
}

// Validate checks one key; path prefixes the field names in errors
// ("keys[2]"; "" for a key on its own, as POST /v1/keys makes it).
func (k KeyConfig) Validate(op slotfare.Op, path string) error {
	at := func(f string) string {
		if path == "" {
			return f
		}
		return path + "." + f
	}
	if !hexPattern.MatchString(k.KeySHA256) {
		return slotfare.Errorf(op, at("key_sha256"), "want the 64 lower-case hex digits of the key's sha256, never the key itself")
	}
	if err := checkName(k.Name); err != nil {
		return slotfare.Errorf(op, at("name"), "%v", err)
	}
	if !k.Role.Valid() {
		return slotfare.Errorf(op, at("role"), "%q is not a role: want provider, user or billing", k.Role)
	}
	if !idPattern.MatchString(k.AccountID) {
		return slotfare.Errorf(op, at("account_id"), "%q is not an account id: want 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", k.AccountID)
	}
	if k.VO != "" {
		if k.Role != booking.RoleUser {
			return slotfare.Errorf(op, at("vo"), "only user keys belong to a VO (this key's role is %s)", k.Role)
		}
		if err := checkVO(k.VO); err != nil {
			return slotfare.Errorf(op, at("vo"), "%v", err)
		}
	}
	return nil
}

// Validate checks one resource; path prefixes every field name in an error
// ("resources[2]"; pass "" for a resource on its own). Fare classes and rate
// periods are checked by pricing: the periods must cover the week in the
// resource's time zone, and the classes need a tau for every period name.
func (rc ResourceConfig) Validate(path string) error {
	const op slotfare.Op = "config.ResourceConfig"
	at := func(f string) string {
		if path == "" {
			return f
		}
		return path + "." + f
	}
	// Every independent field is checked and each fault kept (slotfare.Join),
	// so a provider fixes them all at once; what depends on a bad field
	// (fare classes on the periods, limits on both) is checked only once
	// that field is right.
	var errs []error
	bad := func(err error) { errs = append(errs, err) }
	if err := ValidateResourceID(op, at("id"), rc.ID); err != nil {
		bad(err)
	}
	if rc.Nodes < 1 || rc.Nodes > MaxNodes {
		bad(slotfare.Errorf(op, at("nodes"), "must be between 1 and %d, got %d", MaxNodes, rc.Nodes))
	}
	switch {
	case !rc.BaseCost.IsPositive():
		bad(slotfare.Errorf(op, at("base_cost"), "must be positive (money per node-second), got %s", rc.BaseCost))
	case -rc.BaseCost.Exponent() > maxBaseCostPlaces:
		bad(slotfare.Errorf(op, at("base_cost"), "at most %d decimal places, got %s", maxBaseCostPlaces, rc.BaseCost))
	}
	if !ledger.Currency(rc.Currency).Valid() {
		bad(slotfare.Errorf(op, at("currency"), "%q is not a currency code: want three upper-case letters such as EUR or GRD", rc.Currency))
	}
	loc, zoneErr := loadZone(rc.TimeZone)
	if zoneErr != nil {
		bad(slotfare.Errorf(op, at("time_zone"), "%v", zoneErr))
	}
	if !validSlot(rc.SlotSeconds) {
		bad(slotfare.Errorf(op, at("slot_seconds"), slotRule, rc.SlotSeconds))
	}
	if rc.HoldSeconds < 1 || rc.HoldSeconds > maxHoldSeconds {
		bad(slotfare.Errorf(op, at("hold_seconds"), "must be between 1 and %d seconds, got %d", maxHoldSeconds, rc.HoldSeconds))
	}
	if rc.VO != "" {
		if err := checkVO(rc.VO); err != nil {
			bad(slotfare.Errorf(op, at("vo"), "%v", err))
		}
	}
	seen := map[string]bool{}
	for i, t := range rc.Tags {
		switch {
		case !tagPattern.MatchString(t):
			bad(slotfare.Errorf(op, at(fmt.Sprintf("tags[%d]", i)), "%q is not a tag: want 1-64 letters, digits, '.', '_' or '-'", t))
		case seen[t]:
			bad(slotfare.Errorf(op, at(fmt.Sprintf("tags[%d]", i)), "%q appears twice", t))
		}
		seen[t] = true
	}
	if err := rc.Overbooking.Validate(at("overbooking")); err != nil {
		bad(err)
	}
	if err := rc.HoldLimits.validate(op, at); err != nil {
		bad(err)
	}
	var periods []string
	switch {
	case len(rc.RatePeriods) == 0:
		bad(slotfare.Errorf(op, at("rate_periods"), "at least one rate period is required"))
	case zoneErr == nil:
		cal, err := pricing.NewRateCalendar(loc, rc.RatePeriods)
		if err != nil {
			bad(prefixErr(err, at("rate_periods"), "rate_periods"))
			break
		}
		periods = cal.PeriodNames()
	}
	classesOK := false
	switch {
	case len(rc.FareClasses) == 0:
		bad(slotfare.Errorf(op, at("fare_classes"), "at least one fare class is required"))
	case len(rc.FareClasses) > MaxFareClasses:
		bad(slotfare.Errorf(op, at("fare_classes"), "at most %d fare classes, got %d", MaxFareClasses, len(rc.FareClasses)))
	case periods != nil:
		if err := pricing.ValidateFareClasses(rc.FareClasses, periods); err != nil {
			bad(prefixErr(err, at("fare_classes"), "fare_classes"))
			break
		}
		classesOK = true
	}
	for i, fc := range rc.FareClasses {
		if fc.VO != "" {
			if err := checkVO(fc.VO); err != nil {
				bad(slotfare.Errorf(op, at(fmt.Sprintf("fare_classes[%d].vo", i)), "%v", err))
			}
		}
	}
	if classesOK && rc.Nodes >= 1 && rc.Nodes <= MaxNodes {
		if err := rc.Limits.validate(op, at("limits"), rc.Nodes, rc.FareClasses, periods); err != nil {
			bad(err)
		}
	}
	return slotfare.Join(errs...)
}

// Validate checks an overbooking setting; path prefixes the field names.
// The service level is bounded as overbook bounds it (MaxServiceLevel), so
// that a setting accepted here is one booking control can compute with.
func (o OverbookingConfig) Validate(path string) error {
	const op slotfare.Op = "config.OverbookingConfig"
	at := func(f string) string {
		if path == "" {
			return f
		}
		return path + "." + f
	}
	if _, err := overbook.ParsePolicy(string(o.Policy)); err != nil {
		return slotfare.Errorf(op, at("policy"), "%q is not a policy: want none, probability, risk or service-level", string(o.Policy))
	}
	if math.IsNaN(o.ServiceLevel) || o.ServiceLevel <= 0 || o.ServiceLevel > overbook.MaxServiceLevel {
		return slotfare.Errorf(op, at("service_level"),
			"must be in (0, %v], got %v: it bounds the expected share of the shows that are denied (seed 004 Sec. 7.5.3), and above one half more would be denied than served",
			overbook.MaxServiceLevel, o.ServiceLevel)
	}
	if _, err := overbook.ParseDenialStrategy(string(o.Denial)); err != nil {
		return slotfare.Errorf(op, at("denial"), "%q is not a denial strategy: want lottery, dcf or lc-dcf", string(o.Denial))
	}
	return nil
}

func (l LimitsConfig) validate(op slotfare.Op, path string, nodes int, fareClasses []pricing.FareClass, periods []string) error {
	classes := len(fareClasses)
	if _, err := pricing.ParseLimitMethod(string(l.Method)); err != nil {
		return slotfare.Errorf(op, path+".method", "%q is not a method: want %s", string(l.Method), pricing.LimitMethodNames)
	}
	if err := validateSellUp(op, path+".sell_up", l.SellUp, fareClasses); err != nil {
		return err
	}
	if l.Method == pricing.ThesisEMSR && classes != 3 {
		return slotfare.Errorf(op, path+".method", "thesis (Alg. 11) needs exactly three fare classes, the resource has %d", classes)
	}
	known := map[string]bool{}
	for _, p := range periods {
		known[p] = true
	}
	for _, p := range sortedKeys(l.ProtectionLevels) {
		levels := l.ProtectionLevels[p]
		field := path + ".protection_levels." + p
		if !known[p] {
			return slotfare.Errorf(op, field, "%q is not a rate period of this resource (have %s)", p, strings.Join(periods, ", "))
		}
		if len(levels) != classes-1 {
			return slotfare.Errorf(op, field, "want %d levels (one fewer than the %d fare classes), got %d", classes-1, classes, len(levels))
		}
		prev := 0.0
		for j, y := range levels {
			f := fmt.Sprintf("%s[%d]", field, j)
			switch {
			case math.IsNaN(y) || math.IsInf(y, 0) || y < 0:
				return slotfare.Errorf(op, f, "must be a non-negative number, got %v", y)
			case y < prev:
				return slotfare.Errorf(op, f, "levels are nested (classes 1..j+1 together) and cannot fall: %v after %v", y, prev)
			case y > float64(nodes):
				return slotfare.Errorf(op, f, "protects %v units, more than the %d nodes", y, nodes)
			}
			prev = y
		}
	}
	for _, p := range sortedKeys(l.ShowRates) {
		q := l.ShowRates[p]
		field := path + ".show_rates." + p
		if !known[p] {
			return slotfare.Errorf(op, field, "%q is not a rate period of this resource (have %s)", p, strings.Join(periods, ", "))
		}
		if math.IsNaN(q) || q < MinShowRate || q > 1 {
			return slotfare.Errorf(op, field, "a show rate must be in [%v, 1] (below %v booking control would sell more than twice the nodes), got %v", MinShowRate, MinShowRate, q)
		}
	}
	if l.MinHistory < 0 || l.MinHistory > maxMinHistory {
		return slotfare.Errorf(op, path+".min_history", "must be between 0 and %d, got %d", maxMinHistory, l.MinHistory)
	}
	return nil
}

func validateSellUp(op slotfare.Op, path string, sellUp map[string]float64, classes []pricing.FareClass) error {
	known := make([]string, len(classes))
	for i, fc := range classes {
		known[i] = fc.Name
	}
	for _, name := range sortedKeys(sellUp) {
		p := sellUp[name]
		field := path + "." + name
		if !slices.Contains(known, name) {
			return slotfare.Errorf(op, field, "%q is not a fare class of this resource (have %s)", name, strings.Join(known, ", "))
		}
		if math.IsNaN(p) || p < 0 || p > 1 {
			return slotfare.Errorf(op, field, "a sell-up probability must be in [0, 1], got %v", p)
		}
	}
	return nil
}

// Location loads the resource's IANA time zone.
func (rc ResourceConfig) Location() (*time.Location, error) {
	loc, err := loadZone(rc.TimeZone)
	if err != nil {
		return nil, slotfare.Errorf("config.ResourceConfig", "time_zone", "%v", err)
	}
	return loc, nil
}

// RateCalendar builds the resource's rate calendar in its time zone.
func (rc ResourceConfig) RateCalendar() (*pricing.RateCalendar, error) {
	loc, err := rc.Location()
	if err != nil {
		return nil, err
	}
	cal, err := pricing.NewRateCalendar(loc, rc.RatePeriods)
	if err != nil {
		return nil, prefixErr(err, "rate_periods", "rate_periods")
	}
	return cal, nil
}

// ShowRate is the configured default show rate of a period: 1 when none is
// configured (no no-shows expected until history says otherwise).
func (l LimitsConfig) ShowRate(period string) float64 {
	if q, ok := l.ShowRates[period]; ok {
		return q
	}
	return 1
}

func loadZone(name string) (*time.Location, error) {
	// "Local" depends on the machine and "" means UTC to LoadLocation; both
	// would make the same file price differently on another host.
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("%q is not an IANA time zone (e.g. Europe/London, UTC)", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%q is not a known IANA time zone", name)
	}
	return loc, nil
}

func checkName(s string) error {
	if s == "" || len(s) > maxNameLen {
		return fmt.Errorf("want 1-%d characters, got %d", maxNameLen, len(s))
	}
	for _, r := range s {
		if r < 0x21 || r == 0x7f {
			return fmt.Errorf("%q has a blank or control character", s)
		}
	}
	return nil
}

func checkVO(vo pricing.VO) error {
	if !tagPattern.MatchString(string(vo)) {
		return fmt.Errorf("%q is not a VO name: want 1-64 letters, digits, '.', '_' or '-'", string(vo))
	}
	return nil
}

func parseMoney(s string) (decimal.Decimal, error) {
	if !moneyPattern.MatchString(s) || len(s) > 40 {
		return decimal.Decimal{}, fmt.Errorf("%q is not a plain decimal amount such as \"0.49\"", s)
	}
	return decimal.NewFromString(s)
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// insertion sort: maps here hold a handful of periods
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// prefixErr re-roots an error from pricing, whose fields are relative to
// the list it decoded ("[1].tau.peak", or whole for the list itself), under
// path ("resources[0].fare_classes").
func prefixErr(err error, path, whole string) error {
	field := slotfare.FieldOf(err)
	switch {
	case field == "" || field == whole:
		field = path
	case strings.HasPrefix(field, "["):
		field = path + field
	case strings.HasPrefix(field, whole+"["):
		field = path + strings.TrimPrefix(field, whole)
	default:
		field = path + "." + field
	}
	kind := slotfare.KindOf(err)
	if kind == slotfare.Other {
		kind = slotfare.Invalid
	}
	return &slotfare.Error{Op: opDecode, Kind: kind, Field: field, Msg: slotfare.MessageOf(err)}
}

// decodeStrict is DecodeStrict for the configuration.
func decodeStrict(data []byte, v any, path string) error {
	return DecodeStrict(opDecode, data, v, path)
}

// DecodeStrict decodes one JSON value into v, rejecting unknown fields,
// trailing data, duplicate keys and keys matching a field only up to case,
// and names the field at fault under path; op names the operation in its
// errors. Every document slotfare reads from a provider (the configuration,
// a simulation scenario) is read this way.
func DecodeStrict(op slotfare.Op, data []byte, v any, path string) error {
	opDecode := op
	at := func(f string) string {
		switch {
		case path == "":
			return f
		case f == "":
			return path
		}
		return path + "." + f
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			return slotfare.Errorf(opDecode, at(""), "unexpected data after the JSON value")
		}
		// encoding/json takes the last of two equal keys and matches
		// field names up to case; the configuration is read exactly.
		if kerr := slotfare.CheckKeys(data, reflect.TypeOf(v)); kerr != nil {
			var ke *slotfare.KeyError
			if errors.As(kerr, &ke) {
				return slotfare.Errorf(opDecode, at(ke.Path), "%s", ke.Msg)
			}
			return slotfare.Errorf(opDecode, at(""), "%v", kerr)
		}
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		return slotfare.Errorf(opDecode, at(typeErr.Field), "wrong type: got JSON %s, want %s", typeErr.Value, jsonTypeName(typeErr.Type.String()))
	case errors.As(err, &syntaxErr):
		return slotfare.Errorf(opDecode, at(""), "malformed JSON at byte %d: %v", syntaxErr.Offset, syntaxErr)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return slotfare.Errorf(opDecode, at(""), "empty or truncated JSON")
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		name = strings.Trim(name, `"`)
		return slotfare.Errorf(opDecode, at(name), "unknown field")
	}
	var perr *time.ParseError
	if errors.As(err, &perr) {
		return slotfare.Errorf(opDecode, at(""), "not an RFC 3339 time: %v", perr)
	}
	// errors from a field's own UnmarshalJSON (pricing.VO, ...)
	if f := slotfare.FieldOf(err); f != "" {
		return slotfare.Errorf(opDecode, at(f), "%s", slotfare.MessageOf(err))
	}
	return slotfare.Errorf(opDecode, at(""), "%s", strings.TrimPrefix(msg, "json: "))
}

func jsonTypeName(goType string) string {
	switch {
	case strings.HasPrefix(goType, "*"):
		return jsonTypeName(goType[1:])
	case goType == "string":
		return "a string"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "float"), strings.HasPrefix(goType, "uint"):
		return "a number"
	case goType == "bool":
		return "true or false"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "booking."), strings.HasPrefix(goType, "config."), strings.HasPrefix(goType, "struct"):
		return "an object"
	}
	return goType
}

// validSlot is the one rule for a calendar slot, wherever a resource is
// configured: whole seconds that divide a day, so that every day starts on a
// slot boundary in the resource's time zone.
func validSlot(seconds int) bool { return seconds >= 1 && seconds <= 86400 && 86400%seconds == 0 }

const slotRule = "must divide a day (86400 s) evenly, got %d"

// joinPath names field f under path ("" for a body of its own).
func joinPath(path, f string) string {
	if path == "" {
		return f
	}
	return path + "." + f
}
