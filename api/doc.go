// Package api is slotfare's HTTP layer (echo v4): routing, authentication,
// validation, the mapping of error kinds to problem+json responses, and the
// OpenAPI document. It is the only package that knows HTTP.
package api
