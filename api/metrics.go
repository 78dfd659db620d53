package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
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
	m.reg.MustRegister(m.requests, m.latency, m.transitions, m.tickErrors.vec,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Transition counts one booking status change; the booking service calls it
// (through its options) for every transition, background ones included.
func (m *Metrics) Transition(from, to string) {
	m.transitions.WithLabelValues(from, to).Inc()
}

// Registry is the registry /metrics serves, for callers adding their own.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

func (m *Metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// middleware records every request, unknown routes under route "unmatched"
// so that scanning does not create unbounded label values.
func (m *Metrics) middleware() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			route := c.Path()
			if route == "" || c.Response().Status == http.StatusNotFound && !knownRoute(c) {
				route = "unmatched"
			}
			method := c.Request().Method
			m.requests.WithLabelValues(method, route, strconv.Itoa(c.Response().Status)).Inc()
			m.latency.WithLabelValues(method, route).Observe(time.Since(start).Seconds())
			return nil
		}
	}
}

// knownRoute reports whether the request matched a registered route (echo
// sets the path to the pattern even for 404s from handlers).
func knownRoute(c echo.Context) bool {
	for _, r := range c.Echo().Routes() {
		if r.Path == c.Path() && r.Method == c.Request().Method {
			return true
		}
	}
	return false
}
