package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/forecast"
	"slotfare/overbook"
	"slotfare/pricing"
)

func demoConfig(t testing.TB) Config {
	t.Helper()
	cfg, err := DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatalf("demo configuration: %v", err)
	}
	return cfg
}

// TestDemoMatchesTable77 checks every resource against seed 004 Table 7.7,
// cell by cell: name, nodes, bcost (G$ per node-second, see
// testdata/README.md) and VO, plus the site's IANA zone.
func TestDemoMatchesTable77(t *testing.T) {
	want := []struct {
		id, baseCost, vo, zone string
		nodes                  int
	}{
		{"RAL", "0.49", "1", "Europe/London", 41},
		{"Imperial", "0.62", "1", "Europe/London", 52},
		{"NorduGrid", "0.20", "2", "Europe/Oslo", 17},
		{"NIKHEF", "0.21", "2", "Europe/Amsterdam", 18},
		{"Lyon", "0.14", "3", "Europe/Paris", 12},
		{"CERN", "0.70", "3", "Europe/Zurich", 59},
		{"Milano", "0.07", "4", "Europe/Rome", 5},
		{"Torino", "0.03", "4", "Europe/Rome", 2},
		{"Rome", "0.06", "4", "Europe/Rome", 5},
		{"Bologna", "0.80", "4", "Europe/Rome", 67},
	}
	cfg := demoConfig(t)
	if cfg.Currency != "GRD" {
		t.Errorf("currency = %q, want GRD", cfg.Currency)
	}
	if len(cfg.Resources) != len(want) {
		t.Fatalf("%d resources, want %d", len(cfg.Resources), len(want))
	}
	for i, w := range want {
		rc := cfg.Resources[i]
		if rc.ID != w.id || rc.Nodes != w.nodes || string(rc.VO) != w.vo || rc.TimeZone != w.zone {
			t.Errorf("resources[%d] = %s %d nodes VO %s %s, want %s %d VO %s %s",
				i, rc.ID, rc.Nodes, rc.VO, rc.TimeZone, w.id, w.nodes, w.vo, w.zone)
		}
		if !rc.BaseCost.Equal(decimal.RequireFromString(w.baseCost)) {
			t.Errorf("%s base_cost = %s, want %s", w.id, rc.BaseCost, w.baseCost)
		}
		if rc.Currency != "GRD" || rc.SlotSeconds != 300 || rc.HoldSeconds != 600 {
			t.Errorf("%s currency %s slot %d hold %d, want GRD 300 600", w.id, rc.Currency, rc.SlotSeconds, rc.HoldSeconds)
		}
	}
}

// TestDemoFareClassesTables76And79 checks the taus of Table 7.6 and the
// penalty rates and denied-cost factors of Table 7.9, written out here from
// the thesis, and that they equal pricing.DemoFareClasses.
func TestDemoFareClassesTables76And79(t *testing.T) {
	type row struct {
		name                  string
		rank                  int
		peak, offPeak, saver  string // Table 7.6
		penalty, deniedFactor string // Table 7.9
		restricted            bool   // Table 7.1: business and budget stay in the VO
	}
	want := []row{
		{"premium", 1, "3.38", "2.63", "1.88", "0", "5", false},
		{"business", 2, "2.81", "2.19", "1.56", "0.10", "4", true},
		{"budget", 3, "2.25", "1.75", "1.25", "0.25", "3", true},
	}
	dec := decimal.RequireFromString
	for _, rc := range demoConfig(t).Resources {
		if len(rc.FareClasses) != 3 {
			t.Fatalf("%s: %d fare classes", rc.ID, len(rc.FareClasses))
		}
		ref := pricing.DemoFareClasses(rc.VO)
		for i, w := range want {
			fc := rc.FareClasses[i]
			if fc.Name != w.name || fc.Rank != w.rank {
				t.Errorf("%s class %d = %s rank %d, want %s rank %d", rc.ID, i, fc.Name, fc.Rank, w.name, w.rank)
			}
			for period, tau := range map[string]string{"peak": w.peak, "off_peak": w.offPeak, "super_saver": w.saver} {
				if got := fc.Tau[period]; !got.Equal(dec(tau)) {
					t.Errorf("%s %s tau[%s] = %s, want %s", rc.ID, fc.Name, period, got, tau)
				}
				if !fc.Tau[period].Equal(ref[i].Tau[period]) {
					t.Errorf("%s %s tau[%s] differs from pricing.DemoFareClasses", rc.ID, fc.Name, period)
				}
			}
			if len(fc.Tau) != 3 {
				t.Errorf("%s %s has %d taus", rc.ID, fc.Name, len(fc.Tau))
			}
			if !fc.PenaltyRate.Equal(dec(w.penalty)) || !fc.PenaltyRate.Equal(ref[i].PenaltyRate) {
				t.Errorf("%s %s penalty_rate = %s, want %s", rc.ID, fc.Name, fc.PenaltyRate, w.penalty)
			}
			if !fc.DeniedCostFactor.Equal(dec(w.deniedFactor)) || !fc.DeniedCostFactor.Equal(ref[i].DeniedCostFactor) {
				t.Errorf("%s %s denied_cost_factor = %s, want %s", rc.ID, fc.Name, fc.DeniedCostFactor, w.deniedFactor)
			}
			wantVO := pricing.VO("")
			if w.restricted {
				wantVO = rc.VO
			}
			if fc.VO != wantVO || fc.VO != ref[i].VO {
				t.Errorf("%s %s vo = %q, want %q", rc.ID, fc.Name, fc.VO, wantVO)
			}
		}
	}
}

