package main

// --redis: the ports several replicas share, on one Redis server or a Redis
// Cluster (README "Redis").

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/redisstore"
)

// redisURLs is the repeatable --redis flag: one URL names one server, two or
// more name seed masters of a Redis Cluster (the client finds the others).
// Repeating the flag, rather than a URL form of our own, keeps each address
// a plain redis:// URL that redis-cli and go-redis read the same way.
type redisURLs []string

func (u *redisURLs) String() string { return strings.Join(*u, ",") }

func (u *redisURLs) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("must be a redis:// URL")
	}
	*u = append(*u, s)
	return nil
}

// redisTarget is what --redis names, parsed: the options of one server or
// of a cluster.
type redisTarget struct {
	single  *redis.Options
	cluster *redis.ClusterOptions
	// show is the target without credentials, for messages.
	show string
}

// redisDialTimeout bounds one connection attempt: with Redis down a
// request fails in about a second (go-redis's retries included) and is
// answered 503, rather than holding its client for the default 5 s.
const redisDialTimeout = time.Second

// redisPoolSize is each replica's number of connections to Redis (per
// master of a cluster) unless the URL sets pool_size. A request holds one
// for each round trip, so go-redis's default (10 per P: 20 on two cores)
// lets only 20 of a replica's requests wait on Redis at once; while Redis
// waits on a slow fsync of its append-only file the others queue for a
// connection, not for Redis, and cannot join its next batch. Redis takes
// thousands of clients, and go-redis closes idle connections. (On bench
// api, 64 clients on one replica, alternating runs with 20 and 200 gave no
// difference the machine's noise did not swamp: docs/benchmarks.md.)
const redisPoolSize = 256

// parseRedis reads the --redis URLs. Every problem is a usage error naming
// --redis: a URL go-redis cannot read, or a database other than 0 for a
// cluster (a cluster has only database 0).
func parseRedis(urls []string) (redisTarget, error) {
	var t redisTarget
	if len(urls) == 0 {
		return t, badFlag("redis", "needs a redis://host:port URL")
	}
	var opts []*redis.Options
	var shown []string
	for _, u := range urls {
		o, err := redis.ParseURL(u)
		if err != nil {
			return t, badFlag("redis", "%q is not a Redis URL (redis://[user:password@]host:port[/db], rediss:// for TLS, or unix:///path/to/redis.sock): %v", redactURL(u), err)
		}
		opts = append(opts, o)
		shown = append(shown, redactURL(u))
	}
	t.show = strings.Join(shown, " ")
	if len(opts) == 1 {
		o := opts[0]
		o.DialTimeout = redisDialTimeout
		if o.PoolSize == 0 {
			o.PoolSize = redisPoolSize
		}
		t.single = o
		return t, nil
	}
	first := opts[0]
	c := &redis.ClusterOptions{Username: first.Username, Password: first.Password, TLSConfig: first.TLSConfig,
		DialTimeout: redisDialTimeout, PoolSize: first.PoolSize}
	if c.PoolSize == 0 {
		c.PoolSize = redisPoolSize
	}
	for i, o := range opts {
		if o.DB != 0 {
			return t, badFlag("redis", "%s: a Redis Cluster has only database 0 (drop /%d from the URL)", shown[i], o.DB)
		}
		if o.Username != first.Username || o.Password != first.Password || (o.TLSConfig == nil) != (first.TLSConfig == nil) {
			return t, badFlag("redis", "%s: every cluster address needs the same user, password and scheme as %s", shown[i], shown[0])
		}
		c.Addrs = append(c.Addrs, o.Addr)
	}
	t.cluster = c
	return t, nil
}

// redactURL hides a URL's password, for messages and logs.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// connect makes the client and checks that the server answers and is what
// the flag says: a cluster node given alone would answer MOVED to most
// keys, so it is refused with the way to name the cluster.
func (t redisTarget) connect(ctx context.Context) (redis.UniversalClient, error) {
	if t.cluster != nil {
		c := redis.NewClusterClient(t.cluster)
		if err := c.ForEachMaster(ctx, pingServer); err != nil {
			return nil, errors.Join(unreachable(t.show, err), c.Close())
		}
		return c, nil
	}
	c := redis.NewClient(t.single)
	if err := c.Ping(ctx).Err(); err != nil {
		return nil, errors.Join(unreachable(t.show, err), c.Close())
	}
	// INFO may be disabled on a managed server; then the first MOVED says it.
	if info, err := c.Info(ctx, "cluster").Result(); err == nil && strings.Contains(info, "cluster_enabled:1") {
		return nil, errors.Join(badFlag("redis", "%s is a node of a Redis Cluster: give each master (or at least two) with its own --redis", t.show), c.Close())
	}
	return c, nil
}

// pingServer is a PING to one server.
func pingServer(ctx context.Context, c *redis.Client) error { return c.Ping(ctx).Err() }

func unreachable(target string, err error) error {
	return slotfare.E(slotfare.Op("serve"), slotfare.Unavailable, "Redis at "+target+" does not answer", err)
}

// redisConf is what redis.conf needs for slotfare's acknowledgements to
// survive a crash of Redis.
const redisConf = "    appendonly yes\n    appendfsync always"

