package redisstore

import (
	"context"
	"encoding/json"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/webhooks"
)

// Webhooks is booking/webhooks' Port on the Redis replicas share: one key per hook and a set of their
// ids, all under one hash tag ({webhooks}), so that a Save is one SET XX
// (a deleted hook stays deleted) and a listing one slot's reads.
type Webhooks struct {
	rdb    redis.UniversalClient
	prefix string
}

var _ webhooks.Port = (*Webhooks)(nil)

// NewWebhooks returns the Port on rdb under prefix ("sf" when empty).
func NewWebhooks(rdb redis.UniversalClient, prefix string) *Webhooks {
	if prefix == "" {
		prefix = "sf"
	}
	return &Webhooks{rdb: rdb, prefix: prefix + ":{webhooks}:"}
}

func (r *Webhooks) Create(ctx context.Context, h webhooks.Hook) error {
	v, err := json.Marshal(h)
	if err != nil {
		return err
	}
	_, err = r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, r.prefix+"hook:"+h.ID, v, 0)
		p.SAdd(ctx, r.prefix+"ids", h.ID)
		return nil
	})
	return err
}

func (r *Webhooks) Save(ctx context.Context, h webhooks.Hook) (bool, error) {
	v, err := json.Marshal(h)
	if err != nil {
		return false, err
	}
	// go-redis answers SET XX's nil (no such key) as false, not as an
	// error.
	return r.rdb.SetXX(ctx, r.prefix+"hook:"+h.ID, v, redis.KeepTTL).Result()
}

func (r *Webhooks) List(ctx context.Context) ([]webhooks.Hook, error) {
	ids, err := r.rdb.SMembers(ctx, r.prefix+"ids").Result()
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = r.prefix + "hook:" + id
	}
	vals, err := r.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, err
	}
	var out []webhooks.Hook
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue // deleted meanwhile
		}
		var h webhooks.Hook
		if err := json.Unmarshal([]byte(s), &h); err != nil {
			return nil, slotfare.E(slotfare.Op("redisstore.Webhooks.List"), slotfare.Other, "hook "+ids[i]+" does not decode: "+err.Error())
		}
		out = append(out, h)
	}
	return webhooks.Sorted(out), nil
}

func (r *Webhooks) Delete(ctx context.Context, id string) (bool, error) {
	var del *redis.IntCmd
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		del = p.Del(ctx, r.prefix+"hook:"+id)
		p.SRem(ctx, r.prefix+"ids", id)
		return nil
	})
	if err != nil {
		return false, err
	}
	return del.Val() > 0, nil
}

func (r *Webhooks) Close() error { return nil }
