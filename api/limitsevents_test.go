package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"slotfare/booking/webhooks"
)

// TestLimitsPublishedOverHTTP: each resource laid out at start has a
// limits.published event with its limits, which a provider reads through
// GET /v1/events?type=limits.published and billing does not; a webhook
// registered for that type alone (accepted) receives the event of the
// limits a change of the overbooking policy publishes, and nothing else.
func TestLimitsPublishedOverHTTP(t *testing.T) {
	e, _, ws := newWebhookServer(t, webhooks.Options{AllowPrivate: true})
	r := newReceiver(t)
	var made struct {
		Secret string `json:"secret"`
	}
	json.Unmarshal(call{"POST", "/v1/webhooks", kProv, fmt.Sprintf(`{"url":%q,"event_types":["limits.published"]}`, r.srv.URL), nil}.must(t, e, 201).Body.Bytes(), &made)
	r.secret = made.Secret

	var page eventPage
	json.Unmarshal(call{"GET", "/v1/events?type=limits.published", kProv, "", nil}.must(t, e, 200).Body.Bytes(), &page)
	subjects := map[string]bool{}
	for _, ev := range page.Data {
		var d struct {
			ResourceID string `json:"resource_id"`
			Method     string `json:"method"`
			Periods    []struct {
				RatePeriod       string `json:"rate_period"`
				OverbookingLimit int    `json:"overbooking_limit"`
				FareClasses      []struct {
					FareClass    string `json:"fare_class"`
					BookingLimit *int   `json:"booking_limit"`
				} `json:"fare_classes"`
			} `json:"periods"`
		}
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		if ev.Type != "limits.published" || ev.Subject != "resources/"+d.ResourceID || d.Method == "" || len(d.Periods) == 0 ||
			d.Periods[0].RatePeriod == "" || d.Periods[0].OverbookingLimit < 1 || len(d.Periods[0].FareClasses) == 0 || d.Periods[0].FareClasses[0].BookingLimit == nil {
			t.Fatalf("event %s %s: %s", ev.Type, ev.Subject, ev.Data)
		}
		subjects[ev.Subject] = true
	}
	if !subjects["resources/RAL"] || len(subjects) < 2 {
		t.Fatalf("limits published at start for %v, want every resource's", subjects)
	}
	var billing eventPage
	json.Unmarshal(call{"GET", "/v1/events?type=limits.published", kBill, "", nil}.must(t, e, 200).Body.Bytes(), &billing)
	if len(billing.Data) != 0 {
		t.Fatalf("billing reads %d limits.published events", len(billing.Data))
	}

	call{"PUT", "/v1/resources/RAL/overbooking", kProv, `{"policy":"probability"}`, nil}.must(t, e, 200)
	if err := ws.Step(context.Background(), time.Now()); err != nil {
		t.Fatal(err)
	}
	got, dups := r.firsts()
	if strings.Join(got, " ") != "limits.published@resources/RAL" || dups != 0 {
		t.Fatalf("the webhook received %v (%d again), want RAL's new limits", got, dups)
	}
}