// TestDemoRatePeriodsTable76 checks the rate periods of Table 7.6 and that
// they are pricing.DemoRatePeriods, and that the calendar in each site's
// zone puts a Monday 10:00 local in the peak.
func TestDemoRatePeriodsTable76(t *testing.T) {
	want := []struct{ name, days, from, to string }{
		{"super_saver", "weekdays", "00:00", "06:00"},
		{"peak", "weekdays", "06:00", "18:00"},
		{"off_peak", "weekdays", "18:00", "24:00"},
		{"super_saver", "weekends", "18:00", "06:00"},
		{"off_peak", "weekends", "06:00", "18:00"},
	}
	ref := pricing.DemoRatePeriods()
	for _, rc := range demoConfig(t).Resources {
		if len(rc.RatePeriods) != len(want) {
			t.Fatalf("%s: %d rate periods", rc.ID, len(rc.RatePeriods))
		}
		for i, w := range want {
			p := rc.RatePeriods[i]
			if p.Name != w.name || p.Days.String() != w.days || p.From.String() != w.from || p.To.String() != w.to {
				t.Errorf("%s period %d = %s %s %s-%s, want %s %s %s-%s", rc.ID, i, p.Name, p.Days, p.From, p.To, w.name, w.days, w.from, w.to)
			}
			if p != ref[i] {
				t.Errorf("%s period %d differs from pricing.DemoRatePeriods", rc.ID, i)
			}
		}
		cal, err := rc.RateCalendar()
		if err != nil {
			t.Fatal(err)
		}
		loc, _ := rc.Location()
		monday10 := time.Date(2026, 11, 23, 10, 0, 0, 0, loc)
		if got := cal.PeriodAt(monday10); got != "peak" {
			t.Errorf("%s: Monday 10:00 local is %s, want peak", rc.ID, got)
		}
	}
}

// TestDemoProtectionLevelsTable710 checks the initial protection levels
// against Table 7.10, whose y_1 and y_2 are each class's own protection; the
// configuration stores them nested ([y_1, y_1 + y_2]).
func TestDemoProtectionLevelsTable710(t *testing.T) {
	type y struct{ y1, y2 float64 }
	want := map[string][3]y{ // peak, off-peak, super saver
		"RAL":       {{10, 20}, {5, 15}, {3, 7}},
		"Imperial":  {{12, 27}, {6, 20}, {2, 11}},
		"NorduGrid": {{5, 8}, {2, 6}, {1, 3}},
		"NIKHEF":    {{5, 8}, {2, 6}, {1, 3}},
		"Lyon":      {{3, 6}, {2, 4}, {0, 3}},
		"CERN":      {{12, 32}, {6, 23}, {3, 11}},
		"Milano":    {{1, 2}, {0, 2}, {0, 1}},
		"Torino":    {{0, 1}, {0, 0}, {0, 0}},
		"Rome":      {{1, 2}, {0, 2}, {0, 1}},
		"Bologna":   {{15, 35}, {8, 25}, {4, 12}},
	}
	periods := []string{"peak", "off_peak", "super_saver"}
	cfg := demoConfig(t)
	for _, rc := range cfg.Resources {
		w, ok := want[rc.ID]
		if !ok {
			t.Fatalf("%s is not in Table 7.10", rc.ID)
		}
		if len(rc.Limits.ProtectionLevels) != 3 {
			t.Errorf("%s: protection levels for %d periods", rc.ID, len(rc.Limits.ProtectionLevels))
		}
		for i, p := range periods {
			got := rc.Limits.ProtectionLevels[p]
			if len(got) != 2 || got[0] != w[i].y1 || got[1]-got[0] != w[i].y2 {
				t.Errorf("%s %s levels %v, want y1=%v y2=%v", rc.ID, p, got, w[i].y1, w[i].y2)
			}
		}
		if rc.Limits.Method != pricing.EMSRb || rc.Limits.MinHistory != DefaultMinHistory {
			t.Errorf("%s limits method %s min_history %d", rc.ID, rc.Limits.Method, rc.Limits.MinHistory)
		}
	}
}

