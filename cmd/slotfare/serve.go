package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/api"
	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/boltstore/coreservebolt"
	"slotfare/booking/boltstore/runsbolt"
	"slotfare/booking/config"
	"slotfare/booking/coreserve"
	"slotfare/booking/deploy"
	"slotfare/booking/dirlock"
	"slotfare/booking/embedded"
	"slotfare/booking/events"
	"slotfare/booking/logconvert"
	"slotfare/booking/redisstore"
	"slotfare/booking/runs"
	"slotfare/booking/service"
	"slotfare/booking/webhooks"
	"slotfare/ledger/recordlog"
)

func init() {
	register("serve", command{
		summary: "run the HTTP service (demo configuration unless --config)",
		run:     runServe,
	})
}

func runServe(args []string, stdout, stderr io.Writer) error {
	f, err := parseServeFlags(args, stderr)
	if err != nil {
		return err
	}
	lw := newLogWriter(stderr)
	defer lw.Close()
	log := slog.New(flushingHandler{slog.NewJSONHandler(lw, nil), lw})
	if f.pprof != "" {
		if err := startPprof(f.pprof, log); err != nil {
			return err
		}
	}
	// Signals are caught from here on: a SIGTERM that comes as soon as
	// /readyz answers (a supervisor, a test) is a clean shutdown, not the
	// default death by signal.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM) // the command's root
	defer stop()
	so := serviceOptions{Addr: f.addr, DataDir: f.data, ConfigFile: f.configFile, Logger: log, CoRecoverAfter: f.coRecoverAfter,
		DemoKeysRevocable: true, Empty: !f.demo, EventsKeep: f.eventsKeep, WebhooksAllowPrivate: f.hooksPrivate}
	if len(f.redisURLs) > 0 {
		rdb, err := connectSharedRedis(f, log, stdout, stderr)
		if err != nil {
			return err
		}
		defer func() {
			// Closed after the service: its last writes go first.
			if err := rdb.Close(); err != nil {
				log.Error("closing the Redis client", "err", err.Error())
			}
		}()
		so.Redis, so.RedisPrefix = rdb, f.redisPrefix
	}
	srv, err := startService(ctx, so)
	if err != nil {
		return err
	}
	// The keys first: the address line is what scripts wait for.
	if err := announceStart(ctx, srv.Service, f.demo && f.configFile == "", stdout, stderr); err != nil {
		_ = srv.Shutdown(context.Background()) // a failed start: no requests to wait for
		return err
	}
	fmt.Fprintf(stdout, "slotfare: listening on http://%s (data in %s)\n", srv.Addr, srv.DataDir)
	return serveUntilStopped(ctx, srv, log)
}

// serveFlags are serve's command line.
type serveFlags struct {
	addr, data, configFile string
	store                  string
	demo                   bool
	redisURLs              []string
	redis                  redisTarget
	redisUnsafe            bool
	redisPrefix            string
	coRecoverAfter         time.Duration
	eventsKeep             int
	hooksPrivate           bool
	pprof                  string
}

