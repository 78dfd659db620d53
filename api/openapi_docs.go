package api

import (
	"sort"
	"strings"
)

// propertyDocs describe the properties the schemas leave undescribed, so
// that every property of /openapi.json says what it is and its unit. A
// "Schema.property" entry wins over a "property" one, which serves the
// property wherever its meaning is the same.
var propertyDocs = map[string]string{
	"nodes":             "number of compute nodes",
	"resource_id":       "the resource's id",
	"fare_class":        "the fare class's name",
	"account_id":        "the customer account",
	"booking_id":        "the booking's id",
	"co_reservation_id": "the co-reservation's id",
	"invoice_id":        "the invoice's id",
	"role":              "provider, user or billing",
	"data":              "the items of this page, in order",
	"event_types":       "the event types delivered (* for every type the role reads)",
	"disabled_at":       "when the webhook was disabled after failing for 24 h (RFC 3339, UTC); null while enabled",
	"has_more":          "true when another page follows (ask with next_cursor)",
	"next_cursor":       "opaque cursor of the next page; null on the last",
	"price":             "the price: base, delay premium and total, in one currency",
	"currency":          "three upper-case letters (ISO 4217, or private such as GRD)",
	"checked_in":        "true once the job checked in (it counts as a show)",
	"terms":             "the terms the booking was sold under: cancellation schedule, no-show penalty rate, denied-service factor; a provider's later change applies to later sales only",
	"hold_expires_at":   "when the hold lapses unless committed (RFC 3339, UTC); null once committed or ended",
	"duration_seconds":  "the job's length, in seconds",
	"tags":              "labels a probe or co-reservation part may match",
	"slot_seconds":      "the calendar's slot length, in seconds (divides a day)",
	"hold_seconds":      "how long a hold lasts before it lapses, in seconds",
	"fare_classes":      "the fare classes, ranked (1 is the highest)",
	"rate_periods":      "the rate periods that set each class's price factor (tau)",
	"overbooking":       "the overbooking policy and denial strategy",
	"hold_limits":       "what one account may hold on the resource at once",
	"limits":            "booking control: method, minimum history, initial protection levels, default show rates",
	"created_at":        "when it was made (RFC 3339, UTC)",
	"alpha":             "weight of price against start time in seed 001's rating (0 to 1)",
	"prediction":        "the predicted duration of the part's job, when its profile has recorded runs",
	"bytes":             "bytes the job moves (ETTS); 0 when not given",
	"profile":           "the application profile",
	"errors":            "one entry per field at fault",
	"field":             "the field at fault, as a JSON path (parts[1].duration_seconds)",
	"message":           "what is wrong with the field",
	"limit":             "the limit that refused the request",
	"title":             "a short summary of the problem's type",
	"detail":            "what went wrong, for a person",

	"Balance.balances":                     "what the account owes per currency: debits minus credits, decimal strings",
	"Booking.status":                       "where the booking is in its life",
	"CoReservation.part":                   "index of the part this part must follow",
	"CoReservation.parts":                  "the resources to reserve together, in order",
	"CoReservation.max_gap_seconds":        "the longest wait between the end of the part followed and this part's start, in seconds",
	"CoReservationView.status":             "where the co-reservation is in its life",
	"CoReservationView.policy":             "how the candidate was chosen: earliest, cheapest or alpha",
	"CoReservationView.failure":            "the part that failed and why, when one did",
	"CoReservationView.part":               "index of the part",
	"CoReservationView.reason":             "why the part failed",
	"Entry.id":                             "the posting's id",
	"Entry.kind":                           "what the posting records",
	"Entry.description":                    "the posting, for a person",
	"Entry.side":                           "debit or credit",
	"Invoice.status":                       "open while the month runs, then closed",
	"Invoice.lines":                        "one line per posting on the account in the month",
	"Invoice.kind":                         "what the line records",
	"Invoice.description":                  "the line, for a person",
	"KeyInfo.name":                         "the key's name, unique",
	"NewKey.name":                          "the key's name, unique",
	"NewKey.source":                        "api: made over the API",
	"FareClass.name":                       "the class's name, unique on the resource",
	"FareClass.rank":                       "1 for the highest class, then 2, 3, ... (nesting order)",
	"RatePeriod.name":                      "the period's name, unique on the resource",
	"LimitsReport.periods":                 "one entry per rate-period instance in the window",
	"LimitsReportPeriod.bookings":          "nodes booked per class",
	"LimitsReportPeriod.capacity":          "the resource's nodes",
	"LimitsReportPeriod.overbooking_limit": "nodes that may be sold, capacity plus overbooking",
	"LimitsReportPeriod.protection_levels": "nodes protected for each class and the classes above it",
	"LimitsReportPeriod.booking_limits":    "nested booking limit per class, in nodes",
	"LimitsReportPeriod.show_rate":         "the share of bookings expected to show",
	"Offer.solution":                       "true when the offer meets the query's duration and nodes",
	"OfferQuery.strategy":                  "how candidates are ranked",
	"Offers.offers":                        "the priced offers, the solution first",
	"Overbooking.policy":                   "none, probability, risk or service-level",
	"Overbooking.denial":                   "lottery, dcf or lc-dcf: whom to deny when more show than there are nodes",
	"ProbeCandidates.candidates":           "the candidates, best rated first",
	"Problem.status":                       "the HTTP status",
	"QueueSnapshot.nodes":                  "the machine's nodes",
	"QueueSnapshot.now":                    "the snapshot's time, in seconds (the scale of every other time in it)",
	"QueueSnapshot.policy":                 "the batch scheduler's backfilling: fcfs, easy or conservative",
	"QueueSnapshot.running":                "jobs running at now",
	"QueueSnapshot.queued":                 "jobs waiting, in queue order",
	"QueueSnapshot.reservations":           "advance reservations already on the machine",
	"QueueSnapshot.id":                     "the job's or reservation's id",
	"QueueSnapshot.end":                    "end, in seconds on the snapshot's scale",
	"QueueSnapshot.start":                  "start, in seconds on the snapshot's scale",
	"QueueSnapshot.runtime":                "the job's estimated runtime, in seconds",
	"QueueSnapshot.weight":                 "delay cost of the job's queue per node-second (default 1)",
	"ResourceConfig.vo":                    "virtual organisation that owns the resource (null: none)",
	"Status.status":                        "ok, or what is wrong",
}

