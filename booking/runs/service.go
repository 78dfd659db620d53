package runs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
)

// Catalog is what Service needs of the booking service: the resources, to
// check that a run names one (*service.Service satisfies it).
type Catalog interface {
	Resources(ctx context.Context, p booking.Principal) ([]config.Resource, error)
}

// Options configure a Service. Zero values take the defaults named.
type Options struct {
	Now    func() time.Time // time.Now
	Recent int              // runs a prediction reads (DefaultRecent)
	IDs    io.Reader        // the random part of generated run ids (crypto/rand)
	// Limits are what each account may post and keep on a resource: the
	// configuration's "runs" object (config.RunLimits; its defaults).
	Limits config.RunLimits
}

// LimitsOf is what the store keeps of c, defaults filled in.
func LimitsOf(c config.RunLimits) Limits {
	c = c.Effective()
	return Limits{PerHour: c.MaxPerHour, Kept: c.MaxKept, MaxAge: time.Duration(c.RetentionDays) * 24 * time.Hour}
}

// Service records runs and predicts from them for the API: POST /v1/runs,
// GET /v1/runs, and the parts, probes and offers that name a profile
// instead of a duration.
//
// Who may post a run: a provider, for any resource (providers run the
// resources); a user, for a resource of no VO or of the user's own VO (the
// resources the user's community shares, whose predictions it relies on).
// Billing keys may not. Anyone who may book may read a prediction.
type Service struct {
	st   Store
	pred *Predictor
	cat  Catalog
	lim  Limits
	o    Options
}

// NewService returns a Service over st, checking resources against cat.
func NewService(st Store, cat Catalog, o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.IDs == nil {
		o.IDs = rand.Reader
	}
	lim := LimitsOf(o.Limits)
	return &Service{st: st, pred: NewPredictor(st, o.Recent, lim.MaxAge), cat: cat, lim: lim, o: o}
}

// Predictor is the service's predictor, for the broker and the offers.
func (s *Service) Predictor() *Predictor { return s.pred }

// resource finds id in the catalog; field names the request's field.
func (s *Service) resource(ctx context.Context, op slotfare.Op, p booking.Principal, id, field string) (config.Resource, error) {
	all, err := s.cat.Resources(ctx, p)
	if err != nil {
		return config.Resource{}, slotfare.E(op, err)
	}
	for _, r := range all {
		if r.ID == id {
			return r, nil
		}
	}
	return config.Resource{}, slotfare.Errorf(op, field, "no resource %q", id)
}

// Post records a run for p (provider or user; see Service). An empty ID is
// given a fresh random one (a retry then records the run again: send
// run_id to make retries safe); an empty FinishedAt is now. created is
// false when the run id was already recorded with the same values (the
// stored run is returned); other values under a known id are a Conflict
// naming run_id. A run past the account's Limits.PerHour on the resource
// is LimitExceeded (a *QuotaError); one finished longer ago than
// Limits.MaxAge is Invalid naming finished_at.
func (s *Service) Post(ctx context.Context, p booking.Principal, r Run) (Run, bool, error) {
	const op slotfare.Op = "runs.Post"
	if p.Role != booking.RoleProvider && p.Role != booking.RoleUser {
		return Run{}, false, slotfare.E(op, slotfare.Forbidden, "runs are posted by providers and users")
	}
	now := s.o.Now().UTC()
	if r.FinishedAt.IsZero() {
		r.FinishedAt = now
	}
	if r.ID == "" {
		var buf [12]byte
		if _, err := io.ReadFull(s.o.IDs, buf[:]); err != nil {
			return Run{}, false, slotfare.E(op, slotfare.Other, "no random id", err)
		}
		r.ID = "run_" + hex.EncodeToString(buf[:])
	}
	r.AccountID, r.RecordedAt = p.AccountID, now
	if err := r.Validate(); err != nil {
		return Run{}, false, slotfare.E(op, err)
	}
	if r.FinishedAt.After(now.Add(time.Minute)) {
		return Run{}, false, slotfare.Errorf(op, "finished_at", "is in the future")
	}
	res, err := s.resource(ctx, op, p, r.ResourceID, "resource_id")
	if err != nil {
		return Run{}, false, err
	}
	if p.Role == booking.RoleUser && res.VO != "" && string(res.VO) != p.VO {
		return Run{}, false, slotfare.E(op, slotfare.Forbidden,
			fmt.Sprintf("runs on %s are posted by its provider or members of VO %s", res.ID, res.VO))
	}
	return s.st.Append(ctx, r, s.lim)
}

// Predict predicts a job of profile on resourceID for p (provider or user),
// moving bytes and starting at start (zero: now). ok is false when the
// resource has no run of the profile. The resource must exist (Invalid
// naming resource_id).
func (s *Service) Predict(ctx context.Context, p booking.Principal, resourceID, profile string, bytes int64, start time.Time) (Prediction, bool, error) {
	const op slotfare.Op = "runs.Predict"
	if p.Role != booking.RoleProvider && p.Role != booking.RoleUser {
		return Prediction{}, false, slotfare.E(op, slotfare.Forbidden, "predictions are for providers and users")
	}
	var errs []error
	if err := CheckProfile(op, "profile", profile); err != nil {
		errs = append(errs, err)
	}
	if bytes < 0 {
		errs = append(errs, slotfare.Errorf(op, "bytes", "must be at least 0, not %d", bytes))
	}
	if err := slotfare.Join(errs...); err != nil {
		return Prediction{}, false, err
	}
	if _, err := s.resource(ctx, op, p, resourceID, "resource_id"); err != nil {
		return Prediction{}, false, err
	}
	now := s.o.Now().UTC()
	if start.IsZero() {
		start = now
	}
	return s.pred.Predict(ctx, resourceID, profile, bytes, start, now)
}

// PredictOn predicts as Predict does, for a caller that has checked the
// principal and the resource already (the offers of every resource).
func (s *Service) PredictOn(ctx context.Context, resourceID, profile string, bytes int64, start time.Time) (Prediction, bool, error) {
	return s.pred.Predict(ctx, resourceID, profile, bytes, start, s.o.Now().UTC())
}