// parseServeFlags reads serve's command line and checks it whole: every
// flag with a problem is named at once.
func parseServeFlags(args []string, stderr io.Writer) (serveFlags, error) {
	var f serveFlags
	fs := newFlags("serve", stderr)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "listen address (host:port; port 0 picks a free one)")
	fs.StringVar(&f.data, "data", "./data", "directory of the embedded durable store (created if missing)")
	fs.StringVar(&f.configFile, "config", "", "configuration file (JSON); the demo configuration when empty")
	fs.BoolVar(&f.demo, "demo", true, "without --config, start on the demo's resources and keys; --demo=false starts with none but a provider key, made and printed once, to configure over the API")
	var redisFlag redisURLs
	fs.Var(&redisFlag, "redis", "redis://[user:password@]host:port[/db] of the Redis that replicas share (bookings, admission, keys of idempotency, leases, resources); repeat it with each master of a Redis Cluster; a URL with a password is better given by --redis-file or $"+redisEnv+" (the command line is visible to every user of the host); off (the embedded store) when none of the three is given")
	redisFile := fs.String("redis-file", "", "file holding the Redis URLs, one per line (# comments), e.g. a mounted secret; instead of --redis")
	fs.BoolVar(&f.redisUnsafe, "redis-unsafe", false, "start on a Redis that is not set to appendonly yes and appendfsync always (acknowledged bookings can be lost if Redis crashes)")
	fs.StringVar(&f.redisPrefix, "redis-prefix", "sf", "prefix of every Redis key: replicas that share state use the same one")
	fs.StringVar(&f.store, "store", "bbolt", "embedded durable store under --data: bbolt, the only one (slotfare store convert moves a directory the old log store wrote into it)")
	fs.DurationVar(&f.coRecoverAfter, "co-recover-after", coreserve.DefaultRecoverAfter, "how long a co-reservation may sit half committed or half cancelled before this process takes it over, its broker presumed dead (on --redis, another replica's); at least 1s")
	fs.IntVar(&f.eventsKeep, "events-keep", events.DefaultKeep, "how many events the event log (GET /v1/events, webhooks) keeps, the oldest dropped first; per resource on --redis")
	fs.BoolVar(&f.hooksPrivate, "webhooks-allow-private", false, "let webhooks call http URLs and loopback, private or link-local addresses (tests, a receiver on the same host); without it a webhook URL must be https to a public address")
	fs.StringVar(&f.pprof, "pprof", "", "serve Go's net/http/pprof on this separate address (e.g. 127.0.0.1:6060); off when empty")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	var bad flagProblems
	var err error
	f.redisURLs, err = redisURLsFrom(redisFlag, *redisFile, flagSet(fs, "redis-file"), os.Getenv)
	bad.add(err)
	if len(f.redisURLs) > 0 {
		f.redis, err = parseRedis(f.redisURLs)
		bad.add(err)
	} else if err == nil {
		if f.redisUnsafe {
			bad.add(badFlag("redis-unsafe", "only means something with --redis"))
		}
		if flagSet(fs, "redis-prefix") {
			bad.add(badFlag("redis-prefix", "only means something with --redis"))
		}
	}
	bad.add(checkRedisPrefix(f.redisPrefix))
	f.check(fs, &bad)
	return f, bad.err()
}

// check adds the problems of the flags that need no Redis to bad.
func (f serveFlags) check(fs *flag.FlagSet, bad *flagProblems) {
	if flagSet(fs, "demo") && f.configFile != "" {
		bad.add(badFlag("demo", "only means something without --config"))
	}
	if flagSet(fs, "config") && f.configFile == "" {
		bad.add(badFlag("config", "must name a file"))
	}
	if f.data == "" {
		bad.add(badFlag("data", "must name a directory"))
	}
	bad.add(checkStoreKind(f.store))
	if f.coRecoverAfter < time.Second {
		bad.add(badFlag("co-recover-after", "must be at least 1s (a live broker's commit must not be taken over), got %s", f.coRecoverAfter))
	}
	if f.eventsKeep < 1 {
		bad.add(badFlag("events-keep", "must be at least 1, got %d", f.eventsKeep))
	}
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		bad.add(badFlag("addr", "must be host:port: %v", err))
	}
	if f.pprof != "" {
		if _, _, err := net.SplitHostPort(f.pprof); err != nil {
			bad.add(badFlag("pprof", "must be host:port: %v", err))
		}
	}
}

// startPprof serves Go's profiler on its own address, apart from the API.
func startPprof(addr string, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return slotfare.E(slotfare.Invalid, slotfare.Field("--pprof"), err.Error())
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() {
		// The profiler is a side door: when it stops, say so and serve on.
		if err := http.Serve(ln, mux); err != nil {
			log.Error("pprof server stopped", "err", err)
		}
	}()
	log.Info("pprof", "addr", ln.Addr().String())
	return nil
}

// connectSharedRedis connects to the Redis the replicas share and says
// so, with what could not be checked of its durability as warnings.
func connectSharedRedis(f serveFlags, log *slog.Logger, stdout, stderr io.Writer) (redis.UniversalClient, error) {
	redis.SetLogger(redisLog{log})
	rdb, warnings, err := openRedis(f.redis, f.redisUnsafe)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, "slotfare serve: warning:", w)
		log.Warn("redis", "warning", w)
	}
	fmt.Fprintf(stdout, "slotfare: shared state on Redis %s (keys %s:*)\n", f.redis.show, f.redisPrefix)
	return rdb, nil
}

