package api

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"slotfare"
	"slotfare/booking/events"
	"slotfare/booking/service"
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
