package api

import (
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
)

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
