package forecast

import (
	"testing"

	"slotfare/pricing"
)

func TestDemoShowRate(t *testing.T) {
	for period, want := range map[string]float64{pricing.PeriodPeak: 0.95, pricing.PeriodOffPeak: 0.90, pricing.PeriodSuperSaver: 0.85} {
		if got, ok := DemoShowRate(period); !ok || got != want {
			t.Errorf("DemoShowRate(%s) = %v, %v; want %v", period, got, ok, want)
		}
	}
	if _, ok := DemoShowRate("holiday"); ok {
		t.Error("DemoShowRate knows a period the demo does not have")
	}
}
