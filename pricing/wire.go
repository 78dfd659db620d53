package pricing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"

	"github.com/shopspring/decimal"

	"slotfare"
)

// The JSON forms of RatePeriod and FareClass are the provider's wire types
// (API.md: PUT /v1/resources/{id}/rate-periods and .../fare-classes). Reading
// them is strict: every field must be present (FareClass's vo may be left
// out, meaning null), have the right JSON type, and no other field may
// appear; decimals are strings in plain notation ("3.38", not 3.38 or
// "338e-2"); times of day are "HH:MM". Errors are slotfare.Invalid naming the
// JSON path. Reading checks form only: NewRateCalendar and
// ValidateFareClasses check the values.

// DecodeRatePeriods reads the body of PUT /v1/resources/{id}/rate-periods,
// a JSON array of rate periods; an error names the path ("[2].from").
func DecodeRatePeriods(data []byte) ([]RatePeriod, error) {
	const op slotfare.Op = "pricing.DecodeRatePeriods"
	elems, err := wireArray(op, "rate_periods", data)
	if err != nil {
		return nil, err
	}
	out := make([]RatePeriod, len(elems))
	for i, raw := range elems {
		if err := out[i].decode(op, fmt.Sprintf("[%d]", i), raw); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DecodeFareClasses reads the body of PUT /v1/resources/{id}/fare-classes,
// a JSON array of fare classes; an error names the path ("[1].tau.peak").
func DecodeFareClasses(data []byte) ([]FareClass, error) {
	const op slotfare.Op = "pricing.DecodeFareClasses"
	elems, err := wireArray(op, "fare_classes", data)
	if err != nil {
		return nil, err
	}
	out := make([]FareClass, len(elems))
	for i, raw := range elems {
		if err := out[i].decode(op, fmt.Sprintf("[%d]", i), raw); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// UnmarshalJSON reads one rate period strictly (see DecodeRatePeriods).
func (p *RatePeriod) UnmarshalJSON(b []byte) error {
	return p.decode("pricing.RatePeriod", "", b)
}

// UnmarshalJSON reads one fare class strictly (see DecodeFareClasses).
func (c *FareClass) UnmarshalJSON(b []byte) error {
	return c.decode("pricing.FareClass", "", b)
}

// MarshalJSON writes null for an open class, else the VO's name as a string.
func (v VO) MarshalJSON() ([]byte, error) {
	if v.Open() {
		return []byte("null"), nil
	}
	return json.Marshal(string(v))
}

// UnmarshalJSON reads null, a non-empty string or a whole number.
func (v *VO) UnmarshalJSON(b []byte) error {
	return v.decode("pricing.VO", "vo", b)
}

func (p *RatePeriod) decode(op slotfare.Op, path string, b []byte) error {
	fields, err := wireObject(op, path, b, []string{"name", "days", "from", "to"}, nil)
	if err != nil {
		return err
	}
	var out RatePeriod
	if out.Name, err = wireString(op, wirePath(path, "name"), fields["name"]); err != nil {
		return err
	}
	days, err := wireString(op, wirePath(path, "days"), fields["days"])
	if err != nil {
		return err
	}
	if out.Days, err = ParseDays(days); err != nil {
		return slotfare.Errorf(op, wirePath(path, "days"), "%v", err)
	}
	for _, f := range []struct {
		key string
		dst *ClockTime
	}{{"from", &out.From}, {"to", &out.To}} {
		s, err := wireString(op, wirePath(path, f.key), fields[f.key])
		if err != nil {
			return err
		}
		if *f.dst, err = ParseClockTime(s); err != nil {
			return slotfare.Errorf(op, wirePath(path, f.key), "%v", err)
		}
	}
	*p = out
	return nil
}

func (c *FareClass) decode(op slotfare.Op, path string, b []byte) error {
	fields, err := wireObject(op, path, b,
		[]string{"name", "rank", "tau", "penalty_rate", "denied_cost_factor"}, []string{"vo", "cancellation"})
	if err != nil {
		return err
	}
	var out FareClass
	if out.Name, err = wireString(op, wirePath(path, "name"), fields["name"]); err != nil {
		return err
	}
	if out.Rank, err = wireInt(op, wirePath(path, "rank"), fields["rank"]); err != nil {
		return err
	}
	tauPath := wirePath(path, "tau")
	taus, err := wireObject(op, tauPath, fields["tau"], nil, nil)
	if err != nil {
		return err
	}
	periods := make([]string, 0, len(taus))
	for p := range taus {
		periods = append(periods, p)
	}
	sort.Strings(periods)
	out.Tau = make(map[string]decimal.Decimal, len(taus))
	for _, p := range periods {
		if out.Tau[p], err = wireDecimal(op, wirePath(tauPath, p), taus[p]); err != nil {
			return err
		}
	}
	if out.PenaltyRate, err = wireDecimal(op, wirePath(path, "penalty_rate"), fields["penalty_rate"]); err != nil {
		return err
	}
	if out.DeniedCostFactor, err = wireDecimal(op, wirePath(path, "denied_cost_factor"), fields["denied_cost_factor"]); err != nil {
		return err
	}
	if raw, ok := fields["cancellation"]; ok {
		if out.Cancellation, err = decodeSchedule(op, wirePath(path, "cancellation"), raw); err != nil {
			return err
		}
	}
	if raw, ok := fields["vo"]; ok {
		if err := out.VO.decode(op, wirePath(path, "vo"), raw); err != nil {
			return err
		}
	}
	*c = out
	return nil
}

func (v *VO) decode(op slotfare.Op, path string, b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		*v = ""
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return slotfare.Errorf(op, path, "malformed string: %v", err)
		}
		if s == "" {
			return slotfare.Errorf(op, path, "empty VO name: use null for a class open to every VO")
		}
		*v = VO(s)
		return nil
	case len(b) > 0 && (b[0] >= '0' && b[0] <= '9'):
		n, err := strconv.ParseUint(string(b), 10, 63)
		if err != nil {
			return slotfare.Errorf(op, path, "%s is not a VO: want null, a name or a whole number", b)
		}
		*v = VO(strconv.FormatUint(n, 10))
		return nil
	}
	return slotfare.Errorf(op, path, "%s is not a VO: want null, a name or a whole number", wireSnippet(b))
}

// keysError is a jsonkeys error as Invalid naming the key's path below
// path.
func keysError(op slotfare.Op, path string, err error) error {
	var ke *slotfare.KeyError
	if errors.As(err, &ke) && ke.Path != "" {
		return slotfare.Errorf(op, wirePath(path, ke.Path), "%s", ke.Msg)
	}
	field := path
	if field == "" {
		field = "."
	}
	return slotfare.Errorf(op, field, "%v", err)
}

// wirePath joins a JSON path and a key: "" + "name" is "name", "[1]" +
// "tau" is "[1].tau".
func wirePath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func wireArray(op slotfare.Op, field string, data []byte) ([]json.RawMessage, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '[' {
		return nil, slotfare.Errorf(op, field, "want a JSON array, got %s", wireSnippet(data))
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil {
		return nil, slotfare.Errorf(op, field, "malformed JSON: %v", err)
	}
	return elems, nil
}

// wireObject reads a JSON object whose keys must include every one of
// required and nothing outside required and optional; with both nil, any
// key goes (a map).
func wireObject(op slotfare.Op, path string, b []byte, required, optional []string) (map[string]json.RawMessage, error) {
	b = bytes.TrimSpace(b)
	field := path
	if field == "" {
		field = "."
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, slotfare.Errorf(op, field, "want a JSON object, got %s", wireSnippet(b))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, slotfare.Errorf(op, field, "malformed JSON: %v", err)
	}
	// A map keeps the last of two equal keys; a duplicate is refused
	// instead, here and in every object below this one.
	if err := slotfare.CheckKeys(b, nil); err != nil {
		return nil, keysError(op, path, err)
	}
	if required == nil && optional == nil {
		return m, nil
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			return nil, slotfare.Errorf(op, wirePath(path, k), "missing")
		}
	}
	known := map[string]bool{}
	for _, k := range append(append([]string(nil), required...), optional...) {
		known[k] = true
	}
	var unknown []string
	for k := range m {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, slotfare.Errorf(op, wirePath(path, unknown[0]), "unknown field")
	}
	return m, nil
}

func wireString(op slotfare.Op, path string, raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", slotfare.Errorf(op, path, "want a string, got %s", wireSnippet(raw))
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", slotfare.Errorf(op, path, "malformed string: %v", err)
	}
	return s, nil
}

func wireInt(op slotfare.Op, path string, raw json.RawMessage) (int, error) {
	raw = bytes.TrimSpace(raw)
	n, err := strconv.ParseInt(string(raw), 10, 32)
	if err != nil {
		return 0, slotfare.Errorf(op, path, "want a whole number, got %s", wireSnippet(raw))
	}
	return int(n), nil
}

var wireDecimalText = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

func wireDecimal(op slotfare.Op, path string, raw json.RawMessage) (decimal.Decimal, error) {
	s, err := wireString(op, path, raw)
	if err != nil {
		return decimal.Decimal{}, slotfare.Errorf(op, path, "want a decimal string such as \"2.50\", got %s", wireSnippet(raw))
	}
	if len(s) > 40 || !wireDecimalText.MatchString(s) {
		return decimal.Decimal{}, slotfare.Errorf(op, path, "%q is not a plain decimal such as \"2.50\"", s)
	}
	return decimal.RequireFromString(s), nil
}

// wireSnippet quotes at most 40 bytes of raw JSON for an error message.
func wireSnippet(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}
