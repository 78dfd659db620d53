package redisstore

import (
	"context"
	"strings"

	"github.com/redis/go-redis/v9"
)

// pipelined sends the commands and scripts fill queues in one round trip
// (on a cluster, one per master, in parallel): steps that need no answer
// from each other, such as a write's indexes under several hash slots. A
// script is sent by its hash; when the server does not know one yet
// (NOSCRIPT, after a restart or on a new master), the whole pipeline is sent
// again with the scripts' bodies, which the caller's steps allow: each is
// idempotent. Likewise, when it lacks slotfare's function library (a
// function queued with libFunc.queue), it is given the library and the
// pipeline is sent again. The first error of a command is returned.
func pipelined(ctx context.Context, rdb redis.UniversalClient, fill func(p redis.Pipeliner, script scriptFunc)) error {
	run := func(withBody bool) ([]redis.Cmder, error) {
		return rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			fill(p, func(s *redis.Script, keys []string, args ...any) *redis.Cmd {
				if withBody {
					return s.Eval(ctx, p, keys, args...)
				}
				return s.EvalSha(ctx, p, keys, args...)
			})
			return nil
		})
	}
	cmds, err := run(false)
	if err != nil && lacks(cmds, functionMissing) {
		if err := library.load(ctx, rdb); err != nil {
			return err
		}
		cmds, err = run(false)
	}
	if err != nil && lacks(cmds, scriptMissing) {
		_, err = run(true)
	}
	return err
}

// scriptFunc queues a script in a pipeline (pipelined), its answer in the
// command it returns once the pipeline has run.
type scriptFunc func(s *redis.Script, keys []string, args ...any) *redis.Cmd

// lacks reports whether a command failed for a script or function the
// server does not have (missing).
func lacks(cmds []redis.Cmder, missing func(error) bool) bool {
	for _, c := range cmds {
		if missing(c.Err()) {
			return true
		}
	}
	return false
}

// scriptMissing reports whether err is the server's answer to a script it
// does not have.
func scriptMissing(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT")
}
