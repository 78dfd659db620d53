package api

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/runs"
)

// runBody is the body of POST /v1/runs (API.md): a finished run of a
// profile on a resource, for duration prediction.
type runBody struct {
	Profile          *string  `json:"profile"`
	ResourceID       *string  `json:"resource_id"`
	RuntimeSeconds   *float64 `json:"runtime_seconds"`
	TransferSeconds  *float64 `json:"transfer_seconds"`
	BytesTransferred *int64   `json:"bytes_transferred"`
	FinishedAt       *string  `json:"finished_at"`
	RunID            *string  `json:"run_id"`
}

// secondsField converts a number of seconds from the wire, refusing what
// no duration holds (the run's own checks bound it further).
func secondsField(field string, v float64) (time.Duration, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 2*runs.MaxRuntime.Seconds() {
		return 0, slotfare.Errorf("", field, "must be a number of seconds, at most a year")
	}
	return time.Duration(math.Round(v * 1e9)), nil
}

// postRun answers POST /v1/runs: 201 with the run recorded, or 200 with
// the stored run when its run_id was already recorded with the same values
// (a retry); 409 naming run_id when with other values. Providers post for
// any resource, users for resources of no VO or of their own (runs.Service).
func (s *server) postRun(c echo.Context) error {
	var in runBody
	if _, err := bodyOf(c, &in); err != nil {
		return err
	}
	var r runs.Run
	var errs []error
	if in.Profile == nil {
		errs = append(errs, slotfare.Errorf("", "profile", "is required"))
	} else {
		r.Profile = *in.Profile
	}
	if in.ResourceID == nil || *in.ResourceID == "" {
		errs = append(errs, slotfare.Errorf("", "resource_id", "is required"))
	} else {
		r.ResourceID = *in.ResourceID
	}
	if in.RuntimeSeconds == nil {
		errs = append(errs, slotfare.Errorf("", "runtime_seconds", "is required"))
	} else if d, err := secondsField("runtime_seconds", *in.RuntimeSeconds); err != nil {
		errs = append(errs, err)
	} else {
		r.Runtime = d
	}
	if in.TransferSeconds != nil {
		if d, err := secondsField("transfer_seconds", *in.TransferSeconds); err != nil {
			errs = append(errs, err)
		} else {
			r.Transfer = d
		}
	}
	if in.BytesTransferred != nil {
		r.Bytes = *in.BytesTransferred
	}
	if in.FinishedAt != nil {
		t, err := parseTime("finished_at", *in.FinishedAt)
		if err != nil {
			errs = append(errs, err)
		}
		r.FinishedAt = t
	}
	if in.RunID != nil {
		if *in.RunID == "" {
			errs = append(errs, slotfare.Errorf("", "run_id", "must be a run id or left out"))
		}
		r.ID = *in.RunID
	}
	if err := slotfare.Join(errs...); err != nil {
		return err
	}
	stored, created, err := s.runs.Post(c.Request().Context(), principalOf(c), r)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, stored)
}

// runsAnswer is GET /v1/runs's answer: the prediction for a job of the
// profile on the resource (null without runs).
type runsAnswer struct {
	Profile    string           `json:"profile"`
	ResourceID string           `json:"resource_id"`
	Bytes      int64            `json:"bytes"`
	Prediction *runs.Prediction `json:"prediction"`
}

// getRuns answers GET /v1/runs?profile=..&resource_id=..[&bytes=..][&start=..]:
// what a part of that profile would reserve on the resource, by which
// predictor, from how many runs and with what mean absolute error; the
// prediction is null when the resource has no run of the profile.
func (s *server) getRuns(c echo.Context) error {
	if err := checkQuery(c, "profile", "resource_id", "bytes", "start"); err != nil {
		return err
	}
	ans := runsAnswer{Profile: c.QueryParam("profile"), ResourceID: c.QueryParam("resource_id")}
	var errs []error
	if ans.Profile == "" {
		errs = append(errs, slotfare.Errorf("", "profile", "is required"))
	}
	if ans.ResourceID == "" {
		errs = append(errs, slotfare.Errorf("", "resource_id", "is required"))
	}
	if v := c.QueryParam("bytes"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			errs = append(errs, slotfare.Errorf("", "bytes", "must be a whole number of bytes, at least 0, not %q", v))
		}
		ans.Bytes = n
	}
	var start time.Time
	if v := c.QueryParam("start"); v != "" {
		t, err := parseTime("start", v)
		if err != nil {
			errs = append(errs, err)
		}
		start = t
	}
	if err := slotfare.Join(errs...); err != nil {
		return err
	}
	pr, ok, err := s.runs.Predict(c.Request().Context(), principalOf(c), ans.ResourceID, ans.Profile, ans.Bytes, start)
	if err != nil {
		return err
	}
	if ok {
		ans.Prediction = &pr
	}
	return c.JSON(http.StatusOK, ans)
}

