package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func runJSON(t *testing.T, args []string, out any) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d; stderr %s", args, code, stderr.String())
	}
	dec := json.NewDecoder(&stdout)
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		t.Fatalf("run(%q): output %q: %v", args, stdout.String(), err)
	}
}

func TestOverbookCommand(t *testing.T) {
	// Cells of seed 004's Tables 7.3, 7.4 and 7.5 (p = 100, C = 50).
	tests := []struct {
		args   []string
		policy string
		limit  int
		enr    string // to the printed tenth
		sl     float64
	}{
		{[]string{"--policy", "probability", "--show-rate", "0.6", "--denied-cost", "150"}, "probability", 83, "4728.6", 0.0337},
		{[]string{"--policy", "risk", "--show-rate", "0.8", "--denied-cost", "150"}, "risk", 64, "4824.3", 0.0385},
		{[]string{"--policy", "risk", "--show-rate", "0.95", "--denied-cost", "175"}, "risk", 53, "4891.9", 0.0162},
		{[]string{"--policy", "service-level", "--show-rate", "0.6", "--denied-cost", "150", "--service-level", "0.01"}, "service-level", 77, "4555.3", -1},
		{[]string{"--policy", "service-level", "--show-rate", "0.9", "--denied-cost", "150", "--service-level", "0.0001"}, "service-level", 50, "4500.0", 0},
		{[]string{"--policy", "none", "--show-rate", "0.9", "--denied-cost", "150"}, "none", 50, "4500.0", 0},
	}
	for _, tt := range tests {
		args := append([]string{"overbook", "--capacity", "50", "--price", "100"}, tt.args...)
		var got struct {
			Policy             string  `json:"policy"`
			Limit              int     `json:"limit"`
			ExpectedNetRevenue string  `json:"expected_net_revenue"`
			ServiceLevel       float64 `json:"service_level"`
		}
		runJSON(t, args, &got)
		enr, err := decimal.NewFromString(got.ExpectedNetRevenue)
		if err != nil {
			t.Fatalf("%q: expected_net_revenue %q is not a decimal string", args, got.ExpectedNetRevenue)
		}
		if got.Policy != tt.policy || got.Limit != tt.limit || enr.StringFixed(1) != tt.enr {
			t.Errorf("%q: %+v, want %s %d %s", args, got, tt.policy, tt.limit, tt.enr)
		}
		if tt.sl >= 0 && decimal.NewFromFloat(got.ServiceLevel).StringFixed(4) != decimal.NewFromFloat(tt.sl).StringFixed(4) {
			t.Errorf("%q: service level %v, want %.4f", args, got.ServiceLevel, tt.sl)
		}
	}
}

// badInput runs a command that must fail as a usage error: exit 2 with the
// flag named on stderr and nothing on stdout.
func badInput(t *testing.T, args []string, flag string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	if code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), flag) {
		t.Errorf("run(%q) = %d, stdout %q, stderr %q; want 2 naming %s", args, code, stdout.String(), stderr.String(), flag)
	}
}

func TestOverbookBadInput(t *testing.T) {
	base := map[string]string{
		"--policy": "risk", "--capacity": "50", "--price": "100", "--denied-cost": "150", "--show-rate": "0.8",
	}
	with := func(change map[string]string) []string {
		args := []string{"overbook"}
		for k, v := range base {
			if nv, ok := change[k]; ok {
				if nv == "" {
					continue // drop the flag
				}
				v = nv
			}
			args = append(args, k, v)
		}
		for k, v := range change {
			if _, ok := base[k]; !ok {
				args = append(args, k, v)
			}
		}
		return args
	}
	tests := []struct {
		change map[string]string
		flag   string
	}{
		{map[string]string{"--show-rate": "0"}, "--show-rate"},
		{map[string]string{"--show-rate": "1.2"}, "--show-rate"},
		{map[string]string{"--show-rate": "-0.5"}, "--show-rate"},
		{map[string]string{"--show-rate": "NaN"}, "--show-rate"},
		{map[string]string{"--show-rate": "most"}, "--show-rate"},
		{map[string]string{"--show-rate": "0.0000001"}, "--show-rate"},
		{map[string]string{"--capacity": "0"}, "--capacity"},
		{map[string]string{"--capacity": "-10"}, "--capacity"},
		{map[string]string{"--capacity": "5.5"}, "--capacity"},
		{map[string]string{"--price": "0"}, "--price"},
		{map[string]string{"--price": "-1"}, "--price"},
		{map[string]string{"--price": "ten"}, "--price"},
		{map[string]string{"--denied-cost": "100"}, "--denied-cost"},
		{map[string]string{"--denied-cost": "99.99"}, "--denied-cost"},
		{map[string]string{"--denied-cost": "x"}, "--denied-cost"},
		{map[string]string{"--policy": "probability", "--denied-cost": "-1"}, "--denied-cost"},
		{map[string]string{"--policy": "greedy"}, "--policy"},
		{map[string]string{"--policy": "service-level"}, "--service-level"},
		{map[string]string{"--policy": "service-level", "--service-level": "0"}, "--service-level"},
		{map[string]string{"--policy": "service-level", "--service-level": "1"}, "--service-level"},
		{map[string]string{"--policy": "service-level", "--service-level": "1.5"}, "--service-level"},
		{map[string]string{"--policy": "service-level", "--service-level": "tight"}, "--service-level"},
		{map[string]string{"--policy": ""}, "--policy"},
		{map[string]string{"--capacity": ""}, "--capacity"},
		{map[string]string{"--price": ""}, "--price"},
		{map[string]string{"--denied-cost": ""}, "--denied-cost"},
		{map[string]string{"--show-rate": ""}, "--show-rate"},
	}
	for _, tt := range tests {
		badInput(t, with(tt.change), tt.flag)
	}
	badInput(t, []string{"overbook", "--policy", "risk", "--bogus", "1"}, "-bogus")
}

// TestOverbookRefusesNonsense is issue 9 #8 at the command line: a service
// level of 0.999999 made the limit 2,222,222 on 2 nodes; the command refuses
// what the library refuses, with exit 2 naming the flag.
func TestOverbookRefusesNonsense(t *testing.T) {
	base := []string{"overbook", "--capacity", "2", "--price", "100", "--denied-cost", "150"}
	badInput(t, append(base, "--policy", "service-level", "--show-rate", "0.9", "--service-level", "0.999999"), "--service-level")
	badInput(t, append(base, "--policy", "service-level", "--show-rate", "0.9", "--service-level", "0.6"), "--service-level")
	badInput(t, append(base, "--policy", "probability", "--show-rate", "0.3"), "--show-rate")
	var got struct {
		Policy             string  `json:"policy"`
		Limit              int     `json:"limit"`
		ExpectedNetRevenue string  `json:"expected_net_revenue"`
		ServiceLevel       float64 `json:"service_level"`
	}
	runJSON(t, append(base, "--policy", "service-level", "--show-rate", "0.5", "--service-level", "0.5"), &got)
	if got.Limit != 4 {
		t.Errorf("service level 0.5 at show rate 0.5 on 2 nodes: limit %d, want the ceiling 4", got.Limit)
	}
}