// serveUntilStopped waits for a signal or the HTTP server's failure, then
// shuts the service down, letting requests in flight finish for up to 15 s.
func serveUntilStopped(ctx context.Context, srv *runningService, log *slog.Logger) error {
	select {
	case <-ctx.Done():
		log.Info("shutting down", "reason", "signal")
	case err := <-srv.Done:
		if err != nil {
			_ = srv.Shutdown(context.Background()) // the server failed: no requests to wait for
			return slotfare.E(slotfare.Op("serve"), slotfare.Other, err)
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second) // ctx is done: the shutdown's own deadline
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return slotfare.E(slotfare.Op("serve"), slotfare.Other, "shutdown", err)
	}
	log.Info("stopped")
	return nil
}

// serviceOptions say how to start the service (serve and bench api share it).
type serviceOptions struct {
	Addr       string
	DataDir    string
	ConfigFile string // "" = the demo configuration
	Config     []byte // used when ConfigFile is "" and Config is not nil
	// DemoKeysRevocable gives the demo's keys to the Keys port as keys
	// made over the API (revocable, for good) instead of keeping them as
	// the configuration's (serve; bench api keeps them as the file's).
	DemoKeysRevocable bool
	// Empty starts without the demo's resources and keys (serve
	// --demo=false): only its service-wide settings.
	Empty  bool
	Logger *slog.Logger
	Now    func() time.Time
	// Redis, when not nil, holds the ports shared with other replicas
	// (service.Ports), their keys under RedisPrefix; the store under
	// DataDir keeps only what this replica stored before (API keys made
	// before they moved to the shared catalog).
	Redis       redis.UniversalClient
	RedisPrefix string
	// CoRecoverAfter is coreserve.Options.RecoverAfter (its default when
	// zero).
	CoRecoverAfter time.Duration
	// EventsKeep is service.Options.EventsKeep.
	EventsKeep int
	// WebhooksAllowPrivate is webhooks.Options.AllowPrivate.
	WebhooksAllowPrivate bool
}

// runningService is a started service: the listener's address and a way to
// stop everything in order (HTTP, ticker, booking service and store).
type runningService struct {
	Addr    string
	DataDir string
	Service *service.Service
	Done    <-chan error // the HTTP server's exit (nil error after Shutdown)

	broker   *coreserve.Broker
	coStore  coreserve.Store
	runStore runs.Store
	hooks    *webhooks.Service
	hookPort webhooks.Port
	http     *http.Server
	// loops is what the ticker and the webhook deliveries run under:
	// Shutdown cancels it (stopLoops), so a step waiting on a store returns.
	loops     context.Context
	stopLoops context.CancelFunc
	tickDone  chan struct{}
	// hooksDone is closed when the webhook deliveries have stopped.
	hooksDone chan struct{}
	once      sync.Once
}

