package ledger

import (
	"encoding/base64"
	"strconv"
	"strings"

	"slotfare"
)

// Listing limits: a page holds DefaultLimit items unless asked for between
// 1 and MaxLimit.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// ParseLimit reads a limit query parameter: empty means DefaultLimit,
// otherwise an integer from 1 to MaxLimit (Invalid naming "limit").
func ParseLimit(s string) (int, error) {
	if s == "" {
		return DefaultLimit, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, slotfare.Errorf("ledger.ParseLimit", "limit", "%q is not an integer", s)
	}
	if n < 1 || n > MaxLimit {
		return 0, slotfare.Errorf("ledger.ParseLimit", "limit", "must be between 1 and %d, got %d", MaxLimit, n)
	}
	return n, nil
}

// limitOf checks a limit passed in Go: 0 means DefaultLimit.
func limitOf(op slotfare.Op, n int) (int, error) {
	if n == 0 {
		return DefaultLimit, nil
	}
	if n < 1 || n > MaxLimit {
		return 0, slotfare.Errorf(op, "limit", "must be between 1 and %d, got %d", MaxLimit, n)
	}
	return n, nil
}

// Cursors are opaque to clients: base64url of a tag and NUL-separated parts
// (ids never contain NUL). A cursor names the last item of the page it
// ends, plus the listing it belongs to, so a cursor of another account or
// filter is refused instead of silently misread.

func encodeCursor(tag string, parts ...string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(tag + "\x00" + strings.Join(parts, "\x00")))
}

// decodeCursor returns the parts after the tag; want is how many.
func decodeCursor(op slotfare.Op, tag, c string, want int) ([]string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return nil, slotfare.Errorf(op, "cursor", "not a cursor this listing issued")
	}
	parts := strings.Split(string(b), "\x00")
	if len(parts) != want+1 || parts[0] != tag {
		return nil, slotfare.Errorf(op, "cursor", "not a cursor this listing issued")
	}
	return parts[1:], nil
}
