package redisstore

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/redis/go-redis/v9"
)

// library is slotfare's function library on Redis (Redis 7's FUNCTION
// LOAD): the inventory's operations, the guarded steps, the write of
// records and the changes of API keys, with the helpers they share. A script's top level runs on every
// call, and for these steps it defines some forty helpers: about 36,000 of
// Redis's instructions a call, two calls a flow, 9% of what Redis does for
// a flow. A library's top level runs once, when Redis loads it.
//
// Its name is made from its code, so that replicas of two slotfare
// versions sharing a Redis each call their own library. A server that lacks
// it (a new server, a new master, a FUNCTION FLUSH) is given it on the
// first call that finds it missing (libFunc.Run, pipelined); the append-only
// file keeps it across restarts.
var library = newLibrary(
	"local WRITE_TTL = "+writeMarkerTTL+"\n"+inventoryLib+accountLua+applyLua+runningLua+claimLua+apiKeysLua+coReservationsLua+runsLua+demandLua,
	map[string]string{
		"inventory":   "readLayout()\n" + inventoryLua,
		"guarded":     "readLayout()\n" + guardedLua,
		"apply":       applyLuaStep,
		"applyfenced": applyFencedStep,
		"keycreate":   "return keyCreate()",
		"keyrevoke":   "return keyRevoke()",
		"keyadopt":    "return keyAdopt()",
		"coput":       "return coPut()",
		"codue":       "return coDue()",
		"coadopt":     "return coAdopt()",
		"runappend":   "return runAppend()",
		"runnewest":   "return runNewest()",
		"demandcount": "return demandCount()",
		"running":     "return runningNodes()",
	})

var (
	inventoryFunc   = library.fn("inventory")
	guardedFunc     = library.fn("guarded")
	applyFunc       = library.fn("apply")
	applyFencedFunc = library.fn("applyfenced")
	keyCreateFunc   = library.fn("keycreate")
	keyRevokeFunc   = library.fn("keyrevoke")
	keyAdoptFunc    = library.fn("keyadopt")
)

// functionLibrary is a Redis function library: its name, and its code.
type functionLibrary struct {
	name string
	code string
}

// newLibrary makes a library of the helpers (Lua whose top level defines
// locals) and the functions, by name, each a body that reads its keys and
// arguments from KEYS and ARGV as a script's does: the library keeps them
// in locals of its own, which each function sets from the call's before it
// runs its body.
func newLibrary(helpers string, bodies map[string]string) *functionLibrary {
	names := make([]string, 0, len(bodies))
	for n := range bodies {
		names = append(names, n)
	}
	sort.Strings(names)
	var code strings.Builder
	code.WriteString("local KEYS, ARGV\n")
	code.WriteString(helpers)
	for _, n := range names {
		code.WriteString("\nlocal function step_" + n + "()\n" + bodies[n] + "\nend\n")
	}
	sum := sha1.Sum([]byte(code.String()))
	l := &functionLibrary{name: "slotfare_" + hex.EncodeToString(sum[:8])}
	var reg strings.Builder
	for _, n := range names {
		reg.WriteString("redis.register_function('" + l.name + "_" + n + "', function(keys, args) KEYS, ARGV = keys, args return step_" + n + "() end)\n")
	}
	l.code = "#!lua name=" + l.name + "\n" + code.String() + reg.String()
	return l
}

// fn is the library's function made from body name.
func (l *functionLibrary) fn(name string) libFunc {
	return libFunc{lib: l, name: l.name + "_" + name}
}

// load loads the library on the server, or on every master of a cluster,
// replacing the same library where it is loaded already (as two replicas
// finding it missing at once both do: either load serves both).
func (l *functionLibrary) load(ctx context.Context, rdb redis.UniversalClient) error {
	return OnEachServer(ctx, rdb, func(ctx context.Context, c *redis.Client) error {
		return c.FunctionLoadReplace(ctx, l.code).Err()
	})
}

// OnEachServer runs f on rdb's server, or on every master of a cluster
// (concurrently, one goroutine a master): for what is not kept under a
// key, as a function library, and so lives on each server.
func OnEachServer(ctx context.Context, rdb redis.UniversalClient, f func(context.Context, *redis.Client) error) error {
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		return c.ForEachMaster(ctx, f)
	case *redis.Client:
		return f(ctx, c)
	}
	return fmt.Errorf("redisstore: a client of type %T is neither a server's nor a cluster's", rdb)
}

// LoadLibrary loads slotfare's function library on the server, or on every
// master of a cluster. serve calls it at start, so that a Redis that cannot
// take it (before 7.0, or with FUNCTION denied to slotfare's user) is
// refused then, not at the first booking; the library is loaded again
// wherever it goes missing later.
func LoadLibrary(ctx context.Context, rdb redis.UniversalClient) error {
	return library.load(ctx, rdb)
}

// libFunc is one function of a library.
type libFunc struct {
	lib  *functionLibrary
	name string
}

// Run calls the function with keys and args, loading the library first
// where the server answers that it lacks it.
func (f libFunc) Run(ctx context.Context, rdb redis.UniversalClient, keys []string, args ...any) *redis.Cmd {
	cmd := rdb.FCall(ctx, f.name, keys, args...)
	if !functionMissing(cmd.Err()) {
		return cmd
	}
	if err := f.lib.load(ctx, rdb); err != nil {
		failed := redis.NewCmd(ctx)
		failed.SetErr(err)
		return failed
	}
	return rdb.FCall(ctx, f.name, keys, args...)
}

// queue queues a call of the function in p (pipelined).
func (f libFunc) queue(ctx context.Context, p redis.Pipeliner, keys []string, args ...any) *redis.Cmd {
	return p.FCall(ctx, f.name, keys, args...)
}

// functionMissing reports whether err is the server's answer to a call of
// a function it does not have.
func functionMissing(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "ERR Function not found")
}
