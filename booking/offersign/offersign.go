// Package offersign makes and checks offer ids: the stateless tokens an
// answer to POST /v1/offers carries, which hold everything needed to book
// the offer at its price until it expires. An id is base64url(claims) "."
// base64url(HMAC-SHA256(secret, claims)) behind the prefix "of_", so any
// process holding the secret can verify an offer another one made, and
// nothing about an offer needs storing.
package offersign

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"hash"
	"strings"
	"sync"
	"time"

	"slotfare"
)

// Prefix starts every offer id, so that one is recognisable in a log.
const Prefix = "of_"

// Claims are what an offer id carries, signed: the offer's resource,
// interval (Unix seconds), nodes and fare class, its price as decimal
// strings in its currency, the account it was made to, and when it expires
// (Unix seconds). The short JSON names keep the ids short.
type Claims struct {
	Resource string `json:"r"`
	Start    int64  `json:"s"`
	End      int64  `json:"e"`
	Nodes    int    `json:"n"`
	Class    string `json:"c"`
	Base     string `json:"b"`
	Delay    string `json:"d"`
	Currency string `json:"u"`
	Account  string `json:"a"`
	Expires  int64  `json:"x"`
	// Quote is the offer's Quote (booking.Offer), when booking control
	// sets fares.
	Quote string `json:"q,omitempty"`
	// Requested is the class the query asked when the offer is a class up
	// (booking.Offer.RequestedFareClass): a hold of it is a buy-up.
	Requested string `json:"rq,omitempty"`
}

// Signer signs and verifies offer ids with one secret. It is safe for
// concurrent use.
type Signer struct {
	secret []byte
	// macs are keyed HMACs ready for use: making one per offer (hmac.New)
	// allocated five times and hashed its key pads anew.
	macs sync.Pool
}

// New is a Signer over secret, which must not be empty (an empty key would
// let anybody forge offers).
func New(secret []byte) (*Signer, error) {
	if len(secret) == 0 {
		return nil, slotfare.E(slotfare.Op("offersign.New"), slotfare.Invalid, slotfare.Field("secret"), "an offer-signing secret is required")
	}
	s := &Signer{secret: append([]byte(nil), secret...)}
	s.macs.New = func() any { return hmac.New(sha256.New, s.secret) }
	return s, nil
}

// Sign makes the offer id of c.
func (s *Signer) Sign(c Claims) string {
	body := appendClaims(make([]byte, 0, 192), c)
	return Prefix + base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(s.mac(body))
}

func (s *Signer) mac(body []byte) []byte {
	m := s.macs.Get().(hash.Hash)
	m.Write(body)
	sum := m.Sum(nil)
	m.Reset()
	s.macs.Put(m)
	return sum
}

// Verify checks an offer id's signature, that it was made to account, and
// that it has not expired at now, and returns its claims. Errors name the
// field "offer_id" under op: Invalid for an id this secret did not sign or
// one made to another account, Conflict once it has expired.
func (s *Signer) Verify(op slotfare.Op, id, account string, now time.Time) (Claims, error) {
	rest, ok := strings.CutPrefix(id, Prefix)
	if !ok {
		return Claims{}, notOurs(op)
	}
	b64, sig64, ok := strings.Cut(rest, ".")
	if !ok {
		return Claims{}, notOurs(op)
	}
	body, err1 := base64.RawURLEncoding.DecodeString(b64)
	sig, err2 := base64.RawURLEncoding.DecodeString(sig64)
	if err1 != nil || err2 != nil {
		return Claims{}, notOurs(op)
	}
	if !hmac.Equal(sig, s.mac(body)) {
		return Claims{}, notOurs(op)
	}
	var c Claims
	if err := parseClaims(body, &c); err != nil {
		return Claims{}, notOurs(op)
	}
	if c.Account != account {
		return Claims{}, slotfare.Errorf(op, "offer_id", "this offer was made to another account")
	}
	if now.Unix() >= c.Expires {
		return Claims{}, slotfare.E(op, slotfare.Conflict, slotfare.Field("offer_id"),
			fmt.Sprintf("the offer expired at %s; ask for new offers", time.Unix(c.Expires, 0).UTC().Format(time.RFC3339)))
	}
	return c, nil
}

// notOurs is Verify's refusal of an id this secret did not sign, made
// only when it refuses.
func notOurs(op slotfare.Op) error {
	return slotfare.Errorf(op, "offer_id", "not an offer id issued by this service (malformed or tampered)")
}
