package main

import (
	"math"
	"runtime/metrics"
	"testing"
)

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

// TestHistQuantile checks the scheduling-latency percentile on a made-up
// histogram: only what was added between the two reads counts, and the
// answer is the upper bound of the bucket holding the quantile.
func TestHistQuantile(t *testing.T) {
	buckets := []float64{0, 0.001, 0.002, 0.01, math.Inf(1)}
	before := &metrics.Float64Histogram{Counts: []uint64{0, 0, 500, 0}, Buckets: buckets}
	after := &metrics.Float64Histogram{Counts: []uint64{90, 9, 500, 1}, Buckets: buckets}
	for _, c := range []struct{ q, want float64 }{{0.5, 0.001}, {0.9, 0.001}, {0.95, 0.002}, {0.995, 0.01}, {1, 0.01}} {
		if got := histQuantile(before, after, c.q); got != c.want {
			t.Errorf("q%v = %v, want %v", c.q, got, c.want)
		}
	}
	if got := histQuantile(after, after, 0.99); got != 0 {
		t.Errorf("empty difference: %v, want 0", got)
	}
	if got := histQuantile(nil, after, 0.99); got != 0.01 {
		t.Errorf("no before: %v, want 0.01", got)
	}
}
