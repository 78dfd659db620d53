package sim

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestWindowShare: a booking straddling an end of the window counts pro
// rata to its seconds inside, one wholly inside counts whole, one outside
// not at all.
func TestWindowShare(t *testing.T) {
	day := DefaultStart
	w := Window{Start: day, End: day.Add(24 * time.Hour)}
	at := func(h float64) time.Time { return day.Add(time.Duration(h * float64(time.Hour))) }
	hundred := decimal.NewFromInt(100)
	for _, tt := range []struct {
		name       string
		start, end float64
		want       string
		seconds    int64
	}{
		{"inside", 2, 5, "100", 3 * 3600},
		{"straddles the end", 23, 25, "50", 3600},
		{"straddles the start", -1, 3, "75", 3 * 3600},
		{"after", 24, 30, "0", 0},
		{"before", -5, 0, "0", 0},
		{"covers the window", -12, 36, "50", 24 * 3600},
	} {
		got := w.share(hundred, at(tt.start), at(tt.end))
		if !got.Equal(decimal.RequireFromString(tt.want)) {
			t.Errorf("%s: share %s of 100, want %s", tt.name, got, tt.want)
		}
		if s := w.inWindow(at(tt.start), at(tt.end)); s != tt.seconds {
			t.Errorf("%s: %d s inside, want %d", tt.name, s, tt.seconds)
		}
	}
}

// TestSeparated: the charts' money axes put a comma every three digits.
func TestSeparated(t *testing.T) {
	for n, want := range map[int64]string{999: "999", 1000: "1,000", 12000: "12,000", 1234567: "1,234,567", -12000: "-12,000", -999: "-999"} {
		if got := separated(n); got != want {
			t.Errorf("separated(%d) = %q, want %q", n, got, want)
		}
	}
}
