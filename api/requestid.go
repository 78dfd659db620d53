package api

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
)

// newRequestID is a request's X-Request-ID when the client sent none: 128
// random bits as 32 hex digits, from the runtime's per-thread generator.
// An id names a request in the logs and is no secret; echo's default
// drew every one from crypto/rand through a pooled reader, a tenth of the
// middleware's work per request.
func newRequestID() string {
	var raw [16]byte
	binary.LittleEndian.PutUint64(raw[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(raw[8:], rand.Uint64())
	return hex.EncodeToString(raw[:])
}