// checkRedisDurability refuses (a usage error, exit 2) a Redis that could
// lose an acknowledged commit, on every master of a cluster, unless unsafe.
// What it could not check (CONFIG disabled), or what unsafe let pass, is
// returned as warnings for serve to print.
func checkRedisDurability(ctx context.Context, rdb redis.UniversalClient, unsafe bool) (warnings []string, err error) {
	check := func(ctx context.Context, c redis.UniversalClient, name string) error {
		d, err := redisstore.CheckDurability(ctx, c)
		if d.Unchecked != "" {
			warnings = append(warnings, name+": could not check durability: "+d.Unchecked)
		}
		if err == nil {
			return nil
		}
		if slotfare.KindOf(err) != slotfare.Invalid {
			return err
		}
		if unsafe {
			warnings = append(warnings, name+": --redis-unsafe: "+slotfare.MessageOf(err))
			return nil
		}
		return slotfare.E(slotfare.Invalid, slotfare.Field("--redis"), fmt.Sprintf(
			"refusing to start on %s: %s\nthe lines in redis.conf:\n%s",
			name, slotfare.MessageOf(err), redisConf))
	}
	_, cluster := rdb.(*redis.ClusterClient)
	// A cluster's masters are called back concurrently, one goroutine each.
	var mu sync.Mutex
	err = redisstore.OnEachServer(ctx, rdb, func(ctx context.Context, c *redis.Client) error {
		mu.Lock()
		defer mu.Unlock()
		name := "Redis at " + c.Options().Addr
		if cluster {
			name = "Redis master " + c.Options().Addr
		}
		return check(ctx, c, name)
	})
	return warnings, err
}

// redisReady is /readyz's look at Redis: a PING to the server, or to every
// master of a cluster (a resource whose master is down cannot be booked).
// It answers within a second, so that a load balancer's probe is not held.
func redisReady(rdb redis.UniversalClient) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if err := redisstore.OnEachServer(ctx, rdb, pingServer); err != nil {
			return slotfare.E(slotfare.Op("readyz"), slotfare.Unavailable, "redis", err)
		}
		return nil
	}
}

// checkRedisPrefix keeps the prefix a plain word: it is the first part of
// every key, and a brace in it would change the keys' hash slots.
func checkRedisPrefix(p string) error {
	if p == "" || strings.ContainsAny(p, "{}: \t\r\n") {
		return badFlag("redis-prefix", "must be a non-empty word without braces, colons or spaces, not %q", p)
	}
	return nil
}

// openRedis connects to the target and checks its durability (see
// checkRedisDurability): the client and what could not be checked, or why
// serve cannot start.
func openRedis(t redisTarget, unsafe bool) (redis.UniversalClient, []string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // at start, before any request
	defer cancel()
	rdb, err := t.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	warnings, err := checkRedisDurability(ctx, rdb, unsafe)
	if err != nil {
		return nil, nil, errors.Join(err, rdb.Close())
	}
	if err := loadRedisLibrary(ctx, rdb, t.show); err != nil {
		return nil, nil, errors.Join(err, rdb.Close())
	}
	return rdb, warnings, nil
}

// loadRedisLibrary loads slotfare's function library (redisstore.LoadLibrary)
// and refuses (a usage error, exit 2) a Redis that answers with a refusal:
// one before 7.0, or one that denies FUNCTION to slotfare's user.
func loadRedisLibrary(ctx context.Context, rdb redis.UniversalClient, target string) error {
	err := redisstore.LoadLibrary(ctx, rdb)
	var refused redis.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &refused):
		return slotfare.E(slotfare.Invalid, slotfare.Field("--redis"), fmt.Sprintf(
			"refusing to start on Redis at %s: it did not load slotfare's function library (%v); slotfare needs Redis 7.0 or later, with FUNCTION and FCALL allowed to its user",
			target, err))
	}
	return unreachable(target, err)
}

// redisLog turns go-redis's own messages (a pool that cannot dial) into
// the service's JSON log lines, rather than plain text on stderr between
// them.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.log.WarnContext(ctx, "redis client", "msg", fmt.Sprintf(format, v...))
}

// redisEnv names the environment variable that may carry the Redis URLs,
// so that a password in one need not appear on the command line, which
// every user of the host can read (ps, /proc/PID/cmdline).
const redisEnv = "SLOTFARE_REDIS_URL"

// redisURLsFrom picks the Redis URLs from the first of: --redis, the file
// --redis-file names (one URL per line, # comments, as a mounted secret
// holds them), the environment variable SLOTFARE_REDIS_URL (URLs separated
// by spaces or commas). Giving both flags is a mistake; the environment is
// read only when neither flag is given. None of them: the embedded store.
func redisURLsFrom(flag redisURLs, file string, fileSet bool, getenv func(string) string) ([]string, error) {
	switch {
	case len(flag) > 0 && fileSet:
		return nil, badFlag("redis-file", "give --redis or --redis-file, not both")
	case len(flag) > 0:
		return flag, nil
	case fileSet:
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, badFlag("redis-file", "cannot be read: %v", err)
		}
		var urls []string
		for _, line := range strings.Split(string(b), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				urls = append(urls, line)
			}
		}
		if len(urls) == 0 {
			return nil, badFlag("redis-file", "%s holds no redis:// URL", file)
		}
		return urls, nil
	}
	return strings.FieldsFunc(getenv(redisEnv), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }), nil
}
