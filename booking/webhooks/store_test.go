package webhooks_test

import (
	"testing"

	"slotfare/booking/internal/webhookstest"
	"slotfare/booking/webhooks"
)

// TestPortContract runs the Port's contract on Memory; the adapters run it
// in their packages (booking/boltstore, booking/redisstore).
func TestPortContract(t *testing.T) {
	webhookstest.Contract(t, func(t *testing.T) (webhooks.Port, func() webhooks.Port) {
		m := webhooks.NewMemory()
		return m, func() webhooks.Port { return m }
	})
}
