package redisstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"slotfare"
)

// Durability is what CheckDurability found of a server's persistence.
type Durability struct {
	// AppendOnly and FSync are the server's appendonly and appendfsync
	// settings ("" when they could not be read).
	AppendOnly, FSync string
	// Unchecked says why they could not be read (CONFIG disabled or
	// renamed, as on managed Redis); empty when they were.
	Unchecked string
}

// CheckDurability refuses a Redis that could lose an acknowledged commit:
// slotfare acknowledges a commit once Redis has it, so Redis must write every
// command to its append-only file and sync it before answering (appendonly
// yes, appendfsync always). A server whose CONFIG cannot be read is not
// refused: what could not be checked is returned, for serve to say.
func CheckDurability(ctx context.Context, rdb redis.UniversalClient) (Durability, error) {
	const op slotfare.Op = "redisstore.CheckDurability"
	var d Durability
	vals, err := rdb.ConfigGet(ctx, "append*").Result()
	if err != nil {
		msg := err.Error()
		if strings.Contains(msg, "unknown command") || strings.Contains(msg, "NOPERM") || strings.Contains(msg, "ERR unknown") {
			d.Unchecked = "CONFIG GET is not allowed here (" + msg + "): make sure the server runs with appendonly yes and appendfsync always"
			return d, nil
		}
		return d, slotfare.E(op, slotfare.Unavailable, "redis", err)
	}
	d.AppendOnly, d.FSync = vals["appendonly"], vals["appendfsync"]
	var wrong []string
	if d.AppendOnly != "yes" {
		wrong = append(wrong, fmt.Sprintf("appendonly is %q, want yes (without the append-only file a restart loses what was acknowledged since the last snapshot)", d.AppendOnly))
	}
	if d.FSync != "always" {
		wrong = append(wrong, fmt.Sprintf("appendfsync is %q, want always (otherwise up to a second of acknowledged commits is lost on power failure)", d.FSync))
	}
	if len(wrong) > 0 {
		return d, slotfare.E(op, slotfare.Invalid, slotfare.Field("redis"),
			"the Redis server could lose acknowledged commits: "+strings.Join(wrong, "; ")+
				"; set them in redis.conf or with CONFIG SET, or accept the risk with --redis-unsafe")
	}
	return d, nil
}
