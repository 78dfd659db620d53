package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix starts every webhook secret (Standard Webhooks' form).
const SecretPrefix = "whsec_"

// NewSecret is a fresh secret: whsec_ and 32 random bytes in base64.
func NewSecret() string {
	var b [32]byte
	rand.Read(b[:])
	return SecretPrefix + base64.StdEncoding.EncodeToString(b[:])
}

// key is the HMAC key a secret names: the bytes its base64 encodes.
func key(secret string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
}

// Sign is the webhook-signature header of a delivery, per Standard
// Webhooks: "v1," and the base64 HMAC-SHA256, keyed by the secret, of
// "<webhook-id>.<webhook-timestamp>.<body>".
func Sign(secret, id string, at time.Time, body []byte) (string, error) {
	k, err := key(secret)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, k)
	m.Write([]byte(id + "." + strconv.FormatInt(at.Unix(), 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil)), nil
}
