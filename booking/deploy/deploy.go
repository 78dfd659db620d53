// Package deploy wires the booking service's ports for its two
// deployments: one process alone on its store (the embedded ports over
// bbolt, or over memory for tests and the simulator), and replicas sharing
// Redis. The service takes the same steps on either: only this package,
// and the commands that call it, know which adapter is plugged in.
package deploy

import (
	"context"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/embedded"
	"slotfare/booking/redisstore"
	"slotfare/booking/service"
)

// Embedded are the ports of a process alone on store: its records,
// inventory, keys and catalog are loaded from store and kept beside it.
// The service closes store when it closes.
func Embedded(ctx context.Context, store booking.Store, o embedded.Options) (service.Ports, error) {
	p, _, err := embedded.Open(ctx, store, o)
	if err != nil {
		return service.Ports{}, slotfare.E(slotfare.Op("deploy.Embedded"), err)
	}
	return service.Ports{Inventory: p.Inventory, Records: p.Records, Idem: p.Idem, Lease: p.Lease,
		Catalog: p.Catalog, Keys: p.APIKeys, Close: store.Close}, nil
}

// Redis are the ports replicas share on rdb, their keys under prefix
// ("sf" when empty). The caller closes rdb.
func Redis(rdb redis.UniversalClient, prefix string) service.Ports {
	return service.Ports{
		Inventory: redisstore.NewInventory(rdb, prefix),
		Records:   redisstore.NewRecords(rdb, prefix),
		Idem:      redisstore.NewKeys(rdb, prefix),
		Lease:     redisstore.NewLeases(rdb, prefix),
		Catalog:   redisstore.NewCatalog(rdb, prefix),
		Keys:      redisstore.NewAPIKeys(rdb, prefix),
	}
}
