package api

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"slotfare/booking/events"
	"slotfare/overbook"
)

// operation describes one route for the OpenAPI document: the route table
// below is the document's single source, and TestOpenAPIMatchesRoutes proves
// it equals what New registers in echo.
type operation struct {
	method, path string // echo path (":id")
	summary      string
	role         string // "" = no auth, "any" = any role
	body         string // request schema name, "" = none
	ok           int    // success status
	result       string // success schema name, "" = none
}

var operations = []operation{
	{"GET", "/healthz", "Liveness: the process is up.", "", "", 200, "Status"},
	{"GET", "/readyz", "Readiness: store open and configuration loaded.", "", "", 200, "Status"},
	{"GET", "/metrics", "Prometheus metrics (text exposition format).", "", "", 200, ""},
	{"GET", "/openapi.json", "This OpenAPI document.", "", "", 200, ""},
	{"GET", "/dashboard", "The provider's dashboard in the browser (redirects to /dashboard/, whose HTML, CSS and JavaScript are embedded in the binary): open /dashboard/#key=<provider key>; the key stays in the tab and the pages call the provider's report routes.", "", "", 301, ""},
	{"PUT", "/v1/resources/:id", "Create (201) or change (200) a resource: the configuration file's resource object. nodes, base_cost and time_zone are required; a field left out keeps its value (a new resource: the file's default, the demo's fare classes and rate periods); an object given (overbooking, limits, hold_limits) replaces the one in force. What GET answers can be PUT back unchanged (id and the read-only has_queue must match).", "provider", "ResourceConfig", 200, "Resource"},
	{"PUT", "/v1/resources/:id/fare-classes", "Replace the resource's fare classes.", "provider", "FareClasses", 200, "FareClasses"},
	{"PUT", "/v1/resources/:id/rate-periods", "Replace the resource's rate periods.", "provider", "RatePeriods", 200, "RatePeriods"},
	{"PUT", "/v1/resources/:id/overbooking", "Replace the overbooking policy and denial strategy; a field left out takes its default (policy none, service_level 0.01, denial dcf), and the answer is the setting stored.", "provider", "Overbooking", 200, "Overbooking"},
	{"PUT", "/v1/resources/:id/pricing", "Replace fare classes and rate periods together, validated as a whole (add, rename or remove a rate period with its taus in one request). Booking control keeps the protection levels and show rates of periods that remain with the same number of classes.", "provider", "Pricing", 200, "Pricing"},
	{"PUT", "/v1/resources/:id/limits-config", "Replace booking control: method, min_history, initial protection levels and default show rates per rate period (the resource's limits object); left-out fields take their defaults.", "provider", "LimitsConfig", 200, "LimitsConfig"},
	{"DELETE", "/v1/resources/:id", "Retire a resource: 409 naming how many held, committed and active bookings it has while it has any; otherwise it takes no offers or holds and leaves the listing, its bookings, ledger and invoices stay readable.", "provider", "", 204, ""},
	{"GET", "/v1/resources/:id/fare-classes", "The resource's fare classes, as PUT takes them.", "any", "", 200, "FareClasses"},
	{"GET", "/v1/resources/:id/rate-periods", "The resource's rate periods, as PUT takes them.", "any", "", 200, "RatePeriods"},
	{"GET", "/v1/resources/:id/overbooking", "The resource's overbooking setting, as PUT takes it.", "any", "", 200, "Overbooking"},
	{"GET", "/v1/resources/:id/pricing", "The resource's fare classes and rate periods, as PUT .../pricing takes them.", "any", "", 200, "Pricing"},
	{"GET", "/v1/resources/:id/limits-config", "The resource's booking control, as PUT .../limits-config takes it.", "provider", "", 200, "LimitsConfig"},
	{"PUT", "/v1/resources/:id/queue", "Replace the best-effort queue snapshot used for the delay premium.", "provider", "QueueSnapshot", 204, ""},
	{"GET", "/v1/resources/:id/limits", "Booking control per period: capacity, overbooking limit, protection levels, nested booking limits, bookings per class.", "provider", "", 200, "LimitsReport"},
	{"GET", "/v1/resources/:id/occupancy", "The resource's occupancy over the window as a step function: nodes held, committed and checked in (active; completed bookings count for the time they ran) beside the capacity and overbooking limit in force; a step ends where a booking starts or ends or the rate period changes. Read from the stored bookings: every replica answers the same. The window is at most 93 days.", "provider", "", 200, "Occupancy"},
	{"GET", "/v1/resources/:id/booking-control", "Booking control per rate-period instance and class: the most nodes the class holds at any instant against its nested booking limit and protection level, the demand forecast the limits came from (null until the period has enough history), and the booking curve (bookings sold at least days_before days before the instance's start).", "provider", "", 200, "ControlReport"},
	{"GET", "/v1/resources/:id/revenue", "Money per day, class and rate period of the bookings starting in the window (days in the resource's time zone): charges, penalties, refunds and compensation as positive amounts and net; the total, and last_week: the same window seven days earlier.", "provider", "", 200, "RevenueReport"},
	{"GET", "/v1/resources/:id/denials", "Per day and class of the window: bookings denied at their start and their compensation, no-shows, and requests refused because their class was closed; with the denial strategy and overbooking policy in force.", "provider", "", 200, "DenialReport"},
	{"GET", "/v1/resources/:id/bookings", "Every account's bookings on the resource, oldest first, with the filters of GET /v1/bookings (status, cursor, limit): the same listing as GET /v1/bookings?resource_id=.", "provider", "", 200, "BookingPage"},
	{"POST", "/v1/keys", "Create an API key for an account and role; the answer carries the secret, shown this once (only its sha256 is stored).", "provider", "KeyRequest", 201, "NewKey"},
	{"GET", "/v1/keys", "List the live API keys, the configuration file's and the API's: names, roles, accounts and VOs, never secrets.", "provider", "", 200, "KeyList"},
	{"DELETE", "/v1/keys/:name", "Revoke a key created over the API, at once and for good; the configuration file's keys are revoked by removing them from the file (409).", "provider", "", 204, ""},
	{"GET", "/v1/resources", "List the resources as configured.", "any", "", 200, "ResourceList"},
	{"GET", "/v1/resources/:id", "One resource as configured.", "any", "", 200, "Resource"},
	{"POST", "/v1/offers", "Priced offers over a time window; the first is the solution when one meets duration and nodes.", "user", "OfferQuery", 200, "Offers"},
	{"POST", "/v1/bookings", "Hold capacity (Idempotency-Key required).", "user", "HoldRequest", 201, "Booking"},
	{"GET", "/v1/bookings", "List bookings, oldest first: a user's own (those on resource_id when given); a provider's are every account's bookings on resource_id, which it must name (422 naming resource_id without it, 404 for an unknown resource). A cursor is valid only with the status and resource_id it was issued for (400 naming cursor).", "provider or user", "", 200, "BookingPage"},
	{"GET", "/v1/bookings/:id", "One of the caller's bookings.", "user", "", 200, "Booking"},
	{"PATCH", "/v1/bookings/:id", "Modify a committed booking before its start (re-priced; a lower price keeps the cancellation schedule's rate of what is given up as penalty; with quote_id, the quoted change at the quoted price). Once it has started (checked in, or active), a later end extends it while its nodes are free: the time added is priced in its fare class (plus the delay premium where the resource has a queue snapshot), admitted like any change and billed as a charge (an invoice charge line); price is the new total. 409 naming end with max_end, the latest end that fits now, when the added time does not fit; 409 naming end for a booking that has ended; 422 naming start or nodes, which a started booking keeps.", "user", "ModifyRequest", 200, "Booking"},
	{"POST", "/v1/bookings/:id/commit", "Commit a held booking (posts the charge).", "user", "", 200, "Booking"},
	{"POST", "/v1/bookings/:id/cancel", "Cancel a held or committed booking. A committed one is credited back everything billed (refund) and billed the penalty its cancellation schedule keeps at this lead time (penalty), as two invoice lines. The body is optional: {\"quote_id\"} posts exactly a cancellation quote's amounts while it is valid (409 naming quote_id once expired or if the booking was re-priced since; 422 for another booking's or a forged quote).", "user", "CancelRequest", 200, "Booking"},
	{"GET", "/v1/bookings/:id/cancellation", "What cancelling now would keep (penalty) and credit back (refund), and until when a cancel carrying quote_id posts exactly that (valid_until: the offer ttl, never past the start). Signed, not stored: any replica honours it. Nothing changes.", "user", "", 200, "Quote"},
	{"POST", "/v1/bookings/:id/quote", "Price a PATCH body without changing anything: the new price, the difference billed (positive) or credited (negative) and the penalty a reduction keeps, valid until valid_until. A PATCH carrying quote_id (its other fields left out or equal to the quote's) is made at exactly that price, or 409 if capacity is gone or the booking was re-priced since.", "user", "ModifyRequest", 200, "Quote"},
	{"POST", "/v1/bookings/:id/checkin", "Check in: the job is there, the booking counts as a show.", "user", "", 200, "Booking"},
	{"POST", "/v1/bookings/:id/checkout", "Check out: the job of an active booking has finished. finished_at is set to now, and the run recorded against the booking's profile when it completes lasts from started_at to then, not to its end; the booking keeps its nodes until its end. Again: the booking as it is; 409 unless active.", "user", "", 200, "Booking"},
	{"POST", "/v1/probes", "Probe (seed 003 Sec. 3.1): every resource the part names or matches by tags answers reservation candidates that meet its nodes and duration inside its window, at most a configured number per resource, each priced and rated by price and start (seed 001's alpha rule with the body's alpha, default 0.5; rating 0 is best), best first. Nothing is held.", "user", "Probe", 200, "ProbeCandidates"},
	{"POST", "/v1/co-reservations", "Reserve several resources all or nothing (seed 003 Sec. 3.3): the broker probes every part, picks a co-reservation candidate by policy (earliest: the last part's start first; cheapest: the lowest total; alpha: seed 001's rule), and holds every part with its resource's timeout. 201 with every part held, or 409 naming the part that failed (parts[i]) with every hold cancelled, after trying at most a configured number of candidates. 422 names the part and field at fault (parts[1].duration_seconds).", "user", "CoReservation", 201, "CoReservationView"},
	{"GET", "/v1/co-reservations/:id", "One of the caller's co-reservations with its parts' bookings as they are now; a held one whose part's hold lapsed is expired as a whole (its other holds released).", "user", "", 200, "CoReservationView"},
	{"POST", "/v1/co-reservations/:id/commit", "Commit every part (each part's charge is posted), or none: every part is first prepared (its hold standing, within the limits in force) before any is charged; when a part's hold has lapsed the co-reservation is expired, when its resource no longer takes it rejected, its other holds released, and the answer is 409 naming the part. A part committed before a sibling failed is rolled back with all it was billed refunded, no penalty (the co-reservation owes nothing; charged and refunded say so). A commit interrupted half way is finished or undone by the server (never left half committed).", "user", "", 200, "CoReservationView"},
	{"POST", "/v1/co-reservations/:id/cancel", "Cancel every part: holds for nothing, committed parts with their fare class's penalty. 409, changing nothing, once a part has started.", "user", "", 200, "CoReservationView"},
	{"POST", "/v1/runs", "Record a finished run of an application profile on a resource, for duration prediction (seed 002 Sec. 4.3: TCT averages runtime plus transfer time; ETTS takes the runtime and the bandwidth bytes_transferred / transfer_seconds separately). 201 with the run stored; 200 with the stored run when run_id was already recorded on the resource with the same values (a retry; send run_id to make retries safe); 409 naming run_id when with other values. Providers post for any resource; users for resources of no VO or of their own VO. Completed bookings that named a profile record their own run (run_id is the booking id). Limits per account on each resource (the configuration's runs object): runs.max_per_hour posted in any hour (then 429), runs.max_kept kept (a new one deletes the account's earliest finished), and a run counts for runs.retention_days after it finished (an older one is 422 naming finished_at; older ones are deleted).", "provider or user", "RunRequest", 201, "Run"},
	{"GET", "/v1/runs", "The duration a job of profile would reserve on the resource: the predictor used (ETTS when bytes is given and the resource has runs that moved data, else TCT), how many recorded runs it averaged, and its mean absolute error over the recorded runs it could have predicted. prediction is null when the resource has no run of the profile.", "provider or user", "", 200, "RunPrediction"},
	{"GET", "/v1/invoices", "Invoices per account, calendar month and currency: one account's, or without account_id every customer account's (those GET /v1/accounts lists), account by account in id order. A cursor is valid only with the account_id and period it was issued for (400 naming cursor).", "billing", "", 200, "InvoicePage"},
	{"GET", "/v1/accounts", "The customer accounts in id order: the accounts of the live user keys (the configuration file's and those made over the API).", "billing", "", 200, "AccountPage"},
	{"GET", "/v1/ledger/entries", "Ledger postings touching an account's receivable.", "billing", "", 200, "EntryPage"},
	{"GET", "/v1/ledger/balance", "An account's balance per currency (what it owes: debits minus credits).", "billing", "", 200, "Balance"},
	{"POST", "/v1/webhooks", "Register a webhook for the caller's account: every event of event_types ([\"*\"] for every type the role reads on GET /v1/events) from now on is POSTed to url as the CloudEvent JSON, signed per Standard Webhooks (webhook-id: the event's id, the same on every retry; webhook-timestamp: Unix seconds; webhook-signature: v1, and the base64 HMAC-SHA256, keyed by the secret's base64 bytes after whsec_, of id.timestamp.body). Delivered at least once, in the log's order; a delivery is acknowledged by a 2xx within the timeout, redirects are not followed; failures are retried with exponential backoff (10 s doubling to 1 h) and after 24 h of failures the webhook is disabled and a webhook.disabled event says so. 201 with the secret, shown this once. url must be https and must not resolve to a loopback, private or link-local address (422 naming url; both allowed only with serve --webhooks-allow-private); an unknown type is 422 naming event_types[i].", "provider or billing", "WebhookRequest", 201, "WebhookCreated"},
	{"GET", "/v1/webhooks", "The caller's account's webhooks with their delivery state (enabled, failing, disabled), never their secrets.", "provider or billing", "", 200, "WebhookList"},
	{"DELETE", "/v1/webhooks/:id", "Delete one of the caller's account's webhooks: nothing more is delivered to it.", "provider or billing", "", 204, ""},
	{"GET", "/v1/events", "The event log, oldest first: every booking transition, modification, posting, invoice change and change of booking control's limits, written in the same atomic step as the change it records, as CloudEvents 1.0 (JSON). Providers read every type but invoice.updated, billing every type but limits.published. The log keeps the newest events only (serve --events-keep). next_cursor is always set; a cursor is valid only with the type filter and role it was issued for (400 naming after); an unknown type is 422 naming type.", "provider or billing", "", 200, "EventPage"},
}

