package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/booking/runs"
	"slotfare/booking/service"
	"slotfare/ledger"
	"slotfare/overbook"
)

// The request bodies as they are on the wire (API.md). Times and money are
// strings here and parsed with the field's name, so a bad value is reported
// against its field; pointers tell "absent or null" from zero.

// resourceBody is the shape of PUT /v1/resources/{id}, the configuration
// file's resource object plus GET's read-only has_queue. The api decodes it
// only to answer a malformed request with 400 (wrong type, unknown or
// case-folded field); the service reads the values with the file's own
// decoder (booking.PutResourceConfig). Fare classes, rate periods and the
// VO are shaped by pricing, which names their fields itself.
type resourceBody struct {
	ID          *string          `json:"id"`
	Nodes       *int             `json:"nodes"`
	BaseCost    *string          `json:"base_cost"`
	Currency    *string          `json:"currency"`
	TimeZone    *string          `json:"time_zone"`
	SlotSeconds *int             `json:"slot_seconds"`
	HoldSeconds *int             `json:"hold_seconds"`
	VO          json.RawMessage  `json:"vo"`
	Tags        []string         `json:"tags"`
	FareClasses json.RawMessage  `json:"fare_classes"`
	RatePeriods json.RawMessage  `json:"rate_periods"`
	Overbooking *overbookingBody `json:"overbooking"`
	Limits      *limitsBody      `json:"limits"`
	HoldLimits  *holdLimitsBody  `json:"hold_limits"`
	HasQueue    *bool            `json:"has_queue"`
}

// limitsBody is booking control's shape: a resource's "limits", the body
// of PUT .../limits-config.
type limitsBody struct {
	Method           *string              `json:"method"`
	MinHistory       *int                 `json:"min_history"`
	ProtectionLevels map[string][]float64 `json:"protection_levels"`
	ShowRates        map[string]float64   `json:"show_rates"`
	SellUp           map[string]float64   `json:"sell_up"`
}

// pricingBody is the shape of PUT .../pricing.
type pricingBody struct {
	FareClasses json.RawMessage `json:"fare_classes"`
	RatePeriods json.RawMessage `json:"rate_periods"`
}

type holdLimitsBody struct {
	MaxHolds           *int   `json:"max_holds"`
	MaxHeldNodeSeconds *int64 `json:"max_held_node_seconds"`
}

// keyBody is the body of POST /v1/keys.
type keyBody struct {
	Name      *string         `json:"name"`
	Role      *string         `json:"role"`
	AccountID *string         `json:"account_id"`
	VO        json.RawMessage `json:"vo"`
}

type overbookingBody struct {
	Policy       string   `json:"policy"`
	ServiceLevel *float64 `json:"service_level"`
	Denial       string   `json:"denial"`
}

type offersBody struct {
	ResourceID      *string `json:"resource_id"`
	EarliestStart   string  `json:"earliest_start"`
	LatestEnd       string  `json:"latest_end"`
	DurationSeconds *int64  `json:"duration_seconds"`
	Nodes           *int    `json:"nodes"`
	FareClass       *string `json:"fare_class"`
	Strategy        *string `json:"strategy"`
	Profile         *string `json:"profile"`
	Bytes           *int64  `json:"bytes"`
}

type holdBody struct {
	OfferID    *string `json:"offer_id"`
	ResourceID *string `json:"resource_id"`
	Start      *string `json:"start"`
	End        *string `json:"end"`
	Nodes      *int    `json:"nodes"`
	FareClass  *string `json:"fare_class"`
	Profile    *string `json:"profile"`
}

type modifyBody struct {
	Start   *string `json:"start"`
	End     *string `json:"end"`
	Nodes   *int    `json:"nodes"`
	QuoteID *string `json:"quote_id"`
}

// cancelBody is the optional body of POST /v1/bookings/{id}/cancel.
type cancelBody struct {
	QuoteID *string `json:"quote_id"`
}

