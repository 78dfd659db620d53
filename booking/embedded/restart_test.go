package embedded_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/embedded"
	"slotfare/booking/idem"
	"slotfare/booking/records"
	"slotfare/ledger"
)

// TestRestart writes through the ports, closes the store, opens it again
// and checks that the new ports answer as the first did: records at
// version 1 and changeable from there, postings in order and still unique,
// resources' histories,
// done idempotency keys, the catalog and the secret.
func TestRestart(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) { restart(t, k) })
	}
}

var (
	ral    = []byte(`{"config":{"id":"RAL","nodes":41}}`)
	ralV2  = []byte(`{"config":{"id":"RAL","nodes":40},"queue":"cXVldWU="}`)
	nikhef = []byte(`{"config":{"id":"NIKHEF","nodes":8},"retired_at":"2026-12-01T00:00:00Z"}`)
	secret = bytes.Repeat([]byte{7}, 32)
)

func restart(t *testing.T, k kind) {
	place := k.newPlace(t)
	st, err := k.open(place)
	must(t, err)
	p := openPorts(t, st, embedded.Options{})
	now := time.Now()

	// A POST with a key: claimed, its hold stored (NoWait), finished; then
	// committed with its charge. Another hold, cancelled. A key claimed and
	// never finished.
	if c, err := p.Idem.Claim(bg, "alice", "k1", "fp1", time.Hour, now); err != nil || c.State != idem.Claimed {
		t.Fatalf("claim: %+v %v", c, err)
	}
	held := rec("bk1", "alice", "R", booking.Held, t0)
	held.Account, held.IdemKey, held.Fingerprint = "alice", "k1", "fp1"
	must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "hold1", Changes: []records.Change{{Record: held}}, NoWait: true}))
	must(t, p.Idem.Finish(bg, "alice", "k1", "fp1", "bk1", time.Hour, now))
	committed := held
	committed.Booking.Status = booking.Committed
	must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "commit1", Changes: []records.Change{{Record: committed, Replaces: 1}},
		Postings: []ledger.Posting{charge(t, "bk1", "alice", "R")}}))
	other := rec("bk2", "alice", "S", booking.Held, t0.Add(time.Minute))
	must(t, p.Records.Apply(bg, records.Write{Resource: "S", WriteID: "hold2", Changes: []records.Change{{Record: other}}}))
	other.Booking.Status = booking.Cancelled
	must(t, p.Records.Apply(bg, records.Write{Resource: "S", WriteID: "cancel2", Changes: []records.Change{{Record: other, Replaces: 1}}}))
	third := rec("bk3", "alice", "R", booking.Committed, t0.Add(2*time.Minute))
	must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "direct3", Changes: []records.Change{{Record: third}},
		Postings: []ledger.Posting{charge(t, "bk3", "alice", "R")}}))
	if c, err := p.Idem.Claim(bg, "bob", "k2", "fp2", time.Hour, now); err != nil || c.State != idem.Claimed {
		t.Fatalf("bob's claim: %+v %v", c, err)
	}
	// The catalog: RAL changed once, NIKHEF retired; the secret.
	for _, put := range []struct {
		id       string
		body     []byte
		replaces int64
	}{{"RAL", ral, 0}, {"RAL", ralV2, 1}, {"NIKHEF", nikhef, 0}} {
		if _, err := p.Catalog.Put(bg, put.id, put.body, put.replaces); err != nil {
			t.Fatal(err)
		}
	}
	if s, err := p.Catalog.Secret(bg, secret); err != nil || !bytes.Equal(s, secret) {
		t.Fatalf("secret: %x %v", s, err)
	}
	if s := get(t, p, "bk1"); s.Version != 2 {
		t.Fatalf("before the restart bk1 is at %d", s.Version)
	}
	must(t, st.Close())

	st = openStore(t, k, place)
	p, loaded, err := embedded.Open(bg, st, embedded.Options{})
	must(t, err)
	if len(loaded.Bookings) != 3 || len(loaded.Postings) != 2 || len(loaded.Resources) != 2 || !bytes.Equal(loaded.Secret, secret) {
		t.Fatalf("Open gave back %d bookings, %d postings, %d resources, secret %x", len(loaded.Bookings), len(loaded.Postings), len(loaded.Resources), loaded.Secret)
	}

	// Records: every one at version 1, with its last state.
	for id, want := range map[string]booking.Status{"bk1": booking.Committed, "bk2": booking.Cancelled, "bk3": booking.Committed} {
		if s := get(t, p, id); s.Version != 1 || s.Record.Booking.Status != want {
			t.Fatalf("%s after the restart: version %d, %s; want 1, %s", id, s.Version, s.Record.Booking.Status, want)
		}
	}
	// The versions go on from 1: a change replacing 1 wins, one replacing
	// the version before the restart is a conflict.
	active := committed
	active.Booking.Status = booking.Active
	err = p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "start1", Changes: []records.Change{{Record: active, Replaces: 2}}})
	if slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("a change replacing the version before the restart: %v", err)
	}
	must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "start1", Changes: []records.Change{{Record: active, Replaces: 1}}}))
	if s := get(t, p, "bk1"); s.Version != 2 || s.Record.Booking.Status != booking.Active {
		t.Fatalf("bk1 after its start: %+v", s)
	}
	// Postings: in order, and their ids still taken.
	ps, err := p.Records.Postings(bg, "alice")
	must(t, err)
	if fmt.Sprint(postingIDs(ps)) != "[bk1/charge bk3/charge]" {
		t.Fatalf("alice's postings after the restart: %v", postingIDs(ps))
	}
	err = p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "again", Postings: []ledger.Posting{charge(t, "bk1", "alice", "R")}})
	if slotfare.FieldOf(err) != "postings" {
		t.Fatalf("charging bk1 twice across a restart: %v", err)
	}
	live, err := p.Records.Live(bg, "R")
	must(t, err)
	if len(live) != 2 || live[0].Record.Booking.ID != "bk1" || live[1].Record.Booking.ID != "bk3" {
		t.Fatalf("live on R: %+v", live)
	}
	if live, _ := p.Records.Live(bg, "S"); len(live) != 0 {
		t.Fatalf("a cancelled booking is live: %+v", live)
	}
	page, next, err := p.Records.OfAccount(bg, "alice", "", 2)
	must(t, err)
	if len(page) != 2 || page[0].Record.Booking.ID != "bk1" || page[1].Record.Booking.ID != "bk2" || next == "" {
		t.Fatalf("alice's first page: %+v, next %q", page, next)
	}
	if page, next, _ = p.Records.OfAccount(bg, "alice", next, 2); len(page) != 1 || page[0].Record.Booking.ID != "bk3" || next != "" {
		t.Fatalf("alice's second page: %+v, next %q", page, next)
	}
	// The resources' histories are rebuilt from the store: every booking,
	// whatever its status, with its last record.
	hist, next, err := p.Records.History(bg, "R", "", 5)
	must(t, err)
	if len(hist) != 2 || next != "" || hist[0].Record.Booking.ID != "bk1" || hist[0].Record.Booking.Status != booking.Active || hist[0].Version != 2 ||
		hist[1].Record.Booking.ID != "bk3" {
		t.Fatalf("R's history after the restart: %+v, next %q", hist, next)
	}
	if hist, _, err := p.Records.History(bg, "S", "", 5); err != nil || len(hist) != 1 || hist[0].Record.Booking.Status != booking.Cancelled {
		t.Fatalf("S's history after the restart: %+v, %v", hist, err)
	}

	// Keys: the finished one is Done with its booking; the pending one
	// was in memory only and is free.
	if c, err := p.Idem.Claim(bg, "alice", "k1", "fp1", time.Hour, now); err != nil || c.State != idem.Done || c.Result != "bk1" {
		t.Fatalf("alice's key after the restart: %+v %v", c, err)
	}
	if c, _ := p.Idem.Claim(bg, "alice", "k1", "other", time.Hour, now); c.State != idem.Mismatch {
		t.Fatalf("alice's key with another request: %+v", c)
	}
	if c, _ := p.Idem.Claim(bg, "bob", "k2", "fp2", time.Hour, now); c.State != idem.Claimed {
		t.Fatalf("bob's pending key after the restart: %+v", c)
	}

	// Catalog: both documents at version 1, bodies as put, version 2.
	docs, v, err := p.Catalog.All(bg)
	must(t, err)
	if v != 2 || len(docs) != 2 || docs[0].ID != "NIKHEF" || docs[1].ID != "RAL" || docs[0].Version != 1 || docs[1].Version != 1 ||
		!bytes.Equal(docs[0].Body, nikhef) || !bytes.Equal(docs[1].Body, ralV2) {
		t.Fatalf("catalog after the restart: version %d, %+v", v, docs)
	}
	if _, err := p.Catalog.Put(bg, "RAL", ral, 2); slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("a change replacing RAL's version before the restart: %v", err)
	}
	if v, err := p.Catalog.Put(bg, "RAL", ral, 1); err != nil || v != 2 {
		t.Fatalf("a change after the restart: %d %v", v, err)
	}
	if s, err := p.Catalog.Secret(bg, bytes.Repeat([]byte{9}, 32)); err != nil || !bytes.Equal(s, secret) {
		t.Fatalf("the secret after the restart: %x %v", s, err)
	}
}

func get(t testing.TB, p *embedded.Ports, id string) records.Stored {
	t.Helper()
	s, ok, err := p.Records.Get(bg, id)
	if err != nil || !ok {
		t.Fatalf("Get(%s) = %v, %v", id, ok, err)
	}
	return s
}

func postingIDs(ps []ledger.Posting) []string {
	ids := make([]string, len(ps))
	for i, x := range ps {
		ids[i] = x.ID
	}
	return ids
}