// offersByProfile answers POST /v1/offers for a query that names a profile
// instead of duration_seconds: on each resource (the one named, or every
// one) the duration is predicted from the runs recorded there, and the
// resource's offers are for that duration, each offer saying its
// prediction. A resource without runs of the profile, or whose prediction
// is longer than the window, offers nothing; none with runs is 422 naming
// profile. The first solution leads, as in an ordinary answer.
func (s *server) offersByProfile(c echo.Context, q booking.OfferQuery, profile *string, bytes *int64) error {
	moved, err := profileQueryOf(q, profile, bytes)
	if err != nil {
		return err
	}
	ctx, p := c.Request().Context(), principalOf(c)
	ids, err := s.offerResources(ctx, p, q.ResourceID)
	if err != nil {
		return err
	}
	offers := []booking.Offer{}
	var preds []runs.Prediction
	known := false
	for _, id := range ids {
		offs, pr, ok, err := s.predictedOffers(ctx, p, q, id, *profile, moved)
		if err != nil {
			return err
		}
		known = known || ok
		for _, o := range offs {
			offers = append(offers, o)
			preds = append(preds, pr)
		}
	}
	if !known {
		return slotfare.Errorf("", "profile", "unknown profile %q: no run of it is recorded on %s; record runs (POST /v1/runs) or give duration_seconds",
			*profile, strings.Join(ids, ", "))
	}
	solutionFirst(offers, preds)
	return writePredictedOffers(c, offers, preds)
}

// profileQueryOf checks an offer query by profile: a valid profile, not
// with duration_seconds, and the bytes its job moves (0 when not given).
// Every problem is named at once.
func profileQueryOf(q booking.OfferQuery, profile *string, bytes *int64) (moved int64, err error) {
	var errs []error
	switch {
	case profile == nil:
		errs = append(errs, slotfare.Errorf("", "bytes", "is the data a job of profile moves: give it with profile"))
	case q.DurationSeconds != nil:
		errs = append(errs, slotfare.Errorf("", "profile", "give duration_seconds or profile, not both"))
	default:
		if err := runs.CheckProfile("", "profile", *profile); err != nil {
			errs = append(errs, err)
		}
	}
	if bytes != nil {
		if moved = *bytes; moved < 0 {
			errs = append(errs, slotfare.Errorf("", "bytes", "must be at least 0, not %d", moved))
		}
	}
	return moved, slotfare.Join(errs...)
}

// offerResources is the resource named (422 naming resource_id when there
// is none such), or every resource.
func (s *server) offerResources(ctx context.Context, p booking.Principal, id string) ([]string, error) {
	if id != "" {
		if _, err := s.b.Resource(ctx, p, id); err != nil {
			if slotfare.KindOf(err) == slotfare.NotFound {
				return nil, slotfare.Errorf("", "resource_id", "no resource %q", id)
			}
			return nil, err
		}
		return []string{id}, nil
	}
	all, err := s.b.Resources(ctx, p)
	if err != nil {
		return nil, err
	}
	ids := []string{}
	for _, r := range all {
		ids = append(ids, r.ID)
	}
	return ids, nil
}

// predictedOffers are resource id's offers for the duration predicted
// there from the profile's runs; known reports whether it has any. A
// prediction longer than the window offers nothing, and so, when every
// resource is asked, does one that refuses the query (without the class,
// too small), as Offers skips it.
func (s *server) predictedOffers(ctx context.Context, p booking.Principal, q booking.OfferQuery, id, profile string, moved int64) (offs []booking.Offer, pr runs.Prediction, known bool, err error) {
	pr, known, err = s.runs.PredictOn(ctx, id, profile, moved, q.EarliestStart)
	if err != nil || !known || pr.Duration > q.LatestEnd.Sub(q.EarliestStart) {
		return nil, pr, known, err
	}
	rq := q
	rq.ResourceID = id
	d := int64(pr.Duration / time.Second)
	rq.DurationSeconds = &d
	offs, err = s.b.Offers(ctx, p, rq)
	if err != nil && q.ResourceID == "" {
		return nil, pr, known, nil
	}
	return offs, pr, known, err
}

// solutionFirst moves the first offer that is a solution (and its
// prediction) to the front, the others keeping their order.
func solutionFirst(offers []booking.Offer, preds []runs.Prediction) {
	for i, o := range offers {
		if o.Solution && i > 0 {
			pr := preds[i]
			copy(offers[1:i+1], offers[:i])
			copy(preds[1:i+1], preds[:i])
			offers[0], preds[0] = o, pr
			return
		}
	}
}
