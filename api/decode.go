package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"slices"
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
	if len(bytes.TrimSpace(b)) > 0 {
		if err := checkContentType(r.Method, r.Header.Get(echo.HeaderContentType)); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// MergePatchType is the media type of a JSON merge patch (RFC 7396), which
// PATCH /v1/bookings/{id} is: the fields given replace, the others stay.
const MergePatchType = "application/merge-patch+json"

// checkContentType accepts a body only when it says it is JSON:
// application/json, with at most a charset parameter of utf-8 (RFC 8259
// JSON is UTF-8; the parameter is harmless and many clients send it), or, on
// PATCH, application/merge-patch+json. Anything else, or no Content-Type at
// all (curl -d sends a form type), is 415 naming Content-Type: a body the
// client says is something else is not read as JSON on a guess. Empty bodies
// need no type.
func checkContentType(method, ct string) error {
	want := "application/json"
	if method == http.MethodPatch {
		want += " or " + MergePatchType
	}
	refuse := func(why string) error {
		return &badRequest{field: "Content-Type", msg: why + "; send " + want, status: http.StatusUnsupportedMediaType}
	}
	if ct == "" {
		return refuse("is missing for a request with a body")
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return refuse(fmt.Sprintf("%q is not a media type", ct))
	}
	if mt != "application/json" && !(method == http.MethodPatch && mt == MergePatchType) {
		return refuse(fmt.Sprintf("%q is not accepted", mt))
	}
	for k, v := range params {
		if k != "charset" || !strings.EqualFold(v, "utf-8") {
			return refuse(fmt.Sprintf("parameter %s=%s is not accepted (JSON is UTF-8)", k, v))
		}
	}
	return nil
}

// decodeStrict decodes one JSON value from body into dst, rejecting unknown
// fields, values of the wrong type, anything after the value, a key given
// twice in one object (at any depth) and a key that is a field's name only
// up to case ("Nodes"): encoding/json would take the last of two keys and
// match names case-insensitively, so a body could mean something else to
// another reader. Its errors are 400s naming the field (a path) when one is
// known, "body" otherwise. It never panics, whatever the input (see
// FuzzDecodeStrict).
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
	if err := slotfare.CheckKeys(body, reflect.TypeOf(dst)); err != nil {
		return keysError(err)
	}
	return nil
}

// keysError turns a jsonkeys error into a 400 naming the key.
func keysError(err error) error {
	var ke *slotfare.KeyError
	if errors.As(err, &ke) && ke.Path != "" {
		return errBadRequest(ke.Path, "%s", ke.Msg)
	}
	return errBadRequest("body", "%v", err)
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

// checkQuery rejects a query string that is malformed (a bad %-escape, a
// ';' separator), names a parameter more than once, or names one the route
// does not know: echo's QueryParams drop what does not parse, so
// "?status=%zz" would otherwise be an unfiltered list and "stauts=held" a
// typo nobody sees. Every route runs it, those without parameters with an
// empty known list. Errors are 400 naming the parameter ("query" when even
// its name cannot be read).
func checkQuery(c echo.Context, known ...string) error {
	raw := c.Request().URL.RawQuery
	if raw == "" {
		return nil
	}
	var seen []string
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		rawKey, rawVal, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(rawKey)
		if err != nil || strings.Contains(rawKey, ";") {
			return errBadRequest("query", "is malformed near %q", truncate(pair, 40))
		}
		if key == "" {
			return errBadRequest("query", "has a parameter without a name")
		}
		if _, err := url.QueryUnescape(rawVal); err != nil || strings.Contains(rawVal, ";") {
			return errBadRequest(key, "is not a well-formed query value (bad %%-escape or ';')")
		}
		if !slices.Contains(known, key) {
			return errBadRequest(key, "is not a known query parameter")
		}
		if slices.Contains(seen, key) {
			return errBadRequest(key, "is given more than once")
		}
		seen = append(seen, key)
	}
	return nil
}

// truncate shortens s to at most n bytes for an error message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
