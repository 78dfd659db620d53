package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/coreserve"
)

// The bodies of POST /v1/probes and POST /v1/co-reservations as they are
// on the wire (API.md). A part's fields are read with its index, so a bad
// value is named parts[1].duration_seconds.

type afterBody struct {
	Part          *int   `json:"part"`
	MaxGapSeconds *int64 `json:"max_gap_seconds"`
}

type partBody struct {
	ResourceID      *string    `json:"resource_id"`
	Tags            []string   `json:"tags"`
	Nodes           *int       `json:"nodes"`
	EarliestStart   string     `json:"earliest_start"`
	LatestEnd       string     `json:"latest_end"`
	DurationSeconds *int64     `json:"duration_seconds"`
	Profile         *string    `json:"profile"`
	Bytes           *int64     `json:"bytes"`
	FareClass       *string    `json:"fare_class"`
	After           *afterBody `json:"after"`
	SameStartAs     *int       `json:"same_start_as"`
}

type probeBody struct {
	partBody
	Alpha *float64 `json:"alpha"`
}

type coReservationBody struct {
	FareClass *string    `json:"fare_class"`
	Policy    *string    `json:"policy"`
	Alpha     *float64   `json:"alpha"`
	Parts     []partBody `json:"parts"`
}

// maxDurationSeconds bounds a part's duration before it becomes a
// time.Duration (a year, as a booking).
const maxDurationSeconds = 366 * 24 * 3600

// part reads one part, naming its fields with prefix ("" for a probe,
// "parts[i]." in a co-reservation); every fault is returned.
func (in partBody) part(prefix string) (coreserve.Part, []error) {
	var p coreserve.Part
	var errs []error
	if in.ResourceID != nil {
		if *in.ResourceID == "" {
			errs = append(errs, slotfare.Errorf("", prefix+"resource_id", "must be a resource id or null"))
		}
		p.ResourceID = *in.ResourceID
	}
	p.Tags = in.Tags
	if in.Nodes == nil {
		errs = append(errs, slotfare.Errorf("", prefix+"nodes", "is required"))
	} else {
		p.Nodes = *in.Nodes
	}
	var err error
	if p.EarliestStart, err = parseTime(prefix+"earliest_start", in.EarliestStart); err != nil {
		errs = append(errs, err)
	}
	if p.LatestEnd, err = parseTime(prefix+"latest_end", in.LatestEnd); err != nil {
		errs = append(errs, err)
	}
	switch {
	case in.Profile != nil && in.DurationSeconds != nil:
		errs = append(errs, slotfare.Errorf("", prefix+"profile", "give duration_seconds or profile, not both"))
	case in.Profile != nil:
		if *in.Profile == "" {
			errs = append(errs, slotfare.Errorf("", prefix+"profile", "must be an application profile (or give duration_seconds)"))
		}
		p.Profile = *in.Profile
	case in.DurationSeconds == nil:
		errs = append(errs, slotfare.Errorf("", prefix+"duration_seconds", "is required (or give profile)"))
	case *in.DurationSeconds <= 0 || *in.DurationSeconds > maxDurationSeconds:
		errs = append(errs, slotfare.Errorf("", prefix+"duration_seconds", "must be 1..%d seconds, not %d", maxDurationSeconds, *in.DurationSeconds))
	default:
		p.Duration = time.Duration(*in.DurationSeconds) * time.Second
	}
	if in.Bytes != nil {
		p.Bytes = *in.Bytes
	}
	if in.FareClass != nil {
		if *in.FareClass == "" {
			errs = append(errs, slotfare.Errorf("", prefix+"fare_class", "must be a fare class name or null"))
		}
		p.FareClass = *in.FareClass
	}
	if a := in.After; a != nil {
		switch {
		case a.Part == nil:
			errs = append(errs, slotfare.Errorf("", prefix+"after.part", "is required"))
		case a.MaxGapSeconds == nil:
			errs = append(errs, slotfare.Errorf("", prefix+"after.max_gap_seconds", "is required (0: start as the part ends)"))
		case *a.MaxGapSeconds < 0 || *a.MaxGapSeconds > maxDurationSeconds:
			errs = append(errs, slotfare.Errorf("", prefix+"after.max_gap_seconds", "must be 0..%d seconds", maxDurationSeconds))
		default:
			p.After = &coreserve.After{Part: *a.Part, MaxGap: time.Duration(*a.MaxGapSeconds) * time.Second}
		}
	}
	p.SameStartAs = in.SameStartAs
	return p, errs
}

