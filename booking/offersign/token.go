package offersign

import (
	"crypto/hmac"
	"encoding/base64"
	"strings"
)

// SignToken signs body as an id of another kind than an offer (quotes):
// prefix + base64url(body) "." base64url(HMAC-SHA256(secret, prefix body)).
// The prefix is under the MAC, so an id of one kind never verifies as
// another, and any process holding the secret verifies what another signed.
func (s *Signer) SignToken(prefix string, body []byte) string {
	return prefix + base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(s.mac(append([]byte(prefix), body...)))
}

// OpenToken is the body of an id SignToken made with prefix, and false for
// anything else (another prefix, malformed, tampered, another secret's).
func (s *Signer) OpenToken(prefix, id string) ([]byte, bool) {
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok {
		return nil, false
	}
	b64, sig64, ok := strings.Cut(rest, ".")
	if !ok {
		return nil, false
	}
	body, err1 := base64.RawURLEncoding.DecodeString(b64)
	sig, err2 := base64.RawURLEncoding.DecodeString(sig64)
	if err1 != nil || err2 != nil || !hmac.Equal(sig, s.mac(append([]byte(prefix), body...))) {
		return nil, false
	}
	return body, true
}
