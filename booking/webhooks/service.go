package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/events"
)

// Source reads the event log as a role and account would (the booking
// service's Events): at most limit events after cursor after of types
// (nil: all the role may read), and the cursor after them.
type Source func(ctx context.Context, p booking.Principal, after string, types []string, limit int) (evs []events.Event, next string, err error)

// Options tune registration and delivery; zero values are the defaults.
type Options struct {
	// AllowPrivate lets a hook's URL be http and resolve to loopback,
	// private or link-local addresses (serve --webhooks-allow-private).
	AllowPrivate bool
	// Timeout bounds one delivery (10 s).
	Timeout time.Duration
	// FirstRetry is the wait after the first failure (10 s), doubled
	// after each further one up to MaxRetry (1 h).
	FirstRetry, MaxRetry time.Duration
	// DisableAfter is how long an endpoint may fail before it is disabled
	// (24 h).
	DisableAfter time.Duration
	// Batch is how many events one step sends an endpoint at most (100).
	Batch int
	// Resolve looks a host's addresses up (net.DefaultResolver's when nil).
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

func (o Options) withDefaults() Options {
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	if o.FirstRetry == 0 {
		o.FirstRetry = 10 * time.Second
	}
	if o.MaxRetry == 0 {
		o.MaxRetry = time.Hour
	}
	if o.DisableAfter == 0 {
		o.DisableAfter = 24 * time.Hour
	}
	if o.Batch == 0 {
		o.Batch = 100
	}
	if o.Resolve == nil {
		o.Resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	return o
}

// Service registers, lists and deletes hooks (provider and billing
// roles, each its account's) and delivers the log to them (Step).
type Service struct {
	port         Port
	source       Source
	appendEvents func(ctx context.Context, evs []events.Event) error
	o            Options
	client       *httpClient
}

// New is a Service on port, reading the log from source; appendEvents
// adds webhook.disabled events to the log.
func New(port Port, source Source, appendEvents func(context.Context, []events.Event) error, o Options) *Service {
	o = o.withDefaults()
	return &Service{port: port, source: source, appendEvents: appendEvents, o: o, client: newHTTPClient(o)}
}

// Request is POST /v1/webhooks's body.
type Request struct {
	URL   string   `json:"url"`
	Types []string `json:"event_types"`
}

// Created is a hook as made: with its secret, shown this once.
type Created struct {
	View
	Secret string `json:"secret"`
}

// View is a hook as listed: never its secret.
type View struct {
	ID         string     `json:"webhook_id"`
	URL        string     `json:"url"`
	Types      []string   `json:"event_types"`
	Status     string     `json:"status"`
	CreatedAt  time.Time  `json:"created_at"`
	DisabledAt *time.Time `json:"disabled_at"`
	Attempts   int        `json:"failed_attempts"`
	LastError  string     `json:"last_error"`
}

func viewOf(h Hook) View {
	st := "enabled"
	if h.DisabledAt != nil {
		st = "disabled"
	} else if h.FailingSince != nil {
		st = "failing"
	}
	return View{ID: h.ID, URL: h.URL, Types: h.Types, Status: st, CreatedAt: h.CreatedAt, DisabledAt: h.DisabledAt, Attempts: h.Attempts, LastError: h.LastError}
}

func needRole(op slotfare.Op, p booking.Principal) error {
	if p.Role == "" || p.AccountID == "" {
		return slotfare.E(op, slotfare.Unauthorized, "no principal")
	}
	if p.Role != booking.RoleProvider && p.Role != booking.RoleBilling {
		return slotfare.E(op, slotfare.Forbidden, fmt.Sprintf("role %s may not do this (needs provider or billing)", p.Role))
	}
	return nil
}

// Create registers a hook for p, delivering from the next event on.
func (s *Service) Create(ctx context.Context, p booking.Principal, r Request, now time.Time) (Created, error) {
	const op slotfare.Op = "webhooks.Create"
	if err := needRole(op, p); err != nil {
		return Created{}, err
	}
	if err := s.checkURL(ctx, op, r.URL); err != nil {
		return Created{}, err
	}
	if err := events.CheckTypes(op, "event_types", r.Types); err != nil {
		return Created{}, err
	}
	// Start at the end of the log: a new hook gets what happens from now.
	var cursor string
	for {
		evs, next, err := s.source(ctx, p, cursor, typesOf(r.Types), 1000)
		if err != nil {
			return Created{}, err
		}
		cursor = next
		if len(evs) < 1000 {
			break
		}
	}
	var id [8]byte
	rand.Read(id[:])
	h := Hook{ID: "wh_" + hex.EncodeToString(id[:]), URL: r.URL, Types: r.Types, Account: p.AccountID, Role: p.Role,
		Secret: NewSecret(), CreatedAt: now.UTC(), Cursor: cursor, NextAttempt: now.UTC()}
	if err := s.port.Create(ctx, h); err != nil {
		return Created{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	return Created{View: viewOf(h), Secret: h.Secret}, nil
}

// typesOf is a hook's types as a log filter: nil for every type.
func typesOf(ts []string) []string {
	for _, t := range ts {
		if t == "*" {
			return nil
		}
	}
	return ts
}

// List are p's account's hooks.
func (s *Service) List(ctx context.Context, p booking.Principal) ([]View, error) {
	const op slotfare.Op = "webhooks.List"
	if err := needRole(op, p); err != nil {
		return nil, err
	}
	hs, err := s.port.List(ctx)
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	out := []View{}
	for _, h := range hs {
		if h.Account == p.AccountID && h.Role == p.Role {
			out = append(out, viewOf(h))
		}
	}
	return out, nil
}

// Delete removes one of p's hooks: no more deliveries to it.
func (s *Service) Delete(ctx context.Context, p booking.Principal, id string) error {
	const op slotfare.Op = "webhooks.Delete"
	if err := needRole(op, p); err != nil {
		return err
	}
	hs, err := s.port.List(ctx)
	if err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	for _, h := range hs {
		if h.ID == id && h.Account == p.AccountID && h.Role == p.Role {
			if _, err := s.port.Delete(ctx, id); err != nil {
				return slotfare.E(op, slotfare.Unavailable, err)
			}
			return nil
		}
	}
	return slotfare.E(op, slotfare.NotFound, fmt.Sprintf("no webhook %q", id))
}

// checkURL refuses what a hook may not call: not https (unless
// AllowPrivate), credentials in it, a host that resolves to a loopback,
// private, link-local or unspecified address (unless AllowPrivate).
func (s *Service) checkURL(ctx context.Context, op slotfare.Op, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return slotfare.Errorf(op, "url", "must be an absolute https URL, got %q", raw)
	}
	if u.User != nil {
		return slotfare.Errorf(op, "url", "must not carry credentials")
	}
	if s.o.AllowPrivate {
		return nil
	}
	if u.Scheme != "https" {
		return slotfare.Errorf(op, "url", "must be https (http only with serve --webhooks-allow-private)")
	}
	addrs, err := s.o.Resolve(ctx, u.Hostname())
	if err != nil || len(addrs) == 0 {
		return slotfare.Errorf(op, "url", "host %q does not resolve", u.Hostname())
	}
	for _, a := range addrs {
		if !public(a) {
			return slotfare.Errorf(op, "url", "host %q resolves to %s, a loopback, private or link-local address (allowed only with serve --webhooks-allow-private)", u.Hostname(), a)
		}
	}
	return nil
}

// public reports whether a is an address a hook may reach without
// AllowPrivate.
func public(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsValid() && !a.IsLoopback() && !a.IsPrivate() && !a.IsLinkLocalUnicast() && !a.IsLinkLocalMulticast() &&
		!a.IsUnspecified() && !a.IsMulticast() && !a.IsInterfaceLocalMulticast() && !netip.MustParsePrefix("100.64.0.0/10").Contains(a)
}
