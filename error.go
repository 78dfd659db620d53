// Package slotfare holds what every other package shares: the one error type
// and its kinds. Domain types live in the package that owns them (calendar,
// pricing, overbook, forecast, booking, ledger); api maps error kinds to HTTP.
package slotfare

import (
	"errors"
	"fmt"
	"strings"
)

// Kind classifies an error by what the caller can do about it. The api
// package maps each kind to one HTTP status; the command line maps Invalid to
// exit status 2.
type Kind uint8

const (
	// Other is an unexpected failure (a bug or a broken dependency).
	Other Kind = iota
	// Invalid means the input is malformed or out of range; Field names it.
	Invalid
	// NotFound means the thing asked for does not exist (or is not yours).
	NotFound
	// Conflict means the request clashes with the current state: a
	// duplicate id, an illegal state transition, a replayed key with another body.
	Conflict
	// NoCapacity means the request is well formed but does not fit.
	NoCapacity
	// Unauthorized means no or an unknown credential.
	Unauthorized
	// Forbidden means the credential is known but lacks the role.
	Forbidden
	// Unavailable means a dependency (store, redis) cannot serve right now.
	Unavailable
	// LimitExceeded means the caller already uses as much of something as a
	// limit allows (booking's hold limits); it clears as the caller's own
	// use ends, so the request may succeed later unchanged.
	LimitExceeded
	// Fenced means a write carried a lease's fencing token older than
	// one the store has already seen: its writer lost the lease (to
	// another holder, while it was paused) and must stop acting as the
	// holder, not retry.
	Fenced
)

var kindNames = [...]string{
	Other:         "internal error",
	Invalid:       "invalid input",
	NotFound:      "not found",
	Conflict:      "conflict",
	NoCapacity:    "no capacity",
	Unauthorized:  "unauthorized",
	Forbidden:     "forbidden",
	Unavailable:   "unavailable",
	LimitExceeded: "limit exceeded",
	Fenced:        "fenced",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Op names what was being done when an error arose: the package that owns
// the code and the function or method, "service.Hold", "redisstore.Apply".
// It is a type of its own so that E tells it from the message by type, not
// by position.
type Op string

// Error is slotfare's error: what was being done (Op), why it failed (Kind),
// which input field is at fault (Field, for Invalid), a human message (Msg)
// and the underlying cause (Err), if any.
type Error struct {
	Op    Op
	Kind  Kind
	Field string
	Msg   string
	Err   error
	// More are the other invalid inputs found with this one (Join), so
	// that a user can fix them all at once.
	More []*Error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(string(e.Op))
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	switch {
	case e.Msg != "":
		b.WriteString(e.Msg)
	case e.Err == nil:
		b.WriteString(e.Kind.String())
	}
	if e.Err != nil {
		if e.Msg != "" {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	for _, m := range e.More {
		b.WriteString("; ")
		if m.Field != "" {
			b.WriteString(m.Field)
			b.WriteString(": ")
		}
		b.WriteString(MessageOf(m))
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Join gathers the invalid inputs found in one request or document: nil
// errors are dropped, one error is returned as it is, and several become
// the first with the rest in More, so that the API lists every field at
// fault and a user fixes them in one go. Errors that are not *Error keep
// their message.
func Join(errs ...error) error {
	var all []*Error
	for _, err := range errs {
		if err == nil {
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Kind: Invalid, Msg: err.Error()}
		}
		all = append(all, e)
	}
	switch len(all) {
	case 0:
		return nil
	case 1:
		return errs[firstNonNil(errs)]
	}
	first := *all[0]
	first.More = append(append([]*Error(nil), first.More...), all[1:]...)
	return &first
}

func firstNonNil(errs []error) int {
	for i, err := range errs {
		if err != nil {
			return i
		}
	}
	return -1
}

// FieldMessage is one input at fault and what is wrong with it.
type FieldMessage struct {
	Field, Message string
}

// FieldsOf lists every input at fault in err: its own field, then those
// joined to it (Join). Inputs without a field name are left out.
func FieldsOf(err error) []FieldMessage {
	var e *Error
	if !errors.As(err, &e) {
		return nil
	}
	var out []FieldMessage
	if f := FieldOf(err); f != "" {
		out = append(out, FieldMessage{f, MessageOf(err)})
	}
	// The others may sit on an error this one wraps (E(op, err)).
	for x := error(e); x != nil; x = errors.Unwrap(x) {
		if w, ok := x.(*Error); ok {
			for _, m := range w.More {
				out = append(out, FieldsOf(m)...)
			}
		}
	}
	return out
}

// E builds an *Error from its arguments, taken by type: an Op is the op, a
// string is the message (never the op, wherever it stands), a Kind is the
// kind, a Field is the field, an error is the cause. A cause that is itself
// an *Error lends its kind and field when none is given (an explicit Other
// is kept).
func E(args ...any) error {
	e := &Error{}
	kindSet := false
	for _, a := range args {
		switch a := a.(type) {
		case Op:
			e.Op = a
		case string:
			e.Msg = a
		case Kind:
			e.Kind, kindSet = a, true
		case Field:
			e.Field = string(a)
		case error:
			e.Err = a
		}
	}
	var inner *Error
	if errors.As(e.Err, &inner) {
		if !kindSet {
			e.Kind = inner.Kind
		}
		if e.Field == "" {
			e.Field = inner.Field
		}
	}
	return e
}

// Field names the input at fault in an Invalid error (a JSON field, a flag).
type Field string

// Errorf is a shorthand for an Invalid error on one field.
func Errorf(op Op, field string, format string, args ...any) error {
	return &Error{Op: op, Kind: Invalid, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// KindOf returns the kind of the outermost *Error in err's chain, or Other.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Other
}

// FieldOf returns the field named by the outermost *Error in err's chain.
func FieldOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// MessageOf returns err's message without the Op prefix, for problem details.
func MessageOf(err error) string {
	var e *Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	if e.Msg != "" {
		if e.Err != nil {
			return e.Msg + ": " + e.Err.Error()
		}
		return e.Msg
	}
	if e.Err != nil {
		return MessageOf(e.Err)
	}
	return e.Kind.String()
}