// startService loads the configuration, opens the store, the booking
// service and the HTTP layer, starts the one-second ticker and listens.
// ctx bounds the work done at start (settling co-reservations a dead
// process left); the service then runs until Shutdown.
func startService(ctx context.Context, o serviceOptions) (*runningService, error) {
	tuneRuntime()
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	cfg, seedKeys, err := loadConfig(o)
	if err != nil {
		return nil, err
	}
	abs, store, err := openDataDir(o.DataDir)
	if err != nil {
		return nil, err
	}
	metrics := api.NewMetrics()
	svc, runStore, err := openBookings(o, cfg, store, seedKeys, metrics, abs)
	if err != nil {
		return nil, err
	}
	runSvc := runs.NewService(runStore, svc, runs.Options{Now: o.Now, Limits: cfg.Runs})
	coStore, broker, err := openCoReservations(ctx, o, svc, runSvc, metrics, abs)
	if err != nil {
		return nil, errors.Join(err, svc.Close(), runStore.Close())
	}
	// Webhooks are kept beside the store (webhooks.db) or on the shared
	// Redis; the replica holding the "webhooks" lease delivers.
	var hookPort webhooks.Port
	if o.Redis != nil {
		hookPort = redisstore.NewWebhooks(o.Redis, o.RedisPrefix)
	} else if hookPort, err = boltstore.OpenWebhooks(o.DataDir); err != nil {
		return nil, errors.Join(slotfare.E(slotfare.Op("serve"), slotfare.Other, "opening the webhooks in "+abs, err), svc.Close(), coStore.Close(), runStore.Close())
	}
	hooks := webhooks.New(hookPort, svc.EventsAs, svc.AppendEvents, webhooks.Options{AllowPrivate: o.WebhooksAllowPrivate})
	e := api.New(svc, api.Options{Logger: o.Logger, Metrics: metrics, Ready: readiness(svc, o.Redis), CoReservations: broker, Runs: runSvc, Webhooks: hooks})
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, errors.Join(slotfare.E(slotfare.Invalid, slotfare.Field("--addr"), err.Error()), svc.Close(), coStore.Close(), runStore.Close(), hookPort.Close())
	}
	// The loops outlive ctx, which bounds the start only.
	loops, stopLoops := context.WithCancel(context.Background())
	rs := &runningService{
		Addr: ln.Addr().String(), DataDir: abs, Service: svc, broker: broker, coStore: coStore, runStore: runStore, hooks: hooks, hookPort: hookPort,
		// Bodies are at most 1 MiB: a client that takes 30 s to send one,
		// or to read an answer, is holding a connection, not using it.
		http: &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
			WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute,
			ErrorLog: slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn)},
		loops: loops, stopLoops: stopLoops, tickDone: make(chan struct{}), hooksDone: make(chan struct{}),
	}
	rs.start(ln, o.Logger, o.Now)
	return rs, nil
}

// tuneRuntime sets the garbage collector and the number of Ps for a
// server, unless the environment sets them.
func tuneRuntime() {
	// The service's live heap is small (bookings in memory, a few MB) and
	// its garbage is per request: collecting at 5x the live heap instead of
	// 2x cut the CPU per flow of bench api by about a tenth (the git
	// history of docs/benchmarks.md and README.md). An explicit GOGC in the
	// environment wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	// Two Ps per core unless GOMAXPROCS is set: the store's writer blocks
	// in fsync for milliseconds and every response is a blocking socket
	// write, and a P whose thread sits in a blocking system call goes back to
	// work only once the runtime hands it to another thread. In alternating
	// bench api runs, one P per core gave a flow p99 of 43-45 ms, two gave
	// 32-39 ms at a fifth more flows per second (README "API benchmark").
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(2 * runtime.NumCPU())
	}
}

// loadConfig reads the configuration (the file, the bytes given, or the
// demo's) and the keys to seed: the demo's, made revocable, when asked.
func loadConfig(o serviceOptions) (config.Config, []booking.KeyRecord, error) {
	cfgData := slotfare.DemoConfig
	if o.ConfigFile != "" {
		b, err := os.ReadFile(o.ConfigFile)
		if err != nil {
			return config.Config{}, nil, slotfare.E(slotfare.Invalid, slotfare.Field("--config"), err.Error())
		}
		cfgData = b
	} else if o.Config != nil {
		cfgData = o.Config
	}
	cfg, err := config.DecodeConfig(cfgData)
	if err != nil {
		if slotfare.KindOf(err) == slotfare.Invalid {
			return config.Config{}, nil, slotfare.E(slotfare.Invalid, slotfare.Field("--config"), err.Error())
		}
		return config.Config{}, nil, err
	}
	var seedKeys []booking.KeyRecord
	if demo := o.ConfigFile == "" && o.Config == nil; demo && o.Empty {
		cfg.Keys, cfg.Resources = nil, nil
	} else if demo && o.DemoKeysRevocable {
		seedKeys = demoKeyRecords(cfg.Keys, time.Now())
		cfg.Keys = nil
	}
	return cfg, seedKeys, nil
}

