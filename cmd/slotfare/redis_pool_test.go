package main

import "testing"

// TestRedisPoolSize: a replica keeps redisPoolSize connections to Redis
// (per master of a cluster) unless the URL's pool_size says otherwise.
func TestRedisPoolSize(t *testing.T) {
	for _, c := range []struct {
		urls []string
		want int
	}{
		{[]string{"redis://127.0.0.1:6379"}, redisPoolSize},
		{[]string{"redis://127.0.0.1:6379?pool_size=7"}, 7},
		{[]string{"redis://127.0.0.1:7000", "redis://127.0.0.1:7001"}, redisPoolSize},
		{[]string{"redis://127.0.0.1:7000?pool_size=9", "redis://127.0.0.1:7001"}, 9},
	} {
		rt, err := parseRedis(c.urls)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		if rt.single != nil {
			got = rt.single.PoolSize
		} else {
			got = rt.cluster.PoolSize
		}
		if got != c.want {
			t.Fatalf("%v: pool size %d, want %d", c.urls, got, c.want)
		}
	}
}
