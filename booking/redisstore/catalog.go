package redisstore

import (
	"context"
	"sort"
	"strconv"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/catalog"
)

// catalogPut stores a configuration if its version is still the one it
// replaces; the same body at the next version (a retry) answers that
// version.
//
//	KEYS: bodies hash, versions hash, catalog version
//	ARGV: id, body, replaces
var catalogPut = redis.NewScript(`
local have = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local want = tonumber(ARGV[3])
if have == want + 1 and redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return {'OK', have} end
if have ~= want then return {'MOVED', have} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], want + 1)
redis.call('INCR', KEYS[3])
return {'OK', want + 1}
`)

// Catalog is catalog.Port on Redis, in one hash slot ({catalog}): the
// catalog is small and read whole.
type Catalog struct {
	rdb    redis.UniversalClient
	prefix string
}

var _ catalog.Port = (*Catalog)(nil)

// NewCatalog returns the catalog on rdb under prefix ("sf" when empty).
func NewCatalog(rdb redis.UniversalClient, prefix string) *Catalog {
	if prefix == "" {
		prefix = "sf"
	}
	return &Catalog{rdb: rdb, prefix: prefix}
}

func (c *Catalog) key(k string) string { return c.prefix + ":{catalog}:" + k }

// Put implements catalog.Port.
func (c *Catalog) Put(ctx context.Context, id string, body []byte, replaces int64) (int64, error) {
	const op slotfare.Op = "redisstore.Catalog.Put"
	if err := catalog.CheckPut(id, body, replaces); err != nil {
		return 0, err
	}
	out, err := catalogPut.Run(ctx, c.rdb, []string{c.key("bodies"), c.key("versions"), c.key("version")}, id, body, replaces).Slice()
	if err != nil {
		return 0, unavailable(op, err)
	}
	if len(out) != 2 {
		return 0, unexpected(op, out)
	}
	v, _ := out[1].(int64)
	if out[0] == "MOVED" {
		return 0, catalog.ErrMoved(id, replaces, v)
	}
	return v, nil
}

// All implements catalog.Port: one MULTI/EXEC, so the documents and the
// version are read at one instant.
func (c *Catalog) All(ctx context.Context) ([]catalog.Doc, int64, error) {
	const op slotfare.Op = "redisstore.Catalog.All"
	var bodies, versions *redis.MapStringStringCmd
	var version *redis.StringCmd
	_, err := c.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		bodies = p.HGetAll(ctx, c.key("bodies"))
		versions = p.HGetAll(ctx, c.key("versions"))
		version = p.Get(ctx, c.key("version"))
		return nil
	})
	if err != nil && err != redis.Nil {
		return nil, 0, unavailable(op, err)
	}
	var total int64
	if s, err := version.Result(); err == nil {
		if total, err = strconv.ParseInt(s, 10, 64); err != nil {
			return nil, 0, unexpected(op, s)
		}
	}
	var out []catalog.Doc
	for id, body := range bodies.Val() {
		v, err := strconv.ParseInt(versions.Val()[id], 10, 64)
		if err != nil {
			return nil, 0, slotfare.E(op, slotfare.Other, "resource "+id+" has no version", err)
		}
		out = append(out, catalog.Doc{ID: id, Body: []byte(body), Version: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, total, nil
}

// Version implements catalog.Port.
func (c *Catalog) Version(ctx context.Context) (int64, error) {
	s, err := c.rdb.Get(ctx, c.key("version")).Result()
	if err == redis.Nil {
		return 0, nil
	}
	if err != nil {
		return 0, unavailable("redisstore.Catalog.Version", err)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, unexpected("redisstore.Catalog.Version", s)
	}
	return v, nil
}

// Secret implements catalog.Port: SET NX, then read what is stored.
func (c *Catalog) Secret(ctx context.Context, candidate []byte) ([]byte, error) {
	const op slotfare.Op = "redisstore.Catalog.Secret"
	if err := catalog.CheckSecret(candidate); err != nil {
		return nil, err
	}
	if err := c.rdb.SetNX(ctx, c.key("secret"), candidate, 0).Err(); err != nil {
		return nil, unavailable(op, err)
	}
	b, err := c.rdb.Get(ctx, c.key("secret")).Bytes()
	if err != nil {
		return nil, unavailable(op, err)
	}
	return b, nil
}
