package logstore

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"slotfare/booking"
)

// BenchmarkWrite is one booking record written durably from 64 concurrent
// writers: what group commit buys.
func BenchmarkWrite(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var n atomic.Int64
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.Write(context.Background(), booking.Batch{Bookings: []booking.Record{rec(fmt.Sprint(n.Add(1)), booking.Held)}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}
