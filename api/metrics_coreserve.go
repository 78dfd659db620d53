package api

import (
	"github.com/prometheus/client_golang/prometheus"
)

// coMetrics are seed 003 Sec. 4.3's measures of the co-reservation broker:
// requests by outcome (the acceptance rate is held over all), candidates
// tried until the outcome, and messages sent to resources (probes, holds,
// rollbacks) per request.
type coMetrics struct {
	outcomes *prometheus.CounterVec
	attempts prometheus.Histogram
	messages prometheus.Histogram
}

// coOutcomes are the outcome label's values (the broker's "held" and the
// failure kinds); any other counts as "other", so the label stays bounded.
var coOutcomes = map[string]bool{"held": true, "no_capacity": true, "conflict": true, "invalid_input": true,
	"limit_exceeded": true, "unavailable": true, "forbidden": true, "internal_error": true}

func newCoMetrics(reg *prometheus.Registry) *coMetrics {
	m := &coMetrics{
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotfare_coreservations_total",
			Help: "Co-reservation requests by outcome: held, or why none was (no_capacity, conflict, ...).",
		}, []string{"outcome"}),
		attempts: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "slotfare_coreservation_attempts",
			Help:    "Co-reservation candidates the broker tried to hold per request (seed 003 Sec. 4.3).",
			Buckets: []float64{0, 1, 2, 3, 5, 8},
		}),
		messages: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "slotfare_coreservation_messages",
			Help:    "Messages the broker sent to resources (probes, holds, rollbacks) per co-reservation request (seed 003 Sec. 4.3).",
			Buckets: []float64{2, 5, 10, 20, 50, 100, 200},
		}),
	}
	reg.MustRegister(m.outcomes, m.attempts, m.messages)
	return m
}

// CoReservation records how one co-reservation request ended
// (coreserve.Options.OnOutcome).
func (m *Metrics) CoReservation(outcome string, attempts, messages int) {
	if !coOutcomes[outcome] {
		outcome = "other"
	}
	m.co.outcomes.WithLabelValues(outcome).Inc()
	m.co.attempts.Observe(float64(attempts))
	m.co.messages.Observe(float64(messages))
}
