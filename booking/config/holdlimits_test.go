package config

import (
	"encoding/json"
	"strings"
	"testing"

	"slotfare"
)

// TestDecodeHoldLimits: a resource's hold_limits in the configuration file
// are read strictly, a field left out is its default (kept as zero, shown
// filled in), and a decoded configuration writes back to one that decodes
// the same.
func TestDecodeHoldLimits(t *testing.T) {
	with := func(hl string) []byte {
		return []byte(strings.Replace(minimalConfig, `"nodes":3,`, `"nodes":3,"hold_limits":`+hl+`,`, 1))
	}
	for _, c := range []struct {
		hl   string
		want HoldLimits
	}{
		{`{"max_holds":250,"max_held_node_seconds":7200}`, HoldLimits{MaxHolds: 250, MaxHeldNodeSeconds: 7200}},
		{`{"max_holds":5}`, HoldLimits{MaxHolds: 5}},
		{`{"max_held_node_seconds":60}`, HoldLimits{MaxHeldNodeSeconds: 60}},
		{`{"max_holds":null}`, HoldLimits{}},
		{`{}`, HoldLimits{}},
		{`null`, HoldLimits{}},
	} {
		cfg, err := DecodeConfig(with(c.hl))
		if err != nil {
			t.Fatalf("%s: %v", c.hl, err)
		}
		if got := cfg.Resources[0].HoldLimits; got != c.want {
			t.Fatalf("%s: %+v, want %+v", c.hl, got, c.want)
		}
		once, _ := json.Marshal(cfg)
		again, err := DecodeConfig(once)
		if err != nil || again.Resources[0].HoldLimits != c.want {
			t.Fatalf("%s: written back as %s: %v %+v", c.hl, once, err, again.Resources[0].HoldLimits)
		}
	}
	if got := (HoldLimits{}).Effective(3); got != (HoldLimits{MaxHolds: 100, MaxHeldNodeSeconds: 3 * 86400}) {
		t.Fatalf("defaults for 3 nodes: %+v", got)
	}
	if got := (HoldLimits{MaxHolds: 4}).Effective(3); got != (HoldLimits{MaxHolds: 4, MaxHeldNodeSeconds: 3 * 86400}) {
		t.Fatalf("one default for 3 nodes: %+v", got)
	}
	for _, c := range []struct{ hl, field string }{
		{`{"max_holds":0}`, "resources[0].hold_limits.max_holds"},
		{`{"max_holds":-3}`, "resources[0].hold_limits.max_holds"},
		{`{"max_holds":2000000}`, "resources[0].hold_limits.max_holds"},
		{`{"max_holds":1.5}`, "resources[0].hold_limits.max_holds"},
		{`{"max_held_node_seconds":0}`, "resources[0].hold_limits.max_held_node_seconds"},
		{`{"max_held_node_seconds":"60"}`, "resources[0].hold_limits.max_held_node_seconds"},
		{`{"max_held_node_seconds":1e18}`, "resources[0].hold_limits.max_held_node_seconds"},
		{`{"max_hold":5}`, "resources[0].hold_limits.max_hold"},
		{`[5]`, "resources[0].hold_limits"},
	} {
		_, err := DecodeConfig(with(c.hl))
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != c.field {
			t.Errorf("%s: %v (field %q), want Invalid naming %s", c.hl, err, slotfare.FieldOf(err), c.field)
		}
	}
}
