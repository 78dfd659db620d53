package recordlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func isObject(p []byte) error {
	var v map[string]any
	return json.Unmarshal(p, &v)
}

func frame(payloads ...string) []byte {
	var b []byte
	for _, p := range payloads {
		b = Append(b, []byte(p))
	}
	return b
}

// TestScan: what is intact, torn or damaged, on small files.
func TestScan(t *testing.T) {
	three := frame(`{"a":1}`, `{"a":2}`, `{"a":3}`)
	first := int64(len(frame(`{"a":1}`)))
	flip := func(b []byte, i int) []byte { b = bytes.Clone(b); b[i] ^= 0x01; return b }
	zero := func(b []byte, from, to int) []byte { b = bytes.Clone(b); clear(b[from:to]); return b }
	tests := []struct {
		name              string
		data              []byte
		records           int
		intact, torn      int64
		damageAt          int64 // -1: none
		linesAfter, after int
	}{
		{"empty", nil, 0, 0, 0, -1, 0, 0},
		{"clean", three, 3, int64(len(three)), 0, -1, 0, 0},
		{"no newline at the end", three[:len(three)-1], 2, 2 * first, first - 1, -1, 0, 0},
		{"zeros in the last line", zero(three, int(2*first)+3, len(three)-1), 2, 2 * first, first, -1, 0, 0},
		{"zeros to the end", zero(three, int(2*first)+3, len(three)), 2, 2 * first, first, -1, 0, 0},
		{"flipped checksum digit", flip(three, int(first)+2), 1, first, 0, first, 1, 1},
		{"flipped payload byte", flip(three, int(first)+12), 1, first, 0, first, 1, 1},
		{"flipped byte in the last line", flip(three, int(2*first)+12), 2, 2 * first, 0, 2 * first, 0, 0},
		{"zeros in the middle", zero(three, int(first)+3, int(first)+8), 1, first, 0, first, 1, 1},
		{"checksum holds, not an object", frame(`{"a":1}`, `[1]`, `{"a":3}`), 1, first, 0, first, 1, 1},
		{"old lines then new", append([]byte("{\"a\":0}\n"), three...), 4, int64(8 + len(three)), 0, -1, 0, 0},
		{"old line after new", append(bytes.Clone(three), "{\"a\":0}\n"...), 3, int64(len(three)), 0, int64(len(three)), 0, 0},
		{"old line that does not decode", []byte("{\"a\":\n{\"a\":1}\n"), 0, 0, 0, 0, 1, 1},
		{"an empty line", append(append(frame(`{"a":1}`), '\n'), frame(`{"a":2}`)...), 1, first, 0, first, 1, 1},
	}
	for _, tt := range tests {
		rep, err := Scan("f", bytes.NewReader(tt.data), isObject)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		damageAt := int64(-1)
		if rep.Damage != nil {
			damageAt = rep.Damage.Offset
		}
		if rep.Records != tt.records || rep.Intact != tt.intact || rep.Torn != tt.torn || damageAt != tt.damageAt ||
			rep.LinesAfter != tt.linesAfter || rep.IntactAfter != tt.after || rep.Size != int64(len(tt.data)) {
			t.Errorf("%s: %+v (damage %v)", tt.name, rep, rep.Damage)
		}
	}
}

// TestScanStopsDecodingAtDamage: decode, which may apply records, is not
// called for anything after the damage.
func TestScanStopsDecodingAtDamage(t *testing.T) {
	data := frame(`{"a":1}`, `{"a":2}`, `{"a":3}`)
	data[len(frame(`{"a":1}`))+12] ^= 0x01
	var seen []string
	rep, _ := Scan("f", bytes.NewReader(data), func(p []byte) error { seen = append(seen, string(p)); return nil })
	if rep.Damage == nil || len(seen) != 1 || rep.IntactAfter != 1 {
		t.Fatalf("%+v, decoded %q", rep, seen)
	}
}

func TestUnseal(t *testing.T) {
	v := Seal(nil, []byte("secret\x00bytes"))
	if p, err := Unseal(v); err != nil || string(p) != "secret\x00bytes" {
		t.Fatal(p, err)
	}
	v[12] ^= 1
	if _, err := Unseal(v); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatal(err)
	}
	if p, err := Unseal([]byte(`{"old":1}`)); err != nil || string(p) != `{"old":1}` {
		t.Fatal(p, err)
	}
	if _, err := Unseal([]byte("xyz")); err == nil {
		t.Fatal("no checksum accepted")
	}
	d := &Damage{File: "/d/f", Offset: -1, Where: "bookings/b1", Reason: "r"}
	var target *Damage
	if !errors.As(error(d), &target) || d.Error() != "/d/f is damaged at bookings/b1: r" {
		t.Fatal(d.Error())
	}
}

// TestSealAtEqualsSeal: a payload written behind Reserve and sealed where
// it lies is Seal's bytes, after whatever dst held.
func TestSealAtEqualsSeal(t *testing.T) {
	for _, p := range []string{"", `{"a":1}`, strings.Repeat("x", 700)} {
		b := Reserve([]byte("head"))
		b = append(b, p...)
		SealAt(b, 4)
		if want := Seal([]byte("head"), []byte(p)); !bytes.Equal(b, want) {
			t.Fatalf("SealAt %q\n got %q\nwant %q", p, b, want)
		}
	}
}
