package api

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/api/dashboard"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/booking/coreserve"
	"slotfare/booking/events"
	"slotfare/booking/runs"
	"slotfare/booking/service"
	"slotfare/booking/webhooks"
	"slotfare/ledger"
	"slotfare/pricing"
)

// Backend is what the HTTP layer needs from the booking service. It is
// defined here, by its consumer, so that api depends only on the methods it
// calls; *service.Service satisfies it. Every method checks the principal's
// role and account itself: the routes' role checks in api are a first line,
// not the only one.
type Backend interface {
	Authenticate(ctx context.Context, apiKey string) (booking.Principal, error)

	PutResourceConfig(ctx context.Context, p booking.Principal, id string, body []byte) (config.Resource, bool, error)
	PutPricing(ctx context.Context, p booking.Principal, id string, body []byte) (config.Pricing, error)
	PutLimitsConfig(ctx context.Context, p booking.Principal, id string, body []byte) (config.LimitsConfig, error)
	DeleteResource(ctx context.Context, p booking.Principal, id string) error
	CreateKey(ctx context.Context, p booking.Principal, req service.KeyRequest) (service.NewKey, error)
	Keys(ctx context.Context, p booking.Principal) ([]service.KeyInfo, error)
	RevokeKey(ctx context.Context, p booking.Principal, name string) error
	PutFareClasses(ctx context.Context, p booking.Principal, id string, body []byte) ([]pricing.FareClass, error)
	PutRatePeriods(ctx context.Context, p booking.Principal, id string, body []byte) ([]pricing.RatePeriod, error)
	PutOverbooking(ctx context.Context, p booking.Principal, id string, spec config.OverbookingSpec) (config.OverbookingSpec, error)
	PutQueue(ctx context.Context, p booking.Principal, id string, body []byte) error
	Resources(ctx context.Context, p booking.Principal) ([]config.Resource, error)
	Resource(ctx context.Context, p booking.Principal, id string) (config.Resource, error)
	Limits(ctx context.Context, p booking.Principal, id string, from, to time.Time) (control.LimitsReport, error)
	Occupancy(ctx context.Context, p booking.Principal, id string, from, to time.Time) (service.Occupancy, error)
	BookingControl(ctx context.Context, p booking.Principal, id string, from, to time.Time) (service.ControlReport, error)
	Revenue(ctx context.Context, p booking.Principal, id string, from, to time.Time) (service.RevenueReport, error)
	Denials(ctx context.Context, p booking.Principal, id string, from, to time.Time) (service.DenialReport, error)

	Offers(ctx context.Context, p booking.Principal, q booking.OfferQuery) ([]booking.Offer, error)
	Hold(ctx context.Context, p booking.Principal, req booking.HoldRequest, idem booking.Idempotency) (booking.Booking, bool, error)
	Commit(ctx context.Context, p booking.Principal, id string) (booking.Booking, error)
	Cancel(ctx context.Context, p booking.Principal, id string) (booking.Booking, error)
	CancelQuoted(ctx context.Context, p booking.Principal, id, quoteID string) (booking.Booking, error)
	CancellationQuote(ctx context.Context, p booking.Principal, id string) (booking.Quote, error)
	ModificationQuote(ctx context.Context, p booking.Principal, id string, req booking.ModifyRequest) (booking.Quote, error)
	CheckIn(ctx context.Context, p booking.Principal, id string) (booking.Booking, error)
	Checkout(ctx context.Context, p booking.Principal, id string) (booking.Booking, error)
	Modify(ctx context.Context, p booking.Principal, id string, req booking.ModifyRequest) (booking.Booking, error)
	Prepare(ctx context.Context, p booking.Principal, id string) (booking.Booking, error)
	Unwind(ctx context.Context, p booking.Principal, id string) (booking.Booking, error)
	Get(ctx context.Context, p booking.Principal, id string) (booking.Booking, error)
	List(ctx context.Context, p booking.Principal, q booking.ListQuery) (booking.Page[booking.Booking], error)

	Invoices(ctx context.Context, p booking.Principal, accountID, period, cursor string, limit int) (ledger.Page[ledger.Invoice], error)
	LedgerEntries(ctx context.Context, p booking.Principal, accountID, cursor string, limit int) (ledger.Page[ledger.Posting], error)
	Balance(ctx context.Context, p booking.Principal, accountID string) (map[ledger.Currency]decimal.Decimal, error)

	Events(ctx context.Context, p booking.Principal, q service.EventQuery) (booking.Page[events.Event], error)
	Accounts(ctx context.Context, p booking.Principal, cursor string, limit int) (ledger.Page[service.Account], error)
	AllInvoices(ctx context.Context, p booking.Principal, period, cursor string, limit int) (ledger.Page[ledger.Invoice], error)
}