// Enumerations checked at the edge so a typo is a 422 naming the field
// before any work is done.
var (
	overbookingPolicies = []string{"none", "probability", "risk", "service-level"}
	denialStrategies    = []string{"lottery", "dcf", "lc-dcf"}
	offerStrategies     = []string{"osp", "first-fit", "best-fit"}
	bookingStatuses     = []string{"held", "committed", "active", "completed", "cancelled", "expired", "rejected", "no_show", "denied", "terminated"}
)

func oneOf(field, v string, allowed []string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return slotfare.Errorf("", field, "must be one of %s, not %q", strings.Join(allowed, ", "), v)
}

// pathID reads the :id path parameter and rejects ids that cannot be ours
// (empty, over-long or with control characters).
func pathID(c echo.Context) (string, error) {
	id := c.Param("id")
	if id == "" || len(id) > 128 {
		return "", slotfare.E(slotfare.NotFound, slotfare.Field("id"), "no such id")
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f {
			return "", slotfare.E(slotfare.NotFound, slotfare.Field("id"), "no such id")
		}
	}
	return id, nil
}

// bodyOf reads and strictly decodes the JSON body into dst, after checking
// the query string is empty (no route with a body takes parameters).
func bodyOf(c echo.Context, dst any) ([]byte, error) {
	if err := checkQuery(c); err != nil {
		return nil, err
	}
	b, err := readBody(c)
	if err != nil {
		return nil, err
	}
	if err := decodeStrict(b, dst); err != nil {
		return nil, err
	}
	return b, nil
}

// rawJSONBody reads a body that the service decodes itself (fare classes,
// rate periods, queue snapshots); it still must be one well-formed JSON value.
func rawJSONBody(c echo.Context) ([]byte, error) {
	if err := checkQuery(c); err != nil {
		return nil, err
	}
	b, err := readBody(c)
	if err != nil {
		return nil, err
	}
	var v any
	if err := decodeStrict(b, &v); err != nil {
		return nil, err
	}
	return b, nil
}

func noBody(c echo.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	b, err := readBody(c)
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(b))) > 0 && strings.TrimSpace(string(b)) != "{}" {
		return errBadRequest("body", "must be empty (or {})")
	}
	return nil
}

// putResource creates or changes a resource from the configuration file's
// resource object; the service decodes it with the file's decoder.
func (s *server) putResource(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	body, err := bodyOf(c, &resourceBody{})
	if err != nil {
		return err
	}
	r, created, err := s.b.PutResourceConfig(c.Request().Context(), principalOf(c), id, body)
	if err != nil {
		return err
	}
	st := http.StatusOK
	if created {
		st = http.StatusCreated
	}
	return c.JSON(st, r)
}

// putPart serves a PUT that replaces one part of a resource (fare
// classes, rate periods, pricing, booking control) and answers 200 with the
// part as stored. read checks the body's shape at the edge; the service
// decodes the values with the configuration file's own decoder, so a part
// reads the same over the API as in the file.
func putPart[R any](s *server, read func(echo.Context) ([]byte, error), put func(b Backend, ctx context.Context, p booking.Principal, id string, body []byte) (R, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := pathID(c)
		if err != nil {
			return err
		}
		body, err := read(c)
		if err != nil {
			return err
		}
		out, err := put(s.b, c.Request().Context(), principalOf(c), id, body)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, out)
	}
}

// strictBody reads a body that must decode strictly into T's fields.
func strictBody[T any](c echo.Context) ([]byte, error) {
	var v T
	return bodyOf(c, &v)
}

