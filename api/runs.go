package api

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"slotfare"
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
