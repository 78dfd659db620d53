package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"slotfare"
	"slotfare/booking/runs"
	"slotfare/booking/service"
)

// problemType is the prefix of every problem's "type" URI; the suffix is the
// kind, so clients can switch on it without parsing titles.
const problemType = "https://slotfare.dev/problems/"

// Problem is an RFC 9457 problem details body (application/problem+json),
// with the "errors" extension listing the fields at fault. Errors is never
// null so clients can always range over it.
type Problem struct {
	Type   string       `json:"type"`
	Title  string       `json:"title"`
	Status int          `json:"status"`
	Detail string       `json:"detail"`
	Errors []FieldError `json:"errors"`
	// Limit is set when a hold limit refused the request (429, or 422 for
	// a hold larger than the limit on its own), or the runs' rate (429): an
	// RFC 9457 extension.
	Limit *LimitProblem `json:"limit,omitempty"`
	// MaxEnd is set when an extension of a started booking did not fit:
	// the latest end it can be extended to now.
	MaxEnd *time.Time `json:"max_end,omitempty"`
}

// LimitProblem names the limit a request would pass: the resource, the
// limit ("max_holds" or "max_held_node_seconds", as in the resource's
// hold_limits; "max_per_hour", the configuration's runs object), its
// value, what the account holds (or posted in the hour) now, what it asked
// for and, for a 429, the seconds until enough of its holds expire (or of
// its runs leave the hour; also the Retry-After header).
type LimitProblem struct {
	ResourceID        string `json:"resource_id"`
	Name              string `json:"name"`
	Limit             int64  `json:"limit"`
	Held              int64  `json:"held"`
	Requested         int64  `json:"requested"`
	RetryAfterSeconds int64  `json:"retry_after_seconds,omitempty"`
}

// FieldError names one input at fault and says what is wrong with it.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// badRequest marks an input error found while reading the request itself
// (malformed JSON, a wrong type, an unknown field, an oversize body, a bad
// header): those are 400, while a well-formed request with an invalid value
// is 422. Field names the input; status overrides 400 (413 for size).
type badRequest struct {
	field  string
	msg    string
	status int
}

func (e *badRequest) Error() string {
	if e.field == "" {
		return e.msg
	}
	return e.field + ": " + e.msg
}

func errBadRequest(field, format string, args ...any) error {
	return &badRequest{field: field, msg: sprintf(format, args...)}
}

// statusOf maps an error kind to its one HTTP status (DESIGN.md, API.md).
func statusOf(k slotfare.Kind) int {
	switch k {
	case slotfare.Invalid:
		return http.StatusUnprocessableEntity
	case slotfare.NotFound:
		return http.StatusNotFound
	case slotfare.Conflict, slotfare.NoCapacity:
		return http.StatusConflict
	case slotfare.Unauthorized:
		return http.StatusUnauthorized
	case slotfare.Forbidden:
		return http.StatusForbidden
	case slotfare.Unavailable, slotfare.Fenced:
		// Fenced: this replica lost a lease while it served the request;
		// nothing was written, and another replica can serve it.
		return http.StatusServiceUnavailable
	case slotfare.LimitExceeded:
		// The caller holds as much as it may; that ends by itself as its
		// holds expire (Retry-After), or sooner by its own commit or cancel.
		// Or it posted as many runs as an hour allows, until the earliest
		// leaves the hour.
		return http.StatusTooManyRequests
	}
	return http.StatusInternalServerError
}

// kindSlug is the last segment of a problem's type URI.
func kindSlug(k slotfare.Kind) string {
	return strings.ReplaceAll(k.String(), " ", "-")
}

