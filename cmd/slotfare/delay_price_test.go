package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// apiScenario is API.md's delay-price example with its elided queued job
// written out (C, 90 nodes): C waits 100 s more behind the reservation.
const apiScenario = `{"nodes":100,"now":50,"policy":"easy",
 "running":[{"id":"A","nodes":70,"end":100}],
 "queued":[{"id":"B","nodes":80,"runtime":100},{"id":"C","nodes":90,"runtime":100}],
 "reservations":[{"id":"R","nodes":10,"start":400,"end":500}],
 "request":{"nodes":20,"duration":250,"start":50}}`

func writeScenario(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scenario.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDelayPriceOutputs(t *testing.T) {
	tests := []struct {
		name, scenario, want string
	}{
		{"one start", apiScenario, `{"feasible":true,"premium":9000,"delays":{"C":100}}`},
		{"free start", strings.Replace(apiScenario, `"start":50}`, `"start":300}`, 1), `{"feasible":true,"premium":0,"delays":{}}`},
		{"infeasible start", strings.Replace(apiScenario, `"nodes":20`, `"nodes":40`, 1), `{"feasible":false,"premium":null,"delays":{}}`},
		{"conservative", strings.Replace(apiScenario, `"easy"`, `"conservative"`, 1), `{"feasible":true,"premium":9000,"delays":{"C":100}}`},
		{"weighted", strings.Replace(apiScenario, `"runtime":100}]`, `"runtime":100,"weight":"0.5"}]`, 1), `{"feasible":true,"premium":4500,"delays":{"C":100}}`},
		{"quote list", strings.Replace(apiScenario, `,"start":50}`, `}`, 1),
			`{"quotes":[{"start":50,"premium":9000},{"start":100,"premium":13500},{"start":200,"premium":22500},{"start":300,"premium":0},{"start":400,"premium":0},{"start":500,"premium":0}]}`},
		{"quote list skips infeasible", strings.Replace(strings.Replace(apiScenario, `,"start":50}`, `}`, 1), `"nodes":20`, `"nodes":95`, 1),
			// 95 nodes: not beside A (to 100) nor across R (400-500); at 100
			// B and C both wait 250 s: 250x80 + 250x90
			`{"quotes":[{"start":100,"premium":42500},{"start":500,"premium":0}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run([]string{"delay-price", "--scenario", writeScenario(t, tt.scenario)}, &out, &errb); code != 0 {
				t.Fatalf("exit %d, stderr %s", code, errb.String())
			}
			if got := strings.TrimSpace(out.String()); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestDelayPriceBadInput(t *testing.T) {
	tests := []struct {
		name     string
		args     []string // nil: --scenario with the text
		scenario string
		stderr   string
	}{
		{"no flag", []string{}, "", "--scenario: is required"},
		{"missing file", []string{"--scenario", "/nonexistent/scenario.json"}, "", "scenario: cannot open"},
		{"directory", []string{"--scenario", os.TempDir()}, "", "scenario: cannot read"},
		{"extra argument", []string{"--scenario", "x.json", "more"}, "", "unexpected argument"},
		{"empty file", nil, "", "scenario: empty input"},
		{"malformed JSON", nil, `{"nodes":100,`, "malformed JSON"},
		{"not an object", nil, `[1,2]`, "wrong type"},
		{"unknown field", nil, strings.Replace(apiScenario, `"now":50`, `"now":50,"tz":"UTC"`, 1), "tz: unknown field"},
		{"unknown policy", nil, strings.Replace(apiScenario, `"easy"`, `"backfill"`, 1), "policy: unknown policy"},
		{"zero machine", nil, strings.Replace(apiScenario, `"nodes":100,`, `"nodes":0,`, 1), "nodes: machine nodes"},
		{"zero job nodes", nil, strings.Replace(apiScenario, `"nodes":80`, `"nodes":0`, 1), "queued[0].nodes: must be positive"},
		{"negative running nodes", nil, strings.Replace(apiScenario, `"nodes":70`, `"nodes":-70`, 1), "running[0].nodes: must be positive"},
		{"zero runtime", nil, strings.Replace(apiScenario, `"runtime":100}`, `"runtime":0}`, 1), "queued[0].runtime"},
		{"negative runtime", nil, strings.Replace(apiScenario, `"runtime":100}`, `"runtime":-100}`, 1), "queued[0].runtime"},
		{"job wider than machine", nil, strings.Replace(apiScenario, `"nodes":90`, `"nodes":101`, 1), "queued[1].nodes: 101 nodes is wider than the machine"},
		{"reservation wider than machine", nil, strings.Replace(apiScenario, `"nodes":10,`, `"nodes":110,`, 1), "reservations[0].nodes"},
		{"reservation backwards", nil, strings.Replace(apiScenario, `"end":500`, `"end":400`, 1), "reservations[0].end: must be after start"},
		{"duplicate id", nil, strings.Replace(apiScenario, `"id":"C"`, `"id":"A"`, 1), `queued[1].id: duplicate id "A"`},
		{"no request", nil, strings.Replace(apiScenario, `,
 "request":{"nodes":20,"duration":250,"start":50}`, ``, 1), "request: is required"},
		{"zero request nodes", nil, strings.Replace(apiScenario, `"nodes":20`, `"nodes":0`, 1), "request.nodes"},
		{"request wider than machine", nil, strings.Replace(apiScenario, `"nodes":20`, `"nodes":101`, 1), "request.nodes"},
		{"zero duration", nil, strings.Replace(apiScenario, `"duration":250`, `"duration":0`, 1), "request.duration"},
		{"negative duration", nil, strings.Replace(apiScenario, `"duration":250`, `"duration":-1`, 1), "request.duration"},
		{"start before now", nil, strings.Replace(apiScenario, `"start":50}`, `"start":10}`, 1), "request.start"},
		{"over-subscribed", nil, strings.Replace(apiScenario, `"end":100}]`, `"end":100},{"id":"A2","nodes":40,"end":90}]`, 1), "running: running jobs hold 110 nodes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"delay-price"}, tt.args...)
			if tt.args == nil {
				args = []string{"delay-price", "--scenario", writeScenario(t, tt.scenario)}
			}
			var out, errb bytes.Buffer
			if code := run(args, &out, &errb); code != 2 {
				t.Fatalf("exit %d, want 2; stderr %s", code, errb.String())
			}
			if !strings.Contains(errb.String(), tt.stderr) {
				t.Fatalf("stderr %q does not mention %q", errb.String(), tt.stderr)
			}
			if out.Len() != 0 {
				t.Fatalf("printed %q on bad input", out.String())
			}
		})
	}
}

// TestDelayPriceTraceSnapshot runs the quote list on the SP2 snapshot (430
// nodes, 500 queued jobs) kept under pricing/testdata/delay.
func TestDelayPriceTraceSnapshot(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"delay-price", "--scenario", "../../pricing/testdata/delay/sp2-430x500.json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Quotes []struct {
			Start   int64       `json:"start"`
			Premium json.Number `json:"premium"`
		} `json:"quotes"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Quotes) < 100 {
		t.Fatalf("only %d quotes", len(got.Quotes))
	}
	zero, paid := false, false
	for i, q := range got.Quotes {
		if i > 0 && q.Start <= got.Quotes[i-1].Start {
			t.Fatalf("quotes out of order at %d", i)
		}
		zero = zero || q.Premium == "0"
		paid = paid || q.Premium != "0"
	}
	if !zero || !paid || got.Quotes[len(got.Quotes)-1].Premium != "0" {
		t.Fatalf("want paid starts and a free last start, got first %v last %v", got.Quotes[0], got.Quotes[len(got.Quotes)-1])
	}
}

