package api

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"slotfare"
	"slotfare/booking"
)

// Metrics holds the service's Prometheus registry and instruments. It has its
// own registry (not the global default) so that several servers, as in tests,
// never collide.
type Metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	transitions *prometheus.CounterVec
	tickErrors  *tickErrorCounter
	// controlErrors counts booking control's failed recomputations.
	controlErrors *tickErrorCounter
	co            *coMetrics

	routesOnce sync.Once
	routes     map[string]bool // the registered route patterns

	// observed holds each (method, route, status)'s two instruments once
	// looked up: finding them by label values was most of the middleware's
	// work per request. Its keys are as bounded as the labels.
	observed sync.Map // requestKey -> requestInstruments
}

// requestKey is what a request's instruments are found by; status is the
// answer's code as sent.
type requestKey struct {
	method, route string
	status        int
}

// requestInstruments are the counter and latency histogram of one
// requestKey.
type requestInstruments struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// instruments are k's, looked up in the vectors on first use.
func (m *Metrics) instruments(k requestKey) requestInstruments {
	if in, ok := m.observed.Load(k); ok {
		return in.(requestInstruments)
	}
	in := requestInstruments{
		requests: m.requests.WithLabelValues(k.method, k.route, statusLabel(k.status)),
		latency:  m.latency.WithLabelValues(k.method, k.route),
	}
	m.observed.Store(k, in)
	return in
}

// NewMetrics registers the instruments: requests by route and status, request
// latency by route, booking transitions by from/to status, and the Go runtime
// and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotfare_http_requests_total",
		Help: "HTTP requests by method, route pattern and status code.",
	}, []string{"method", "route", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "slotfare_http_request_duration_seconds",
		Help:    "HTTP request latency by method and route pattern.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"method", "route"})
	m.transitions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotfare_booking_transitions_total",
		Help: "Booking status transitions (from \"\" for a new booking).",
	}, []string{"from", "to"})
	m.tickErrors = newTickErrorCounter()
	m.controlErrors = newResourceCounter("slotfare_control_errors_total",
		"Times booking control could not compute a resource's limits (the last published stay in force), by resource.")
	m.co = newCoMetrics(m.reg)
	m.reg.MustRegister(m.requests, m.latency, m.transitions, m.tickErrors.vec, m.controlErrors.vec, buildInfo(slotfare.ThisBuild()),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Transition counts one booking status change; the booking service calls it
// (through its options) for every transition, background ones included.
func (m *Metrics) Transition(from, to string) {
	m.transitions.WithLabelValues(transitionLabel(from), transitionLabel(to)).Inc()
}

// Registry is the registry /metrics serves, for callers adding their own.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

func (m *Metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// middleware records every request. Every label value is bounded whatever
// the client sends: the method is one of the standard methods or "other",
// the route is a registered route pattern (never the request's path) or
// "unmatched", and the status is a valid HTTP status code or "other". An
// unbounded label would let anyone grow the registry, and /metrics, by
// sending requests (issue 9, defect 5).
func (m *Metrics) middleware() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			in := m.instruments(requestKey{methodLabel(c.Request().Method), m.routeLabel(c), c.Response().Status})
			in.requests.Inc()
			in.latency.Observe(time.Since(start).Seconds())
			return nil
		}
	}
}

// methodLabel is the request's method if it is one of RFC 9110's (and
// PATCH), "other" for anything else a client makes up.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// statusLabel is the status code as text when it is a valid HTTP status.
func statusLabel(st int) string {
	if st < 100 || st > 599 {
		return "other"
	}
	return strconv.Itoa(st)
}

// routeLabel is the pattern of the route the request matched, or
// "unmatched". Echo sets c.Path() to a pattern for matched routes, but what
// it holds for a request no route matched is not a promise, so the label is
// only ever one of the registered patterns, looked up in a set built from
// the router on first use (all routes are registered before the server
// serves).
func (m *Metrics) routeLabel(c echo.Context) string {
	m.routesOnce.Do(func() {
		m.routes = map[string]bool{}
		for _, r := range c.Echo().Routes() {
			m.routes[r.Path] = true
		}
	})
	if p := c.Path(); m.routes[p] {
		return p
	}
	return "unmatched"
}

// transitionLabel is a booking status as a label value: the service only
// ever reports its own statuses, but the label set stays bounded even if a
// caller passes something else.
func transitionLabel(s string) string {
	if s == "" || booking.Status(s).Valid() {
		return s
	}
	return "other"
}

// buildInfo is the constant slotfare_build_info gauge: 1, labelled with the
// build that runs, so that a scrape says which version each replica is.
func buildInfo(b slotfare.Build) prometheus.Collector {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "slotfare_build_info",
		Help: "Always 1; the labels say which build runs: module version, commit (\"\" when unknown) and Go release.",
	}, []string{"version", "revision", "goversion"})
	g.WithLabelValues(b.Version, b.Revision, b.GoVersion).Set(1)
	return g
}