func (s *server) putOverbooking(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var in overbookingBody
	if _, err := bodyOf(c, &in); err != nil {
		return err
	}
	if err := oneOf("policy", in.Policy, overbookingPolicies); err != nil {
		return err
	}
	// A field left out stays zero: booking fills it from its one default
	// (booking.DefaultOverbooking), as the configuration file does. A zero
	// sent on purpose is no service level and is refused here, before it
	// could read as "left out".
	spec := config.OverbookingSpec{Policy: in.Policy, Denial: in.Denial}
	if in.Denial != "" {
		if err := oneOf("denial", in.Denial, denialStrategies); err != nil {
			return err
		}
	}
	if in.ServiceLevel != nil {
		if sl := *in.ServiceLevel; !(sl > 0) {
			return slotfare.Errorf("", "service_level", "must be in (0, %v], not %v", overbook.MaxServiceLevel, sl)
		}
		spec.ServiceLevel = *in.ServiceLevel
	}
	out, err := s.b.PutOverbooking(c.Request().Context(), principalOf(c), id, spec)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

func (s *server) putQueue(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	b, err := rawJSONBody(c)
	if err != nil {
		return err
	}
	if err := s.b.PutQueue(c.Request().Context(), principalOf(c), id, b); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// limitsReport is GET .../limits: booking control's limits over a window,
// which must not be empty (the other reports answer an empty one).
func limitsReport(b Backend, ctx context.Context, p booking.Principal, id string, from, to time.Time) (control.LimitsReport, error) {
	if !to.After(from) {
		return control.LimitsReport{}, slotfare.Errorf("", "to", "must be after from")
	}
	return b.Limits(ctx, p, id, from, to)
}

// windowed serves a provider's report of one resource over the window
// ?from=..&to=.. (RFC 3339).
func windowed[R any](s *server, report func(b Backend, ctx context.Context, p booking.Principal, id string, from, to time.Time) (R, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := pathID(c)
		if err != nil {
			return err
		}
		if err := checkQuery(c, "from", "to"); err != nil {
			return err
		}
		from, err := parseTime("from", c.QueryParam("from"))
		if err != nil {
			return err
		}
		to, err := parseTime("to", c.QueryParam("to"))
		if err != nil {
			return err
		}
		rep, err := report(s.b, c.Request().Context(), principalOf(c), id, from, to)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, rep)
	}
}

func (s *server) resources(c echo.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	rs, err := s.b.Resources(c.Request().Context(), principalOf(c))
	if err != nil {
		return err
	}
	if rs == nil {
		rs = []config.Resource{}
	}
	return c.JSON(http.StatusOK, map[string]any{"data": rs})
}

// byID serves a GET of the one thing the path's id names (a resource, a
// booking's cancellation quote), which takes no query.
func byID[R any](s *server, get func(b Backend, ctx context.Context, p booking.Principal, id string) (R, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := pathID(c)
		if err != nil {
			return err
		}
		if err := checkQuery(c); err != nil {
			return err
		}
		out, err := get(s.b, c.Request().Context(), principalOf(c), id)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, out)
	}
}

// resourcePart answers GET .../fare-classes, .../rate-periods and
// .../overbooking with the part of the resource its PUT sets, in the shape
// that PUT takes, so that what is read can be written back unchanged.
func (s *server) resourcePart(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := checkQuery(c); err != nil {
		return err
	}
	r, err := s.b.Resource(c.Request().Context(), principalOf(c), id)
	if err != nil {
		return err
	}
	switch {
	case strings.HasSuffix(c.Path(), "/fare-classes"):
		return c.JSON(http.StatusOK, r.FareClasses)
	case strings.HasSuffix(c.Path(), "/rate-periods"):
		return c.JSON(http.StatusOK, r.RatePeriods)
	case strings.HasSuffix(c.Path(), "/pricing"):
		return c.JSON(http.StatusOK, config.Pricing{FareClasses: r.FareClasses, RatePeriods: r.RatePeriods})
	case strings.HasSuffix(c.Path(), "/limits-config"):
		return c.JSON(http.StatusOK, r.Limits)
	}
	return c.JSON(http.StatusOK, r.Overbooking)
}