func TestDemoShowRatesAndOverbooking(t *testing.T) {
	for _, rc := range demoConfig(t).Resources {
		for _, p := range []string{"peak", "off_peak", "super_saver"} {
			q, ok := forecast.DemoShowRate(p)
			if !ok || rc.Limits.ShowRates[p] != q || rc.Limits.ShowRate(p) != q {
				t.Errorf("%s show rate %s = %v, want %v", rc.ID, p, rc.Limits.ShowRates[p], q)
			}
		}
		ob := rc.Overbooking
		if ob.ServiceLevel != 0.01 {
			t.Errorf("%s service level %v, want the thesis's 0.01", rc.ID, ob.ServiceLevel)
		}
		if err := ob.Validate(""); err != nil {
			t.Errorf("%s: %v", rc.ID, err)
		}
	}
	byID := map[string]OverbookingConfig{}
	for _, rc := range demoConfig(t).Resources {
		byID[rc.ID] = rc.Overbooking
	}
	for id, w := range map[string]OverbookingConfig{
		"RAL":     {overbook.Risk, 0.01, overbook.DCF},
		"CERN":    {overbook.Risk, 0.01, overbook.DCF},
		"Bologna": {overbook.ServiceLevel, 0.01, overbook.LCDCF},
		"Milano":  {overbook.ServiceLevel, 0.01, overbook.DCF},
		"Torino":  {overbook.None, 0.01, overbook.DCF},
	} {
		if byID[id] != w {
			t.Errorf("%s overbooking %+v, want %+v (testdata/README.md)", id, byID[id], w)
		}
	}
}

func TestDemoKeys(t *testing.T) {
	cfg := demoConfig(t)
	if len(cfg.Keys) != len(slotfare.DemoKeys) {
		t.Fatalf("%d keys, want %d", len(cfg.Keys), len(slotfare.DemoKeys))
	}
	for i, dk := range slotfare.DemoKeys {
		k := cfg.Keys[i]
		if k.KeySHA256 != booking.HashKey(dk.Key) || string(k.Role) != dk.Role || k.AccountID != dk.AccountID || string(k.VO) != dk.VO || k.Name != dk.Key {
			t.Errorf("keys[%d] = %+v, want the hash of %+v", i, k, dk)
		}
		if bytes.Contains(slotfare.DemoConfig, []byte(`"key_sha256": "`+dk.Key)) {
			t.Errorf("demo configuration stores %s in plaintext", dk.Key)
		}
	}
	want := map[string]struct{ role, account, vo string }{
		"demo-provider": {"provider", "provider", ""},
		"demo-billing":  {"billing", "billing", ""},
		"demo-alice":    {"user", "alice", "1"},
		"demo-bob":      {"user", "bob", "2"},
	}
	for _, dk := range slotfare.DemoKeys {
		w := want[dk.Key]
		if dk.Role != w.role || dk.AccountID != w.account || dk.VO != w.vo {
			t.Errorf("DemoKeys %s = %+v, want %+v", dk.Key, dk, w)
		}
	}
}

func TestHashKey(t *testing.T) {
	// sha256("abc"), FIPS 180-2 appendix B.1
	if got := booking.HashKey("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("HashKey(abc) = %s", got)
	}
}

const minimalConfig = `{"currency":"EUR","keys":[{"key_sha256":"` +
	"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" +
	`","name":"p","role":"provider","account_id":"p"}],
"resources":[{"id":"tiny","nodes":3,"base_cost":"0.5","time_zone":"UTC",
 "fare_classes":[{"name":"std","rank":1,"tau":{"all":"1.5"},"penalty_rate":"0","denied_cost_factor":"2","vo":null}],
 "rate_periods":[{"name":"all","days":"all","from":"00:00","to":"24:00"}]}]}`

