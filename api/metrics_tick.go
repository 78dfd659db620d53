package api

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// MaxTickErrorResources bounds the resource label of the tick error
// counter: the first this many resources with errors get a series each,
// any further one counts under "_other" (no resource id starts with '_',
// so it is never mistaken for one). Resources are the provider's own and
// few, but a label must never grow without bound.
const MaxTickErrorResources = 256

// tickErrorCounter is a counter by resource with the label bounded by
// MaxTickErrorResources: slotfare_tick_errors_total and
// slotfare_control_errors_total.
type tickErrorCounter struct {
	vec  *prometheus.CounterVec
	mu   sync.Mutex
	seen map[string]bool
}

func newTickErrorCounter() *tickErrorCounter {
	return newResourceCounter("slotfare_tick_errors_total",
		"Bookings a tick had to leave for the next one (settlement or store write failed), by resource.")
}

func newResourceCounter(name, help string) *tickErrorCounter {
	return &tickErrorCounter{
		vec:  prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{"resource"}),
		seen: map[string]bool{},
	}
}

// TickError counts one booking the booking service's tick could not move on
// (booking.Options.OnTickError); the others of its resource went on.
func (m *Metrics) TickError(resource string) { m.tickErrors.inc(resource) }

// ControlError counts one time booking control could not compute a
// resource's limits (booking.Options.OnControlError): the limits last
// published stay in force.
func (m *Metrics) ControlError(resource string) { m.controlErrors.inc(resource) }

func (c *tickErrorCounter) inc(resource string) {
	c.mu.Lock()
	if !c.seen[resource] {
		if len(c.seen) >= MaxTickErrorResources {
			resource = "_other"
		} else {
			c.seen[resource] = true
		}
	}
	c.mu.Unlock()
	c.vec.WithLabelValues(resource).Inc()
}