// TestDelayPriceBinary builds the real binary and runs it: exit statuses
// and output as a user sees them.
func TestDelayPriceBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "slotfare")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "delay-price", "--scenario", writeScenario(t, apiScenario))
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != `{"feasible":true,"premium":9000,"delays":{"C":100}}` {
		t.Fatalf("%v: %s", err, out)
	}
	cmd = exec.Command(bin, "delay-price", "--scenario", writeScenario(t, `{"nodes":1`))
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(errb.String(), "malformed JSON") {
		t.Fatalf("malformed scenario: %v, stderr %q", err, errb.String())
	}
}

// TestDelayPriceStdin pipes the scenario into the real binary with
// --scenario -, and a malformed one gives exit 2 naming the input.
func TestDelayPriceStdin(t *testing.T) {
	bin := buildSlotfare(t)
	cmd := exec.Command(bin, "delay-price", "--scenario", "-")
	cmd.Stdin = strings.NewReader(apiScenario)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), `{"feasible":true,"premium":9000,"delays":{"C":100}}`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	cmd = exec.Command(bin, "delay-price", "--scenario", "-")
	cmd.Stdin = strings.NewReader(`{"nodes":100,`)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "malformed JSON") {
		t.Fatalf("malformed stdin: %v, stderr %q", err, stderr.String())
	}
}
