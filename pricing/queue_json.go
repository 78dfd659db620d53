package pricing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/shopspring/decimal"

	"slotfare"
)

// DelayRequest is the reservation being priced in a scenario file: Nodes for
// Duration seconds, from Start when given (one premium), otherwise at every
// candidate start (a quote list).
type DelayRequest struct {
	Nodes    int64  `json:"nodes"`
	Duration int64  `json:"duration"`
	Start    *int64 `json:"start,omitempty"`
}

// DelayScenario is the scenario file of `slotfare delay-price` (API.md): a
// queue snapshot and one request.
type DelayScenario struct {
	QueueSnapshot
	Request DelayRequest `json:"request"`
}

// The wire forms decode weights as raw JSON so that a bad one can be named.
type wireQueueJob struct {
	ID      string          `json:"id"`
	Nodes   int64           `json:"nodes"`
	Runtime int64           `json:"runtime"`
	Weight  json.RawMessage `json:"weight"`
}

type wireSnapshot struct {
	Nodes        int64              `json:"nodes"`
	Now          int64              `json:"now"`
	Policy       BackfillPolicy     `json:"policy"`
	Running      []QueueRunningJob  `json:"running"`
	Queued       []wireQueueJob     `json:"queued"`
	Reservations []QueueReservation `json:"reservations"`
}

type wireScenario struct {
	wireSnapshot
	Request *DelayRequest `json:"request"`
}

const opRead slotfare.Op = "pricing.read"

// ReadQueueSnapshot decodes and validates one queue snapshot in the JSON form
// of API.md (the scenario file without "request"). Unknown fields, trailing
// data and malformed JSON are Invalid errors naming the field where one is
// known.
func ReadQueueSnapshot(r io.Reader) (QueueSnapshot, error) {
	var w wireSnapshot
	if err := decodeStrict(r, &w); err != nil {
		return QueueSnapshot{}, err
	}
	q, err := w.snapshot()
	if err != nil {
		return QueueSnapshot{}, err
	}
	return q, q.Validate()
}

// ReadDelayScenario decodes and validates a scenario file of
// `slotfare delay-price`: the snapshot as in ReadQueueSnapshot plus a
// required request.
func ReadDelayScenario(r io.Reader) (DelayScenario, error) {
	var w wireScenario
	if err := decodeStrict(r, &w); err != nil {
		return DelayScenario{}, err
	}
	q, err := w.snapshot()
	if err != nil {
		return DelayScenario{}, err
	}
	if err := q.Validate(); err != nil {
		return DelayScenario{}, err
	}
	if w.Request == nil {
		return DelayScenario{}, slotfare.Errorf(opRead, "request", "is required")
	}
	req := *w.Request
	switch {
	case req.Nodes <= 0 || req.Nodes > q.Nodes:
		return DelayScenario{}, slotfare.Errorf(opRead, "request.nodes", "must be in 1..%d (the machine), got %d", q.Nodes, req.Nodes)
	case req.Duration <= 0 || req.Duration > MaxQueueTime:
		return DelayScenario{}, slotfare.Errorf(opRead, "request.duration", "must be in 1..%d seconds, got %d", MaxQueueTime, req.Duration)
	case req.Start != nil && (*req.Start < q.Now || *req.Start > MaxQueueTime):
		return DelayScenario{}, slotfare.Errorf(opRead, "request.start", "must be in %d..%d (not before now), got %d", q.Now, MaxQueueTime, *req.Start)
	}
	return DelayScenario{QueueSnapshot: q, Request: req}, nil
}

func (w *wireSnapshot) snapshot() (QueueSnapshot, error) {
	q := QueueSnapshot{
		Nodes: w.Nodes, Now: w.Now, Policy: w.Policy,
		Running: w.Running, Reservations: w.Reservations,
		Queued: make([]QueueJob, len(w.Queued)),
	}
	for i, j := range w.Queued {
		q.Queued[i] = QueueJob{ID: j.ID, Nodes: j.Nodes, Runtime: j.Runtime}
		raw := bytes.TrimSpace(j.Weight)
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var d decimal.Decimal
		if err := d.UnmarshalJSON(raw); err != nil {
			return QueueSnapshot{}, slotfare.Errorf(opRead, fmt.Sprintf("queued[%d].weight", i), "not a decimal number: %s", raw)
		}
		q.Queued[i].Weight = decimal.NewNullDecimal(d)
	}
	return q, nil
}

// decodeStrict decodes exactly one JSON value into v, refusing unknown
// fields, anything after the value, a key given twice in one object and a
// key that is a field's name only up to case (see jsonkeys).
func decodeStrict(r io.Reader, v any) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return slotfare.E(opRead, slotfare.Invalid, slotfare.Field("scenario"), "cannot be read", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return slotfare.Errorf(opRead, "scenario", "unexpected data after the JSON object")
	}
	if err := slotfare.CheckKeys(data, reflect.TypeOf(v)); err != nil {
		return keysError(opRead, "", err)
	}
	return nil
}

// jsonError turns a decoding error into an Invalid error naming the field.
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return slotfare.Errorf(opRead, "scenario", "empty input: want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return slotfare.Errorf(opRead, "scenario", "malformed JSON: unexpected end of input")
	case errors.As(err, &syn):
		return slotfare.Errorf(opRead, "scenario", "malformed JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		field := strings.TrimPrefix(typ.Field, "wireSnapshot.") // the embedded wire struct
		if field == "" {
			field = "scenario"
		}
		return slotfare.Errorf(opRead, field, "wrong type: %s where %s is expected", typ.Value, typ.Type)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return slotfare.Errorf(opRead, strings.Trim(name, `"`), "unknown field")
	}
	return slotfare.E(opRead, slotfare.Invalid, slotfare.Field("scenario"), "malformed JSON", err)
}
