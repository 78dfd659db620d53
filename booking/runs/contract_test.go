package runs_test

import (
	"testing"

	"slotfare/booking/internal/runstest"
	"slotfare/booking/runs"
)

// TestStoreContract runs Store's contract on Memory; the adapters run it
// in their packages (booking/boltstore/runsbolt, booking/redisstore).
func TestStoreContract(t *testing.T) {
	runstest.Contract(t, func(t *testing.T) (runs.Store, func() runs.Store) {
		m := runs.NewMemory()
		return m, func() runs.Store { return m }
	})
}

// BenchmarkPredict: runstest.BenchPredict on Memory.
func BenchmarkPredict(b *testing.B) { runstest.BenchPredict(b, runs.NewMemory()) }
