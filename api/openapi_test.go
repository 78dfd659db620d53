package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
)

// TestOpenAPIMatchesRoutes proves the document served at /openapi.json
// describes exactly the routes New registers (method and path), and that it
// is JSON with an "openapi" 3.x version.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	e := New(nil, Options{})
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d %s", rec.Code, rec.Body)
	}
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("openapi.json does not parse: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi version %q, want 3.x", doc.OpenAPI)
	}
	var inDoc, inEcho []string
	for p, item := range doc.Paths {
		for m := range item {
			inDoc = append(inDoc, strings.ToUpper(m)+" "+p)
		}
	}
	for _, r := range e.Routes() {
		if strings.HasSuffix(r.Path, "/*") || strings.HasPrefix(r.Method, "echo_route_") {
			continue
		}
		inEcho = append(inEcho, r.Method+" "+openAPIPath(r.Path))
	}
	sort.Strings(inDoc)
	sort.Strings(inEcho)
	if strings.Join(inDoc, "\n") != strings.Join(inEcho, "\n") {
		t.Fatalf("routes differ\nopenapi:\n%s\n\necho:\n%s", strings.Join(inDoc, "\n"), strings.Join(inEcho, "\n"))
	}
	if len(inEcho) < 20 {
		t.Fatalf("only %d routes registered", len(inEcho))
	}
}

// TestOpenAPIDocumentStable: the document is the same every time it is
// built, so /openapi.json does not change from one start of the server to
// the next (a report's required fields were listed in map order).
func TestOpenAPIDocumentStable(t *testing.T) {
	first, err := json.Marshal(OpenAPIDocument())
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, err := json.Marshal(OpenAPIDocument())
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(first) {
			t.Fatal("two builds of the OpenAPI document differ")
		}
	}
}
