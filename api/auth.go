package api

import (
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"slotfare"
	"slotfare/booking"
)

const principalKey = "slotfare.principal"

// authenticate reads "Authorization: Bearer <key>" and puts the key's
// principal in the context; no header, another scheme or an unknown key is
// 401 (with a WWW-Authenticate challenge, RFC 6750).
func (s *server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Request().Header.Get(echo.HeaderAuthorization)
		scheme, key, ok := strings.Cut(h, " ")
		if h == "" {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="slotfare"`)
			return slotfare.E(slotfare.Op("api.authenticate"), slotfare.Unauthorized, slotfare.Field("Authorization"), "missing: send Authorization: Bearer <api key>")
		}
		key = strings.TrimSpace(key)
		if !ok || !strings.EqualFold(scheme, "Bearer") || key == "" {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="slotfare", error="invalid_request"`)
			return slotfare.E(slotfare.Op("api.authenticate"), slotfare.Unauthorized, slotfare.Field("Authorization"), "must be Bearer <api key>")
		}
		p, err := s.b.Authenticate(c.Request().Context(), key)
		if err != nil {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="slotfare", error="invalid_token"`)
			if k := slotfare.KindOf(err); k != slotfare.Unauthorized && k != slotfare.Other {
				return err
			}
			return slotfare.E(slotfare.Op("api.authenticate"), slotfare.Unauthorized, slotfare.Field("Authorization"), "unknown api key")
		}
		c.Set(principalKey, p)
		return next(c)
	}
}

// requireRole lets only principals of the given roles through (403
// otherwise).
func requireRole(rs ...booking.Role) echo.MiddlewareFunc {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = string(r)
	}
	need := strings.Join(names, " or ")
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if p := principalOf(c); !slices.Contains(rs, p.Role) {
				return slotfare.E(slotfare.Op("api.authorize"), slotfare.Forbidden, "this route needs role "+need+", the key has role "+string(p.Role))
			}
			return next(c)
		}
	}
}

// principalOf is the authenticated principal (zero outside /v1).
func principalOf(c echo.Context) booking.Principal {
	p, _ := c.Get(principalKey).(booking.Principal)
	return p
}
