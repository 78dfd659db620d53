package redisstore_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"slotfare/booking/apikey"
	"slotfare/booking/internal/apikeytest"
	"slotfare/booking/redisstore"
)

// TestAPIKeysContract runs the API keys' contract on a server and a
// cluster.
func TestAPIKeysContract(t *testing.T) {
	onEachDeployment(t, func(t *testing.T, rdb redis.UniversalClient) {
		var n atomic.Int64
		apikeytest.Run(t, func(t *testing.T) apikey.Port {
			return redisstore.NewAPIKeys(rdb, fmt.Sprintf("t%d", n.Add(1)))
		})
	})
}