// openDataDir makes the data directory if missing and opens the bbolt
// store in it; it refuses a directory the old log store wrote, which must
// be converted first. abs is the directory's absolute path, for messages.
func openDataDir(dir string) (abs string, store *boltstore.Store, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, slotfare.E(slotfare.Invalid, slotfare.Field("--data"), err.Error())
	}
	abs, err = filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	if err := unconverted(abs); err != nil {
		return "", nil, err
	}
	store, err = boltstore.Open(dir, boltstore.Options{})
	if err != nil {
		if e := refusedStore(err, abs); e != nil {
			return "", nil, e
		}
		return "", nil, slotfare.E(slotfare.Op("serve"), slotfare.Other, "opening the store in "+abs, err)
	}
	return abs, store, nil
}

// openBookings opens the booking service on store (on the shared Redis
// ports when o.Redis is set) with the recorded runs it completes bookings
// into. On failure it closes store.
func openBookings(o serviceOptions, cfg config.Config, store *boltstore.Store, seedKeys []booking.KeyRecord, metrics *api.Metrics, abs string) (*service.Service, runs.Store, error) {
	sopts := service.Options{
		Now: o.Now, Logger: o.Logger, SeedKeys: seedKeys,
		OnTransition:   func(from, to booking.Status) { metrics.Transition(string(from), string(to)) },
		OnTickError:    metrics.TickError,
		OnControlError: metrics.ControlError,
		EventsKeep:     o.EventsKeep,
	}
	// Recorded runs, that durations are predicted from, are on their own
	// port too: runs.db beside the store, or the shared Redis, so a run
	// posted to one replica is in every replica's next prediction. The
	// service records there the run of each booking that named a profile
	// as it completes it.
	var runStore runs.Store
	var err error
	if o.Redis != nil {
		runStore = redisstore.NewRuns(o.Redis, o.RedisPrefix)
	} else if runStore, err = runsbolt.Open(o.DataDir); err != nil {
		_ = store.Close()
		return nil, nil, slotfare.E(slotfare.Op("serve"), slotfare.Other, "opening the runs in "+abs, err)
	}
	sopts.OnComplete = runs.RecordCompleted(runStore, o.Now, runs.LimitsOf(cfg.Runs))
	ports, err := bookingPorts(o, store, &sopts)
	var svc *service.Service
	if err == nil {
		svc, err = service.Open(cfg, ports, sopts)
	}
	if err != nil {
		_ = store.Close()
		_ = runStore.Close()
		if e := refusedStore(err, abs); e != nil {
			return nil, nil, e
		}
		return nil, nil, err
	}
	return svc, runStore, nil
}

// bookingPorts are the service's ports: the embedded ports over store, or
// the shared Redis's when o.Redis is set. There, API keys an older
// slotfare kept in the replica's own store are given to the Redis keys
// (opts.SeedKeys), and the service closes store when it closes.
func bookingPorts(o serviceOptions, store *boltstore.Store, opts *service.Options) (service.Ports, error) {
	ctx := context.Background() // opening: no request's
	if o.Redis == nil {
		return deploy.Embedded(ctx, store, embedded.Options{})
	}
	local, err := store.Load(ctx)
	if err != nil {
		return service.Ports{}, err
	}
	opts.SeedKeys = append(opts.SeedKeys, local.Keys...)
	ports := deploy.Redis(o.Redis, o.RedisPrefix)
	ports.Close = store.Close
	return ports, nil
}

// readiness is /readyz's check: the service's, and with a shared Redis a
// ping of it too, within the request's ctx.
func readiness(svc *service.Service, rdb redis.UniversalClient) func(ctx context.Context) error {
	var pingRedis func(context.Context) error
	if rdb != nil {
		pingRedis = redisReady(rdb)
	}
	return func(ctx context.Context) error {
		if err := svc.Ready(); err != nil || pingRedis == nil {
			return err
		}
		return pingRedis(ctx)
	}
}