// Options configure the HTTP layer. Zero values are usable defaults.
type Options struct {
	// Logger receives one structured line per request and every internal
	// error; nil discards.
	Logger *slog.Logger
	// Metrics is the Prometheus registry and counters to record into; nil
	// makes a fresh one. serve shares it with the booking service so that
	// background transitions are counted too.
	Metrics *Metrics
	// Ready reports whether the service can take traffic (store open,
	// configuration loaded), within the /readyz request's ctx; nil means
	// ready once New has returned.
	Ready func(ctx context.Context) error
	// RequestTimeout bounds each request's context; 0 means 10 seconds.
	RequestTimeout time.Duration
	// CoReservations is the co-reservation broker behind /v1/probes and
	// /v1/co-reservations; serve gives one over the data directory's
	// records. When nil, New makes one over b with its records in memory
	// (lost on restart), which only tests should rely on.
	CoReservations *coreserve.Broker
	// Runs records runs and predicts durations from them (POST and GET
	// /v1/runs; parts, probes and offers by profile); serve gives one over
	// the data directory's or Redis's runs. When nil, New makes one over b
	// with its runs in memory, which only tests should rely on.
	Runs *runs.Service
	// Webhooks registers webhooks and delivers to them (serve runs its
	// Step on the replica holding the lease); when nil, New makes one in
	// memory that no one delivers from, which only tests should rely on.
	Webhooks *webhooks.Service
}

// New returns the echo instance serving API.md's routes over b.
func New(b Backend, o Options) *echo.Echo {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics()
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = 10 * time.Second
	}
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = errorHandler(o.Logger)
	if o.Runs == nil {
		o.Runs = runs.NewService(runs.NewMemory(), b, runs.Options{})
	}
	if o.CoReservations == nil {
		o.CoReservations = coreserve.New(b, coreserve.NewMemory(), coreserve.Options{OnOutcome: o.Metrics.CoReservation, Durations: o.Runs.Predictor()})
	}
	if o.Webhooks == nil {
		o.Webhooks = defaultWebhooks(b)
	}
	s := &server{b: b, log: o.Logger, m: o.Metrics, ready: o.Ready, co: o.CoReservations, runs: o.Runs, hooks: o.Webhooks}

	e.Use(middleware.RequestIDWithConfig(middleware.RequestIDConfig{Generator: newRequestID}))
	e.Use(s.m.middleware())
	e.Use(middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogMethod: true, LogURIPath: true, LogRoutePath: true, LogStatus: true,
		LogLatency: true, LogRequestID: true, LogError: true, HandleError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			lvl := slog.LevelInfo
			if v.Status >= 500 {
				lvl = slog.LevelError
			}
			s.log.LogAttrs(c.Request().Context(), lvl, "request",
				slog.String("request_id", v.RequestID), slog.String("method", v.Method),
				slog.String("path", v.URIPath), slog.String("route", v.RoutePath),
				slog.Int("status", v.Status), slog.Float64("latency_ms", float64(v.Latency.Microseconds())/1000),
				slog.String("account_id", principalOf(c).AccountID))
			return nil
		},
	}))
	e.Use(middleware.Recover())
	e.Use(middleware.ContextTimeout(o.RequestTimeout))

	s.routes(e)
	return e
}

// routeRoles are the middleware of a route by who may call it:
// authentication, then the roles allowed.
type routeRoles struct {
	auth                                     echo.MiddlewareFunc
	prov, user, bill, provOrUser, provOrBill []echo.MiddlewareFunc
}

// routes registers API.md's routes on e.
func (s *server) routes(e *echo.Echo) {
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", echo.WrapHandler(s.m.handler()))
	e.GET("/openapi.json", serveOpenAPI)
	e.GET("/dashboard", func(c echo.Context) error { return c.Redirect(http.StatusMovedPermanently, "/dashboard/") })
	e.GET("/dashboard/*", echo.WrapHandler(dashboard.Handler("/dashboard/")))

	// Authentication is per route, not group middleware: a group with
	// middleware catches every unknown /v1 path and would turn a wrong
	// method (405) into a 404.
	v1 := e.Group("/v1")
	auth := s.authenticate
	r := routeRoles{
		auth:       auth,
		prov:       []echo.MiddlewareFunc{auth, requireRole(booking.RoleProvider)},
		user:       []echo.MiddlewareFunc{auth, requireRole(booking.RoleUser)},
		bill:       []echo.MiddlewareFunc{auth, requireRole(booking.RoleBilling)},
		provOrUser: []echo.MiddlewareFunc{auth, requireRole(booking.RoleProvider, booking.RoleUser)},
		provOrBill: []echo.MiddlewareFunc{auth, requireRole(booking.RoleProvider, booking.RoleBilling)},
	}
	s.providerRoutes(v1, r)
	s.userRoutes(v1, r)
	s.billingRoutes(v1, r)
}

