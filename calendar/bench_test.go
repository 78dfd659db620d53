package calendar

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// horizon spreads n reservations so that about 675 nodes are busy on
// average whatever n is: 30 days for 100,000.
func horizon(n int) int64 { return int64(n) * 30 * 86400 / 100000 }

// book fills c with n live reservations: starts uniform over horizon(n),
// 10 minutes to 2 hours long, 1 to 8 nodes. It returns the ids it added.
func book(tb testing.TB, c Calendar, n int, rng *rand.Rand) []string {
	tb.Helper()
	horizon := horizon(n)
	ids := make([]string, 0, n)
	for i := 0; len(ids) < n; i++ {
		if i > 4*n {
			tb.Fatalf("only %d of %d reservations fit", len(ids), n)
		}
		s := rng.Int64N(horizon)
		r := Reservation{ID: "r" + strconv.Itoa(i), Start: s, End: s + 600 + rng.Int64N(6600), Nodes: 1 + rng.IntN(8)}
		if err := c.Add(r); err == nil {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// benchCapacity is the capacity of the admission benchmarks: tight enough
// that a fair share of checks fail somewhere inside their interval.
const benchCapacity = 720

type query struct {
	s, e  int64
	nodes int
}

func queries(rng *rand.Rand, horizon int64) []query {
	q := make([]query, 4096)
	for i := range q {
		s := rng.Int64N(horizon)
		q[i] = query{s, s + 600 + rng.Int64N(6600), 1 + rng.IntN(8)}
	}
	return q
}

// BenchmarkFits measures admission checks against books of 1,000 to
// 100,000 live reservations (target: at least 1,000,000 checks per second
// for the tree at 100,000).
func BenchmarkFits(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		// benchCapacity (720) nodes against about 675 busy on average: a
		// good share of the checks meet a full period and must find it.
		for _, name := range []string{"tree", "freelist"} {
			if name == "freelist" && n > 10000 {
				continue // building it is quadratic
			}
			b.Run(fmt.Sprintf("%s/live=%d", name, n), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, uint64(n)))
				var c Calendar
				if name == "tree" {
					c, _ = NewTree(benchCapacity)
				} else {
					c, _ = NewFreeList(benchCapacity)
				}
				book(b, c, n, rng)
				qs := queries(rng, horizon(n))
				fit := 0
				i := 0
				cpu := startCPU()
				for b.Loop() {
					q := qs[i&4095]
					if ok, _ := c.Fits(q.s, q.e, q.nodes); ok {
						fit++
					}
					i++
				}
				if ns := cpu.perOp(b); ns > 0 {
					b.ReportMetric(ns, "cpu-ns/op")
					b.ReportMetric(1e9/ns, "cpu-checks/s")
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "checks/s")
				b.ReportMetric(float64(fit)/float64(b.N), "fit-ratio")
			})
		}
	}
}

// BenchmarkChurn measures an add and a delete against a book of 100,000
// live reservations (the book stays the same size).
func BenchmarkChurn(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 3))
	c, _ := NewTree(benchCapacity)
	ids := book(b, c, 100000, rng)
	i := 0
	cpu := startCPU()
	for b.Loop() {
		k := i % len(ids)
		r, _ := c.Delete(ids[k])
		s := rng.Int64N(horizon(100000))
		nr := Reservation{ID: r.ID, Start: s, End: s + 600 + rng.Int64N(6600), Nodes: 1 + rng.IntN(8)}
		if c.Add(nr) != nil {
			_ = c.Add(r) // put the old one back: the book keeps its size
		}
		i++
	}
	if ns := cpu.perOp(b); ns > 0 {
		b.ReportMetric(ns, "cpu-ns/op")
	}
}

// cpuClock measures a benchmark loop's thread CPU time.
type cpuClock struct {
	start time.Duration
	ok    bool
}

// startCPU locks the benchmark to its thread and reads the thread's clock.
// The setup before it (building a book) is not counted.
func startCPU() cpuClock {
	runtime.LockOSThread()
	t, ok := threadCPU()
	return cpuClock{t, ok}
}

// perOp returns CPU nanoseconds per iteration (0 when unavailable).
func (c cpuClock) perOp(b *testing.B) float64 {
	defer runtime.UnlockOSThread()
	t, ok := threadCPU()
	if !ok || !c.ok || b.N == 0 {
		return 0
	}
	return float64(t-c.start) / float64(b.N)
}

// heapBytes returns the live heap after a full collection.
func heapBytes() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestTreeMemory holds the tree to at most 256 bytes per live reservation
// with 100,000 of them, counting everything it allocates and the ids.
func TestTreeMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	before := heapBytes()
	c, _ := NewTree(1024)
	ids := book(t, c, 100000, rng)
	per := float64(heapBytes()-before) / float64(len(ids))
	runtime.KeepAlive(c)
	t.Logf("tree: %.1f bytes per live reservation (100,000 live, ids included)", per)
	if per > 256 {
		t.Errorf("tree uses %.1f bytes per live reservation, want <= 256", per)
	}
}
