package pricing

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"slotfare"
)

// TestDemoGolden keeps the JSON form of Table 7.6 (the provider PUT bodies
// the service's demo configuration uses) in step with the Go form, and reads
// it back through the strict decoders.
func TestDemoGolden(t *testing.T) {
	files := []struct {
		name string
		data any
	}{
		{"demo_rate_periods.json", DemoRatePeriods()},
		{"demo_fare_classes.json", DemoFareClasses("1")},
	}
	for _, f := range files {
		got, err := json.MarshalIndent(f.data, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join("testdata", f.name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./pricing -run TestDemoGolden -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale:\n got %s\nwant %s", path, got, want)
		}
	}
	periodsJSON, _ := os.ReadFile(filepath.Join("testdata", "demo_rate_periods.json"))
	periods, err := DecodeRatePeriods(periodsJSON)
	if err != nil {
		t.Fatal(err)
	}
	cal, err := NewRateCalendar(time.UTC, periods)
	if err != nil {
		t.Fatal(err)
	}
	classesJSON, _ := os.ReadFile(filepath.Join("testdata", "demo_fare_classes.json"))
	classes, err := DecodeFareClasses(classesJSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateFareClasses(classes, cal.PeriodNames()); err != nil {
		t.Fatal(err)
	}
	demo := DemoFareClasses("1")
	for i := range demo {
		if !fareClassEqual(classes[i], demo[i]) {
			t.Errorf("decoded class %d = %+v, want %+v", i, classes[i], demo[i])
		}
	}
	for i, p := range DemoRatePeriods() {
		if periods[i] != p {
			t.Errorf("decoded period %d = %+v, want %+v", i, periods[i], p)
		}
	}
}

func fareClassEqual(a, b FareClass) bool {
	if a.Name != b.Name || a.Rank != b.Rank || a.VO != b.VO || !a.PenaltyRate.Equal(b.PenaltyRate) ||
		!a.DeniedCostFactor.Equal(b.DeniedCostFactor) || len(a.Tau) != len(b.Tau) {
		return false
	}
	for k, v := range a.Tau {
		if w, ok := b.Tau[k]; !ok || !v.Equal(w) {
			return false
		}
	}
	return true
}

func TestDecodeAPIExample(t *testing.T) {
	// The bodies as API.md prints them.
	classes, err := DecodeFareClasses([]byte(`[{"name":"premium","rank":1,"tau":{"peak":"3.38"},"penalty_rate":"0","denied_cost_factor":"5","vo":null}]`))
	if err != nil {
		t.Fatal(err)
	}
	if c := classes[0]; c.Name != "premium" || c.Rank != 1 || !c.Tau["peak"].Equal(fareDec("3.38")) || !c.VO.Open() || !c.DeniedCostFactor.Equal(fareDec("5")) {
		t.Errorf("decoded %+v", c)
	}
	periods, err := DecodeRatePeriods([]byte(`[{"name":"peak","days":"weekdays","from":"06:00","to":"18:00"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if p := periods[0]; p != (RatePeriod{Name: "peak", Days: Weekdays, From: Clock(6, 0), To: Clock(18, 0)}) {
		t.Errorf("decoded %+v", p)
	}
	// vo as a number, as a string, or left out.
	for body, want := range map[string]VO{
		`{"name":"b","rank":2,"tau":{},"penalty_rate":"0.1","denied_cost_factor":"4","vo":1}`:       "1",
		`{"name":"b","rank":2,"tau":{},"penalty_rate":"0.1","denied_cost_factor":"4","vo":"1"}`:     "1",
		`{"name":"b","rank":2,"tau":{},"penalty_rate":"0.1","denied_cost_factor":"4","vo":"atlas"}`: "atlas",
		`{"name":"b","rank":2,"tau":{},"penalty_rate":"0.1","denied_cost_factor":"4"}`:              "",
	} {
		var c FareClass
		if err := json.Unmarshal([]byte(body), &c); err != nil || c.VO != want {
			t.Errorf("%s: vo %q, %v; want %q", body, c.VO, err, want)
		}
	}
	out, _ := json.Marshal(FareClass{Name: "x", VO: "2"})
	if !strings.Contains(string(out), `"vo":"2"`) {
		t.Errorf("marshal vo: %s", out)
	}
}

func TestDecodeInvalid(t *testing.T) {
	const goodClass = `"name":"premium","rank":1,"tau":{"peak":"3.38"},"penalty_rate":"0","denied_cost_factor":"5"`
	classTests := []struct {
		body, field string
	}{
		{`{}`, "fare_classes"},
		{`null`, "fare_classes"},
		{`[1]`, "[0]"},
		{`[{` + goodClass + `}, null]`, "[1]"},
		{`[{` + goodClass + `,"colour":"red"}]`, "[0].colour"},
		{`[{"rank":1,"tau":{},"penalty_rate":"0","denied_cost_factor":"5"}]`, "[0].name"},
		{`[{"name":"p","tau":{},"penalty_rate":"0","denied_cost_factor":"5"}]`, "[0].rank"},
		{`[{"name":"p","rank":1,"penalty_rate":"0","denied_cost_factor":"5"}]`, "[0].tau"},
		{`[{"name":"p","rank":1,"tau":{},"denied_cost_factor":"5"}]`, "[0].penalty_rate"},
		{`[{"name":"p","rank":1,"tau":{},"penalty_rate":"0"}]`, "[0].denied_cost_factor"},
		{`[{"name":7,"rank":1,"tau":{},"penalty_rate":"0","denied_cost_factor":"5"}]`, "[0].name"},
		{`[{"name":"p","rank":1.5,"tau":{},"penalty_rate":"0","denied_cost_factor":"5"}]`, "[0].rank"},
		{`[{"name":"p","rank":"1","tau":{},"penalty_rate":"0","denied_cost_factor":"5"}]`, "[0].rank"},
		{`[{"name":"p","rank":1,"tau":[],"penalty_rate":"0","denied_cost_factor":"5"}]`, "[0].tau"},
		{`[{"name":"p","rank":1,"tau":{"peak":3.38},"penalty_rate":"0","denied_cost_factor":"5"}]`, "[0].tau.peak"},
		{`[{"name":"p","rank":1,"tau":{"peak":"3.38","night":"1e2"},"penalty_rate":"0","denied_cost_factor":"5"}]`, "[0].tau.night"},
		{`[{"name":"p","rank":1,"tau":{},"penalty_rate":0.1,"denied_cost_factor":"5"}]`, "[0].penalty_rate"},
		{`[{"name":"p","rank":1,"tau":{},"penalty_rate":"ten","denied_cost_factor":"5"}]`, "[0].penalty_rate"},
		{`[{"name":"p","rank":1,"tau":{},"penalty_rate":"0","denied_cost_factor":"5."}]`, "[0].denied_cost_factor"},
		{`[{` + goodClass + `,"vo":""}]`, "[0].vo"},
		{`[{` + goodClass + `,"vo":-1}]`, "[0].vo"},
		{`[{` + goodClass + `,"vo":1.5}]`, "[0].vo"},
		{`[{` + goodClass + `,"vo":true}]`, "[0].vo"},
		{`[{` + goodClass + `,"vo":["1"]}]`, "[0].vo"},
		{`[{` + goodClass, "fare_classes"},
		// A key twice in one object, at any depth, is refused (a map
		// would keep the last one; issue 9, defect 10).
		{`[{` + goodClass + `,"rank":2}]`, "[0].rank"},
		{`[{"name":"p","rank":1,"tau":{"peak":"3.38","peak":"0.01"},"penalty_rate":"0","denied_cost_factor":"5"}]`, "[0].tau.peak"},
		{`[{` + goodClass + `},{` + goodClass + `,"vo":null,"vo":"atlas"}]`, "[1].vo"},
		{`[{` + goodClass + `,"Rank":1}]`, "[0].Rank"},
	}
	for _, tt := range classTests {
		_, err := DecodeFareClasses([]byte(tt.body))
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
			t.Errorf("DecodeFareClasses(%s) err = %v (field %q), want Invalid on %q", tt.body, err, slotfare.FieldOf(err), tt.field)
		}
	}
	periodTests := []struct {
		body, field string
	}{
		{`{"name":"peak"}`, "rate_periods"},
		{`["peak"]`, "[0]"},
		{`[{"name":"peak","days":"weekdays","from":"06:00"}]`, "[0].to"},
		{`[{"name":"peak","days":"weekdays","from":"06:00","to":"18:00","price":"1"}]`, "[0].price"},
		{`[{"name":"peak","days":"workdays","from":"06:00","to":"18:00"}]`, "[0].days"},
		{`[{"name":"peak","days":["mon"],"from":"06:00","to":"18:00"}]`, "[0].days"},
		{`[{"name":"peak","days":"weekdays","from":"6:00","to":"18:00"}]`, "[0].from"},
		{`[{"name":"peak","days":"weekdays","from":"06:00","to":"24:30"}]`, "[0].to"},
		{`[{"name":"peak","days":"weekdays","from":360,"to":"18:00"}]`, "[0].from"},
		{`[{"name":null,"days":"weekdays","from":"06:00","to":"18:00"}]`, "[0].name"},
		{`[{"name":"peak","days":"weekdays","from":"06:00","to":"18:00","to":"12:00"}]`, "[0].to"},
	}
	for _, tt := range periodTests {
		_, err := DecodeRatePeriods([]byte(tt.body))
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != tt.field {
			t.Errorf("DecodeRatePeriods(%s) err = %v (field %q), want Invalid on %q", tt.body, err, slotfare.FieldOf(err), tt.field)
		}
	}
	// The single-object decoders name paths relative to the object.
	var p RatePeriod
	err := json.Unmarshal([]byte(`{"name":"peak","days":"weekdays","from":"06:00","to":"18:00","x":1}`), &p)
	if slotfare.FieldOf(err) != "x" {
		t.Errorf("RatePeriod.UnmarshalJSON err = %v, want field x", err)
	}
}
