package api

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"slotfare"
)

func TestDecodeStrictNamesTheField(t *testing.T) {
	cases := []struct {
		name, body, field string
	}{
		{"empty", "", "body"},
		{"spaces", "  \n", "body"},
		{"malformed", `{"nodes":`, "body"},
		{"syntax", `{"nodes" 3}`, "body"},
		{"unknown field", `{"nodes":3,"colour":"red"}`, "colour"},
		{"wrong type int", `{"nodes":"three"}`, "nodes"},
		{"wrong type string", `{"earliest_start":5}`, "earliest_start"},
		{"float for int", `{"nodes":2.5}`, "nodes"},
		{"trailing data", `{"nodes":3} {"nodes":4}`, "body"},
		{"trailing garbage", `{"nodes":3}x`, "body"},
		{"array not object", `[1,2]`, "body"},
		{"invalid utf8", "{\"fare_class\":\"\xff\"}", "body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var dst offersBody
			err := decodeStrict([]byte(c.body), &dst)
			var br *badRequest
			if !errors.As(err, &br) {
				t.Fatalf("decodeStrict(%q) = %v, want a bad request", c.body, err)
			}
			if br.field != c.field {
				t.Fatalf("decodeStrict(%q) field = %q, want %q (%v)", c.body, br.field, c.field, err)
			}
			p, internal := problemOf(err)
			if p.Status != http.StatusBadRequest || internal {
				t.Fatalf("status %d internal %v, want 400", p.Status, internal)
			}
		})
	}
}

func TestDecodeStrictAcceptsGoodBody(t *testing.T) {
	var dst offersBody
	body := `{"resource_id":null,"earliest_start":"2026-12-01T09:00:00+01:00","latest_end":"2026-12-01T18:00:00Z","duration_seconds":3600,"nodes":4,"fare_class":"budget"}`
	if err := decodeStrict([]byte(body), &dst); err != nil {
		t.Fatal(err)
	}
	if dst.ResourceID != nil || *dst.Nodes != 4 || *dst.DurationSeconds != 3600 || *dst.FareClass != "budget" {
		t.Fatalf("decoded %+v", dst)
	}
	start, err := parseTime("earliest_start", dst.EarliestStart)
	if err != nil {
		t.Fatal(err)
	}
	if start.Location().String() != "UTC" || start.Hour() != 8 {
		t.Fatalf("start %v, want 08:00 UTC", start)
	}
}

func TestParseTimeAndMoney(t *testing.T) {
	for _, s := range []string{"", "2026-12-01", "2026-12-01 09:00:00Z", "tomorrow", "2026-13-01T00:00:00Z", "0000-01-01T00:00:00Z"} {
		_, err := parseTime("start", s)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "start" {
			t.Errorf("parseTime(%q) = %v, want Invalid on start", s, err)
		}
	}
	for _, s := range []string{"", "1e3", "0x10", "NaN", "1,5", strings.Repeat("9", 50), " 1"} {
		_, err := parseMoney("base_cost", s)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "base_cost" {
			t.Errorf("parseMoney(%q) = %v, want Invalid on base_cost", s, err)
		}
	}
	d, err := parseMoney("base_cost", "0.49")
	if err != nil || d.String() != "0.49" {
		t.Fatalf("parseMoney(0.49) = %v, %v", d, err)
	}
}

// FuzzDecodeStrict throws arbitrary bytes at the request decoder of every
// body type: it must never panic, and whatever it rejects is a 400 naming a
// field, never a server error.
func FuzzDecodeStrict(f *testing.F) {
	for _, s := range []string{
		`{"earliest_start":"2026-12-01T09:00:00Z","latest_end":"2026-12-01T18:00:00Z","nodes":4}`,
		`{"offer_id":"abc"}`, `{"resource_id":"RAL","start":"x","end":"y","nodes":-1,"fare_class":"budget"}`,
		`{"nodes":3,"base_cost":"0.49"}`, `{"policy":"risk","service_level":0.01}`, `[]`, `null`, `{"start":null}`,
		`{"nodes":1e400}`, `{"nodes":99999999999999999999}`, `{"a":{"b":[1,2,{"c":null}]}}`, "\x00", `"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, dst := range []any{&offersBody{}, &holdBody{}, &modifyBody{}, &resourceBody{}, &overbookingBody{}, &limitsBody{}, &pricingBody{}} {
			err := decodeStrict(b, dst)
			if err == nil {
				continue
			}
			p, internal := problemOf(err)
			if p.Status != http.StatusBadRequest || internal {
				t.Fatalf("decodeStrict(%q) into %T: status %d, want 400: %v", b, dst, p.Status, err)
			}
			if len(p.Errors) != 1 || p.Errors[0].Field == "" {
				t.Fatalf("decodeStrict(%q) into %T: problem names no field: %+v", b, dst, p)
			}
		}
	})
}