// openCoReservations opens the co-reservation broker and settles what a
// dead process left half way. The broker keeps its records on its own
// port: a file beside the store's (booking/boltstore/coreservebolt), or with
// --redis on the Redis the replicas share (redisstore.CoReservations). It reaches
// the bookings through the service's public operations only.
func openCoReservations(ctx context.Context, o serviceOptions, svc *service.Service, runSvc *runs.Service, metrics *api.Metrics, abs string) (coreserve.Store, *coreserve.Broker, error) {
	var coStore coreserve.Store
	var err error
	if o.Redis != nil {
		coStore = redisstore.NewCoReservations(o.Redis, o.RedisPrefix)
	} else if coStore, err = coreservebolt.Open(o.DataDir); err != nil {
		return nil, nil, slotfare.E(slotfare.Op("serve"), slotfare.Other, "opening the co-reservations in "+abs, err)
	}
	broker := coreserve.New(svc, coStore, coreserve.Options{Now: o.Now, Logger: o.Logger, OnOutcome: metrics.CoReservation,
		RecoverAfter: o.CoRecoverAfter, Durations: runSvc.Predictor()})
	// What a dead process left half way is finished before anyone reads it:
	// at once on the data directory, which is this process's alone; on a
	// shared Redis only once it is RecoverAfter old, since another replica
	// may be at it.
	settle := broker.Takeover
	if o.Redis != nil {
		settle = broker.Recover
	}
	if n, err := settle(ctx); err != nil {
		o.Logger.Error("co-reservations left unsettled at start (retried every tick)", "err", err.Error())
	} else if n > 0 {
		o.Logger.Info("co-reservations settled at start", "count", n)
	}
	return coStore, broker, nil
}

// start serves HTTP on ln and starts the ticker and the webhook
// deliveries; Done reports the HTTP server's exit.
func (rs *runningService) start(ln net.Listener, log *slog.Logger, now func() time.Time) {
	done := make(chan error, 1)
	rs.Done = done
	go func() {
		err := rs.http.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		done <- err
	}()
	go rs.tick(log, now)
	go rs.deliver(log, now)
}

// refusedStore turns a store's refusal to open into a usage error (exit 2)
// that says what to do: another slotfare holds the directory, or the
// store's file is damaged (left as it was; store check tells what is
// intact). It returns nil for any other failure.
func refusedStore(err error, dir string) error {
	var inUse *dirlock.InUse
	if errors.As(err, &inUse) {
		return slotfare.E(slotfare.Invalid, inUse.Error())
	}
	var d *recordlog.Damage
	if errors.As(err, &d) {
		return slotfare.E(slotfare.Invalid, fmt.Sprintf("refusing to start: %v; the file was not changed "+
			"(only a torn last write is cut on start, never acknowledged data); "+
			"run 'slotfare store check --data %s' for what is intact", d, dir))
	}
	return nil
}

// checkStoreKind accepts bbolt, the one embedded store, and tells whoever
// still asks for the log store how to move its data.
func checkStoreKind(kind string) error {
	switch kind {
	case "bbolt":
		return nil
	case "log":
		return slotfare.E(slotfare.Invalid, slotfare.Field("--store"), "the log store is gone: run 'slotfare store convert --data DIR' "+
			"once to move its directory into bbolt, then leave --store out")
	}
	return slotfare.E(slotfare.Invalid, slotfare.Field("--store"), fmt.Sprintf("must be bbolt, not %q", kind))
}

// unconverted refuses a data directory that still holds the old log
// store's log: started there, the service would find an empty store and
// take new bookings the log's would then clash with.
func unconverted(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, logconvert.FileName)); err != nil {
		return nil
	}
	return slotfare.E(slotfare.Invalid, slotfare.Field("--data"), fmt.Sprintf("%s holds %s, written by the old log store; "+
		"run 'slotfare store convert --data %s' once to move it into bbolt", dir, logconvert.FileName, dir))
}

// tick drives the booking life cycle in the background: hold expiry, starts
// (shows, denials), no-shows after the grace period, completions; then the
// co-reservations due (coreserve.Broker.Recover: a whole expired when a
// part's hold did, a commit or cancel a dead broker left half way finished
// or undone), once at start and after every tick.
func (rs *runningService) tick(log *slog.Logger, now func() time.Time) {
	defer close(rs.tickDone)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	settle := func() {
		if _, err := rs.broker.Recover(rs.loops); err != nil {
			log.Error("co-reservation recovery failed", "err", err.Error())
		}
	}
	settle()
	for {
		select {
		case <-rs.loops.Done():
			return
		case <-t.C:
			if err := rs.Service.Tick(now()); err != nil {
				log.Error("tick failed", "err", err.Error())
			}
			settle()
		}
	}
}

