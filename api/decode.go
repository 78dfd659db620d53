package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"slotfare"
)

// MaxBodyBytes is the largest request body any route accepts. Fare classes,
// rate periods and queue snapshots are the biggest legitimate bodies and are
// far below it.
const MaxBodyBytes = 1 << 20

func sprintf(format string, args ...any) string {
	if len(args) == 0 {
		return format
	}
	return fmt.Sprintf(format, args...)
}

// readBody reads the whole request body, refusing more than MaxBodyBytes
// (413 naming "body") so that no handler ever sees a partial or huge body.
func readBody(c echo.Context) ([]byte, error) {
	r := c.Request()
	if r.ContentLength > MaxBodyBytes {
		return nil, &badRequest{field: "body", msg: fmt.Sprintf("is larger than %d bytes", MaxBodyBytes), status: http.StatusRequestEntityTooLarge}
	}
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, errBadRequest("body", "cannot be read: %v", err)
	}
	if len(b) > MaxBodyBytes {
		return nil, &badRequest{field: "body", msg: fmt.Sprintf("is larger than %d bytes", MaxBodyBytes), status: http.StatusRequestEntityTooLarge}
	}
	return b, nil
}

// decodeStrict decodes one JSON value from body into dst, rejecting unknown
// fields, values of the wrong type and anything after the value. Its errors
// are 400s naming the field (a dotted path) when one is known, "body"
// otherwise. It never panics, whatever the input (see FuzzDecodeStrict).
func decodeStrict(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errBadRequest("body", "is required (a JSON document)")
	}
	if !utf8.Valid(body) {
		return errBadRequest("body", "is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errBadRequest("body", "has data after the JSON document")
	}
	return nil
}

// jsonError turns an encoding/json error into a 400 naming the field.
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return errBadRequest("body", "malformed JSON at byte %d: %s", syn.Offset, syn.Error())
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "body"
		}
		return errBadRequest(field, "must be %s, not %s", jsonTypeName(typ.Type.String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errBadRequest("body", "is truncated JSON")
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		name, uerr := strconv.Unquote(rest)
		if uerr != nil {
			name = rest
		}
		if name == "" {
			return errBadRequest("body", "has a field with an empty name")
		}
		return errBadRequest(name, "is not a known field")
	}
	return errBadRequest("body", "%s", strings.TrimPrefix(msg, "json: "))
}

// jsonTypeName says which JSON type a Go type is read from.
func jsonTypeName(goType string) string {
	switch {
	case strings.Contains(goType, "int"):
		return "an integer"
	case strings.Contains(goType, "float"):
		return "a number"
	case strings.HasSuffix(goType, "string"):
		return "a string"
	case strings.HasSuffix(goType, "bool"):
		return "a boolean"
	case strings.HasPrefix(goType, "[]") || strings.HasPrefix(goType, "*[]"):
		return "an array"
	}
	return "an object"
}

// parseTime reads an RFC 3339 instant (API.md: times are RFC 3339 on the
// wire) and returns it in UTC. An empty string is "required".
func parseTime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, slotfare.Errorf("", field, "is required (an RFC 3339 time)")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, slotfare.Errorf("", field, "must be an RFC 3339 time such as 2026-11-24T09:00:00Z, not %q", s)
	}
	if t.Year() < 1970 || t.Year() > 9999 {
		return time.Time{}, slotfare.Errorf("", field, "is out of range")
	}
	return t.UTC(), nil
}

// parseOptTime is parseTime for an optional (null or absent) field.
func parseOptTime(field string, s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	t, err := parseTime(field, *s)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// parseMoney reads a decimal string amount ("0.49"); money is never a
// JSON number.
func parseMoney(field, s string) (decimal.Decimal, error) {
	if s == "" {
		return decimal.Decimal{}, slotfare.Errorf("", field, "is required (a decimal string such as \"0.49\")")
	}
	if len(s) > 40 {
		return decimal.Decimal{}, slotfare.Errorf("", field, "is too long")
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+') {
			return decimal.Decimal{}, slotfare.Errorf("", field, "must be a decimal string such as \"0.49\", not %q", s)
		}
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, slotfare.Errorf("", field, "must be a decimal string such as \"0.49\", not %q", s)
	}
	return d, nil
}

// queryInt reads an optional integer query parameter.
func queryInt(c echo.Context, name string) (int, bool, error) {
	s := c.QueryParam(name)
	if s == "" {
		return 0, false, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false, slotfare.Errorf("", name, "must be an integer, not %q", s)
	}
	return n, true, nil
}

// checkQuery rejects query parameters a route does not know, so a typo
// ("stauts=held") is an error and not a silently unfiltered list.
func checkQuery(c echo.Context, known ...string) error {
	for k := range c.QueryParams() {
		ok := false
		for _, n := range known {
			if k == n {
				ok = true
				break
			}
		}
		if !ok {
			return errBadRequest(k, "is not a known query parameter")
		}
	}
	return nil
}
