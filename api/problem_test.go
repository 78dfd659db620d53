package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"slotfare"
)

func TestProblemOfMapsEveryKind(t *testing.T) {
	cases := []struct {
		err      error
		status   int
		field    string
		internal bool
	}{
		{slotfare.Errorf("hold", "nodes", "must be at least 1"), 422, "nodes", false},
		{slotfare.E(slotfare.Op("get"), slotfare.NotFound, "no such booking"), 404, "", false},
		{slotfare.E(slotfare.Op("commit"), slotfare.Conflict, "booking is expired"), 409, "", false},
		{slotfare.E(slotfare.Op("hold"), slotfare.NoCapacity, "does not fit"), 409, "", false},
		{slotfare.E(slotfare.Op("auth"), slotfare.Unauthorized), 401, "", false},
		{slotfare.E(slotfare.Op("auth"), slotfare.Forbidden), 403, "", false},
		{slotfare.E(slotfare.Op("store"), slotfare.Unavailable), 503, "", false},
		{slotfare.E(slotfare.Op("hold"), slotfare.LimitExceeded, slotfare.Field("hold_limits.max_holds"), "holds 100 of 100"), 429, "hold_limits.max_holds", false},
		{slotfare.E(slotfare.Op("store"), slotfare.Other, errors.New("disk on fire")), 500, "", true},
		{fmt.Errorf("wrapped: %w", slotfare.E(slotfare.Op("x"), slotfare.Conflict)), 409, "", false},
		{errors.New("plain"), 500, "", true},
		{errBadRequest("Idempotency-Key", "is required"), 400, "Idempotency-Key", false},
		{echo.ErrNotFound, 404, "", false},
		{echo.ErrMethodNotAllowed, 405, "", false},
		{echo.ErrStatusRequestEntityTooLarge, 413, "body", false},
		{context.DeadlineExceeded, 503, "", false},
	}
	for _, c := range cases {
		p, internal := problemOf(c.err)
		if p.Status != c.status || internal != c.internal {
			t.Errorf("%v: status %d internal %v, want %d %v", c.err, p.Status, internal, c.status, c.internal)
		}
		if p.Type == "" || p.Title == "" || p.Errors == nil {
			t.Errorf("%v: incomplete problem %+v", c.err, p)
		}
		if c.field != "" && (len(p.Errors) != 1 || p.Errors[0].Field != c.field) {
			t.Errorf("%v: errors %+v, want field %q", c.err, p.Errors, c.field)
		}
		if c.internal && p.Detail != "internal error" {
			t.Errorf("%v: internal detail leaked: %q", c.err, p.Detail)
		}
		if c.status == http.StatusUnprocessableEntity && p.Detail == "" {
			t.Errorf("%v: no detail", c.err)
		}
	}
}

// TestUnavailableSaysWhenToRetry: a 503 (a store or Redis that cannot
// answer now) carries Retry-After, so clients back off instead of failing.
func TestUnavailableSaysWhenToRetry(t *testing.T) {
	e := echo.New()
	e.HTTPErrorHandler = errorHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))
	e.GET("/down", func(c echo.Context) error {
		return slotfare.E(slotfare.Op("store"), slotfare.Unavailable, "redis: connection refused")
	})
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/down", nil))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" ||
		rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("%d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}
