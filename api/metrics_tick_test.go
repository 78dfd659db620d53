package api

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestTickErrorsCounted is the /metrics half of issue 9 #14: the tick's
// per-booking failures are counted by resource, with a bounded label.
func TestTickErrorsCounted(t *testing.T) {
	m := NewMetrics()
	m.TickError("RAL")
	m.TickError("RAL")
	for i := range MaxTickErrorResources + 50 {
		m.TickError(fmt.Sprintf("R%d", i))
	}
	rec := httptest.NewRecorder()
	m.handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	if !strings.Contains(body, `slotfare_tick_errors_total{resource="RAL"} 2`) {
		t.Errorf("no count of 2 for RAL in:\n%s", grepLines(body, "slotfare_tick_errors_total"))
	}
	if !strings.Contains(body, `slotfare_tick_errors_total{resource="_other"} 51`) {
		t.Errorf("the resources past the bound are not counted under _other:\n%s", grepLines(body, "_other"))
	}
	if n := strings.Count(body, "slotfare_tick_errors_total{"); n != MaxTickErrorResources+1 {
		t.Errorf("%d series, want %d", n, MaxTickErrorResources+1)
	}
}

// TestControlErrorsCounted: booking control's failures are counted by
// resource on /metrics.
func TestControlErrorsCounted(t *testing.T) {
	m := NewMetrics()
	m.ControlError("Bologna")
	rec := httptest.NewRecorder()
	m.handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if body := rec.Body.String(); !strings.Contains(body, `slotfare_control_errors_total{resource="Bologna"} 1`) {
		t.Errorf("no count for Bologna in:\n%s", grepLines(body, "slotfare_control_errors_total"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
