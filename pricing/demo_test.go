package pricing

import (
	"testing"
	"time"

	"slotfare/forecast"
)

// TestDemoPeriodsHaveShowRates: every demo period has the thesis's default
// show rate in forecast (seed 004 Sec. 7.7.1), under the same name.
func TestDemoPeriodsHaveShowRates(t *testing.T) {
	cal, err := NewRateCalendar(time.UTC, DemoRatePeriods())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cal.PeriodNames() {
		if q, ok := forecast.DemoShowRate(p); !ok || q <= 0 || q > 1 {
			t.Errorf("no demo show rate for period %q (%v, %v)", p, q, ok)
		}
	}
}
