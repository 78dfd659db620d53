package slotfare

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// MaxJSONDepth bounds nesting, as encoding/json does (it refuses deeper input
// before Check would see it).
const MaxJSONDepth = 10000

// KeyError names the key at fault by its path from the document's root:
// object keys joined by ".", array elements as "[i]" ("queued[2].id").
type KeyError struct {
	Path string
	Msg  string
}

func (e *KeyError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// CheckKeys catches what encoding/json lets through even with
// DisallowUnknownFields: a key given twice in one object (the last would
// silently win) and a key matching a struct field only up to case ("Nodes"
// for "nodes"). Every strict decoder of slotfare runs it after a successful
// decode, so a document is read the same way whoever reads it.
//
// It scans data, one JSON value, and returns a *KeyError for the first key
// that appears twice in one object (at any depth), or, when t is not nil,
// for the first key of an object decoded into a struct of t that is not
// exactly the name of one of its fields. Below a type with its own
// UnmarshalJSON or UnmarshalText, and below interface types, only duplicates
// are checked: such a type reads its keys itself. Malformed input is an
// *KeyError with an empty path; callers run CheckKeys after encoding/json has
// accepted the document, so that does not happen in practice.
func CheckKeys(data []byte, t reflect.Type) error {
	s := scanner{data: data}
	s.ws()
	if err := s.value(t); err != nil {
		return err
	}
	s.ws()
	if s.i != len(s.data) {
		return s.malformed()
	}
	return nil
}

// step is one element of a path: an object key or an array index.
type step struct {
	key   string
	index int
	isKey bool
}

type scanner struct {
	data []byte
	i    int
	path []step
}

func (s *scanner) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) malformed() error { return &KeyError{Msg: "malformed JSON"} }

// at is the path so far, with key appended when not empty.
func (s *scanner) at(key string) string {
	var b strings.Builder
	for _, p := range s.path {
		if p.isKey {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p.key)
		} else {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(p.index))
			b.WriteByte(']')
		}
	}
	if key != "" {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(key)
	}
	return b.String()
}

func (s *scanner) value(t reflect.Type) error {
	if len(s.path) > MaxJSONDepth {
		return &KeyError{Path: s.at(""), Msg: "is nested too deeply"}
	}
	if s.i >= len(s.data) {
		return s.malformed()
	}
	switch s.data[s.i] {
	case '{':
		return s.object(elemType(t))
	case '[':
		return s.array(elemType(t))
	case '"':
		_, err := s.str()
		return err
	}
	// A number, true, false or null: up to the next delimiter.
	start := s.i
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			if s.i == start {
				return s.malformed()
			}
			return nil
		}
		s.i++
	}
	if s.i == start {
		return s.malformed()
	}
	return nil
}

// str reads a string at s.i and returns it unescaped.
func (s *scanner) str() (string, error) {
	start := s.i
	s.i++
	escaped := false
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case '\\':
			escaped = true
			s.i += 2
			continue
		case '"':
			s.i++
			raw := s.data[start:s.i]
			if !escaped {
				return string(raw[1 : len(raw)-1]), nil
			}
			var out string
			if err := json.Unmarshal(raw, &out); err != nil {
				return "", s.malformed()
			}
			return out, nil
		}
		s.i++
	}
	return "", s.malformed()
}

func (s *scanner) object(t reflect.Type) error {
	var fields map[string]reflect.Type
	var mapElem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fields = fieldsOf(t)
		case reflect.Map:
			mapElem = t.Elem()
		}
	}
	s.i++ // {
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
		return nil
	}
	var seen []string
	var seenSet map[string]bool
	for {
		s.ws()
		if s.i >= len(s.data) || s.data[s.i] != '"' {
			return s.malformed()
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		if seenSet != nil {
			if seenSet[key] {
				return &KeyError{Path: s.at(key), Msg: "appears more than once in the same object"}
			}
			seenSet[key] = true
		} else {
			for _, k := range seen {
				if k == key {
					return &KeyError{Path: s.at(key), Msg: "appears more than once in the same object"}
				}
			}
			seen = append(seen, key)
			if len(seen) > 16 {
				seenSet = make(map[string]bool, 2*len(seen))
				for _, k := range seen {
					seenSet[k] = true
				}
			}
		}
		var child reflect.Type
		switch {
		case fields != nil:
			ft, ok := fields[key]
			if !ok {
				return &KeyError{Path: s.at(key), Msg: unknownMsg(key, fields)}
			}
			child = ft
		case mapElem != nil:
			child = mapElem
		}
		s.ws()
		if s.i >= len(s.data) || s.data[s.i] != ':' {
			return s.malformed()
		}
		s.i++
		s.ws()
		s.path = append(s.path, step{key: key, isKey: true})
		if err := s.value(child); err != nil {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		s.ws()
		if s.i >= len(s.data) {
			return s.malformed()
		}
		switch s.data[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.malformed()
		}
	}
}

func (s *scanner) array(t reflect.Type) error {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	s.i++ // [
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
		return nil
	}
	for n := 0; ; n++ {
		s.ws()
		s.path = append(s.path, step{index: n})
		if err := s.value(elem); err != nil {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		s.ws()
		if s.i >= len(s.data) {
			return s.malformed()
		}
		switch s.data[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.malformed()
		}
	}
}

// unknownMsg says a key is not a field, suggesting the field it matches
// when only its case differs.
func unknownMsg(key string, fields map[string]reflect.Type) string {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return "is not a known field (field names are exact: " + strconv.Quote(name) + ")"
		}
	}
	return "is not a known field"
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// elemType is the type whose keys are checked for a value decoded into t:
// nil (duplicates only) for interfaces and for types that decode
// themselves.
func elemType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() == reflect.Interface {
		return nil
	}
	pt := reflect.PointerTo(t)
	if t.Implements(jsonUnmarshaler) || pt.Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || pt.Implements(textUnmarshaler) {
		return nil
	}
	return t
}

var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

// fieldsOf is the JSON names of a struct's fields as encoding/json sees
// them: the tag's name, or the Go name without one; "-" left out; the
// fields of an untagged embedded struct promoted.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	out := map[string]reflect.Type{}
	addFields(t, out, 0)
	fieldCache.Store(t, out)
	return out
}

func addFields(t reflect.Type, out map[string]reflect.Type, depth int) {
	if depth > 10 {
		return
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				// Promoted fields; an outer field of the same name wins.
				inner := map[string]reflect.Type{}
				addFields(ft, inner, depth+1)
				for k, v := range inner {
					if _, ok := out[k]; !ok {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
}
