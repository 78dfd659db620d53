package api

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/pb33f/libopenapi-validator/helpers"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
)

// validating maps the servers of newTestServer to their tests: call.run
// checks every answer they give against the document (checkAnswer), so
// every api test is also a test of the document.
var validating sync.Map // *echo.Echo -> testing.TB

// checkAnswer validates one live answer against /openapi.json: its status
// must be documented for the route, and its body must match the schema.
// Requests to routes the document does not have (404 and 405 tests) are
// not checked.
func checkAnswer(e *echo.Echo, req *http.Request, rec *httptest.ResponseRecorder) {
	tb, ok := validating.Load(e)
	if !ok {
		return
	}
	t := tb.(testing.TB)
	v, err := openAPIValidator()
	if err != nil {
		t.Errorf("openapi: %v", err)
		return
	}
	resp := rec.Result()
	ok, errs := v.ValidateHttpResponse(req, resp)
	if ok {
		return
	}
	for _, e := range errs {
		if e.ValidationType == helpers.PathValidation || e.ValidationSubType == helpers.ValidationMissingOperation {
			continue // not a documented route
		}
		t.Errorf("%s %s answered %d, which does not match /openapi.json: %s\nbody: %s", req.Method, req.URL.Path, rec.Code, e, trunc(rec.Body.String()))
		for _, f := range e.SchemaValidationErrors {
			t.Errorf("  %s at %s", f.Reason, f.FieldPath)
		}
	}
}

// openAPIValidator is the document served at /openapi.json, read by
// pb33f/libopenapi and checked by its validator (a maintained library, not
// a check of our own).
var openAPIValidator = sync.OnceValues(func() (validator.Validator, error) {
	doc, err := libopenapi.NewDocument(openAPIJSON())
	if err != nil {
		return nil, err
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return v, nil
})

// TestOpenAPIDocumentValid: the document passes the OpenAPI 3.1 schema as
// libopenapi-validator embeds it (issue 10: 129 of 154 responses lacked
// their required description, four schemas were bare objects).
func TestOpenAPIDocumentValid(t *testing.T) {
	v, err := openAPIValidator()
	if err != nil {
		t.Fatalf("libopenapi cannot read the document: %v", err)
	}
	ok, errs := v.ValidateDocument()
	for _, e := range errs {
		t.Errorf("%s", e)
		for _, f := range e.SchemaValidationErrors {
			t.Errorf("  %s at %s", f.Reason, f.FieldPath)
		}
	}
	if !ok && len(errs) == 0 {
		t.Error("invalid, with no reason given")
	}
}
