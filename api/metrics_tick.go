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

// tickErrorCounter is slotfare_tick_errors_total by resource.
type tickErrorCounter struct {
	vec  *prometheus.CounterVec
	mu   sync.Mutex
	seen map[string]bool
}

func newTickErrorCounter() *tickErrorCounter {
	return &tickErrorCounter{
		vec: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotfare_tick_errors_total",
			Help: "Bookings a tick had to leave for the next one (settlement or store write failed), by resource.",
		}, []string{"resource"}),
		seen: map[string]bool{},
	}
}

// TickError counts one booking the booking service's tick could not move on
// (booking.Options.OnTickError); the others of its resource went on.
func (m *Metrics) TickError(resource string) {
	c := m.tickErrors
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