// problemOf turns any error a handler or echo returns into its problem
// details. It is the only place that decides statuses, so every route answers
// errors the same way. internal reports whether the error is a server fault
// that must be logged (its detail is not shown to the client).
func problemOf(err error) (p Problem, internal bool) {
	var br *badRequest
	var he *echo.HTTPError
	var se *slotfare.Error
	switch {
	case errors.As(err, &br):
		st := br.status
		if st == 0 {
			st = http.StatusBadRequest
		}
		slug := "bad-request"
		if st != http.StatusBadRequest {
			slug = strings.ToLower(strings.ReplaceAll(http.StatusText(st), " ", "-"))
		}
		p = Problem{Type: problemType + slug, Title: http.StatusText(st), Status: st, Detail: br.Error()}
		if br.field != "" {
			p.Errors = []FieldError{{Field: br.field, Message: br.msg}}
		}
	case errors.As(err, &se):
		k := se.Kind
		st := statusOf(k)
		p = Problem{Type: problemType + kindSlug(k), Title: titleOf(k), Status: st, Detail: slotfare.MessageOf(err)}
		for _, f := range slotfare.FieldsOf(err) {
			p.Errors = append(p.Errors, FieldError{Field: f.Field, Message: f.Message})
		}
		if st >= 500 {
			internal = st == http.StatusInternalServerError
			if internal {
				p.Detail = "internal error"
			}
		}
	case errors.As(err, &he):
		st := he.Code
		msg := http.StatusText(st)
		if s, ok := he.Message.(string); ok && s != "" {
			msg = s
		}
		slug := strings.ToLower(strings.ReplaceAll(http.StatusText(st), " ", "-"))
		p = Problem{Type: problemType + slug, Title: http.StatusText(st), Status: st, Detail: msg}
		if st == http.StatusRequestEntityTooLarge {
			p.Errors = []FieldError{{Field: "body", Message: msg}}
		}
		internal = st >= 500 && st != http.StatusServiceUnavailable
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		st := http.StatusServiceUnavailable
		p = Problem{Type: problemType + "unavailable", Title: http.StatusText(st), Status: st, Detail: "the request timed out"}
	default:
		st := http.StatusInternalServerError
		p = Problem{Type: problemType + "internal-error", Title: http.StatusText(st), Status: st, Detail: "internal error"}
		internal = true
	}
	if p.Errors == nil {
		p.Errors = []FieldError{}
	}
	var hl *service.HoldLimitError
	if errors.As(err, &hl) {
		p.Limit = &LimitProblem{ResourceID: hl.ResourceID, Name: hl.Limit, Limit: hl.Max, Held: hl.Held, Requested: hl.Requested, RetryAfterSeconds: hl.RetryAfter}
	}
	var xe *service.ExtensionError
	if errors.As(err, &xe) {
		t := xe.MaxEnd.UTC()
		p.MaxEnd = &t
	}
	var qe *runs.QuotaError
	if errors.As(err, &qe) {
		p.Limit = &LimitProblem{ResourceID: qe.ResourceID, Name: "max_per_hour", Limit: int64(qe.Limit), Held: int64(qe.Posted), Requested: 1,
			RetryAfterSeconds: qe.RetryAfterSeconds()}
	}
	return p, internal
}

func titleOf(k slotfare.Kind) string {
	s := k.String()
	return strings.ToUpper(s[:1]) + s[1:]
}

// errorHandler is echo's HTTPErrorHandler: every error, echo's own (404
// route, 405 method, 413 body) included, leaves as problem+json.
func errorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		p, internal := problemOf(err)
		if internal {
			log.Error("request failed", "err", err.Error(), "method", c.Request().Method,
				"path", c.Path(), "request_id", c.Response().Header().Get(echo.HeaderXRequestID))
		}
		writeProblem(c, p)
	}
}

// unavailableRetrySeconds is the Retry-After of a 503.
const unavailableRetrySeconds = 1

func writeProblem(c echo.Context, p Problem) {
	b, err := json.Marshal(p)
	if err != nil {
		b = []byte(`{"type":"` + problemType + `internal-error","title":"Internal Server Error","status":500,"detail":"internal error","errors":[]}`)
		p.Status = http.StatusInternalServerError
	}
	if p.Status == http.StatusTooManyRequests && p.Limit != nil && p.Limit.RetryAfterSeconds > 0 {
		c.Response().Header().Set("Retry-After", strconv.FormatInt(p.Limit.RetryAfterSeconds, 10))
	}
	if p.Status == http.StatusServiceUnavailable {
		// A store or Redis that cannot answer now usually can in a moment;
		// nothing was half-written, so the same request may be sent again.
		c.Response().Header().Set("Retry-After", strconv.Itoa(unavailableRetrySeconds))
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(p.Status)
		return
	}
	_ = c.Blob(p.Status, "application/problem+json", b)
}
