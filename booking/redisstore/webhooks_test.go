package redisstore_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"slotfare/booking/internal/webhookstest"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
	"slotfare/booking/webhooks"
)

// TestWebhooksContract runs booking/webhooks' Port contract on a real
// redis-server (a second Webhooks over it, as another replica) and on a
// three-master Redis Cluster (a hook's keys share the {webhooks} slot).
func TestWebhooksContract(t *testing.T) {
	for name, start := range map[string]func(testing.TB) redis.UniversalClient{
		"server":  func(t testing.TB) redis.UniversalClient { return redistest.Start(t) },
		"cluster": func(t testing.TB) redis.UniversalClient { return redistest.StartCluster(t) },
	} {
		t.Run(name, func(t *testing.T) {
			webhookstest.Contract(t, func(t *testing.T) (webhooks.Port, func() webhooks.Port) {
				c := start(t)
				return redisstore.NewWebhooks(c, "sf"), func() webhooks.Port { return redisstore.NewWebhooks(c, "sf") }
			})
		})
	}
}