// providerRoutes configure resources and keys and read the reports (and
// the resources, by any role).
func (s *server) providerRoutes(v1 *echo.Group, r routeRoles) {
	v1.PUT("/resources/:id", s.putResource, r.prov...)
	v1.PUT("/resources/:id/fare-classes", putPart(s, rawJSONBody, Backend.PutFareClasses), r.prov...)
	v1.PUT("/resources/:id/rate-periods", putPart(s, rawJSONBody, Backend.PutRatePeriods), r.prov...)
	v1.PUT("/resources/:id/overbooking", s.putOverbooking, r.prov...)
	v1.PUT("/resources/:id/pricing", putPart(s, strictBody[pricingBody], Backend.PutPricing), r.prov...)
	v1.PUT("/resources/:id/limits-config", putPart(s, strictBody[limitsBody], Backend.PutLimitsConfig), r.prov...)
	v1.DELETE("/resources/:id", s.deleteResource, r.prov...)
	v1.GET("/resources/:id/fare-classes", s.resourcePart, r.auth)
	v1.GET("/resources/:id/rate-periods", s.resourcePart, r.auth)
	v1.GET("/resources/:id/overbooking", s.resourcePart, r.auth)
	v1.GET("/resources/:id/pricing", s.resourcePart, r.auth)
	v1.GET("/resources/:id/limits-config", s.resourcePart, r.prov...)
	v1.PUT("/resources/:id/queue", s.putQueue, r.prov...)
	v1.GET("/resources/:id/limits", windowed(s, limitsReport), r.prov...)
	v1.GET("/resources/:id/occupancy", windowed(s, Backend.Occupancy), r.prov...)
	v1.GET("/resources/:id/booking-control", windowed(s, Backend.BookingControl), r.prov...)
	v1.GET("/resources/:id/revenue", windowed(s, Backend.Revenue), r.prov...)
	v1.GET("/resources/:id/denials", windowed(s, Backend.Denials), r.prov...)
	v1.GET("/resources/:id/bookings", s.list, r.prov...)
	v1.POST("/keys", s.createKey, r.prov...)
	v1.GET("/keys", s.keys, r.prov...)
	v1.DELETE("/keys/:name", s.revokeKey, r.prov...)
	v1.GET("/resources", s.resources, r.auth)
	v1.GET("/resources/:id", byID(s, Backend.Resource), r.auth)
}

// userRoutes are the bookings' life: offers, holds and what follows,
// co-reservations and runs.
func (s *server) userRoutes(v1 *echo.Group, r routeRoles) {
	v1.POST("/offers", s.offers, r.user...)
	v1.POST("/bookings", s.hold, r.user...)
	v1.GET("/bookings", s.list, r.provOrUser...)
	v1.GET("/bookings/:id", s.get, r.user...)
	v1.PATCH("/bookings/:id", s.modify, r.user...)
	v1.POST("/bookings/:id/commit", s.commit, r.user...)
	v1.POST("/bookings/:id/cancel", s.cancel, r.user...)
	v1.GET("/bookings/:id/cancellation", byID(s, Backend.CancellationQuote), r.user...)
	v1.POST("/bookings/:id/quote", s.modificationQuote, r.user...)
	v1.POST("/bookings/:id/checkin", s.checkin, r.user...)
	v1.POST("/bookings/:id/checkout", s.checkout, r.user...)
	v1.POST("/probes", s.probe, r.user...)
	v1.POST("/co-reservations", s.coReserve, r.user...)
	v1.GET("/co-reservations/:id", s.coGet, r.user...)
	v1.POST("/co-reservations/:id/commit", s.coCommit, r.user...)
	v1.POST("/co-reservations/:id/cancel", s.coCancel, r.user...)
	v1.POST("/runs", s.postRun, r.provOrUser...)
	v1.GET("/runs", s.getRuns, r.provOrUser...)
}

// billingRoutes are the money, and the event log and its webhooks
// (billing's and providers').
func (s *server) billingRoutes(v1 *echo.Group, r routeRoles) {
	v1.GET("/invoices", s.invoices, r.bill...)
	v1.GET("/accounts", s.accounts, r.bill...)
	v1.GET("/ledger/entries", s.ledgerEntries, r.bill...)
	v1.GET("/ledger/balance", s.balance, r.bill...)
	v1.GET("/events", s.events, r.provOrBill...)
	v1.POST("/webhooks", s.createWebhook, r.provOrBill...)
	v1.GET("/webhooks", s.webhooks, r.provOrBill...)
	v1.DELETE("/webhooks/:id", s.deleteWebhook, r.provOrBill...)
}

type server struct {
	b     Backend
	log   *slog.Logger
	m     *Metrics
	ready func(ctx context.Context) error
	co    *coreserve.Broker
	runs  *runs.Service
	hooks *webhooks.Service
}

func (s *server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

func (s *server) readyz(c echo.Context) error {
	if s.ready != nil {
		if err := s.ready(c.Request().Context()); err != nil {
			return slotfare.E(slotfare.Op("api.readyz"), slotfare.Unavailable, err)
		}
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}