// queryParams lists each GET route's query parameters.
var queryParams = map[string][][2]string{
	"/v1/resources/:id/occupancy":       {{"from", "RFC 3339 start of the window (required)"}, {"to", "RFC 3339 end of the window (required; at most 93 days after from)"}},
	"/v1/resources/:id/booking-control": {{"from", "RFC 3339 start of the window (required)"}, {"to", "RFC 3339 end of the window (required; at most 93 days after from)"}},
	"/v1/resources/:id/revenue":         {{"from", "RFC 3339 start of the window (required)"}, {"to", "RFC 3339 end of the window (required; at most 93 days after from)"}},
	"/v1/resources/:id/denials":         {{"from", "RFC 3339 start of the window (required)"}, {"to", "RFC 3339 end of the window (required; at most 93 days after from)"}},
	"/v1/resources/:id/limits":          {{"from", "RFC 3339 start of the report window (required)"}, {"to", "RFC 3339 end of the report window (required)"}},
	"/v1/bookings":                      {{"status", "only bookings in this status"}, {"resource_id", "only bookings on this resource (required for a provider, who then sees every account's)"}, {"cursor", "opaque cursor from next_cursor"}, {"limit", "page size, 1 to 1000"}},
	"/v1/resources/:id/bookings":        {{"status", "only bookings in this status"}, {"cursor", "opaque cursor from next_cursor"}, {"limit", "page size, 1 to 1000"}},
	"/v1/accounts":                      {{"cursor", "opaque cursor from next_cursor"}, {"limit", "page size, 1 to 1000"}},
	"/v1/invoices":                      {{"account_id", "the customer account; every account's when omitted"}, {"period", "YYYY-MM; every period when omitted"}, {"cursor", "opaque cursor"}, {"limit", "page size"}},
	"/v1/events":                        {{"after", "next_cursor of an earlier page (omit to start at the oldest event kept)"}, {"type", "comma-separated event types to keep (default: every type the role may read)"}, {"limit", "page size, 1 to 1000"}},
	"/v1/ledger/entries":                {{"account_id", "the customer account (required)"}, {"cursor", "opaque cursor"}, {"limit", "page size"}},
	"/v1/runs":                          {{"profile", "the application profile (required)"}, {"resource_id", "the resource (required)"}, {"bytes", "bytes the job moves (ETTS); default 0"}, {"start", "RFC 3339 start of the job (the hour whose bandwidth ETTS uses); default now"}},
	"/v1/ledger/balance":                {{"account_id", "the customer account, or role:owner such as revenue:RAL (required)"}},
}

