package forecast

import "testing"

// The names are pricing's demo periods; pricing's tests check they agree
// (forecast does not import pricing, so that pricing may import forecast).
func TestDemoShowRate(t *testing.T) {
	for period, want := range map[string]float64{"peak": 0.95, "off_peak": 0.90, "super_saver": 0.85} {
		if got, ok := DemoShowRate(period); !ok || got != want {
			t.Errorf("DemoShowRate(%s) = %v, %v; want %v", period, got, ok, want)
		}
	}
	if _, ok := DemoShowRate("holiday"); ok {
		t.Error("DemoShowRate knows a period the demo does not have")
	}
}
