package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
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
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		return sum, c.ForEachMaster(ctx, one)
	case *redis.Client:
		return sum, one(ctx, c)
	}
	return sum, fmt.Errorf("redis usage: unexpected client %T", rdb)
}

// parseRedisUsage reads INFO cpu and commandstats: used_cpu_user and
// used_cpu_sys (seconds), and per command "cmdstat_<name>:calls=N,...".
func parseRedisUsage(info string) (redisUsage, error) {
	var u redisUsage
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		name, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch {
		case name == "used_cpu_user" || name == "used_cpu_sys":
			s, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return u, fmt.Errorf("redis usage: %s: %w", line, err)
			}
			u.cpu += time.Duration(s * float64(time.Second))
		case strings.HasPrefix(name, "cmdstat_"):
			calls, _, _ := strings.Cut(strings.TrimPrefix(val, "calls="), ",")
			n, err := strconv.ParseInt(calls, 10, 64)
			if err != nil {
				return u, fmt.Errorf("redis usage: %s: %w", line, err)
			}
			u.calls += n
			switch strings.ToLower(strings.TrimPrefix(name, "cmdstat_")) {
			case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
				u.scripts += n
			}
		}
	}
	return u, nil
}
