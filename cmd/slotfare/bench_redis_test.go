package main

import (
	"path/filepath"
	"testing"

	"slotfare/booking/redisstore/redistest"
	"slotfare/forecast/swf"
)

// TestBenchCalendarRedisMatchesTree replays shared traces through the Redis
// inventory (a real redis-server) and requires the tree's counts exactly,
// in both modes (issue 11: decisions identical to the tree calendar).
func TestBenchCalendarRedisMatchesTree(t *testing.T) {
	rdb := redistest.Start(t)
	url := "redis://" + rdb.Options().Addr
	traces := []string{filepath.Join("testdata", "oracle", "basic.swf"), swf.TestTrace(t, "SDSC-SP2-1998-first4961.swf")}
	rejected, suggested := 0, 0
	for _, trace := range traces {
		for _, mode := range []string{"rigid", "suggest"} {
			for _, capacity := range []string{"", "40"} {
				args := []string{"--trace", trace, "--impl", "tree,redis", "--redis", url, "--mode", mode}
				if capacity != "" {
					args = append(args, "--capacity", capacity)
				}
				res := benchLines(t, args...)
				tree, red := res["tree"].benchCounts, res["redis"].benchCounts
				if tree != red || tree.Requests == 0 {
					t.Fatalf("%s %s capacity %q: redis %+v, tree %+v", trace, mode, capacity, red, tree)
				}
				rejected += tree.Rejected
				suggested += tree.Suggested
			}
		}
	}
	if rejected == 0 || suggested == 0 {
		t.Fatalf("the replays rejected %d and suggested %d: not a test of admission", rejected, suggested)
	}
}
