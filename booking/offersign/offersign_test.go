package offersign

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"slotfare"
)

func claims(now time.Time) Claims {
	return Claims{Resource: "RAL", Start: now.Add(time.Hour).Unix(), End: now.Add(2 * time.Hour).Unix(), Nodes: 4,
		Class: "B", Base: "12.30", Delay: "0", Currency: "GRD", Account: "alice", Expires: now.Add(5 * time.Minute).Unix()}
}

func TestSignVerifyRoundTrip(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	s, err := New([]byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	c := claims(now)
	id := s.Sign(c)
	if !strings.HasPrefix(id, Prefix) {
		t.Fatalf("id %q lacks the prefix %q", id, Prefix)
	}
	got, err := s.Verify("op", id, "alice", now)
	if err != nil {
		t.Fatal(err)
	}
	if got != c {
		t.Fatalf("claims = %+v, want %+v", got, c)
	}
	// Another signer with the same secret (another replica) verifies it.
	s2, _ := New([]byte("secret"))
	if _, err := s2.Verify("op", id, "alice", now); err != nil {
		t.Fatalf("same secret, other signer: %v", err)
	}
}

func TestVerifyRefuses(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	s, _ := New([]byte("secret"))
	other, _ := New([]byte("another secret"))
	c := claims(now)
	id := s.Sign(c)
	body, sig, _ := strings.Cut(strings.TrimPrefix(id, Prefix), ".")
	raw, _ := base64.RawURLEncoding.DecodeString(body)
	forged := Prefix + base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), `"b":"12.30"`, `"b":"0.01"`, 1))) + "." + sig
	for _, tc := range []struct {
		name    string
		signer  *Signer
		id      string
		account string
		at      time.Time
		kind    slotfare.Kind
		msg     string
	}{
		{"no prefix", s, strings.TrimPrefix(id, Prefix), "alice", now, slotfare.Invalid, "malformed or tampered"},
		{"no signature", s, Prefix + body, "alice", now, slotfare.Invalid, "malformed or tampered"},
		{"not base64", s, Prefix + "!!." + sig, "alice", now, slotfare.Invalid, "malformed or tampered"},
		{"price changed", s, forged, "alice", now, slotfare.Invalid, "malformed or tampered"},
		{"other secret", other, id, "alice", now, slotfare.Invalid, "malformed or tampered"},
		{"other account", s, id, "bob", now, slotfare.Invalid, "another account"},
		{"expired", s, id, "alice", time.Unix(c.Expires, 0), slotfare.Conflict, "expired at 2026-11-24T10:05:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.signer.Verify("booking.Hold", tc.id, tc.account, tc.at)
			if err == nil {
				t.Fatal("verified")
			}
			if slotfare.KindOf(err) != tc.kind || slotfare.FieldOf(err) != "offer_id" || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v (kind %v, field %q), want %v on offer_id saying %q", err, slotfare.KindOf(err), slotfare.FieldOf(err), tc.kind, tc.msg)
			}
		})
	}
	// One second before its expiry it still verifies.
	if _, err := s.Verify("op", id, "alice", time.Unix(c.Expires-1, 0)); err != nil {
		t.Fatalf("a second before expiry: %v", err)
	}
}

func TestNewRefusesEmptySecret(t *testing.T) {
	if _, err := New(nil); slotfare.KindOf(err) != slotfare.Invalid {
		t.Fatalf("New(nil) = %v, want Invalid", err)
	}
}

func TestSignerKeepsItsOwnCopy(t *testing.T) {
	sec := []byte("secret")
	s, _ := New(sec)
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	id := s.Sign(claims(now))
	sec[0] = 'X' // the caller's slice changes; the signer's key does not
	if _, err := s.Verify("op", id, "alice", now); err != nil {
		t.Fatal(err)
	}
}

// TestSignVerifyConcurrently: goroutines sharing a Signer (and its keyed
// MACs) each sign and verify their own offers, and a MAC left mid-use by
// one never leaks into another's: every id verifies, none verifies as
// another account's, and each equals the id a fresh Signer makes.
func TestSignVerifyConcurrently(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	s, err := New([]byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := New([]byte("secret"))
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := range 500 {
				c := claims(now)
				c.Nodes = g*1000 + i
				id := s.Sign(c)
				got, err := s.Verify("op", id, "alice", now)
				switch {
				case err != nil:
					errs <- err
					return
				case got != c:
					errs <- fmt.Errorf("claims %+v, want %+v", got, c)
					return
				case id != fresh.Sign(c):
					errs <- fmt.Errorf("id %s differs from a fresh signer's", id)
					return
				}
				if _, err := s.Verify("op", id, "bob", now); err == nil {
					errs <- fmt.Errorf("alice's offer verified for bob")
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestQuoteRoundTrips: an offer's quote (booking control's fare key) and
// the class it buys up from are signed with it and read back; without
// them the id is as before.
func TestQuoteRoundTrips(t *testing.T) {
	s, _ := New([]byte("secret"))
	c := Claims{Resource: "RAL", Start: 100, End: 200, Nodes: 2, Class: "budget", Base: "1.00", Delay: "0",
		Currency: "GRD", Account: "alice", Expires: 2000, Quote: "1.25", Requested: "budget"}
	got, err := s.Verify("op", s.Sign(c), "alice", time.Unix(1000, 0))
	if err != nil || got != c {
		t.Fatalf("verify = %+v, %v; want %+v", got, err, c)
	}
	c.Quote, c.Requested = "", ""
	if got, err := s.Verify("op", s.Sign(c), "alice", time.Unix(1000, 0)); err != nil || got != c {
		t.Fatalf("without a quote: %+v, %v", got, err)
	}
}