// openAPIPath turns echo's ":id" into OpenAPI's "{id}".
func openAPIPath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, ":") {
			parts[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

func ref(name string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

var (
	money     = map[string]any{"type": "string", "pattern": `^-?[0-9]+(\.[0-9]+)?$`, "description": "decimal amount as a string"}
	timestamp = map[string]any{"type": "string", "format": "date-time", "description": "RFC 3339, UTC"}
	integer   = map[string]any{"type": "integer"}
)

func object(required []string, props map[string]any) map[string]any {
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

func nullable(s map[string]any) map[string]any {
	return map[string]any{"oneOf": []any{s, map[string]any{"type": "null"}}}
}

// holdLimitsSchema is a resource's hold_limits: what one account may hold
// on it at once (booking/service/holdlimits.go).
var holdLimitsSchema = object(nil, map[string]any{
	"max_holds": map[string]any{"type": "integer", "minimum": 1,
		"description": "holds one account may have on the resource at once; default 100 (left out or null)"},
	"max_held_node_seconds": map[string]any{"type": "integer", "minimum": 1,
		"description": "node-seconds ((end - start) x nodes) one account's holds may add up to at once; default nodes x 86400, the whole resource for a day (left out or null)"},
})

// limitProblemSchema is the "limit" member of a problem from a hold limit
// or the runs' rate.
var limitProblemSchema = object([]string{"resource_id", "name", "limit", "held", "requested"}, map[string]any{
	"resource_id": str("the resource whose hold_limits refused the hold, or that the run was posted for"),
	"name": map[string]any{"type": "string", "enum": []string{"max_holds", "max_held_node_seconds", "max_per_hour"},
		"description": "hold_limits.max_holds or .max_held_node_seconds; runs.max_per_hour of the configuration for POST /v1/runs"},
	"limit":               map[string]any{"type": "integer", "description": "the limit's value"},
	"held":                map[string]any{"type": "integer", "description": "holds or node-seconds the account holds there now; runs it posted there in the last hour"},
	"requested":           map[string]any{"type": "integer", "description": "what this request adds: 1 hold, its node-seconds, or 1 run"},
	"retry_after_seconds": map[string]any{"type": "integer", "description": "429 only: seconds until enough of the account's holds expire, or its earliest run of the hour leaves it; also the Retry-After header"},
})

// runQuotaResponse documents POST /v1/runs's 429.
var runQuotaResponse = map[string]any{
	"description": "The account has posted runs.max_per_hour runs on the resource in the last hour (the configuration's runs object; " +
		"default 1000): the run is not recorded. Retry-After is the seconds until the earliest of them leaves the hour. The problem's " +
		"errors name runs.max_per_hour; its limit member gives the limit and the runs posted. A retry of a run already recorded " +
		"(same run_id and values) is answered 200 whatever the count.",
	"headers": map[string]any{"Retry-After": map[string]any{"description": "seconds until a run may be posted", "schema": integer}},
	"content": map[string]any{"application/problem+json": map[string]any{"schema": ref("Problem")}},
}

// holdLimitResponse documents POST /v1/bookings's 429.
var holdLimitResponse = map[string]any{
	"description": "A hold limit of the resource is reached: the account already holds max_holds holds, or its holds with this one would " +
		"pass max_held_node_seconds. The condition clears by itself as the account's holds expire, so the answer is 429 with Retry-After " +
		"(seconds until enough of them have expired), not 409: nothing about the resource or the request is wrong, and committing or " +
		"cancelling one of its holds frees room at once. The problem's errors name hold_limits.max_holds or " +
		"hold_limits.max_held_node_seconds; its limit member gives the limit, what is held and what was asked. A hold larger than " +
		"max_held_node_seconds on its own can never fit and is 422 (field nodes) with the same limit member.",
	"headers": map[string]any{"Retry-After": map[string]any{"description": "seconds until the hold would fit", "schema": integer}},
	"content": map[string]any{"application/problem+json": map[string]any{"schema": ref("Problem")}},
}

// predictionSchema is a predicted duration as offers, probe candidates,
// co-reservation parts and GET /v1/runs show it (booking/runs.Prediction).
var predictionSchema = object([]string{"predictor", "duration_seconds", "runs", "scored_runs", "mean_abs_error_seconds"}, map[string]any{
	"predictor":              map[string]any{"type": "string", "enum": []string{"TCT", "ETTS"}, "description": "seed 002 Sec. 4.3: TCT the mean completion time of the recorded runs, ETTS their mean runtime plus bytes over the bandwidth recorded the day before at that hour"},
	"duration_seconds":       withDesc(integer, "what is reserved: the prediction rounded up to whole seconds"),
	"runs":                   withDesc(integer, "recorded runs averaged (the most recent, at most a bound)"),
	"scored_runs":            withDesc(integer, "recorded runs the predictor could have predicted from the runs before them"),
	"mean_abs_error_seconds": withDesc(number, "the predictor's mean absolute error over the scored runs"),
})

// runProps are a run's fields: as posted, or as stored (read-only fields
// added).
func runProps(stored bool) map[string]any {
	p := map[string]any{
		"profile":           str("the application profile: 1-128 letters, digits, '.', '_', '-', ':', '/' or '+'"),
		"resource_id":       str("the resource it ran on"),
		"runtime_seconds":   map[string]any{"type": "number", "exclusiveMinimum": 0, "description": "time executing (to the millisecond)"},
		"transfer_seconds":  map[string]any{"type": "number", "minimum": 0, "description": "time moving its data; default 0"},
		"bytes_transferred": map[string]any{"type": "integer", "minimum": 0, "description": "bytes moved in transfer_seconds (a bandwidth sample for ETTS); default 0"},
		"finished_at":       withDesc(timestamp, "when it ended; default now"),
		"run_id":            str("unique per resource: a run posted again under its id is not counted twice; default a fresh id"),
	}
	if stored {
		p["account_id"] = str("who recorded it")
		p["recorded_at"] = timestamp
	}
	return p
}

// problemDescriptions describe every error status a route may answer, for
// the OpenAPI document (every response needs a description).
var problemDescriptions = map[int]string{
	400: "Malformed request: not JSON, a wrong type, an unknown or duplicated field, a bad header or query parameter; errors name the field.",
	401: "No API key, another scheme than Bearer, or an unknown or revoked key.",
	403: "The key's role may not use this route.",
	404: "No such resource, booking or key, or not the caller's.",
	409: "The request conflicts with the current state (errors and detail say which): no capacity, an illegal transition, a reused Idempotency-Key, live bookings on a resource to delete.",
	413: "The body is larger than the limit.",
	405: "The path is served with another method only (GET for the public endpoints).",
	415: "The body is not application/json.",
	422: "A well-formed request with an invalid value; errors name the field and say what is allowed.",
	501: "Not implemented yet.",
	503: "The service or its store cannot serve now.",
}

func problemResponse(status int) map[string]any {
	return map[string]any{"description": problemDescriptions[status],
		"content": map[string]any{"application/problem+json": map[string]any{"schema": ref("Problem")}}}
}

var (
	boolean    = map[string]any{"type": "boolean"}
	number     = map[string]any{"type": "number"}
	nullString = map[string]any{"type": []any{"string", "null"}}
	nodes      = map[string]any{"type": "integer", "minimum": 1}
)

func arrayOf(items map[string]any) map[string]any {
	return map[string]any{"type": "array", "items": items}
}

func mapOf(values map[string]any) map[string]any {
	return map[string]any{"type": "object", "additionalProperties": values}
}

// withDesc is s with a description.
// describedAs is schema s with description desc in place of its own.
func describedAs(s map[string]any, desc string) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	out["description"] = desc
	return out
}

func withDesc(s map[string]any, desc string) map[string]any {
	out := map[string]any{"description": desc}
	for k, v := range s {
		out[k] = v
	}
	return out
}

func schemas() map[string]any {
	price := object([]string{"base", "delay_premium", "total", "currency"}, map[string]any{
		"base": money, "delay_premium": money, "total": money, "currency": str("three upper-case letters (ISO 4217 or private such as GRD)"),
	})
	bookingSchema := object([]string{"booking_id", "account_id", "status", "hold_expires_at", "resource_id", "start", "end", "nodes", "fare_class", "price", "created_at", "updated_at", "checked_in"},
		map[string]any{
			"booking_id": str(""), "account_id": str(""),
			"status":          map[string]any{"type": "string", "enum": bookingStatuses},
			"hold_expires_at": nullable(timestamp), "resource_id": str(""), "start": timestamp, "end": timestamp,
			"nodes": nodes, "fare_class": str(""), "price": ref("Price"),
			"terms":        ref("SaleTerms"),
			"penalty":      withDesc(money, "what the provider keeps, billed apart from the price: penalties of price reductions and of the cancellation or no-show; the booking's cancellation_penalty and no_show_penalty invoice lines sum to it"),
			"refund":       withDesc(money, "everything billed (price.total), credited back when the booking ended without service; its refund invoice line is minus this"),
			"compensation": withDesc(money, "credited on top of the refund to a booking denied at its start; its compensation line is minus this"),
			"created_at":   timestamp, "updated_at": timestamp, "checked_in": boolean,
			"profile":     str("the application profile the hold named: the completed booking's run is recorded against it"),
			"started_at":  withDesc(timestamp, "when the job started: the tick that made the booking active"),
			"finished_at": withDesc(timestamp, "when the job finished, if checked out before the end"),
		})
	page := func(item string) map[string]any {
		return object([]string{"data", "has_more", "next_cursor"}, map[string]any{
			"data": arrayOf(ref(item)), "has_more": boolean, "next_cursor": nullString,
		})
	}
	// A VO is answered as a string; requests may also give a whole number
	// (the configuration file's form), which the description says rather
	// than a type list code generators cannot map to one type.
	vo := withDesc(map[string]any{"type": []any{"string", "null"}}, "virtual organisation (null: none); a request may give a whole number, answered as a string")
	step := object([]string{"before_start_seconds", "penalty_rate"}, map[string]any{
		"before_start_seconds": map[string]any{"type": "integer", "minimum": 0, "description": "a cancellation at least this long before the start (and later than the step before) keeps penalty_rate"},
		"penalty_rate":         withDesc(money, "share of what was billed kept, in [0, 1]"),
	})
	schedule := withDesc(arrayOf(step), "cancellation schedule by lead time, earliest step first: before_start_seconds strictly falling to 0")
	fareClass := object([]string{"name", "rank", "tau", "penalty_rate", "denied_cost_factor"}, map[string]any{
		"name": str(""), "rank": nodes, "tau": withDesc(mapOf(money), "price factor per rate period name (seed 004 Eq. 7.11)"),
		"penalty_rate":       withDesc(money, "alpha_p: kept of a no-show, and of a cancellation at any lead time when cancellation is left out"),
		"denied_cost_factor": money, "vo": vo,
		"cancellation": schedule,
	})
	saleTerms := withDesc(object([]string{"source", "cancellation", "no_show_penalty_rate", "denied_cost_factor"}, map[string]any{
		"source": map[string]any{"type": "string", "enum": []string{"sale", "configuration"},
			"description": "sale: recorded when sold; configuration: a booking stored before bookings carried terms, given its class's terms as configured when first read again"},
		"cancellation":         schedule,
		"no_show_penalty_rate": withDesc(money, "kept of what was billed on a no-show"),
		"denied_cost_factor":   withDesc(money, "tau_ds / tau: a booking denied at its start is owed this factor times its price"),
	}), "the terms the booking was sold under; a provider's later change of its class applies to later sales only")
	ratePeriod := object([]string{"name", "days", "from", "to"}, map[string]any{
		"name": str(""), "days": str("weekdays, weekends, all, or day names"), "from": str("HH:MM"), "to": str("HH:MM"),
	})
	limitsConfig := object(nil, map[string]any{
		"method":      map[string]any{"type": "string", "enum": []string{"emsr-a", "emsr-b", "emsr-b-mr", "bid-price", "thesis"}, "description": "how protection levels are computed from the forecast: emsr-a, emsr-b (default), emsr-b-mr (EMSR-b on marginal-revenue-transformed fares, Fiig et al. 2010, using sell_up), bid-price (a class is closed in a rate period when its fare is below the period's LP bid price), thesis (Alg. 11, three classes)"},
		"min_history": map[string]any{"type": "integer", "minimum": 0, "description": "past instances of a period the forecast needs before it replaces the initial levels; default 4"},
		"protection_levels": withDesc(mapOf(arrayOf(map[string]any{"type": "number", "minimum": 0})),
			"initial nested protection levels per rate period: n-1 non-decreasing values for n classes, at most the nodes"),
		"show_rates": withDesc(mapOf(map[string]any{"type": "number", "maximum": 1}), "default show rate q per rate period"),
		"sell_up": withDesc(mapOf(map[string]any{"type": "number", "minimum": 0, "maximum": 1}),
			"per fare class: the probability that a request for the class, finding it closed, buys a higher class; read by emsr-b-mr; a class left out has 0"),
		"fares": withDesc(object([]string{"min_tau", "max_tau"}, map[string]any{
			"min_tau": withDesc(money, "the lowest tau a class's fare may be set to (a decimal string, at most 2 places)"),
			"max_tau": withDesc(money, "the highest; above min_tau"),
		}), "when set, booking control sets each class's tau per rate period in these bounds (steps of 0.05) from the price response it measures: the quotes made in a class at each tau and the holds made at them; each class keeps its configured taus until it has 30 quotes. Left out: the configured taus"),
	})
	resourceProps := func(readOnly bool) map[string]any {
		props := map[string]any{
			"id": str("the path's id (on PUT: leave it out or repeat it)"), "nodes": nodes, "base_cost": money,
			"currency": str("three upper-case letters; default the service's"), "time_zone": str("IANA time zone"),
			"slot_seconds": nodes, "hold_seconds": nodes, "vo": vo, "tags": arrayOf(str("")),
			"fare_classes": arrayOf(ref("FareClass")), "rate_periods": arrayOf(ref("RatePeriod")),
			"overbooking": ref("Overbooking"), "limits": ref("LimitsConfig"), "hold_limits": ref("HoldLimits"),
			"has_queue": withDesc(boolean, "read-only: whether a queue snapshot was PUT (on PUT: leave it out or repeat it)"),
		}
		if !readOnly {
			for _, k := range []string{"fare_classes", "rate_periods", "overbooking", "limits", "hold_limits"} { // vo takes null already
				props[k] = nullable(props[k].(map[string]any))
			}
			props["tags"] = nullable(props["tags"].(map[string]any))
		}
		return props
	}
	resource := object([]string{"id", "nodes", "base_cost", "currency", "time_zone", "slot_seconds", "hold_seconds", "vo", "tags",
		"fare_classes", "rate_periods", "overbooking", "limits", "hold_limits", "has_queue"}, resourceProps(true))
	keyInfo := object([]string{"name", "role", "account_id", "vo", "source", "created_at"}, map[string]any{
		"name": str(""), "role": map[string]any{"type": "string", "enum": []string{"provider", "user", "billing"}},
		"account_id": str(""), "vo": vo,
		"source":     map[string]any{"type": "string", "enum": []string{"file", "api"}, "description": "file: the configuration's (revoked by editing it); api: POST /v1/keys"},
		"created_at": nullable(timestamp),
	})
	newKey := object([]string{"name", "role", "account_id", "vo", "source", "created_at", "key"}, map[string]any{
		"name": str(""), "role": map[string]any{"type": "string", "enum": []string{"provider", "user", "billing"}},
		"account_id": str(""), "vo": vo, "source": map[string]any{"type": "string", "enum": []string{"api"}}, "created_at": timestamp,
		"key": str("the secret, shown this once: send it as Authorization: Bearer <key>"),
	})
	entry := object([]string{"id", "time", "kind", "booking_id", "account_id", "resource_id", "currency", "scale", "description", "lines"}, map[string]any{
		"id": str(""), "time": timestamp,
		"kind":       map[string]any{"type": "string", "enum": []string{"charge", "cancellation_penalty", "no_show_penalty", "refund", "compensation", "adjustment", "reduction_penalty"}},
		"booking_id": nullString, "account_id": str("the customer"), "resource_id": str(""), "currency": str(""),
		"scale":       map[string]any{"type": "integer", "minimum": 0, "description": "digits after the decimal point of every amount"},
		"description": str(""),
		"lines": withDesc(arrayOf(object([]string{"account", "side", "amount"}, map[string]any{
			"account": str("role:owner, such as receivable:alice or revenue:RAL"),
			"side":    map[string]any{"type": "string", "enum": []string{"debit", "credit"}}, "amount": money,
		})), "balanced: debits equal credits"),
	})
	limitsPeriod := object([]string{"start", "end", "period", "capacity", "overbooking_limit", "show_rate", "protection_levels", "booking_limits", "bookings", "source"}, map[string]any{
		"start": timestamp, "end": timestamp, "period": str("rate period name"),
		"capacity": integer, "overbooking_limit": integer, "show_rate": number,
		"protection_levels": nullable(arrayOf(number)), "booking_limits": mapOf(integer), "bookings": mapOf(integer),
		"source":    str("forecast (EMSR on the forecast) or initial (the provider's levels)"),
		"fares":     withDesc(mapOf(money), "per fare class, the tau it sells at in the period when booking control sets fares (limits.fares): a weekend instance's own fares, a piece spanning a weekday and a weekend its start's; left out otherwise"),
		"bid_price": withDesc(money, "under bid-price control, the instance's bid price as a tau (a multiple of base_cost per node-second): a request is taken when its fare covers the bid prices of the node-seconds it takes, summed over the instances it spans; left out under the other methods and before a forecast"),
	})
	queueJob := func(req []string, props map[string]any) map[string]any { return object(req, props) }
	partProps := func(withRelations bool) map[string]any {
		props := map[string]any{
			"resource_id": nullString, "tags": withDesc(arrayOf(str("")), "any resource carrying every tag (instead of resource_id)"),
			"nodes": nodes, "earliest_start": timestamp, "latest_end": timestamp,
			"duration_seconds": nodes,
			"profile":          str("an application profile instead of duration_seconds: the duration is predicted on each candidate resource from the runs recorded there (POST /v1/runs, completed bookings; seed 002 Sec. 4.3); a profile with no run on any candidate resource is 422"),
			"bytes":            map[string]any{"type": "integer", "minimum": 0, "description": "with profile: the data the job moves; with runs that moved data on the resource the duration is ETTS (runtime plus bytes over the bandwidth recorded the day before at that hour), else TCT"},
			"fare_class":       withDesc(nullString, "this part's fare class instead of the request's (resources of other VOs sell other classes)"),
		}
		if withRelations {
			props["after"] = withDesc(object([]string{"part", "max_gap_seconds"}, map[string]any{"part": integer, "max_gap_seconds": integer}),
				"start when part `part` ends, or at most max_gap_seconds later")
			props["same_start_as"] = withDesc(integer, "start when this part does")
		}
		return props
	}
	coPart := object([]string{"nodes", "earliest_start", "latest_end"}, partProps(true))
	probeProps := partProps(false)
	probeProps["alpha"] = map[string]any{"type": "number", "minimum": 0, "maximum": 1, "description": "weight of price against start in the rating (seed 001): 0 earliest first, 1 cheapest first; default 0.5"}
	candidate := object([]string{"offer_id", "resource_id", "start", "end", "nodes", "fare_class", "expires_at", "price", "rating"}, map[string]any{
		"offer_id": str("the candidate as an offer: POST /v1/bookings holds it until expires_at"), "resource_id": str(""),
		"start": timestamp, "end": timestamp, "nodes": nodes, "fare_class": str(""), "expires_at": timestamp, "price": ref("Price"),
		"rating":     map[string]any{"type": "number", "minimum": 0, "maximum": 1, "description": "0 best"},
		"prediction": withDesc(ref("Prediction"), "a part by profile: the prediction on this resource its duration came from"),
	})
	coPartProps := map[string]any{"prediction": ref("Prediction")}
	for k, v := range bookingSchema["properties"].(map[string]any) {
		coPartProps[k] = v
	}
	coPartView := object(bookingSchema["required"].([]string), coPartProps)
	coView := object([]string{"co_reservation_id", "account_id", "status", "policy", "hold_expires_at", "attempts", "created_at", "updated_at", "parts"}, map[string]any{
		"co_reservation_id": str(""), "account_id": str(""),
		"status": map[string]any{"type": "string", "enum": []string{"held", "committing", "committed", "cancelling", "cancelled", "expired", "rejected"},
			"description": "committing and cancelling are passing: the server finishes them"},
		"policy": map[string]any{"type": "string", "enum": []string{"earliest", "cheapest", "alpha"}}, "alpha": number,
		"fare_class": str(""), "hold_expires_at": withDesc(nullable(timestamp), "while held: when the first part's hold expires"),
		"attempts":   withDesc(integer, "co-reservation candidates the broker tried"),
		"failure":    object([]string{"part", "reason"}, map[string]any{"part": integer, "reason": str("")}),
		"total":      withDesc(ref("Price"), "the parts' prices added up (when they share a currency)"),
		"charged":    describedAs(money, "what the parts were billed, decimal in the parts' currency (kept or refunded since); 0 for parts never committed"),
		"refunded":   describedAs(money, "what of charged was refunded: all of it when the broker rolled committed parts back (an expired or rejected co-reservation owes nothing); charged less the penalties when the user cancelled"),
		"created_at": timestamp, "updated_at": timestamp,
		"parts": withDesc(arrayOf(coPartView), "each part's booking, in the request's order; a part by profile with the prediction its duration came from"),
	})
	return map[string]any{
		"Problem": object([]string{"type", "title", "status", "detail", "errors"}, map[string]any{
			"type": str("problem type URI"), "title": str(""), "status": integer, "detail": str(""),
			"errors":  arrayOf(object([]string{"field", "message"}, map[string]any{"field": str(""), "message": str("")})),
			"limit":   ref("LimitProblem"),
			"max_end": describedAs(timestamp, "a refused extension (PATCH of a started booking): the latest end the booking can be extended to now, its own end when no time fits"),
		}),
		"Status":         object([]string{"status"}, map[string]any{"status": str("")}),
		"ResourceConfig": object([]string{"nodes", "base_cost", "time_zone"}, resourceProps(false)),
		"Resource":       resource,
		"HoldLimits":     holdLimitsSchema,
		"LimitProblem":   limitProblemSchema,
		"ResourceList":   object([]string{"data"}, map[string]any{"data": arrayOf(ref("Resource"))}),
		"FareClass":      fareClass,
		"SaleTerms":      saleTerms,
		"FareClasses":    arrayOf(ref("FareClass")),
		"RatePeriod":     ratePeriod,
		"RatePeriods":    arrayOf(ref("RatePeriod")),
		"Pricing":        object([]string{"fare_classes", "rate_periods"}, map[string]any{"fare_classes": ref("FareClasses"), "rate_periods": ref("RatePeriods")}),
		"LimitsConfig":   limitsConfig,
		"Overbooking": object([]string{"policy"}, map[string]any{
			"policy":        map[string]any{"type": "string", "enum": overbookingPolicies},
			"service_level": map[string]any{"type": "number", "exclusiveMinimum": 0, "maximum": overbook.MaxServiceLevel, "description": "largest expected share of the shows denied (seed 004 Sec. 7.5.3); default 0.01"},
			"denial":        map[string]any{"type": "string", "enum": denialStrategies},
		}),
		"QueueSnapshot": object([]string{"nodes", "now", "policy", "running", "queued"}, map[string]any{
			"nodes": nodes, "now": integer, "policy": map[string]any{"type": "string", "enum": []string{"fcfs", "easy", "conservative"}},
			"running":      arrayOf(queueJob([]string{"id", "nodes", "end"}, map[string]any{"id": str(""), "nodes": nodes, "end": integer})),
			"queued":       arrayOf(queueJob([]string{"id", "nodes", "runtime"}, map[string]any{"id": str(""), "nodes": nodes, "runtime": integer, "weight": nullable(money)})),
			"reservations": arrayOf(queueJob([]string{"id", "nodes", "start", "end"}, map[string]any{"id": str(""), "nodes": nodes, "start": integer, "end": integer})),
		}),
		"LimitsReport": object([]string{"resource_id", "from", "to", "periods"}, map[string]any{
			"resource_id": str(""), "from": timestamp, "to": timestamp, "periods": arrayOf(ref("LimitsReportPeriod")),
		}),
		"LimitsReportPeriod": limitsPeriod,
		"Occupancy":          reportSchema(map[string]any{"steps": withDesc(arrayOf(occupancyStep), "the step function, in time order, covering the window")}),
		"ControlReport":      reportSchema(map[string]any{"method": str("booking control's method (emsr-b, ...)"), "instances": withDesc(arrayOf(controlInstance), "every rate-period instance of the window, in time order")}),
		"RevenueReport": reportSchema(map[string]any{
			"currency": str("the resource's currency"),
			"rows": withDesc(arrayOf(revenueFigures(map[string]any{"date": str("YYYY-MM-DD in the resource's time zone: the day of the booking's start"),
				"class": str("fare class; empty for a compensation without booking"), "period": str("rate period of the booking's start")})), "per day, class and period, in that order"),
			"total": withDesc(revenueFigures(nil), "the window's money"), "last_week": withDesc(revenueFigures(nil), "the same window seven days earlier"),
		}),
		"DenialReport": reportSchema(map[string]any{
			"currency": str("the resource's currency"), "strategy": str("denial strategy in force: lottery, dcf or lc-dcf"), "policy": str("overbooking policy in force"),
			"rows": withDesc(arrayOf(object(nil, map[string]any{"date": str("YYYY-MM-DD in the resource's time zone: the day of the start"), "class": str("fare class"),
				"denied": withDesc(integer, "bookings denied at their start"), "denied_nodes": withDesc(integer, "their nodes"),
				"compensation": withDesc(money, "compensation paid for them"), "no_shows": withDesc(integer, "bookings not checked in by their start plus the grace"),
				"no_show_nodes": withDesc(integer, "their nodes"), "refused_closed": withDesc(integer, "requests refused because the class was closed (stored refusals)")})), "per day and class with anything to count"),
		}),
		"OfferQuery": object([]string{"earliest_start", "latest_end"}, map[string]any{
			"resource_id": nullString, "earliest_start": timestamp, "latest_end": timestamp,
			"duration_seconds": nullable(nodes), "nodes": nullable(nodes),
			"fare_class": withDesc(nullString, "the class asked; closed where the request would go, the offers come in the next open class up the user may buy; left out, in the cheapest open class the user may buy"),
			"strategy":   map[string]any{"type": "string", "enum": offerStrategies},
			"profile":    str("an application profile instead of duration_seconds: on each resource the offers are for the duration predicted there from its recorded runs, each offer with its prediction; no run of it on any resource asked: 422"),
			"bytes":      map[string]any{"type": "integer", "minimum": 0, "description": "with profile: the data the job moves (ETTS where the resource has runs that moved data)"},
		}),
		"Offer": object([]string{"offer_id", "resource_id", "start", "end", "nodes", "fare_class", "solution", "expires_at", "price"}, map[string]any{
			"offer_id": str("opaque, signed"), "resource_id": str(""), "start": timestamp, "end": timestamp, "nodes": nodes,
			"fare_class":           str("the fare class the offer sells and is priced in"),
			"requested_fare_class": str("present when the offer is a buy-up: the class the query asked, closed where the request would go, so the offer is in the next open class up (fare_class)"),
			"solution":             boolean, "expires_at": timestamp, "price": ref("Price"),
			"prediction": withDesc(ref("Prediction"), "a query by profile: the prediction on this resource the offer's duration came from"),
		}),
		"Offers": object([]string{"offers"}, map[string]any{"offers": arrayOf(ref("Offer"))}),
		"HoldRequest": object(nil, map[string]any{
			"offer_id": str("an offer's id; or give the other fields"), "resource_id": str(""), "start": timestamp, "end": timestamp,
			"nodes": nodes, "fare_class": str(""),
			"profile": str("the application profile the job runs (optional): once the booking completes, its run time is recorded against it"),
		}),
		"ModifyRequest": object(nil, map[string]any{"start": timestamp, "end": timestamp, "nodes": nodes,
			"quote_id": str("a modification quote (POST /v1/bookings/{id}/quote) to honour; start, end and nodes may then be left out")}),
		"CancelRequest": object(nil, map[string]any{"quote_id": str("a cancellation quote (GET /v1/bookings/{id}/cancellation) to honour")}),
		"Quote": object([]string{"quote_id", "booking_id", "kind", "penalty", "penalty_rate", "currency", "valid_until"}, map[string]any{
			"quote_id":     str("signed id to pass as quote_id to the cancel or PATCH"),
			"booking_id":   str("the booking quoted"),
			"kind":         map[string]any{"type": "string", "enum": []string{"cancellation", "modification"}, "description": "what the quote prices"},
			"penalty":      withDesc(money, "cancellation: the booking's penalty once cancelled (all it keeps); modification: what a reduction keeps"),
			"refund":       withDesc(money, "cancellation: everything billed, credited back"),
			"penalty_rate": withDesc(money, "the rate applied, from the booking's cancellation schedule at this lead time"),
			"currency":     str("the booking's currency"),
			"valid_until":  withDesc(timestamp, "the quote is honoured until this instant (exclusive)"),
			"start":        withDesc(timestamp, "modification: the new start"),
			"end":          withDesc(timestamp, "modification: the new end"),
			"nodes":        nodes,
			"price":        ref("Price"),
			"difference":   withDesc(money, "modification: new price less what was billed; positive is billed, negative credited"),
		}),
		"Price":       price,
		"Booking":     bookingSchema,
		"BookingPage": page("Booking"),
		"CoReservation": object([]string{"parts"}, map[string]any{
			"fare_class": withDesc(nullString, "every part's fare class unless the part names one; null: the cheapest the caller may buy"),
			"policy":     map[string]any{"type": "string", "enum": []string{"earliest", "cheapest", "alpha"}, "description": "default earliest"},
			"alpha":      map[string]any{"type": "number", "minimum": 0, "maximum": 1, "description": "policy alpha only: weight of price against start (seed 001); default 0.5"},
			"parts":      arrayOf(coPart),
		}),
		"CoReservationView": coView,
		"Probe":             object([]string{"nodes", "earliest_start", "latest_end"}, probeProps),
		"ProbeCandidates":   object([]string{"candidates"}, map[string]any{"candidates": arrayOf(candidate)}),
		"Invoice": object([]string{"invoice_id", "account_id", "period_start", "period_end", "currency", "status", "lines", "subtotal", "total"}, map[string]any{
			"invoice_id": str(""), "account_id": str(""), "period_start": timestamp, "period_end": timestamp, "currency": str("one invoice per account, month and currency"),
			"status":   map[string]any{"type": "string", "enum": []string{"open", "issued"}},
			"subtotal": withDesc(money, "the sum of every line's signed amount: what the account owes for the month (negative: is owed)"),
			"total":    withDesc(money, "equals subtotal (no tax)"),
			"lines": arrayOf(object([]string{"kind", "booking_id", "description", "amount", "posting_id", "posted_at"}, map[string]any{
				"kind":       map[string]any{"type": "string", "enum": []string{"charge", "cancellation_penalty", "no_show_penalty", "refund", "compensation"}},
				"booking_id": nullString, "description": str(""), "posting_id": str("the ledger entry"), "posted_at": timestamp,
				"amount": withDesc(money, "signed, as the customer owes it: add every line to get the subtotal. charge: the price billed (a re-pricing down is a negative charge); cancellation_penalty, no_show_penalty: billed apart; refund: minus everything billed, credited back; compensation: negative. Per booking, the charge lines sum to its price.total, the penalty lines to its penalty, the refund lines to minus its refund"),
			})),
		}),
		"InvoicePage": page("Invoice"),
		"Account":     object([]string{"account_id"}, map[string]any{"account_id": str("the customer account")}),
		"AccountPage": page("Account"),
		"Event": object([]string{"specversion", "id", "source", "type", "time", "subject", "datacontenttype", "data"}, map[string]any{
			"specversion":     str("CloudEvents version, 1.0"),
			"id":              str("the event's id, the same every time the change it records is sent (a duplicate has the same id)"),
			"source":          str("/slotfare"),
			"type":            map[string]any{"type": "string", "enum": events.Types(), "description": "what happened: booking.<status> (the booking reached that status), booking.modified (new terms, same status), posting.created, invoice.updated, limits.published, webhook.disabled"},
			"time":            timestamp,
			"subject":         str("what the event is about: bookings/<id>, accounts/<id>, invoices/<invoice id>, resources/<id>, webhooks/<id>"),
			"datacontenttype": str("application/json"),
			"data":            map[string]any{"type": "object", "description": "the booking, posting, invoice change, limits or webhook as it is after the event. limits.published: {resource_id, from, to (the time laid out), method, piece_count, pieces (rate_period, from, to; listed when at most 16), periods: [{rate_period, source (forecast, prior, initial or none), overbooking_limit (nodes), fare_classes: [{fare_class, booking_limit (nested, in nodes)}]}]}, written only when a layout changes a stored capacity or is made anew"},
		}),
		"WebhookRequest": object([]string{"url", "event_types"}, map[string]any{
			"url":         str("where deliveries are POSTed: https, a public address (see serve --webhooks-allow-private)"),
			"event_types": arrayOf(map[string]any{"type": "string", "enum": append([]string{"*"}, events.Types()...), "description": "an event type, or * for all"}),
		}),
		"Webhook":        webhookSchema(false),
		"WebhookCreated": webhookSchema(true),
		"WebhookList":    object([]string{"data"}, map[string]any{"data": arrayOf(ref("Webhook"))}),
		"EventPage": object([]string{"data", "has_more", "next_cursor"}, map[string]any{"data": arrayOf(ref("Event")), "has_more": map[string]any{"type": "boolean"},
			"next_cursor": str("opaque cursor to read after this page; always set: keep it and ask again for events that come later")}),
		"Entry":     entry,
		"EntryPage": page("Entry"),
		"Balance": object([]string{"account_id", "balances"}, map[string]any{"account_id": str(""),
			"balances": arrayOf(object([]string{"currency", "amount"}, map[string]any{"currency": str(""), "amount": money}))}),
		"KeyRequest": object([]string{"name", "role", "account_id"}, map[string]any{
			"name": str("1-64 characters without blanks, unique among the live keys"), "role": map[string]any{"type": "string", "enum": []string{"provider", "user", "billing"}},
			"account_id": str("the account the key acts for"), "vo": withDesc(vo, "users only: the VO that decides which restricted fare classes it may buy"),
		}),
		"RunRequest": object([]string{"profile", "resource_id", "runtime_seconds"}, runProps(false)),
		"Run":        object([]string{"run_id", "profile", "resource_id", "runtime_seconds", "transfer_seconds", "bytes_transferred", "finished_at", "recorded_at"}, runProps(true)),
		"Prediction": predictionSchema,
		"RunPrediction": object([]string{"profile", "resource_id", "bytes", "prediction"}, map[string]any{
			"profile": str(""), "resource_id": str(""), "bytes": integer, "prediction": nullable(ref("Prediction")),
		}),
		"KeyInfo": keyInfo,
		"NewKey":  newKey,
		"KeyList": object([]string{"data"}, map[string]any{"data": arrayOf(ref("KeyInfo"))}),
	}
}

// OpenAPIDocument builds the OpenAPI 3.1 description of every route.
func OpenAPIDocument() map[string]any {
	paths := map[string]any{}
	for _, op := range operations {
		p := openAPIPath(op.path)
		item, _ := paths[p].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[p] = item
		}
		item[strings.ToLower(op.method)] = openAPIOperation(op)
	}
	all := schemas()
	describeSchemas(all)
	return map[string]any{
		"openapi": "3.1.0",
		"tags":    openAPITags(),
		"info": map[string]any{"title": "slotfare", "version": "1",
			"description": "Revenue-management pricing and overbooking for advance reservations of compute nodes. Money is a decimal string; times are RFC 3339 UTC; errors are application/problem+json."},
		"servers": []any{map[string]any{"url": "/"}},
		"paths":   paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "Authorization: Bearer <api key>"}},
			"schemas":         all,
		},
	}
}