func TestDecodeConfigDefaults(t *testing.T) {
	cfg, err := DecodeConfig([]byte(minimalConfig))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.HoldSeconds != 600 || cfg.GraceSeconds != 900 || cfg.CheckinOpenSeconds != 3600 ||
		cfg.OfferTTLSeconds != 300 || cfg.BookAheadSeconds != 90*86400 {
		t.Errorf("service defaults %+v", cfg)
	}
	rc := cfg.Resources[0]
	if rc.SlotSeconds != 300 || rc.HoldSeconds != 600 || rc.Currency != "EUR" {
		t.Errorf("resource defaults slot %d hold %d currency %s", rc.SlotSeconds, rc.HoldSeconds, rc.Currency)
	}
	if rc.Overbooking != (OverbookingConfig{overbook.None, 0.01, overbook.DCF}) {
		t.Errorf("overbooking default %+v", rc.Overbooking)
	}
	if rc.Limits.Method != pricing.EMSRb || rc.Limits.MinHistory != DefaultMinHistory || rc.Limits.ShowRate("all") != 1 {
		t.Errorf("limits default %+v", rc.Limits)
	}
	if cfg.Runs != (RunLimits{MaxPerHour: 1000, MaxKept: 10000, RetentionDays: 90}) {
		t.Errorf("runs default %+v", cfg.Runs)
	}
	cfg, err = DecodeConfig([]byte(strings.Replace(minimalConfig, `"currency":"EUR"`, `"currency":"EUR","runs":{"max_per_hour":5,"retention_days":null}`, 1)))
	if err != nil || cfg.Runs != (RunLimits{MaxPerHour: 5, MaxKept: 10000, RetentionDays: 90}) {
		t.Errorf("runs given: %v %+v", err, cfg.Runs)
	}
	// An explicit zero grace is kept (no-show right at the start), not defaulted.
	cfg, err = DecodeConfig([]byte(strings.Replace(minimalConfig, `"currency":"EUR"`, `"currency":"EUR","grace_seconds":0`, 1)))
	if err != nil || cfg.GraceSeconds != 0 {
		t.Errorf("grace 0: %v %d", err, cfg.GraceSeconds)
	}
}

// TestConfigRoundTrip: a decoded configuration written back as JSON decodes
// to the same configuration.
func TestConfigRoundTrip(t *testing.T) {
	for _, src := range [][]byte{slotfare.DemoConfig, []byte(minimalConfig)} {
		cfg, err := DecodeConfig(src)
		if err != nil {
			t.Fatal(err)
		}
		once, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeConfig(once)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", once, err)
		}
		twice, _ := json.Marshal(again)
		if !bytes.Equal(once, twice) {
			t.Errorf("round trip differs:\n%s\n%s", once, twice)
		}
	}
}

