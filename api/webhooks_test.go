package api

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"slotfare"
	"slotfare/booking/config"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
	"slotfare/booking/service"
	"slotfare/booking/webhooks"
)

// receiver is a webhook endpoint on loopback that checks every delivery's
// signature itself (Standard Webhooks, computed here, not by the
// package under test) and keeps what it got; down makes it answer 503.
type receiver struct {
	t      *testing.T
	secret string
	mu     sync.Mutex
	down   bool
	got    []delivery
	srv    *httptest.Server
}

type delivery struct{ id, typ, subject string }

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, q *http.Request) {
	body, _ := io.ReadAll(q.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	id, ts := q.Header.Get("webhook-id"), q.Header.Get("webhook-timestamp")
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.secret, "whsec_"))
	if err != nil || !strings.HasPrefix(r.secret, "whsec_") {
		r.t.Errorf("secret %q is not whsec_ and base64", r.secret)
	}
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s.%s.%s", id, ts, body)
	want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
	if q.Header.Get("webhook-signature") != want {
		r.t.Errorf("delivery %s: signature %q, want %q", id, q.Header.Get("webhook-signature"), want)
	}
	var e struct{ ID, Type, Subject string }
	if err := json.Unmarshal(body, &e); err != nil || e.ID != id {
		r.t.Errorf("delivery %s: body %s is not its event", id, body)
	}
	r.got = append(r.got, delivery{id, e.Type, e.Subject})
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

func (r *receiver) setDown(down bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.down = down
}

// firsts are the deliveries' types@subjects in the order each event id
// was first received, and how many event ids came more than once.
func (r *receiver) firsts() ([]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	dups := 0
	for _, d := range r.got {
		if seen[d.id] {
			dups++
			continue
		}
		seen[d.id] = true
		out = append(out, d.typ+"@"+d.subject)
	}
	return out, dups
}

