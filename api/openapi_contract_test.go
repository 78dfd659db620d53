package api

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	// The generated client's one dependency: required here so that go.mod
	// keeps it and the generated code compiles offline.
	_ "github.com/oapi-codegen/runtime"
)

// TestOpenAPIContractComplete holds /openapi.json to the rules a
// recommended lint checks and client generators need: every operation has
// a tag, a summary, a description and a 4xx answer, the public ones say
// they need no key, every property says what it is, and no property has a
// type list other than one type or null.
func TestOpenAPIContractComplete(t *testing.T) {
	doc := roundTrip(t, OpenAPIDocument())
	for path, item := range doc["paths"].(map[string]any) {
		for method, v := range item.(map[string]any) {
			op := v.(map[string]any)
			where := strings.ToUpper(method) + " " + path
			for _, f := range []string{"summary", "description", "operationId"} {
				if s, _ := op[f].(string); strings.TrimSpace(s) == "" {
					t.Errorf("%s has no %s", where, f)
				}
			}
			if tags, _ := op["tags"].([]any); len(tags) != 1 {
				t.Errorf("%s has tags %v, want one", where, op["tags"])
			}
			if _, ok := op["security"]; !ok {
				t.Errorf("%s does not say its security (public: [])", where)
			}
			has4xx := false
			for code := range op["responses"].(map[string]any) {
				has4xx = has4xx || strings.HasPrefix(code, "4")
			}
			if !has4xx {
				t.Errorf("%s documents no 4xx answer", where)
			}
		}
	}
	for name, s := range doc["components"].(map[string]any)["schemas"].(map[string]any) {
		checkProperties(t, name, s.(map[string]any))
	}
}

func checkProperties(t *testing.T, at string, s map[string]any) {
	t.Helper()
	if types, ok := s["type"].([]any); ok && (len(types) != 2 || types[1] != "null") {
		t.Errorf("%s has type %v: generators take one type, or one and null", at, types)
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for p, v := range props {
			ps := v.(map[string]any)
			if d, _ := ps["description"].(string); strings.TrimSpace(d) == "" {
				t.Errorf("%s.%s has no description", at, p)
			}
			checkProperties(t, at+"."+p, ps)
		}
	}
	for _, key := range []string{"items", "additionalProperties"} {
		if sub, ok := s[key].(map[string]any); ok {
			checkProperties(t, at+"."+key, sub)
		}
	}
	if alts, ok := s["oneOf"].([]any); ok {
		for _, a := range alts {
			checkProperties(t, at, a.(map[string]any))
		}
	}
}

func roundTrip(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGeneratedClientCompiles generates a Go client from /openapi.json
// with oapi-codegen (pinned by go.mod's tool directive), and checks that
// it compiles and passes go vet.
func TestGeneratedClientCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds oapi-codegen and a 10,000-line client; skipped with -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to run oapi-codegen with")
	}
	dir, err := os.MkdirTemp("testdata", "client-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	spec := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(spec, openAPIJSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	gen := exec.Command(gobin, "tool", "oapi-codegen", "-generate", "types,client", "-package", "client",
		"-o", filepath.Join(dir, "client.go"), spec)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, out)
	}
	if out, err := exec.Command(gobin, "vet", "./"+dir).CombinedOutput(); err != nil {
		t.Fatalf("the generated client does not compile or vet: %v\n%s", err, out)
	}
}