// hooksLease is how long a replica delivers webhooks without renewing
// its lease: another takes over that long after it dies.
const hooksLease = 10 * time.Second

// deliver sends the event log to the webhooks every second, on the replica
// holding the "webhooks" lease only, apart from the booking ticker (a slow
// receiver must not hold up the life cycle).
func (rs *runningService) deliver(log *slog.Logger, now func() time.Time) {
	defer close(rs.hooksDone)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	ctx := rs.loops
	for {
		select {
		case <-rs.loops.Done():
			return
		case <-t.C:
			at := now()
			if held, err := rs.Service.HoldsLease(ctx, "webhooks", hooksLease, at); err != nil {
				log.Error("webhooks lease", "err", err.Error())
			} else if held {
				if err := rs.hooks.Step(ctx, at); err != nil {
					log.Warn("webhook delivery failed (retried with backoff)", "err", err.Error())
				}
			}
		}
	}
}

// Shutdown stops accepting requests, lets in-flight ones finish (up to
// ctx), stops the ticker and closes the service and its store.
func (rs *runningService) Shutdown(ctx context.Context) error {
	var err error
	rs.once.Do(func() {
		err = rs.http.Shutdown(ctx)
		rs.stopLoops()
		<-rs.tickDone
		<-rs.hooksDone
		if cerr := rs.Service.Close(); err == nil {
			err = cerr
		}
		if cerr := rs.coStore.Close(); err == nil {
			err = cerr
		}
		if cerr := rs.runStore.Close(); err == nil {
			err = cerr
		}
		if cerr := rs.hookPort.Close(); err == nil {
			err = cerr
		}
	})
	return err
}

// demoKeyRecords are the demo configuration's keys as the Keys port keeps
// keys made over the API.
func demoKeyRecords(keys []config.KeyConfig, at time.Time) []booking.KeyRecord {
	out := make([]booking.KeyRecord, len(keys))
	for i, k := range keys {
		out[i] = booking.KeyRecord{Name: k.Name, KeySHA256: k.KeySHA256, Role: k.Role, AccountID: k.AccountID, VO: string(k.VO), CreatedAt: at.UTC().Truncate(time.Second)}
	}
	return out
}

// announceStart says what the service started on: the demo, loudly, with
// its keys (known to anyone who has read the README); or, when no provider
// key exists (--demo=false, a configuration file without one), the
// provider key it made, printed this once.
func announceStart(ctx context.Context, svc *service.Service, demo bool, stdout, stderr io.Writer) error {
	if !demo {
		k, made, err := svc.FirstProviderKey(ctx, "provider", "provider")
		if err != nil {
			return err
		}
		if made {
			fmt.Fprintln(stdout, "slotfare: no provider key existed; the one below is shown this once (configure with it: PUT /v1/resources/{id}, POST /v1/keys):")
			fmt.Fprintf(stdout, "  %s role provider, account provider\n", k.Key)
		}
		return nil
	}
	fmt.Fprintln(stderr, "slotfare serve: warning: THIS IS THE DEMO: no --config was given, so it runs the demo's resources with keys")
	fmt.Fprintln(stderr, "slotfare serve: warning: printed below and in the README; anyone who knows them can book. Use --config FILE,")
	fmt.Fprintln(stderr, "slotfare serve: warning: or --demo=false to start empty; revoke a demo key with DELETE /v1/keys/{name}.")
	fmt.Fprintln(stdout, "slotfare: DEMO configuration; API keys (Authorization: Bearer <key>):")
	for _, k := range slotfare.DemoKeys {
		desc := "role " + k.Role + ", account " + k.AccountID
		if k.VO != "" {
			desc += ", VO " + k.VO
		}
		fmt.Fprintf(stdout, "  %-14s %s\n", k.Key, desc)
	}
	return nil
}