// mutateDemo applies f to the demo configuration as generic JSON.
func mutateDemo(t *testing.T, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(slotfare.DemoConfig, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func res(m map[string]any, i int) map[string]any {
	return m["resources"].([]any)[i].(map[string]any)
}

func key(m map[string]any, i int) map[string]any {
	return m["keys"].([]any)[i].(map[string]any)
}

func TestDecodeConfigErrorsNameTheField(t *testing.T) {
	set := func(path func(map[string]any) map[string]any, k string, v any) func(map[string]any) {
		return func(m map[string]any) { path(m)[k] = v }
	}
	del := func(path func(map[string]any) map[string]any, k string) func(map[string]any) {
		return func(m map[string]any) { delete(path(m), k) }
	}
	top := func(m map[string]any) map[string]any { return m }
	r := func(i int) func(map[string]any) map[string]any {
		return func(m map[string]any) map[string]any { return res(m, i) }
	}
	sub := func(i int, name string) func(map[string]any) map[string]any {
		return func(m map[string]any) map[string]any { return res(m, i)[name].(map[string]any) }
	}
	k := func(i int) func(map[string]any) map[string]any {
		return func(m map[string]any) map[string]any { return key(m, i) }
	}
	cases := []struct {
		name  string
		f     func(map[string]any)
		field string
	}{
		{"unknown top field", set(top, "colour", 1), "colour"},
		{"missing currency", del(top, "currency"), "currency"},
		{"bad currency", set(top, "currency", "grd"), "currency"},
		{"currency wrong type", set(top, "currency", 7), "currency"},
		{"hold zero", set(top, "hold_seconds", 0), "hold_seconds"},
		{"hold fractional", set(top, "hold_seconds", 1.5), "hold_seconds"},
		{"hold string", set(top, "hold_seconds", "600"), "hold_seconds"},
		{"grace negative", set(top, "grace_seconds", -1), "grace_seconds"},
		{"checkin too long", set(top, "checkin_open_seconds", 99999999), "checkin_open_seconds"},
		{"offer ttl zero", set(top, "offer_ttl_seconds", 0), "offer_ttl_seconds"},
		{"book ahead huge", set(top, "book_ahead_seconds", 1e12), "book_ahead_seconds"},
		{"resources not array", set(top, "resources", map[string]any{}), "resources"},
		{"key plaintext", set(k(2), "key_sha256", "demo-alice"), "keys[2].key_sha256"},
		{"key upper hex", set(k(2), "key_sha256", strings.ToUpper(booking.HashKey("x"))), "keys[2].key_sha256"},
		{"key duplicate hash", set(k(3), "key_sha256", booking.HashKey("demo-alice")), "keys[3].key_sha256"},
		{"key duplicate name", set(k(3), "name", "demo-alice"), "keys[3].name"},
		{"key duplicate account", set(k(3), "account_id", "alice"), "keys[3].account_id"},
		{"key bad role", set(k(0), "role", "admin"), "keys[0].role"},
		{"key bad account", set(k(1), "account_id", "a b"), "keys[1].account_id"},
		{"key empty name", set(k(1), "name", ""), "keys[1].name"},
		{"key VO for provider", set(k(0), "vo", "1"), "keys[0].vo"},
		{"key VO bad", set(k(2), "vo", "a b"), "keys[2].vo"},
		{"key VO bool", set(k(2), "vo", true), "keys[2].vo"},
		{"key unknown field", set(k(1), "secret", "x"), "keys[1].secret"},
		{"resource unknown field", set(r(3), "gpu", true), "resources[3].gpu"},
		{"nodes zero", set(r(3), "nodes", 0), "resources[3].nodes"},
		{"nodes string", set(r(3), "nodes", "18"), "resources[3].nodes"},
		{"nodes missing", del(r(3), "nodes"), "resources[3].nodes"},
		{"nodes huge", set(r(3), "nodes", 1e9), "resources[3].nodes"},
		{"id missing", del(r(0), "id"), "resources[0].id"},
		{"id bad", set(r(0), "id", "R/L"), "resources[0].id"},
		{"id duplicate", set(r(1), "id", "ral"), "resources[1].id"},
		{"base cost number", set(r(2), "base_cost", 0.2), "resources[2].base_cost"},
		{"base cost zero", set(r(2), "base_cost", "0"), "resources[2].base_cost"},
		{"base cost negative", set(r(2), "base_cost", "-0.2"), "resources[2].base_cost"},
		{"base cost exponent", set(r(2), "base_cost", "2e-1"), "resources[2].base_cost"},
		{"base cost too fine", set(r(2), "base_cost", "0.0000000000001"), "resources[2].base_cost"},
		{"base cost missing", del(r(2), "base_cost"), "resources[2].base_cost"},
		{"resource currency not a code", set(r(4), "currency", "eur"), "resources[4].currency"},
		{"zone unknown", set(r(5), "time_zone", "Europe/Atlantis"), "resources[5].time_zone"},
		{"zone local", set(r(5), "time_zone", "Local"), "resources[5].time_zone"},
		{"zone missing", del(r(5), "time_zone"), "resources[5].time_zone"},
		{"slot not dividing a day", set(r(6), "slot_seconds", 7), "resources[6].slot_seconds"},
		{"slot zero", set(r(6), "slot_seconds", 0), "resources[6].slot_seconds"},
		{"resource hold zero", set(r(6), "hold_seconds", 0), "resources[6].hold_seconds"},
		{"resource VO bad", set(r(7), "vo", ""), "resources[7].vo"},
		{"tag bad", set(r(7), "tags", []any{"ok", "not ok"}), "resources[7].tags[1]"},
		{"tag duplicate", set(r(7), "tags", []any{"a", "a"}), "resources[7].tags[1]"},
		{"fare classes missing", del(r(8), "fare_classes"), "resources[8].fare_classes"},
		{"fare classes empty", set(r(8), "fare_classes", []any{}), "resources[8].fare_classes"},
		{"fare classes beyond the layout's eight groups", func(m map[string]any) {
			fcs := res(m, 8)["fare_classes"].([]any)
			for i := len(fcs); i <= MaxFareClasses; i++ {
				fc := map[string]any{}
				for k, v := range fcs[0].(map[string]any) {
					fc[k] = v
				}
				fc["name"], fc["rank"] = fmt.Sprintf("c%d", i), i+1
				fcs = append(fcs, fc)
			}
			res(m, 8)["fare_classes"] = fcs
		}, "resources[8].fare_classes"},
		{"fare class tau below 1", func(m map[string]any) {
			res(m, 8)["fare_classes"].([]any)[2].(map[string]any)["tau"].(map[string]any)["peak"] = "0.9"
		}, "resources[8].fare_classes[2].tau.peak"},
		{"fare class tau missing period", func(m map[string]any) {
			delete(res(m, 8)["fare_classes"].([]any)[1].(map[string]any)["tau"].(map[string]any), "off_peak")
		}, "resources[8].fare_classes[1].tau.off_peak"},
		{"fare class unknown field", func(m map[string]any) {
			res(m, 8)["fare_classes"].([]any)[0].(map[string]any)["discount"] = "1"
		}, "resources[8].fare_classes[0].discount"},
		{"rate periods missing", del(r(9), "rate_periods"), "resources[9].rate_periods"},
		{"rate period gap", func(m map[string]any) {
			rp := res(m, 9)["rate_periods"].([]any)
			res(m, 9)["rate_periods"] = rp[:4]
		}, "resources[9].rate_periods"},
		{"rate period bad time", func(m map[string]any) {
			res(m, 9)["rate_periods"].([]any)[1].(map[string]any)["from"] = "6am"
		}, "resources[9].rate_periods[1].from"},
		{"policy unknown", set(sub(0, "overbooking"), "policy", "yolo"), "resources[0].overbooking.policy"},
		{"denial unknown", set(sub(0, "overbooking"), "denial", "random"), "resources[0].overbooking.denial"},
		{"service level one", set(sub(0, "overbooking"), "service_level", 1), "resources[0].overbooking.service_level"},
		{"service level above one half", set(sub(0, "overbooking"), "service_level", 0.999999), "resources[0].overbooking.service_level"},
		{"service level string", set(sub(0, "overbooking"), "service_level", "0.01"), "resources[0].overbooking.service_level"},
		{"overbooking unknown field", set(sub(0, "overbooking"), "limit", 50), "resources[0].overbooking.limit"},
		{"method unknown", set(sub(1, "limits"), "method", "emsr-c"), "resources[1].limits.method"},
		{"limits unknown field", set(sub(1, "limits"), "alpha", 0.2), "resources[1].limits.alpha"},
		{"sell-up above one", set(sub(1, "limits"), "sell_up", map[string]any{"premium": 1.5}), "resources[1].limits.sell_up.premium"},
		{"sell-up negative", set(sub(1, "limits"), "sell_up", map[string]any{"premium": -0.1}), "resources[1].limits.sell_up.premium"},
		{"sell-up unknown class", set(sub(1, "limits"), "sell_up", map[string]any{"gold": 0.5}), "resources[1].limits.sell_up.gold"},
		{"sell-up not a number", set(sub(1, "limits"), "sell_up", map[string]any{"premium": "0.5"}), "resources[1].limits.sell_up"},
		{"protection unknown period", func(m map[string]any) {
			res(m, 1)["limits"].(map[string]any)["protection_levels"].(map[string]any)["holiday"] = []any{1, 2}
		}, "resources[1].limits.protection_levels.holiday"},
		{"protection wrong count", func(m map[string]any) {
			res(m, 1)["limits"].(map[string]any)["protection_levels"].(map[string]any)["peak"] = []any{1}
		}, "resources[1].limits.protection_levels.peak"},
		{"protection falling", func(m map[string]any) {
			res(m, 1)["limits"].(map[string]any)["protection_levels"].(map[string]any)["peak"] = []any{12, 5}
		}, "resources[1].limits.protection_levels.peak[1]"},
		{"protection negative", func(m map[string]any) {
			res(m, 1)["limits"].(map[string]any)["protection_levels"].(map[string]any)["peak"] = []any{-1, 5}
		}, "resources[1].limits.protection_levels.peak[0]"},
		{"protection beyond nodes", func(m map[string]any) {
			res(m, 1)["limits"].(map[string]any)["protection_levels"].(map[string]any)["peak"] = []any{12, 53}
		}, "resources[1].limits.protection_levels.peak[1]"},
		{"show rate zero", func(m map[string]any) {
			res(m, 1)["limits"].(map[string]any)["show_rates"].(map[string]any)["peak"] = 0
		}, "resources[1].limits.show_rates.peak"},
		{"show rate below the floor", func(m map[string]any) {
			res(m, 1)["limits"].(map[string]any)["show_rates"].(map[string]any)["peak"] = 0.3
		}, "resources[1].limits.show_rates.peak"},
		{"show rate above one", func(m map[string]any) {
			res(m, 1)["limits"].(map[string]any)["show_rates"].(map[string]any)["peak"] = 1.1
		}, "resources[1].limits.show_rates.peak"},
		{"show rate by class", func(m map[string]any) {
			res(m, 1)["limits"].(map[string]any)["show_rates"].(map[string]any)["premium"] = 0.9
		}, "resources[1].limits.show_rates.premium"},
		{"min history negative", set(sub(1, "limits"), "min_history", -1), "resources[1].limits.min_history"},
		{"runs rate zero", set(top, "runs", map[string]any{"max_per_hour": 0}), "runs.max_per_hour"},
		{"runs kept negative", set(top, "runs", map[string]any{"max_kept": -1}), "runs.max_kept"},
		{"runs retention too long", set(top, "runs", map[string]any{"retention_days": 100000}), "runs.retention_days"},
		{"runs unknown field", set(top, "runs", map[string]any{"max_per_day": 5}), "runs.max_per_day"},
		{"runs not an object", set(top, "runs", 5), "runs"},
		{"thesis method needs three classes", func(m map[string]any) {
			rc := res(m, 1)
			rc["limits"].(map[string]any)["method"] = "thesis"
			rc["fare_classes"] = rc["fare_classes"].([]any)[:2]
			rc["limits"].(map[string]any)["protection_levels"] = map[string]any{}
		}, "resources[1].limits.method"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeConfig(mutateDemo(t, tc.f))
			if err == nil {
				t.Fatal("accepted")
			}
			if slotfare.KindOf(err) != slotfare.Invalid {
				t.Errorf("kind %v, want Invalid: %v", slotfare.KindOf(err), err)
			}
			if got := slotfare.FieldOf(err); got != tc.field {
				t.Errorf("field %q, want %q (%v)", got, tc.field, err)
			}
		})
	}
}

func TestDecodeConfigMalformed(t *testing.T) {
	for _, tc := range []struct{ name, in, field string }{
		{"empty", ``, ""},
		{"not JSON", `nope`, ""},
		{"array", `[]`, ""},
		{"truncated", `{"currency":"GRD"`, ""},
		{"trailing", string(slotfare.DemoConfig) + `{}`, ""},
		{"null", `null`, "currency"},
		{"resource not object", `{"currency":"GRD","keys":[],"resources":[1]}`, "resources[0]"},
		{"resource null", strings.Replace(minimalConfig, `"resources":[{`, `"resources":[null,{`, 1), "resources[0].id"},
		// encoding/json takes the last of two keys and folds case; the
		// configuration is read exactly (issue 9, defect 10).
		{"duplicate top key", strings.Replace(minimalConfig, `{"currency":"EUR",`, `{"currency":"EUR","currency":"GRD",`, 1), "currency"},
		{"duplicate resource key", strings.Replace(minimalConfig, `"nodes":3`, `"nodes":3,"nodes":30`, 1), "resources[0].nodes"},
		{"duplicate tau key", strings.Replace(minimalConfig, `{"all":"1.5"}`, `{"all":"1.5","all":"9"}`, 1), "resources[0].fare_classes[0].tau.all"},
		{"case folded key", strings.Replace(minimalConfig, `"nodes":3`, `"Nodes":3`, 1), "resources[0].Nodes"},
		{"case folded top key", strings.Replace(minimalConfig, `{"currency":"EUR",`, `{"CURRENCY":"EUR",`, 1), "CURRENCY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeConfig([]byte(tc.in))
			if err == nil {
				t.Fatal("accepted")
			}
			if slotfare.KindOf(err) != slotfare.Invalid {
				t.Errorf("kind %v: %v", slotfare.KindOf(err), err)
			}
			if tc.field != "" && slotfare.FieldOf(err) != tc.field {
				t.Errorf("field %q, want %q (%v)", slotfare.FieldOf(err), tc.field, err)
			}
		})
	}
}