// newWebhookServer is newTestServer with webhooks delivered from the
// service's event log under o.
func newWebhookServer(t *testing.T, o webhooks.Options) (*echo.Echo, *service.Service, *webhooks.Service) {
	t.Helper()
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.Open(cfg, deploytest.Embedded(t, openBolt(t, t.TempDir())), service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	ws := webhooks.New(webhooks.NewMemory(), svc.EventsAs, svc.AppendEvents, o)
	e := New(svc, Options{Webhooks: ws})
	validating.Store(e, t)
	t.Cleanup(func() { validating.Delete(e) })
	return e, svc, ws
}

// bookingLife holds, commits and cancels a booking of alice's on RAL at
// hour h from a few days ahead, and answers its events' types@subjects
// as the provider reads them.
func bookingLife(t *testing.T, e *echo.Echo, h int) (string, []string) {
	t.Helper()
	st := time.Now().UTC().Truncate(24 * time.Hour).Add(3*24*time.Hour + time.Duration(h)*time.Hour)
	body := fmt.Sprintf(`{"resource_id":"RAL","start":%q,"end":%q,"nodes":1,"fare_class":"premium"}`, st.Format(time.RFC3339), st.Add(time.Hour).Format(time.RFC3339))
	var b struct {
		ID string `json:"booking_id"`
	}
	json.Unmarshal(call{"POST", "/v1/bookings", kAlice, body, []string{"Idempotency-Key", fmt.Sprintf("wh-%d", h)}}.must(t, e, 201).Body.Bytes(), &b)
	call{"POST", "/v1/bookings/" + b.ID + "/commit", kAlice, "", nil}.must(t, e, 200)
	call{"POST", "/v1/bookings/" + b.ID + "/cancel", kAlice, "", nil}.must(t, e, 200)
	return b.ID, []string{"booking.held@bookings/" + b.ID, "booking.committed@bookings/" + b.ID, "booking.cancelled@bookings/" + b.ID}
}

// TestWebhookDeliversABookingsLife: a receiver on loopback registered for
// every type gets every event of a booking's life, each signed (checked
// by the receiver with its own HMAC), in the log's order; down, it gets
// nothing and the webhook backs off (a step before the retry time sends
// nothing); up again, the backlog comes in order, nothing lost; down for
// 24 h of retries, the webhook is disabled and webhook.disabled is in the
// log. Time is the steps' argument: no sleeps.
func TestWebhookDeliversABookingsLife(t *testing.T) {
	ctx := context.Background()
	e, _, ws := newWebhookServer(t, webhooks.Options{AllowPrivate: true})
	// The log's end before registration (the limits published at start):
	// the endpoint gets what comes after.
	_, start := readEvents(t, e, kProv, "", "", 1000)
	r := newReceiver(t)
	var made struct {
		ID     string `json:"webhook_id"`
		Secret string `json:"secret"`
	}
	json.Unmarshal(call{"POST", "/v1/webhooks", kProv, fmt.Sprintf(`{"url":%q,"event_types":["*"]}`, r.srv.URL), nil}.must(t, e, 201).Body.Bytes(), &made)
	r.secret = made.Secret
	if !strings.HasPrefix(made.Secret, "whsec_") || made.ID == "" {
		t.Fatalf("made %+v", made)
	}
	if strings.Contains(call{"GET", "/v1/webhooks", kProv, "", nil}.must(t, e, 200).Body.String(), made.Secret) {
		t.Fatal("the listing shows the secret")
	}

	now := time.Now()
	_, life := bookingLife(t, e, 10)
	all, _ := readEvents(t, e, kProv, "", start, 1000)
	if err := ws.Step(ctx, now); err != nil {
		t.Fatal(err)
	}
	got, dups := r.firsts()
	if strings.Join(got, " ") != strings.Join(all, " ") || !hasInOrder(got, life) || dups != 0 {
		t.Fatalf("received %v (%d again)\nthe log has %v", got, dups, all)
	}

	// Down: the delivery fails and is retried only once its backoff is
	// over; the booking after it waits behind it.
	r.setDown(true)
	_, life2 := bookingLife(t, e, 12)
	ws.Step(ctx, now.Add(time.Second))
	ws.Step(ctx, now.Add(5*time.Second)) // before the first retry (10 s)
	if n := r.count(); n != len(all) {
		t.Fatalf("while down: %d deliveries recorded", n)
	}
	var list struct {
		Data []struct {
			Status   string `json:"status"`
			Attempts int    `json:"failed_attempts"`
		} `json:"data"`
	}
	json.Unmarshal(call{"GET", "/v1/webhooks", kProv, "", nil}.must(t, e, 200).Body.Bytes(), &list)
	if len(list.Data) != 1 || list.Data[0].Status != "failing" || list.Data[0].Attempts != 1 {
		t.Fatalf("while down: %+v", list.Data)
	}
	r.setDown(false)
	ws.Step(ctx, now.Add(12*time.Second))
	all, _ = readEvents(t, e, kProv, "", start, 1000)
	got, _ = r.firsts()
	if strings.Join(got, " ") != strings.Join(all, " ") || !hasInOrder(got, life2) {
		t.Fatalf("after the receiver came back: %v\nthe log has %v", got, all)
	}

	// Down for good: backoff to an hour, disabled after 24 h, and said so.
	r.setDown(true)
	bookingLife(t, e, 14)
	at := now.Add(time.Minute)
	for i := 0; i < 40; i++ {
		ws.Step(ctx, at)
		at = at.Add(time.Hour)
	}
	json.Unmarshal(call{"GET", "/v1/webhooks", kProv, "", nil}.must(t, e, 200).Body.Bytes(), &list)
	if list.Data[0].Status != "disabled" || list.Data[0].Attempts < 24 || list.Data[0].Attempts > 40 {
		t.Fatalf("after a day down: %+v", list.Data)
	}
	if dis, _ := readEvents(t, e, kProv, "type=webhook.disabled", "", 10); len(dis) != 1 || dis[0] != "webhook.disabled@webhooks/"+made.ID {
		t.Fatalf("webhook.disabled events: %v", dis)
	}
	call{"DELETE", "/v1/webhooks/" + made.ID, kProv, "", nil}.must(t, e, 204)
	call{"DELETE", "/v1/webhooks/" + made.ID, kProv, "", nil}.wantProblem(t, e, 404, "")
}

// TestWebhookRefusals: outside --webhooks-allow-private an http URL, a
// loopback or private one is 422 naming url; an unknown type 422 naming
// event_types[0]; a user 403; another account's webhook is not found.
func TestWebhookRefusals(t *testing.T) {
	e, _, _ := newWebhookServer(t, webhooks.Options{})
	for _, c := range []struct{ body, field string }{
		{`{"url":"http://example.com/hook","event_types":["*"]}`, "url"},
		{`{"url":"https://127.0.0.1/hook","event_types":["*"]}`, "url"},
		{`{"url":"https://10.1.2.3/hook","event_types":["*"]}`, "url"},
		{`{"url":"https://169.254.169.254/latest","event_types":["*"]}`, "url"},
		{`{"url":"https://[::1]/hook","event_types":["*"]}`, "url"},
		{`{"url":"not a url","event_types":["*"]}`, "url"},
		{`{"event_types":["*"]}`, "url"},
		{`{"url":"https://8.8.8.8/hook","event_types":["booking.booked"]}`, "event_types[0]"},
		{`{"url":"https://8.8.8.8/hook","event_types":[]}`, "event_types"},
	} {
		call{"POST", "/v1/webhooks", kBill, c.body, nil}.wantProblem(t, e, 422, c.field)
	}
	call{"POST", "/v1/webhooks", kAlice, `{"url":"https://8.8.8.8/hook","event_types":["*"]}`, nil}.wantProblem(t, e, 403, "")
	var made struct {
		ID string `json:"webhook_id"`
	}
	json.Unmarshal(call{"POST", "/v1/webhooks", kBill, `{"url":"https://8.8.8.8/hook","event_types":["invoice.updated"]}`, nil}.must(t, e, 201).Body.Bytes(), &made)
	call{"DELETE", "/v1/webhooks/" + made.ID, kProv, "", nil}.wantProblem(t, e, 404, "")
	call{"DELETE", "/v1/webhooks/" + made.ID, kBill, "", nil}.must(t, e, 204)
}

// TestWebhookOneReplicaDelivers: three replicas on one redis-server, each
// with its webhooks on the shared Redis, all stepping every second of a
// clock: only the holder of the webhooks lease delivers, and the receiver
// gets every event of bookings made on all three once, in the log's order.
func TestWebhookOneReplicaDelivers(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Start(t)
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	type replica struct {
		svc *service.Service
		ws  *webhooks.Service
		e   *echo.Echo
	}
	var rs []replica
	for range 3 {
		ports := &service.Ports{Inventory: redisstore.NewInventory(rdb, "sf"), Records: redisstore.NewRecords(rdb, "sf"),
			Idem: redisstore.NewKeys(rdb, "sf"), Lease: redisstore.NewLeases(rdb, "sf"), Catalog: redisstore.NewCatalog(rdb, "sf"),
			Keys: redisstore.NewAPIKeys(rdb, "sf")}
		svc, err := service.Open(cfg, *ports, service.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		ws := webhooks.New(redisstore.NewWebhooks(rdb, "sf"), svc.EventsAs, svc.AppendEvents, webhooks.Options{AllowPrivate: true})
		rs = append(rs, replica{svc, ws, New(svc, Options{Webhooks: ws})})
	}
	r := newReceiver(t)
	var made struct {
		Secret string `json:"secret"`
	}
	json.Unmarshal(call{"POST", "/v1/webhooks", kBill, fmt.Sprintf(`{"url":%q,"event_types":["*"]}`, r.srv.URL), nil}.must(t, rs[1].e, 201).Body.Bytes(), &made)
	r.secret = made.Secret
	var lives [][]string
	for i := range rs {
		_, life := bookingLife(t, rs[i].e, 10+i)
		lives = append(lives, life)
	}
	delivered := map[int]int{} // replica -> deliveries it made
	at := time.Now()
	for range 3 {
		for i, x := range rs {
			held, err := x.svc.HoldsLease(ctx, "webhooks", 10*time.Second, at)
			if err != nil {
				t.Fatal(err)
			}
			if !held {
				continue
			}
			before := r.count()
			if err := x.ws.Step(ctx, at); err != nil {
				t.Fatal(err)
			}
			delivered[i] += r.count() - before
		}
		at = at.Add(time.Second)
	}
	all, _ := readEvents(t, rs[2].e, kBill, "", "", 1000)
	got, dups := r.firsts()
	if strings.Join(got, " ") != strings.Join(all, " ") || dups != 0 || len(delivered) != 1 {
		t.Fatalf("received %v (%d twice) from replicas %v\nthe log has %v", got, dups, delivered, all)
	}
	for _, life := range lives {
		if !hasInOrder(got, life) {
			t.Errorf("%v is not in order in %v", life, got)
		}
	}
}
