package offersign

import (
	"encoding/json"
	"strconv"
)

// appendClaims appends what json.Marshal writes for c, byte for byte,
// without reflection when every string is plain (printable ASCII that JSON
// writes as is), and through json.Marshal otherwise. Offers are most of a
// seller's traffic, and reflection was most of signing one.
func appendClaims(b []byte, c Claims) []byte {
	for _, s := range [...]string{c.Resource, c.Class, c.Base, c.Delay, c.Currency, c.Account} {
		if !plain(s) || c.Quote != "" || c.Requested != "" { // rare: encoding/json writes them
			data, _ := json.Marshal(c) // strings and integers: cannot fail
			return append(b, data...)
		}
	}
	b = append(b, `{"r":"`...)
	b = append(b, c.Resource...)
	b = append(b, `","s":`...)
	b = strconv.AppendInt(b, c.Start, 10)
	b = append(b, `,"e":`...)
	b = strconv.AppendInt(b, c.End, 10)
	b = append(b, `,"n":`...)
	b = strconv.AppendInt(b, int64(c.Nodes), 10)
	b = append(b, `,"c":"`...)
	b = append(b, c.Class...)
	b = append(b, `","b":"`...)
	b = append(b, c.Base...)
	b = append(b, `","d":"`...)
	b = append(b, c.Delay...)
	b = append(b, `","u":"`...)
	b = append(b, c.Currency...)
	b = append(b, `","a":"`...)
	b = append(b, c.Account...)
	b = append(b, `","x":`...)
	b = strconv.AppendInt(b, c.Expires, 10)
	return append(b, '}')
}

// plain reports whether json.Marshal writes s as is between its quotes:
// printable ASCII other than the quote, the backslash and the three
// characters it escapes for HTML.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch < 0x20 || ch >= 0x7f, ch == '"', ch == '\\', ch == '<', ch == '>', ch == '&':
			return false
		}
	}
	return true
}

// parseClaims reads what appendClaims writes into c, as json.Unmarshal
// would: the claims in appendClaims's order with plain strings and
// integers are read directly, anything else through json.Unmarshal (so an
// answer never differs from its).
func parseClaims(data []byte, c *Claims) error {
	if q, ok := scanClaims(data); ok {
		*c = q
		return nil
	}
	return json.Unmarshal(data, c)
}

// scanClaims reads the form appendClaims writes with plain strings; ok is
// false for any other input.
func scanClaims(data []byte) (c Claims, ok bool) {
	s := claimScanner{data: data}
	c.Resource = s.str(`{"r":"`)
	c.Start = s.int(`","s":`)
	c.End = s.int(`,"e":`)
	c.Nodes = int(s.int(`,"n":`))
	c.Class = s.str(`,"c":"`)
	c.Base = s.str(`","b":"`)
	c.Delay = s.str(`","d":"`)
	c.Currency = s.str(`","u":"`)
	c.Account = s.str(`","a":"`)
	c.Expires = s.int(`","x":`)
	s.lit(`}`)
	return c, !s.bad && s.i == len(data)
}

// claimScanner reads literals, plain strings and integers in turn; bad
// turns true at the first that is not there.
type claimScanner struct {
	data []byte
	i    int
	bad  bool
}

func (s *claimScanner) lit(l string) {
	if s.bad || len(s.data)-s.i < len(l) || string(s.data[s.i:s.i+len(l)]) != l {
		s.bad = true
		return
	}
	s.i += len(l)
}

// str reads literal l, then a plain string up to its closing quote (left
// for the next literal).
func (s *claimScanner) str(l string) string {
	s.lit(l)
	if s.bad {
		return ""
	}
	j := s.i
	for j < len(s.data) && s.data[j] != '"' {
		if ch := s.data[j]; ch < 0x20 || ch >= 0x7f || ch == '\\' {
			s.bad = true
			return ""
		}
		j++
	}
	if j == len(s.data) {
		s.bad = true
		return ""
	}
	v := string(s.data[s.i:j])
	s.i = j
	return v
}

// int reads literal l, then a JSON integer that fits in an int64: an
// optional minus, then 0 or digits not starting with 0.
func (s *claimScanner) int(l string) int64 {
	s.lit(l)
	if s.bad {
		return 0
	}
	j := s.i
	if j < len(s.data) && s.data[j] == '-' {
		j++
	}
	d := j
	for j < len(s.data) && s.data[j] >= '0' && s.data[j] <= '9' {
		j++
	}
	// A fraction or exponent after the digits fails the literal that
	// follows, so the digits need only be a JSON integer's.
	if j == d || (s.data[d] == '0' && j-d > 1) {
		s.bad = true
		return 0
	}
	v, err := strconv.ParseInt(string(s.data[s.i:j]), 10, 64)
	if err != nil {
		s.bad = true
		return 0
	}
	s.i = j
	return v
}
