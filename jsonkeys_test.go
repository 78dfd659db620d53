package slotfare

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

type inner struct {
	ID   string          `json:"id"`
	When time.Time       `json:"when"`
	Raw  json.RawMessage `json:"raw"`
}

type embedded struct {
	Policy string `json:"policy"`
}

type outer struct {
	embedded
	Nodes   *int              `json:"nodes"`
	Items   []inner           `json:"items"`
	ByName  map[string]inner  `json:"by_name"`
	Any     any               `json:"any"`
	Skip    int               `json:"-"`
	Plain   int               // no tag: the Go name
	private int               //nolint:unused // never a JSON field
	Tau     map[string]string `json:"tau"`
}

func TestCheck(t *testing.T) {
	typ := reflect.TypeFor[outer]()
	cases := []struct {
		name, doc, path string // path "" = accepted
		msg             string
	}{
		{"good", `{"nodes":3,"policy":"x","items":[{"id":"a","when":"2026-01-01T00:00:00Z","raw":{"A":1,"a":2}}],"by_name":{"X":{"id":"b"}},"any":{"Q":1},"Plain":1,"tau":{"Peak":"1"}}`, "", ""},
		{"empty object", `{}`, "", ""},
		{"scalars", ` 3 `, "", ""},
		{"duplicate top", `{"nodes":3,"nodes":4}`, "nodes", "more than once"},
		{"duplicate escaped", `{"nodes":3,"\u006eodes":4}`, "nodes", "more than once"},
		{"duplicate nested", `{"items":[{"id":"a"},{"id":"b","id":"c"}]}`, "items[1].id", "more than once"},
		{"duplicate in map", `{"tau":{"peak":"1","peak":"2"}}`, "tau.peak", "more than once"},
		{"duplicate below interface", `{"any":{"a":{"b":1,"b":2}}}`, "any.a.b", "more than once"},
		{"duplicate below raw", `{"items":[{"raw":[{"k":1,"k":1}]}]}`, "items[0].raw[0].k", "more than once"},
		{"duplicate many keys", `{"tau":{"a":"1","b":"1","c":"1","d":"1","e":"1","f":"1","g":"1","h":"1","i":"1","j":"1","k":"1","l":"1","m":"1","n":"1","o":"1","p":"1","q":"1","r":"1","a":"2"}}`, "tau.a", "more than once"},
		{"case folded", `{"Nodes":3}`, "Nodes", `"nodes"`},
		{"case folded nested", `{"items":[{"ID":"a"}]}`, "items[0].ID", `"id"`},
		{"case folded promoted", `{"POLICY":"x"}`, "POLICY", `"policy"`},
		{"case folded in map value", `{"by_name":{"x":{"Id":"a"}}}`, "by_name.x.Id", `"id"`},
		{"go name lower", `{"plain":1}`, "plain", `"Plain"`},
		{"skipped field", `{"Skip":1}`, "Skip", "not a known field"},
		{"private", `{"private":1}`, "private", "not a known field"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !json.Valid([]byte(c.doc)) {
				t.Fatalf("test document is not JSON: %s", c.doc)
			}
			err := CheckKeys([]byte(c.doc), typ)
			if c.path == "" {
				if err != nil {
					t.Fatalf("CheckKeys(%s) = %v, want nil", c.doc, err)
				}
				return
			}
			var e *KeyError
			if !errors.As(err, &e) || e.Path != c.path || !strings.Contains(e.Msg, c.msg) {
				t.Fatalf("CheckKeys(%s) = %v, want path %q and %q", c.doc, err, c.path, c.msg)
			}
		})
	}
	// Without a type only duplicates count.
	if err := CheckKeys([]byte(`{"Nodes":1,"x":{"Y":[1,{"z":2}]}}`), nil); err != nil {
		t.Fatal(err)
	}
	if err := CheckKeys([]byte(`[{"a":1},{"a":1,"a":2}]`), nil); err == nil || err.(*KeyError).Path != "[1].a" {
		t.Fatalf("duplicate in array element: %v", err)
	}
}

func TestCheckMalformedNeverPanics(t *testing.T) {
	for _, doc := range []string{``, `{`, `{"a"`, `{"a":`, `{"a":1`, `[1,`, `"abc`, `{"a\`, `{1:2}`, `{"a":1}x`, `[`, `]`, `,`, strings.Repeat("[", MaxJSONDepth+5)} {
		if err := CheckKeys([]byte(doc), reflect.TypeFor[outer]()); err == nil {
			t.Errorf("CheckKeys(%.20q) accepted malformed JSON", doc)
		}
	}
}

// FuzzCheck: Check never panics, and on valid JSON it finds a duplicate
// key exactly when a reference walk over encoding/json's tokens does.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[{"a":{"b":[1,2,"x\"y"]}}]`, `{"a":1,"a":2}`, `"\u0041"`, `null`, `{"a":{"a":1},"b":{"a":1,"a":2}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = CheckKeys(b, reflect.TypeFor[outer]())
		err := CheckKeys(b, nil)
		if !json.Valid(b) {
			return
		}
		if got, want := err != nil, hasDuplicate(b); got != want {
			t.Fatalf("CheckKeys(%q) = %v, reference says duplicate %v", b, err, want)
		}
	})
}

// hasDuplicate is the reference: encoding/json's token stream, one key set
// per open object.
func hasDuplicate(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		obj    bool
		keys   map[string]bool
		expect bool // next string token in an object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if top != nil && top.obj {
					top.expect = true
				}
				stack = append(stack, &frame{obj: v == '{', keys: map[string]bool{}, expect: true})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if top != nil && top.obj && top.expect {
				if top.keys[v] {
					return true
				}
				top.keys[v] = true
				top.expect = false
				continue
			}
		}
		if top != nil && top.obj {
			top.expect = true
		}
	}
}
