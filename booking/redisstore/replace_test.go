package redisstore_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"slotfare/booking/internal/replacetest"
	"slotfare/booking/redisstore"
)

// TestReplaceApplyContract runs the contract of a change of a booking's
// terms in one step (one function of the library, in the resource's slot)
// on one redis-server and on a three-master Redis Cluster.
func TestReplaceApplyContract(t *testing.T) {
	onEachDeployment(t, func(t *testing.T, rdb redis.UniversalClient) {
		var n atomic.Int64
		replacetest.Run(t, func(t *testing.T) replacetest.Ports {
			prefix := fmt.Sprintf("r%d", n.Add(1))
			recs := redisstore.NewRecords(rdb, prefix)
			return replacetest.Ports{Inventory: redisstore.NewInventory(rdb, prefix), Records: recs, Replace: recs.ReplaceApply}
		})
	})
}