func FuzzDecodeConfig(f *testing.F) {
	f.Add(slotfare.DemoConfig)
	f.Add([]byte(minimalConfig))
	f.Add([]byte(`{"currency":"GRD","keys":[],"resources":[]}`))
	f.Add([]byte(strings.Replace(minimalConfig, `"nodes":3`, `"nodes":-3`, 1)))
	f.Add([]byte(strings.Replace(minimalConfig, `"UTC"`, `"America/New_York"`, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := DecodeConfig(data)
		if err != nil {
			if slotfare.KindOf(err) != slotfare.Invalid {
				t.Fatalf("error of kind %v: %v", slotfare.KindOf(err), err)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("accepted a config that does not validate: %v", err)
		}
		out, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeConfig(out); err != nil {
			t.Fatalf("accepted config does not re-decode: %v\n%s", err, out)
		}
	})
}

// TestConfigSeveralCurrencies: a resource may sell in another currency than
// the service's default; one that names none takes the default (issue 10:
// several currencies per deployment, invoices per currency).
func TestConfigSeveralCurrencies(t *testing.T) {
	cfg, err := DecodeConfig(mutateDemo(t, func(m map[string]any) {
		res(m, 4)["currency"] = "EUR"
		delete(res(m, 0), "currency")
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Resources[4].Currency; got != "EUR" {
		t.Errorf("resources[4].currency = %q, want EUR", got)
	}
	if got := cfg.Resources[0].Currency; got != cfg.Currency {
		t.Errorf("resources[0] names no currency: %q, want the service's %q", got, cfg.Currency)
	}
}

// TestValidateListsEveryFault: a configuration with several independent
// faults names all of them at once (issue 10), each with its path, and
// what depends on a bad field is not checked against it.
func TestValidateListsEveryFault(t *testing.T) {
	cfg, err := DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	rc := cfg.Resources[0]
	rc.Nodes = 0
	rc.Currency = "euro"
	rc.Tags = []string{"ok", "ok"}
	rc.SlotSeconds = 7
	cfg.Resources[0] = rc
	cfg.GraceSeconds = -1
	err = cfg.Validate()
	var got []string
	for _, f := range slotfare.FieldsOf(err) {
		got = append(got, f.Field)
	}
	want := "[grace_seconds resources[0].nodes resources[0].currency resources[0].slot_seconds resources[0].tags[1]]"
	if fmt.Sprint(got) != want || slotfare.KindOf(err) != slotfare.Invalid {
		t.Fatalf("fields %v (%v), want %s", got, err, want)
	}
}

// TestDecodeConfigWithoutKeys: a file may name no keys (left out, null or
// empty): its keys are then all made over the API.
func TestDecodeConfigWithoutKeys(t *testing.T) {
	for _, keys := range []string{``, `"keys":null,`, `"keys":[],`} {
		cfg, err := DecodeConfig([]byte(`{"currency":"GRD",` + keys + `"resources":[]}`))
		if err != nil || len(cfg.Keys) != 0 {
			t.Errorf("%q: keys %v, err %v", keys, cfg.Keys, err)
		}
	}
}

// Every booking control method is a value of limits.method, and sell_up
// is read by class name.
func TestDecodeLimitsMethods(t *testing.T) {
	for _, method := range []string{"emsr-a", "emsr-b", "emsr-b-mr", "bid-price", "thesis"} {
		cfg, err := DecodeConfig(mutateDemo(t, func(m map[string]any) {
			l := res(m, 1)["limits"].(map[string]any)
			l["method"], l["sell_up"] = method, map[string]any{"premium": 0.25}
		}))
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if l := cfg.Resources[1].Limits; string(l.Method) != method || l.SellUp["premium"] != 0.25 {
			t.Errorf("%s: method %s, sell-up %v", method, l.Method, l.SellUp)
		}
	}
}

// TestCancellationScheduleInTheFile: a fare class's schedule is read from
// the configuration file; one out of order or with a rate outside [0, 1]
// is refused naming the step's field (serve exits 2 on it).
func TestCancellationScheduleInTheFile(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(slotfare.DemoConfig, &doc); err != nil {
		t.Fatal(err)
	}
	budget := doc["resources"].([]any)[0].(map[string]any)["fare_classes"].([]any)[2].(map[string]any)
	for _, c := range []struct {
		sched []map[string]any
		field string
	}{
		{[]map[string]any{{"before_start_seconds": 86400, "penalty_rate": "0.1"}, {"before_start_seconds": 0, "penalty_rate": "0.5"}}, ""},
		{[]map[string]any{{"before_start_seconds": 0, "penalty_rate": "0.5"}, {"before_start_seconds": 3600, "penalty_rate": "0.1"}},
			"resources[0].fare_classes[2].cancellation[1].before_start_seconds"},
		{[]map[string]any{{"before_start_seconds": 0, "penalty_rate": "1.5"}}, "resources[0].fare_classes[2].cancellation[0].penalty_rate"},
	} {
		budget["cancellation"] = c.sched
		raw, _ := json.Marshal(doc)
		cfg, err := DecodeConfig(raw)
		if c.field == "" {
			if err != nil || len(cfg.Resources[0].FareClasses[2].Cancellation) != 2 {
				t.Fatalf("a good schedule: %v", err)
			}
			continue
		}
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != c.field {
			t.Errorf("%v: %v, want Invalid naming %s", c.sched, err, c.field)
		}
	}
}

// TestDecodeFareBounds: limits.fares takes two positive taus of at most two
// places, the lowest first; a fault names its field, and the bounds give a
// grid of 0.05 steps ending at max_tau.
func TestDecodeFareBounds(t *testing.T) {
	for _, c := range []struct {
		fares any
		field string
	}{
		{map[string]any{"min_tau": "1.25", "max_tau": "3.38"}, ""},
		{map[string]any{"min_tau": "1.25"}, "resources[1].limits.fares.max_tau"},
		{map[string]any{"min_tau": "0", "max_tau": "2"}, "resources[1].limits.fares.min_tau"},
		{map[string]any{"min_tau": "1.255", "max_tau": "2"}, "resources[1].limits.fares.min_tau"},
		{map[string]any{"min_tau": "2", "max_tau": "2"}, "resources[1].limits.fares.max_tau"},
		{map[string]any{"min_tau": "1", "max_tau": "abc"}, "resources[1].limits.fares.max_tau"},
		{map[string]any{"min_tau": "1", "max_tau": "2", "step": "0.1"}, "resources[1].limits.fares.step"},
	} {
		cfg, err := DecodeConfig(mutateDemo(t, func(m map[string]any) {
			res(m, 1)["limits"].(map[string]any)["fares"] = c.fares
		}))
		if c.field != "" {
			if slotfare.FieldOf(err) != c.field {
				t.Errorf("%v: %v, want an error naming %s", c.fares, err, c.field)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		f := cfg.Resources[1].Limits.Fares
		g := f.Grid()
		if f == nil || len(g) != 44 || !g[0].Equal(f.MinTau) || g[len(g)-1].String() != "3.38" || g[42].String() != "3.35" {
			t.Fatalf("fares %+v grid %v", f, g)
		}
	}
}