// deleteResource retires a resource without live bookings: 204.
func (s *server) deleteResource(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := noBody(c); err != nil {
		return err
	}
	if err := s.b.DeleteResource(c.Request().Context(), principalOf(c), id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *server) offers(c echo.Context) error {
	var in offersBody
	if _, err := bodyOf(c, &in); err != nil {
		return err
	}
	var q booking.OfferQuery
	var err error
	if in.ResourceID != nil {
		if *in.ResourceID == "" {
			return slotfare.Errorf("", "resource_id", "must be a resource id or null")
		}
		q.ResourceID = *in.ResourceID
	}
	if q.EarliestStart, err = parseTime("earliest_start", in.EarliestStart); err != nil {
		return err
	}
	if q.LatestEnd, err = parseTime("latest_end", in.LatestEnd); err != nil {
		return err
	}
	if !q.LatestEnd.After(q.EarliestStart) {
		return slotfare.Errorf("", "latest_end", "must be after earliest_start")
	}
	if in.DurationSeconds != nil {
		d := *in.DurationSeconds
		if d <= 0 {
			return slotfare.Errorf("", "duration_seconds", "must be a positive number of seconds, not %d", d)
		}
		if window := q.LatestEnd.Sub(q.EarliestStart); d > int64(window.Seconds()) {
			return slotfare.Errorf("", "duration_seconds", "is longer than the window from earliest_start to latest_end")
		}
		q.DurationSeconds = &d
	}
	if in.Nodes != nil {
		if *in.Nodes < 1 {
			return slotfare.Errorf("", "nodes", "must be at least 1, not %d", *in.Nodes)
		}
		n := *in.Nodes
		q.Nodes = &n
	}
	if in.FareClass != nil {
		if *in.FareClass == "" {
			return slotfare.Errorf("", "fare_class", "must be a fare class name or null")
		}
		q.FareClass = *in.FareClass
	}
	if in.Strategy != nil {
		if err := oneOf("strategy", *in.Strategy, offerStrategies); err != nil {
			return err
		}
		q.Strategy = *in.Strategy
	}
	if in.Profile != nil || in.Bytes != nil {
		return s.offersByProfile(c, q, in.Profile, in.Bytes)
	}
	offers, err := s.b.Offers(c.Request().Context(), principalOf(c), q)
	if err != nil {
		return err
	}
	if offers == nil {
		offers = []booking.Offer{}
	}
	return writeOffers(c, offers)
}

// IdempotencyKeyHeader is the header POST /v1/bookings requires.
const IdempotencyKeyHeader = "Idempotency-Key"

// hold creates a held booking. The Idempotency-Key header is required; the
// fingerprint hashes method, path and the decoded request (holdFingerprint),
// so a retry with the same key and request, however its JSON is laid out,
// replays the first answer (same 201) and the same key with another request
// is a 409 (the service decides both).
func (s *server) hold(c echo.Context) error {
	key, err := idempotencyKeyOf(c)
	if err != nil {
		return err
	}
	var in holdBody
	raw, err := bodyOf(c, &in)
	if err != nil {
		return err
	}
	req, err := holdRequestOf(in)
	if err != nil {
		return err
	}
	method, path := c.Request().Method, c.Request().URL.Path
	idem := booking.Idempotency{Key: key, Fingerprint: holdFingerprint(method, path, req)}
	b, replayed, err := s.b.Hold(c.Request().Context(), principalOf(c), req, idem)
	if isIdemConflict(err) {
		// The key may have been taken before fingerprints were canonical:
		// its stored fingerprint is then the raw body's. A retry of that
		// request with the very same bytes replays as it did before.
		legacy := booking.Idempotency{Key: key, Fingerprint: legacyFingerprint(method, path, raw)}
		if lb, lreplayed, lerr := s.b.Hold(c.Request().Context(), principalOf(c), req, legacy); lerr == nil {
			b, replayed, err = lb, lreplayed, nil
		} else if !isIdemConflict(lerr) {
			err = lerr
		}
	}
	if err != nil {
		return err
	}
	if replayed {
		c.Response().Header().Set("Idempotent-Replayed", "true")
	}
	c.Response().Header().Set(echo.HeaderLocation, "/v1/bookings/"+b.ID)
	return writeBooking(c, http.StatusCreated, b)
}

// idempotencyKeyOf reads the Idempotency-Key header hold requires.
func idempotencyKeyOf(c echo.Context) (string, error) {
	key := c.Request().Header.Get(IdempotencyKeyHeader)
	if key == "" {
		return "", errBadRequest(IdempotencyKeyHeader, "header is required on POST /v1/bookings (any unique string, at most 255 characters)")
	}
	if len(key) > 255 {
		return "", errBadRequest(IdempotencyKeyHeader, "must be at most 255 characters")
	}
	return key, nil
}

// holdRequestOf reads a hold's body: an offer, or the terms given
// explicitly, not both; and an optional profile.
func holdRequestOf(in holdBody) (booking.HoldRequest, error) {
	var req booking.HoldRequest
	byOffer := in.OfferID != nil
	explicit := in.ResourceID != nil || in.Start != nil || in.End != nil || in.Nodes != nil || in.FareClass != nil
	switch {
	case byOffer && explicit:
		return req, slotfare.Errorf("", "offer_id", "give either offer_id or resource_id, start, end, nodes and fare_class, not both")
	case byOffer:
		if *in.OfferID == "" {
			return req, slotfare.Errorf("", "offer_id", "must not be empty")
		}
		req.OfferID = *in.OfferID
	default:
		if err := explicitTerms(in, &req); err != nil {
			return req, err
		}
	}
	if in.Profile != nil {
		if *in.Profile == "" {
			return req, slotfare.Errorf("", "profile", "must be a profile name or left out")
		}
		req.Profile = *in.Profile
	}
	return req, nil
}

// explicitTerms reads a hold's terms into req. Every missing or malformed
// field is named at once (slotfare.Join); the service then checks the
// values (interval, nodes, class) the same way, all together.
func explicitTerms(in holdBody, req *booking.HoldRequest) error {
	var errs []error
	var err error
	if in.ResourceID == nil || *in.ResourceID == "" {
		errs = append(errs, slotfare.Errorf("", "resource_id", "is required (or give offer_id)"))
	} else {
		req.ResourceID = *in.ResourceID
	}
	if req.Start, err = parseTime("start", deref(in.Start)); err != nil {
		errs = append(errs, err)
	}
	if req.End, err = parseTime("end", deref(in.End)); err != nil {
		errs = append(errs, err)
	}
	if in.Nodes == nil {
		errs = append(errs, slotfare.Errorf("", "nodes", "is required"))
	} else {
		req.Nodes = *in.Nodes
	}
	if in.FareClass == nil || *in.FareClass == "" {
		errs = append(errs, slotfare.Errorf("", "fare_class", "is required"))
	} else {
		req.FareClass = *in.FareClass
	}
	return slotfare.Join(errs...)
}

// holdFingerprint is the identity of a hold request for idempotent replay:
// a hash of the method, the path and the request as decoded and validated,
// written field by field in a fixed order with times as UTC instants. Two
// bodies that mean the same request (other whitespace, key order, or a time
// written with another offset or with trailing fractional zeros) have one
// fingerprint; anything that changes the request changes it. The "v2:"
// prefix keeps it apart from the raw-body fingerprints stored before
// (legacyFingerprint).
func holdFingerprint(method, path string, req booking.HoldRequest) string {
	h := sha256.New()
	var buf []byte
	put := func(s string) {
		buf = strconv.AppendInt(buf[:0], int64(len(s)), 10)
		buf = append(buf, ':')
		buf = append(buf, s...)
		h.Write(buf)
	}
	instant := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	put(method)
	put(path)
	put(req.OfferID)
	put(req.ResourceID)
	put(instant(req.Start))
	put(instant(req.End))
	put(strconv.Itoa(req.Nodes))
	put(req.FareClass)
	if req.Profile != "" {
		// Only when given, so that a hold without one keeps the
		// fingerprint it always had.
		put("profile")
		put(req.Profile)
	}
	return "v2:" + hex.EncodeToString(h.Sum(nil))
}

// legacyFingerprint is how keys were fingerprinted before holdFingerprint:
// the method, path and raw body bytes. Stored keys keep it, so hold tries
// it when the canonical one conflicts.
func legacyFingerprint(method, path string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// isIdemConflict reports whether err is the service's "this key was used
// with another request".
func isIdemConflict(err error) bool {
	return err != nil && slotfare.KindOf(err) == slotfare.Conflict && slotfare.FieldOf(err) == IdempotencyKeyHeader
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// transition runs one of the booking actions that take no body.
func (s *server) transition(c echo.Context, act func(id string) (booking.Booking, error)) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := noBody(c); err != nil {
		return err
	}
	b, err := act(id)
	if err != nil {
		return err
	}
	return writeBooking(c, http.StatusOK, b)
}

func (s *server) commit(c echo.Context) error {
	return s.transition(c, func(id string) (booking.Booking, error) {
		return s.b.Commit(c.Request().Context(), principalOf(c), id)
	})
}

// cancel answers POST /v1/bookings/{id}/cancel, with no body or
// {"quote_id":..} to post a cancellation quote's amounts.
func (s *server) cancel(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var in cancelBody
	raw, err := readBody(c)
	if err != nil {
		return err
	}
	if err := checkQuery(c); err != nil {
		return err
	}
	if len(strings.TrimSpace(string(raw))) > 0 {
		if err := decodeStrict(raw, &in); err != nil {
			return err
		}
	}
	quoteID, err := quoteIDOf(in.QuoteID)
	if err != nil {
		return err
	}
	b, err := s.b.CancelQuoted(c.Request().Context(), principalOf(c), id, quoteID)
	if err != nil {
		return err
	}
	return writeBooking(c, http.StatusOK, b)
}

// quoteIDOf reads an optional quote_id: absent is "", present must not be
// empty.
func quoteIDOf(q *string) (string, error) {
	if q == nil {
		return "", nil
	}
	if strings.TrimSpace(*q) == "" {
		return "", slotfare.Errorf("", "quote_id", "must not be empty (leave it out for no quote)")
	}
	return *q, nil
}

// modificationQuote answers POST /v1/bookings/{id}/quote: a PATCH body,
// priced and changing nothing.
func (s *server) modificationQuote(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	req, err := modifyRequestOf(c)
	if err != nil {
		return err
	}
	q, err := s.b.ModificationQuote(c.Request().Context(), principalOf(c), id, req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, q)
}

func (s *server) checkin(c echo.Context) error {
	return s.transition(c, func(id string) (booking.Booking, error) {
		return s.b.CheckIn(c.Request().Context(), principalOf(c), id)
	})
}

// checkout answers POST /v1/bookings/{id}/checkout: the active booking's
// job has finished; its run is recorded to now, not to its end.
func (s *server) checkout(c echo.Context) error {
	return s.transition(c, func(id string) (booking.Booking, error) {
		return s.b.Checkout(c.Request().Context(), principalOf(c), id)
	})
}

func (s *server) modify(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	req, err := modifyRequestOf(c)
	if err != nil {
		return err
	}
	b, err := s.b.Modify(c.Request().Context(), principalOf(c), id, req)
	if err != nil {
		return err
	}
	return writeBooking(c, http.StatusOK, b)
}

// modifyRequestOf reads a PATCH body (of PATCH /v1/bookings/{id} or POST
// .../quote).
func modifyRequestOf(c echo.Context) (booking.ModifyRequest, error) {
	var in modifyBody
	var req booking.ModifyRequest
	if _, err := bodyOf(c, &in); err != nil {
		return req, err
	}
	var err error
	if req.QuoteID, err = quoteIDOf(in.QuoteID); err != nil {
		return req, err
	}
	if in.Start == nil && in.End == nil && in.Nodes == nil && req.QuoteID == "" {
		return req, slotfare.Errorf("", "body", "give at least one of start, end, nodes (or a quote_id)")
	}
	if req.Start, err = parseOptTime("start", in.Start); err != nil {
		return req, err
	}
	if req.End, err = parseOptTime("end", in.End); err != nil {
		return req, err
	}
	if req.Start != nil && req.End != nil && !req.End.After(*req.Start) {
		return req, slotfare.Errorf("", "end", "must be after start")
	}
	if in.Nodes != nil {
		if *in.Nodes < 1 {
			return req, slotfare.Errorf("", "nodes", "must be at least 1, not %d", *in.Nodes)
		}
		n := *in.Nodes
		req.Nodes = &n
	}
	return req, nil
}

func (s *server) get(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := checkQuery(c); err != nil {
		return err
	}
	b, err := s.b.Get(c.Request().Context(), principalOf(c), id)
	if err != nil {
		return err
	}
	return writeBooking(c, http.StatusOK, b)
}

func (s *server) list(c echo.Context) error {
	if err := checkQuery(c, "status", "resource_id", "cursor", "limit"); err != nil {
		return err
	}
	q := booking.ListQuery{Cursor: c.QueryParam("cursor"), ResourceID: c.QueryParam("resource_id")}
	if id := c.Param("id"); id != "" {
		q.ResourceID = id
	}
	if st := c.QueryParam("status"); st != "" {
		if err := oneOf("status", st, bookingStatuses); err != nil {
			return err
		}
		q.Status = booking.Status(st)
	}
	limit, err := parseLimit(c)
	if err != nil {
		return err
	}
	q.Limit = limit
	page, err := s.b.List(c.Request().Context(), principalOf(c), q)
	if err != nil {
		return cursorError(err)
	}
	if page.Data == nil {
		page.Data = []booking.Booking{}
	}
	return c.JSON(http.StatusOK, page)
}

// cursorError makes a listing's refusal of its cursor a 400 naming
// "cursor": a cursor is opaque and only ever copied from next_cursor, so one
// the listing did not issue is a malformed request, not a value to correct.
// Other errors pass unchanged.
func cursorError(err error) error {
	if slotfare.KindOf(err) == slotfare.Invalid && slotfare.FieldOf(err) == "cursor" {
		return errBadRequest("cursor", "%s", slotfare.MessageOf(err))
	}
	return err
}

// MaxLimit is the largest page size a listing accepts.
const MaxLimit = 1000

func parseLimit(c echo.Context) (int, error) {
	n, ok, err := queryInt(c, "limit")
	if err != nil || !ok {
		return 0, err
	}
	if n < 1 || n > MaxLimit {
		return 0, slotfare.Errorf("", "limit", "must be between 1 and %d, not %d", MaxLimit, n)
	}
	return n, nil
}

func (s *server) invoices(c echo.Context) error {
	if err := checkQuery(c, "account_id", "period", "cursor", "limit"); err != nil {
		return err
	}
	acct := c.QueryParam("account_id")
	limit, err := parseLimit(c)
	if err != nil {
		return err
	}
	invoices := s.b.Invoices
	if acct == "" {
		invoices = func(ctx context.Context, p booking.Principal, _, period, cursor string, limit int) (ledger.Page[ledger.Invoice], error) {
			return s.b.AllInvoices(ctx, p, period, cursor, limit)
		}
	}
	page, err := invoices(c.Request().Context(), principalOf(c), acct, c.QueryParam("period"), c.QueryParam("cursor"), limit)
	if err != nil {
		return cursorError(err)
	}
	return c.JSON(http.StatusOK, page)
}

func (s *server) ledgerEntries(c echo.Context) error {
	if err := checkQuery(c, "account_id", "cursor", "limit"); err != nil {
		return err
	}
	acct := c.QueryParam("account_id")
	if acct == "" {
		return slotfare.Errorf("", "account_id", "is required")
	}
	limit, err := parseLimit(c)
	if err != nil {
		return err
	}
	page, err := s.b.LedgerEntries(c.Request().Context(), principalOf(c), acct, c.QueryParam("cursor"), limit)
	if err != nil {
		return cursorError(err)
	}
	return c.JSON(http.StatusOK, page)
}

// writeBooking sends a booking. It calls the booking's own MarshalJSON
// directly: encoding/json would re-validate and compact a Marshaler's output,
// which is a measurable share of the hot path's CPU (bench api).
func writeBooking(c echo.Context, status int, b booking.Booking) error {
	data, err := b.MarshalJSON()
	if err != nil {
		return err
	}
	return c.JSONBlob(status, data)
}

// writeOffers sends {"offers":[..]} from each offer's MarshalJSON.
func writeOffers(c echo.Context, offers []booking.Offer) error {
	return writePredictedOffers(c, offers, nil)
}

// writePredictedOffers writes offers, each offer i with preds[i] (when
// given) as its "prediction": the duration it was made for.
func writePredictedOffers(c echo.Context, offers []booking.Offer, preds []runs.Prediction) error {
	buf := make([]byte, 0, 64+len(offers)*400)
	buf = append(buf, `{"offers":[`...)
	for i, o := range offers {
		if i > 0 {
			buf = append(buf, ',')
		}
		data, err := o.MarshalJSON()
		if err != nil {
			return err
		}
		if i < len(preds) {
			pr, err := preds[i].MarshalJSON()
			if err != nil {
				return err
			}
			data = append(append(append(data[:len(data)-1], `,"prediction":`...), pr...), '}')
		}
		buf = append(buf, data...)
	}
	buf = append(buf, "]}"...)
	return c.JSONBlob(http.StatusOK, buf)
}

// balanceLine is one currency of an account's balance.
type balanceLine struct {
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
}

// balance answers GET /v1/ledger/balance: what an account owes per currency
// (debits minus credits of its receivable), amounts at the currency's scale.
func (s *server) balance(c echo.Context) error {
	if err := checkQuery(c, "account_id"); err != nil {
		return err
	}
	acct := c.QueryParam("account_id")
	if acct == "" {
		return slotfare.Errorf("", "account_id", "is required")
	}
	bal, err := s.b.Balance(c.Request().Context(), principalOf(c), acct)
	if err != nil {
		return err
	}
	out := struct {
		AccountID string        `json:"account_id"`
		Balances  []balanceLine `json:"balances"`
	}{AccountID: acct, Balances: []balanceLine{}}
	for cur, amt := range bal {
		out.Balances = append(out.Balances, balanceLine{string(cur), ledger.Currencies(nil).Rule(cur).Format(amt)})
	}
	sort.Slice(out.Balances, func(i, j int) bool { return out.Balances[i].Currency < out.Balances[j].Currency })
	return c.JSON(http.StatusOK, out)
}

// createKey makes an API key: 201 with the secret, which is never shown
// again (Cache-Control: no-store).
func (s *server) createKey(c echo.Context) error {
	var in keyBody
	if _, err := bodyOf(c, &in); err != nil {
		return err
	}
	var req service.KeyRequest
	for _, f := range []struct {
		name string
		v    *string
	}{{"name", in.Name}, {"role", in.Role}, {"account_id", in.AccountID}} {
		if f.v == nil {
			return slotfare.Errorf("", f.name, "is required")
		}
	}
	req.Name, req.Role, req.AccountID = *in.Name, booking.Role(*in.Role), *in.AccountID
	if err := oneOf("role", *in.Role, []string{"provider", "user", "billing"}); err != nil {
		return err
	}
	if len(in.VO) > 0 {
		if err := req.VO.UnmarshalJSON(in.VO); err != nil {
			return slotfare.Errorf("", "vo", "%s", slotfare.MessageOf(err))
		}
	}
	k, err := s.b.CreateKey(c.Request().Context(), principalOf(c), req)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	c.Response().Header().Set(echo.HeaderLocation, "/v1/keys/"+k.Name)
	return c.JSON(http.StatusCreated, k)
}

// keys lists the live keys, never their secrets.
func (s *server) keys(c echo.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	ks, err := s.b.Keys(c.Request().Context(), principalOf(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": ks})
}

// revokeKey revokes a key created over the API: 204.
func (s *server) revokeKey(c echo.Context) error {
	name := c.Param("name")
	if name == "" || len(name) > 128 {
		return slotfare.E(slotfare.NotFound, slotfare.Field("name"), "no such key")
	}
	if err := noBody(c); err != nil {
		return err
	}
	if err := s.b.RevokeKey(c.Request().Context(), principalOf(c), name); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *server) accounts(c echo.Context) error {
	if err := checkQuery(c, "cursor", "limit"); err != nil {
		return err
	}
	limit, err := parseLimit(c)
	if err != nil {
		return err
	}
	page, err := s.b.Accounts(c.Request().Context(), principalOf(c), c.QueryParam("cursor"), limit)
	if err != nil {
		return cursorError(err)
	}
	return c.JSON(http.StatusOK, page)
}
