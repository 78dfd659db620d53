package offersign

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// randomClaims are claims with strings drawn from plain ASCII and, now
// and then, characters JSON escapes or writes as UTF-8, and integers of
// every size.
func randomClaims(r *rand.Rand) Claims {
	alphabet := []string{"a", "Z", "0", "_", "-", ".", " ", "é", "\"", "\\", "<", ">", "&", "\n", "\x01", "\u2028", "\xff"}
	str := func() string {
		var b strings.Builder
		for range r.IntN(8) {
			if r.IntN(10) == 0 {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			} else {
				b.WriteByte(byte('a' + r.IntN(26)))
			}
		}
		return b.String()
	}
	num := func() int64 {
		switch r.IntN(4) {
		case 0:
			return r.Int64()
		case 1:
			return -r.Int64()
		case 2:
			return math.MinInt64
		}
		return r.Int64N(1000) - 500
	}
	return Claims{Resource: str(), Start: num(), End: num(), Nodes: int(num()), Class: str(), Base: str(), Delay: str(),
		Currency: str(), Account: str(), Expires: num()}
}

// TestClaimsCodecIsEncodingJSON: appendClaims writes what json.Marshal
// writes, byte for byte, and parseClaims reads any input as json.Unmarshal
// does: the same claims, or an error where it errs, on random claims and
// on their bodies cut and changed byte by byte.
func TestClaimsCodecIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 30))
	fast := 0
	for range 20000 {
		c := randomClaims(r)
		want, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		got := appendClaims(nil, c)
		if string(got) != string(want) {
			t.Fatalf("appendClaims(%+v) = %s, want %s", c, got, want)
		}
		bodies := [][]byte{want, want[:r.IntN(len(want))]}
		changed := append([]byte(nil), want...)
		const junk = "0123456789-\"\\{},:.eE x"
		changed[r.IntN(len(changed))] = junk[r.IntN(len(junk))]
		bodies = append(bodies, changed, []byte(strings.Replace(string(want), `"s":`, ` "s" : `, 1)))
		for _, body := range bodies {
			var a, b Claims
			errA := json.Unmarshal(body, &a)
			errB := parseClaims(body, &b)
			if (errA == nil) != (errB == nil) || !reflect.DeepEqual(a, b) {
				t.Fatalf("body %q: json.Unmarshal %+v %v, parseClaims %+v %v", body, a, errA, b, errB)
			}
		}
		if _, ok := scanClaims(want); ok {
			fast++
		}
	}
	if fast < 5000 {
		t.Fatalf("only %d of 20000 bodies were read without encoding/json", fast)
	}
}
