package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/events"
	"slotfare/booking/service"
	"slotfare/booking/webhooks"
)

// events pages the event log: after is a next_cursor, type a
// comma-separated list of event types.
func (s *server) events(c echo.Context) error {
	if err := checkQuery(c, "after", "type", "limit"); err != nil {
		return err
	}
	q := service.EventQuery{After: c.QueryParam("after")}
	if t := c.QueryParam("type"); t != "" {
		q.Types = strings.Split(t, ",")
	}
	limit, err := parseLimit(c)
	if err != nil {
		return err
	}
	q.Limit = limit
	page, err := s.b.Events(c.Request().Context(), principalOf(c), q)
	if err != nil {
		if slotfare.KindOf(err) == slotfare.Invalid && slotfare.FieldOf(err) == "after" {
			return errBadRequest("after", "%s", slotfare.MessageOf(err))
		}
		return err
	}
	if page.Data == nil {
		page.Data = []events.Event{}
	}
	return c.JSON(http.StatusOK, page)
}

// webhookBody is POST /v1/webhooks's body; pointers tell a field left out.
type webhookBody struct {
	URL   *string  `json:"url"`
	Types []string `json:"event_types"`
}

func (s *server) createWebhook(c echo.Context) error {
	var in webhookBody
	if _, err := bodyOf(c, &in); err != nil {
		return err
	}
	if in.URL == nil {
		return slotfare.Errorf("", "url", "is required")
	}
	h, err := s.hooks.Create(c.Request().Context(), principalOf(c), webhooks.Request{URL: *in.URL, Types: in.Types}, time.Now())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, h)
}

func (s *server) webhooks(c echo.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	hs, err := s.hooks.List(c.Request().Context(), principalOf(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": hs})
}

func (s *server) deleteWebhook(c echo.Context) error {
	if err := s.hooks.Delete(c.Request().Context(), principalOf(c), c.Param("id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// defaultWebhooks is the webhooks of b kept in memory, for a server New
// was given none (tests): deliveries are Step's, which no one runs.
func defaultWebhooks(b Backend) *webhooks.Service {
	src := func(ctx context.Context, p booking.Principal, after string, types []string, limit int) ([]events.Event, string, error) {
		page, err := b.Events(ctx, p, service.EventQuery{After: after, Types: types, Limit: limit})
		return page.Data, page.NextCursor, err
	}
	return webhooks.New(webhooks.NewMemory(), src, func(context.Context, []events.Event) error { return nil }, webhooks.Options{AllowPrivate: true})
}
