package redisstore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"slotfare/booking/inventory"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
)

// BenchmarkInventoryAdmitRelease: an admission and its release on the
// Redis inventory, from parallel clients spread over 10 resources of 3
// nested groups (the demo's shape), each holding 50 bookings; 16 clients
// per P.
func BenchmarkInventoryAdmitRelease(b *testing.B) {
	rdb := redistest.Start(b)
	inv := redisstore.NewInventory(rdb, "bench")
	ctx := context.Background()
	for r := range 10 {
		res := fmt.Sprintf("R%d", r)
		if err := inv.Ensure(ctx, res, 3, 1000); err != nil {
			b.Fatal(err)
		}
		for i := range 50 {
			t := inventory.Terms{Start: int64(i * 3600), End: int64(i*3600 + 7200), Nodes: 4}
			if err := inv.Admit(ctx, res, fmt.Sprintf("base%d", i), 1+i%3, t); err != nil {
				b.Fatal(err)
			}
		}
	}
	var n atomic.Int64
	b.SetParallelism(16) // many clients, as replicas behind a balancer are
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			res := fmt.Sprintf("R%d", i%10)
			id := fmt.Sprintf("b%d", i)
			t := inventory.Terms{Start: i % 100 * 1800, End: i%100*1800 + 3600, Nodes: 2}
			if err := inv.Admit(ctx, res, id, 3, t); err != nil {
				b.Fatal(err)
			}
			if err := inv.Release(ctx, res, id); err != nil {
				b.Fatal(err)
			}
		}
	})
}
