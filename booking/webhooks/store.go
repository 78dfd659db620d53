package webhooks

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	bolt "go.etcd.io/bbolt"

	"slotfare"
)

// Memory is the in-process Port (tests).
type Memory struct {
	mu    sync.Mutex
	hooks map[string]Hook
}

// NewMemory returns an empty in-process Port.
func NewMemory() *Memory { return &Memory{hooks: map[string]Hook{}} }

func (m *Memory) Create(ctx context.Context, h Hook) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hooks[h.ID] = h
	return nil
}

func (m *Memory) Save(ctx context.Context, h Hook) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.hooks[h.ID]; !ok {
		return false, nil
	}
	m.hooks[h.ID] = h
	return true, nil
}

func (m *Memory) List(ctx context.Context) ([]Hook, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Hook, 0, len(m.hooks))
	for _, h := range m.hooks {
		out = append(out, h)
	}
	return sorted(out), nil
}

func (m *Memory) Delete(ctx context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.hooks[id]
	delete(m.hooks, id)
	return ok, nil
}

func (m *Memory) Close() error { return nil }

func sorted(hs []Hook) []Hook {
	sort.Slice(hs, func(i, j int) bool { return hs[i].ID < hs[j].ID })
	return hs
}

// Bolt is the Port in FileName under a data directory, beside the store.
type Bolt struct{ db *bolt.DB }

// FileName is the file OpenBolt keeps the hooks in.
const FileName = "webhooks.db"

var bucket = []byte("webhooks")

// OpenBolt opens (creating if needed) the hooks of data directory dir.
func OpenBolt(dir string) (*Bolt, error) {
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, slotfare.E(slotfare.Op("webhooks.OpenBolt"), slotfare.Unavailable, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucketIfNotExists(bucket); return err }); err != nil {
		db.Close()
		return nil, slotfare.E(slotfare.Op("webhooks.OpenBolt"), slotfare.Unavailable, err)
	}
	return &Bolt{db: db}, nil
}

func (b *Bolt) Create(ctx context.Context, h Hook) error {
	v, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return b.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put([]byte(h.ID), v) })
}

func (b *Bolt) Save(ctx context.Context, h Hook) (bool, error) {
	v, err := json.Marshal(h)
	if err != nil {
		return false, err
	}
	ok := false
	err = b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucket)
		if bk.Get([]byte(h.ID)) == nil {
			return nil
		}
		ok = true
		return bk.Put([]byte(h.ID), v)
	})
	return ok, err
}

func (b *Bolt) List(ctx context.Context) ([]Hook, error) {
	var out []Hook
	err := b.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucket).ForEach(func(k, v []byte) error {
			var h Hook
			if err := json.Unmarshal(v, &h); err != nil {
				return slotfare.E(slotfare.Op("webhooks.List"), slotfare.Other, "hook "+string(k)+" does not decode: "+err.Error())
			}
			out = append(out, h)
			return nil
		})
	})
	return out, err
}

func (b *Bolt) Delete(ctx context.Context, id string) (bool, error) {
	found := false
	err := b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucket)
		found = bk.Get([]byte(id)) != nil
		return bk.Delete([]byte(id))
	})
	return found, err
}

func (b *Bolt) Close() error { return b.db.Close() }

// Redis is the Port on a shared Redis: one key per hook and a set of their
// ids, all under one hash tag ({webhooks}), so that a Save is one SET XX
// (a deleted hook stays deleted) and a listing one slot's reads.
type Redis struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewRedis returns the Port on rdb under prefix ("sf" when empty).
func NewRedis(rdb redis.UniversalClient, prefix string) *Redis {
	if prefix == "" {
		prefix = "sf"
	}
	return &Redis{rdb: rdb, prefix: prefix + ":{webhooks}:"}
}

func (r *Redis) Create(ctx context.Context, h Hook) error {
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

func (r *Redis) Save(ctx context.Context, h Hook) (bool, error) {
	v, err := json.Marshal(h)
	if err != nil {
		return false, err
	}
	err = r.rdb.SetXX(ctx, r.prefix+"hook:"+h.ID, v, redis.KeepTTL).Err()
	if err == redis.Nil {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

func (r *Redis) List(ctx context.Context) ([]Hook, error) {
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
	var out []Hook
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue // deleted meanwhile
		}
		var h Hook
		if err := json.Unmarshal([]byte(s), &h); err != nil {
			return nil, slotfare.E(slotfare.Op("webhooks.List"), slotfare.Other, "hook "+ids[i]+" does not decode: "+err.Error())
		}
		out = append(out, h)
	}
	return sorted(out), nil
}

func (r *Redis) Delete(ctx context.Context, id string) (bool, error) {
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

func (r *Redis) Close() error { return nil }