// probe answers POST /v1/probes: the reservation candidates of every
// resource the part names or matches (seed 003 Sec. 3.1), rated by price
// and start with the body's alpha (default 0.5), best first.
func (s *server) probe(c echo.Context) error {
	var in probeBody
	if _, err := bodyOf(c, &in); err != nil {
		return err
	}
	if in.After != nil {
		return slotfare.Errorf("", "after", "a probe is for one part: relations belong to co-reservations")
	}
	if in.SameStartAs != nil {
		return slotfare.Errorf("", "same_start_as", "a probe is for one part: relations belong to co-reservations")
	}
	p, errs := in.part("")
	if err := slotfare.Join(errs...); err != nil {
		return err
	}
	req := coreserve.ProbeRequest{Part: p, Alpha: coreserve.DefaultAlpha}
	if in.Alpha != nil {
		req.Alpha = *in.Alpha
	}
	cands, err := s.co.Probe(c.Request().Context(), principalOf(c), req)
	if err != nil {
		return err
	}
	if cands == nil {
		cands = []coreserve.Candidate{}
	}
	return c.JSON(http.StatusOK, map[string]any{"candidates": cands})
}

// coReserve answers POST /v1/co-reservations: 201 with every part held, or
// the failed part's problem (409 naming parts[i]) with nothing held.
func (s *server) coReserve(c echo.Context) error {
	var in coReservationBody
	if _, err := bodyOf(c, &in); err != nil {
		return err
	}
	req := coreserve.Request{Policy: coreserve.Earliest, Alpha: in.Alpha}
	if in.Policy != nil {
		req.Policy = coreserve.Policy(*in.Policy)
	}
	if in.FareClass != nil {
		if *in.FareClass == "" {
			return slotfare.Errorf("", "fare_class", "must be a fare class name or null")
		}
		req.FareClass = *in.FareClass
	}
	if max := s.co.MaxParts(); len(in.Parts) > max {
		return slotfare.Errorf("", "parts", "at most %d parts, not %d", max, len(in.Parts))
	}
	var errs []error
	for i, pb := range in.Parts {
		p, perrs := pb.part(fmt.Sprintf("parts[%d].", i))
		errs = append(errs, perrs...)
		req.Parts = append(req.Parts, p)
	}
	if err := slotfare.Join(errs...); err != nil {
		return err
	}
	var v coreserve.View
	var replayed bool
	var err error
	switch key := c.Request().Header.Get(IdempotencyKeyHeader); {
	case len(key) > 255:
		return errBadRequest(IdempotencyKeyHeader, "must be at most 255 characters")
	case key != "":
		fp, ferr := coFingerprint(c.Request().Method, c.Request().URL.Path, req)
		if ferr != nil {
			return ferr
		}
		v, replayed, err = s.co.ReserveOnce(c.Request().Context(), principalOf(c), req, booking.Idempotency{Key: key, Fingerprint: fp})
	default:
		v, err = s.co.Reserve(c.Request().Context(), principalOf(c), req)
	}
	if err != nil {
		return err
	}
	if replayed {
		c.Response().Header().Set("Idempotent-Replayed", "true")
	}
	c.Response().Header().Set(echo.HeaderLocation, "/v1/co-reservations/"+v.ID)
	return c.JSON(http.StatusCreated, v)
}

// coFingerprint is the identity of a co-reservation request for an
// Idempotency-Key: a hash of the method, the path and the request as
// decoded, its times as UTC instants, so that two bodies meaning the same
// request have one fingerprint.
func coFingerprint(method, path string, req coreserve.Request) (string, error) {
	req.Parts = append([]coreserve.Part(nil), req.Parts...)
	for i := range req.Parts {
		req.Parts[i].EarliestStart = req.Parts[i].EarliestStart.UTC()
		req.Parts[i].LatestEnd = req.Parts[i].LatestEnd.UTC()
	}
	body, err := json.Marshal(req)
	if err != nil {
		return "", slotfare.E(slotfare.Op("api.coReserve"), slotfare.Other, err)
	}
	h := sha256.New()
	h.Write([]byte(method + "\x00" + path + "\x00"))
	h.Write(body)
	return "co1:" + hex.EncodeToString(h.Sum(nil)), nil
}

// coAction runs one of the co-reservation actions that take no body.
func (s *server) coAction(c echo.Context, act func(id string) (coreserve.View, error)) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := noBody(c); err != nil {
		return err
	}
	v, err := act(id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

func (s *server) coCommit(c echo.Context) error {
	return s.coAction(c, func(id string) (coreserve.View, error) {
		return s.co.Commit(c.Request().Context(), principalOf(c), id)
	})
}

func (s *server) coCancel(c echo.Context) error {
	return s.coAction(c, func(id string) (coreserve.View, error) {
		return s.co.Cancel(c.Request().Context(), principalOf(c), id)
	})
}

func (s *server) coGet(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := checkQuery(c); err != nil {
		return err
	}
	v, err := s.co.Get(c.Request().Context(), principalOf(c), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}
