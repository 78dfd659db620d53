package redisstore_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
)

// onEachDeployment runs f on one redis-server and on a three-master Redis
// Cluster, the two deployments whose scripts differ (one server indexes a
// write in its own step; a cluster keeps each step to one slot).
func onEachDeployment(t *testing.T, f func(*testing.T, redis.UniversalClient)) {
	t.Run("Server", func(t *testing.T) { f(t, redistest.Start(t)) })
	t.Run("Cluster", func(t *testing.T) { f(t, redistest.StartCluster(t)) })
}

// laidOut lays resource R out under prefix, groups nested groups of
// capacity nodes, and returns the inventory and the records on it.
func laidOut(t *testing.T, rdb redis.UniversalClient, prefix string, groups, capacity int) (*redisstore.Inventory, *redisstore.Records) {
	t.Helper()
	inv, recs := redisstore.NewInventory(rdb, prefix), redisstore.NewRecords(rdb, prefix)
	if err := inv.Ensure(context.Background(), "R", groups, capacity); err != nil {
		t.Fatal(err)
	}
	return inv, recs
}
