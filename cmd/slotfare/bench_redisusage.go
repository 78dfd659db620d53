package main

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare/booking/redisstore"
)

// redisUsage is what a Redis deployment (every master of a cluster) has
// done so far, from INFO: its CPU, and the commands it ran, those that
// scripts called included, and the scripts among them. bench api reads it
// before and after a run, so that Redis's share of a flow is measured by
// the same command as the flow: on a machine shared with other work the
// CPU per flow, not the flows per second, is the figure to compare.
type redisUsage struct {
	cpu     time.Duration
	calls   int64
	scripts int64
}

// readRedisUsage reads rdb's usage, summed over the masters of a cluster.
func readRedisUsage(rdb redis.UniversalClient) (redisUsage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a command's root, bounded on its own
	defer cancel()
	var mu sync.Mutex
	var sum redisUsage
	one := func(ctx context.Context, c *redis.Client) error {
		info, err := c.Info(ctx, "cpu", "commandstats").Result()
		if err != nil {
			return err
		}
		u, err := parseRedisUsage(info)
		if err != nil {
			return err
		}
		mu.Lock()
		sum.cpu += u.cpu
		sum.calls += u.calls
		sum.scripts += u.scripts
		mu.Unlock()
		return nil
	}
	return sum, redisstore.OnEachServer(ctx, rdb, one)
}

// parseRedisUsage reads INFO cpu and commandstats (redisstore.ParseUsage)
// as bench api sums it.
func parseRedisUsage(info string) (redisUsage, error) {
	u, err := redisstore.ParseUsage(info)
	if err != nil {
		return redisUsage{}, err
	}
	return redisUsage{cpu: u.CPU, calls: u.AllCalls(), scripts: u.ScriptCalls()}, nil
}
