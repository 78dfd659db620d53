package embedded_test

import (
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/embedded"
	"slotfare/booking/idem"
	"slotfare/booking/records"
)

func keyed(id string) booking.Record {
	r := rec(id, "alice", "R", booking.Held, t0)
	r.Account, r.IdemKey, r.Fingerprint = "alice", "k", "fp"
	return r
}

// TestKeyCommitsWithItsBooking: the new booking that carries a key makes
// the key Done as soon as its write is acknowledged, before Finish, so the
// booking and its key commit together; Finish then agrees.
func TestKeyCommitsWithItsBooking(t *testing.T) {
	p := fresh(t, kinds[0])
	now := time.Now()
	if c, err := p.Idem.Claim(bg, "alice", "k", "fp", time.Minute, now); err != nil || c.State != idem.Claimed {
		t.Fatalf("claim: %+v %v", c, err)
	}
	must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "h", Changes: []records.Change{{Record: keyed("bk1")}}, NoWait: true}))
	if c, err := p.Idem.Claim(bg, "alice", "k", "fp", time.Minute, now); err != nil || c.State != idem.Done || c.Result != "bk1" {
		t.Fatalf("after the hold was stored: %+v %v", c, err)
	}
	if err := p.Idem.Finish(bg, "alice", "k", "fp", "bk2", time.Hour, now); slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("finishing with another booking: %v", err)
	}
	must(t, p.Idem.Finish(bg, "alice", "k", "fp", "bk1", time.Hour, now))
	// A later change of the booking leaves the key alone.
	r := keyed("bk1")
	r.Booking.Status = booking.Cancelled
	must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "c", Changes: []records.Change{{Record: r, Replaces: 1}}}))
	if c, _ := p.Idem.Claim(bg, "alice", "k", "fp", time.Minute, now.Add(30*time.Minute)); c.State != idem.Done || c.Result != "bk1" {
		t.Fatalf("after a change: %+v", c)
	}
}

// TestKeyTTLAfterRestart: a key rebuilt from its booking lives KeyTTL from
// the booking's creation; the zero Options keep it for good.
func TestKeyTTLAfterRestart(t *testing.T) {
	k := kinds[1]
	place := k.newPlace(t)
	st, err := k.open(place)
	must(t, err)
	p := openPorts(t, st, embedded.Options{})
	must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "h", Changes: []records.Change{{Record: keyed("bk1")}}}))
	must(t, st.Close())

	st, err = k.open(place)
	must(t, err)
	p = openPorts(t, st, embedded.Options{KeyTTL: time.Hour})
	if c, _ := p.Idem.Claim(bg, "alice", "k", "fp", time.Minute, t0.Add(59*time.Minute)); c.State != idem.Done || c.Result != "bk1" {
		t.Fatalf("within its ttl: %+v", c)
	}
	if c, _ := p.Idem.Claim(bg, "alice", "k", "other", time.Minute, t0.Add(61*time.Minute)); c.State != idem.Claimed {
		t.Fatalf("past its ttl: %+v", c)
	}
	must(t, st.Close())

	st = openStore(t, k, place)
	p = openPorts(t, st, embedded.Options{})
	if c, _ := p.Idem.Claim(bg, "alice", "k", "fp", time.Minute, t0.Add(1000*time.Hour)); c.State != idem.Done || c.Result != "bk1" {
		t.Fatalf("with no ttl, long after: %+v", c)
	}
	if _, _, err := embedded.Open(bg, st, embedded.Options{KeyTTL: -time.Second}); slotfare.FieldOf(err) != "key_ttl" {
		t.Fatalf("a negative ttl: %v", err)
	}
}