// openAPIOperation is one route's operation object.
func openAPIOperation(op operation) map[string]any {
	o := map[string]any{"summary": summaryOf(op.summary), "description": op.summary, "tags": []any{tagOf(op.path)}, "operationId": strings.ToLower(op.method) + strings.NewReplacer("/", "_", ":", "", "-", "_", ".", "_").Replace(op.path)}
	if params := operationParams(op); params != nil {
		o["parameters"] = params
	}
	if op.body != "" {
		content := map[string]any{"application/json": map[string]any{"schema": ref(op.body)}}
		if op.method == "PATCH" {
			content[MergePatchType] = map[string]any{"schema": ref(op.body)}
		}
		o["requestBody"] = map[string]any{"required": true, "content": content}
	}
	if op.role != "" {
		o["security"] = []any{map[string]any{"bearer": []any{}}}
		o["x-role"] = op.role
	} else {
		o["security"] = []any{} // public: no key
	}
	o["responses"] = operationResponses(op)
	return o
}

// operationParams are a route's path parameters, a GET's query parameters
// and the Idempotency-Key header where one is taken; nil when none.
func operationParams(op operation) []any {
	var params []any
	for _, seg := range strings.Split(op.path, "/") {
		if name, ok := strings.CutPrefix(seg, ":"); ok {
			params = append(params, map[string]any{"name": name, "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
	}
	if op.method == "GET" {
		for _, q := range queryParams[op.path] {
			schema := map[string]any{"type": "string"}
			switch q[0] {
			case "limit":
				schema = map[string]any{"type": "integer", "minimum": 1, "maximum": MaxLimit}
			case "from", "to":
				schema = timestamp
			case "status":
				schema = map[string]any{"type": "string", "enum": bookingStatuses}
			}
			param := map[string]any{"name": q[0], "in": "query", "description": q[1], "schema": schema}
			if strings.Contains(q[1], "(required)") {
				param["required"] = true
			}
			params = append(params, param)
		}
	}
	if op.path == "/v1/bookings" && op.method == "POST" {
		params = append(params, map[string]any{"name": IdempotencyKeyHeader, "in": "header", "required": true, "schema": map[string]any{"type": "string", "maxLength": 255}})
	}
	if op.path == "/v1/co-reservations" && op.method == "POST" {
		params = append(params, map[string]any{"name": IdempotencyKeyHeader, "in": "header", "required": false, "schema": map[string]any{"type": "string", "maxLength": 255},
			"description": "optional: a retry with the key and the same request answers the first co-reservation (Idempotent-Replayed: true); with another request, 409"})
	}
	return params
}

// operationResponses are a route's answers: its success, the problems any
// authenticated route may answer, and each route's own.
func operationResponses(op operation) map[string]any {
	resp := map[string]any{}
	okResp := map[string]any{"description": okDescription(op)}
	switch {
	case op.result != "":
		okResp["content"] = map[string]any{"application/json": map[string]any{"schema": ref(op.result)}}
	case op.path == "/metrics":
		okResp["content"] = map[string]any{"text/plain": map[string]any{"schema": map[string]any{"type": "string"}}}
	case op.path == "/openapi.json":
		okResp["content"] = map[string]any{"application/json": map[string]any{"schema": openAPIDocumentSchema}}
	}
	resp[itoa(op.ok)] = okResp
	if op.path == "/v1/resources/:id" && op.method == "PUT" {
		resp["201"] = map[string]any{"description": "Created: the resource is new (or replaces a retired one).",
			"content": map[string]any{"application/json": map[string]any{"schema": ref("Resource")}}}
	}
	if op.path == "/v1/runs" && op.method == "POST" {
		resp["200"] = map[string]any{"description": "The run id was already recorded on the resource with the same values (a retry): the stored run.",
			"content": map[string]any{"application/json": map[string]any{"schema": ref("Run")}}}
	}
	if op.role != "" {
		for _, st := range []int{400, 401, 403, 404, 409, 422} {
			resp[itoa(st)] = problemResponse(st)
		}
		if op.body != "" {
			resp["413"] = problemResponse(413)
			resp["415"] = problemResponse(415)
		}
		resp["503"] = problemResponse(503)
	}
	if op.path == "/v1/bookings" && op.method == "POST" {
		resp["429"] = holdLimitResponse
	}
	if op.path == "/v1/co-reservations" {
		resp["429"] = holdLimitResponse
	}
	if op.path == "/v1/runs" && op.method == "POST" {
		resp["429"] = runQuotaResponse
	}
	if op.path == "/readyz" {
		resp["503"] = problemResponse(503)
	}
	if op.role == "" {
		resp["405"] = problemResponse(405)
	}
	return resp
}

// okDescription is the success response's description.
func okDescription(op operation) string {
	switch {
	case op.ok == 204:
		return "Done; no body."
	case op.ok == 201 && op.result == "":
		return "Created."
	case op.result == "":
		return "Success."
	}
	return "Success: " + op.result + "."
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

var openAPIJSON = sync.OnceValue(func() []byte {
	b, err := json.Marshal(OpenAPIDocument())
	if err != nil {
		panic("api: OpenAPI document does not encode: " + err.Error())
	}
	return b
})

func serveOpenAPI(c echo.Context) error {
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIJSON())
}

// reportSchema is a provider's report of one resource over a window:
// the fields every report has, and its own.
func reportSchema(own map[string]any) map[string]any {
	props := map[string]any{"resource_id": str("the resource"), "time_zone": str("the resource's IANA time zone, in which days are counted"),
		"from": withDesc(timestamp, "start of the window asked"), "to": withDesc(timestamp, "end of the window asked")}
	req := []string{"resource_id", "time_zone", "from", "to"}
	for _, k := range slices.Sorted(maps.Keys(own)) {
		props[k] = own[k]
		req = append(req, k)
	}
	return object(req, props)
}

var (
	occupancyStep = object(nil, map[string]any{"start": withDesc(timestamp, "the step's start"), "end": withDesc(timestamp, "the step's end"),
		"period": str("rate period in force"), "capacity": withDesc(integer, "the resource's nodes"),
		"overbooking_limit": withDesc(integer, "nodes booking control lets be sold"), "held": withDesc(integer, "nodes held (not yet committed)"),
		"committed": withDesc(integer, "nodes committed, not checked in"), "checked_in": withDesc(integer, "nodes checked in or running (completed bookings for the time they ran)")})
	classControl = object(nil, map[string]any{"class": str("fare class"), "rank": withDesc(integer, "1 = the highest class"),
		"bookings":         withDesc(integer, "the most nodes the class holds at any instant of the instance"),
		"booking_limit":    withDesc(integer, "the class's nested booking limit"),
		"protection_level": withDesc(number, "protected for this class and those above from the classes below; 0 for the lowest"),
		"forecast_mean":    withDesc(nullable(number), "forecast demand's mean; null until the period has enough history"),
		"forecast_sd":      withDesc(nullable(number), "forecast demand's standard deviation; null likewise"),
		"curve": withDesc(arrayOf(object(nil, map[string]any{"days_before": withDesc(integer, "days before the instance's start"),
			"bookings": withDesc(integer, "bookings sold at least that many days before"), "nodes": withDesc(integer, "their nodes")})),
			"booking curve of the bookings sold for the instance, furthest first")})
	controlInstance = object(nil, map[string]any{"start": withDesc(timestamp, "the instance's start"), "end": withDesc(timestamp, "the instance's end"),
		"period": str("rate period"), "capacity": withDesc(integer, "the resource's nodes"), "overbooking_limit": withDesc(integer, "nodes booking control lets be sold"),
		"show_rate": withDesc(number, "the show rate the overbooking limit was computed with"), "source": str("forecast, initial (the provider's levels) or none"),
		"classes": withDesc(arrayOf(classControl), "one per fare class, highest first")})
)

// revenueFigures is a revenue report's money by kind, with extra fields.
func revenueFigures(extra map[string]any) map[string]any {
	props := map[string]any{"charges": withDesc(money, "charges and price changes up"), "penalties": withDesc(money, "cancellation and no-show penalties"),
		"refunds":      withDesc(money, "credited back: a cancellation's whole charge (its penalty is billed apart) and price changes down"),
		"compensation": withDesc(money, "compensation paid"),
		"net":          withDesc(money, "charges + penalties - refunds - compensation")}
	for k, v := range extra {
		props[k] = v
	}
	return object(nil, props)
}

// webhookSchema is a webhook as listed, or as created (with its secret).
func webhookSchema(withSecret bool) map[string]any {
	req := []string{"webhook_id", "url", "event_types", "status", "created_at", "disabled_at", "failed_attempts", "last_error"}
	props := map[string]any{
		"webhook_id":      str("the webhook's id"),
		"url":             str("where deliveries are POSTed"),
		"event_types":     arrayOf(str("an event type, or * for all")),
		"status":          map[string]any{"type": "string", "enum": []string{"enabled", "failing", "disabled"}, "description": "enabled; failing: the last delivery failed and is being retried; disabled: it failed for 24 h"},
		"created_at":      timestamp,
		"disabled_at":     nullable(timestamp),
		"failed_attempts": map[string]any{"type": "integer", "description": "deliveries failed in a row"},
		"last_error":      str("why the last delivery failed (empty when it did not)"),
	}
	if withSecret {
		req = append(req, "secret")
		props["secret"] = str("whsec_ and the base64 of the signing key: shown this once, keep it to verify webhook-signature")
	}
	return object(req, props)
}
