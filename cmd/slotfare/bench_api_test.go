package main

import "testing"

// TestFirstJSONValue checks the load generator's field reader: it must
// find the first occurrence, return string contents and literals, and
// refuse (so the caller decodes properly) strings with escapes, missing
// keys and truncated values.
func TestFirstJSONValue(t *testing.T) {
	offers := []byte(`{"offers":[{"offer_id":"of_A1","resource_id":"RAL","solution":true,"price":{"total":"1.00"}},` +
		`{"offer_id":"of_B2","solution":false}]}`)
	cases := []struct {
		data, key, want string
		ok              bool
	}{
		{string(offers), "offer_id", "of_A1", true},
		{string(offers), "solution", "true", true},
		{`{"booking_id":"bk_9","status":"held","nodes":12}`, "status", "held", true},
		{`{"booking_id":"bk_9","nodes":12}`, "nodes", "12", true},
		{`{"a":null}`, "a", "null", true},
		{`{"booking_id":"bk\"9"}`, "booking_id", "", false},
		{`{"booking_id":"bk_9"}`, "status", "", false},
		{`{"booking_id":"bk_9`, "booking_id", "", false},
		{`{"n":`, "n", "", false},
	}
	for _, c := range cases {
		got, ok := firstJSONValue([]byte(c.data), c.key)
		if got != c.want || ok != c.ok {
			t.Errorf("firstJSONValue(%s, %q) = %q, %v; want %q, %v", c.data, c.key, got, ok, c.want, c.ok)
		}
	}
	// bookingField falls back to a real decode when the fast path refuses.
	if v, err := bookingField([]byte(`{"status" : "committed"}`), "status"); err != nil || v != "committed" {
		t.Errorf("bookingField fallback = %q, %v", v, err)
	}
	if _, err := bookingField([]byte(`{"status" : `), "status"); err == nil {
		t.Error("bookingField accepted malformed JSON")
	}
}