// describeSchemas describes the properties of every schema, in name
// order, so that an object two schemas share is described the same way
// each time the document is built.
func describeSchemas(schemas map[string]any) {
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if s, ok := schemas[n].(map[string]any); ok {
			describeProperties(n, s)
		}
	}
}

// describeProperties gives every undescribed property of schema (named
// name) its entry in propertyDocs, through nested objects, arrays, maps
// and alternatives.
func describeProperties(name string, schema map[string]any) {
	if props, ok := schema["properties"].(map[string]any); ok {
		for p, v := range props {
			s, _ := v.(map[string]any)
			if s == nil {
				continue
			}
			// A copy: the schemas share maps such as money and nodes.
			if d, _ := s["description"].(string); strings.TrimSpace(d) == "" {
				doc, ok := propertyDocs[name+"."+p]
				if !ok {
					doc = propertyDocs[p]
				}
				c := make(map[string]any, len(s)+1)
				for k, v := range s {
					c[k] = v
				}
				if doc != "" {
					c["description"] = doc
				}
				s = c
				props[p] = s
			}
			describeProperties(name, s)
		}
	}
	for _, key := range []string{"items", "additionalProperties"} {
		if s, ok := schema[key].(map[string]any); ok {
			describeProperties(name, s)
		}
	}
	if alts, ok := schema["oneOf"].([]any); ok {
		for _, a := range alts {
			if s, ok := a.(map[string]any); ok {
				describeProperties(name, s)
			}
		}
	}
}

// tags group the operations by what they act on, in the order a reader
// meets them.
var tags = []struct{ name, desc, prefix string }{
	{"service", "Health, readiness, metrics and this document: no key needed.", ""},
	{"resources", "The provider's resources: capacity, fare classes, rate periods, overbooking, booking control, queue snapshot.", "/v1/resources"},
	{"keys", "API keys: made, listed and revoked by providers.", "/v1/keys"},
	{"offers", "Priced offers for a time window.", "/v1/offers"},
	{"bookings", "Holds, commits, changes, cancellations, check-in and check-out.", "/v1/bookings"},
	{"co-reservations", "Probes and all-or-nothing reservations of several resources.", "/v1/probes"},
	{"co-reservations", "", "/v1/co-reservations"},
	{"runs", "Recorded runs of application profiles and the durations predicted from them.", "/v1/runs"},
	{"billing", "Invoices, ledger entries and balances.", "/v1/invoices"},
	{"billing", "", "/v1/ledger"},
	{"events", "The event log and the webhooks that push it.", "/v1/events"},
}

// tagOf is the tag of the operation on path: the first tag whose prefix
// it has; the public endpoints are "service".
func tagOf(path string) string {
	for _, t := range tags {
		if t.prefix != "" && strings.HasPrefix(path, t.prefix) {
			return t.name
		}
	}
	if strings.HasPrefix(path, "/v1/") {
		seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/v1/"), "/")
		return seg
	}
	return "service"
}

// openAPITags lists each tag once, with its description.
func openAPITags() []any {
	var out []any
	seen := map[string]bool{}
	for _, t := range tags {
		if !seen[t.name] {
			seen[t.name] = true
			out = append(out, map[string]any{"name": t.name, "description": t.desc})
		}
	}
	return out
}

// summaryOf is an operation's summary: the start of its description, cut
// before the first parenthesis, sentence end, semicolon or colon.
func summaryOf(desc string) string {
	s := desc
	for _, sep := range []string{" (", ". ", "; ", ": "} {
		if i := strings.Index(s, sep); i > 3 {
			s = s[:i]
		}
	}
	return strings.TrimSuffix(s, ".")
}

// openAPIDocumentSchema is the shape GET /openapi.json answers: an
// OpenAPI 3.1 document.
var openAPIDocumentSchema = map[string]any{
	"type":        "object",
	"description": "an OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0)",
	"required":    []string{"openapi", "info", "paths"},
	"properties": map[string]any{
		"openapi":    map[string]any{"type": "string", "description": "the OpenAPI version, 3.1.0"},
		"info":       map[string]any{"type": "object", "description": "title, version and description of the API"},
		"paths":      map[string]any{"type": "object", "description": "the operations, by path and method"},
		"components": map[string]any{"type": "object", "description": "schemas and security schemes the paths refer to"},
		"tags":       map[string]any{"type": "array", "description": "the groups of operations", "items": map[string]any{"type": "object"}},
		"servers":    map[string]any{"type": "array", "description": "where the API is served, relative to this document", "items": map[string]any{"type": "object"}},
	},
}
