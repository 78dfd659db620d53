package pricing

import (
	"testing"
	"time"
)

func TestParseDays(t *testing.T) {
	tests := []struct {
		in      string
		want    Days
		text    string
		wantErr bool
	}{
		{in: "weekdays", want: Weekdays, text: "weekdays"},
		{in: "weekends", want: Weekends, text: "weekends"},
		{in: "all", want: AllDays, text: "all"},
		{in: "Weekdays,weekends", want: AllDays, text: "all"},
		{in: "mon", want: 1 << time.Monday, text: "mon"},
		{in: "Saturday", want: 1 << time.Saturday, text: "sat"},
		{in: "sun,mon,fri", want: 1<<time.Sunday | 1<<time.Monday | 1<<time.Friday, text: "mon,fri,sun"},
		{in: "weekdays, sat", want: Weekdays | 1<<time.Saturday, text: "mon,tue,wed,thu,fri,sat"},
		{in: "", wantErr: true},
		{in: "weekday", wantErr: true},
		{in: "mon,", wantErr: true},
		{in: "holidays", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseDays(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseDays(%q) = %v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseDays(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			continue
		}
		if got.String() != tt.text {
			t.Errorf("ParseDays(%q).String() = %q, want %q", tt.in, got.String(), tt.text)
		}
		back, err := ParseDays(got.String())
		if err != nil || back != got {
			t.Errorf("round trip of %q: %v, %v", got.String(), back, err)
		}
	}
}

func TestDaysHas(t *testing.T) {
	for w := time.Sunday; w <= time.Saturday; w++ {
		weekend := w == time.Saturday || w == time.Sunday
		if Weekdays.Has(w) == weekend || Weekends.Has(w) != weekend || !AllDays.Has(w) {
			t.Errorf("%s: weekdays %v weekends %v all %v", w, Weekdays.Has(w), Weekends.Has(w), AllDays.Has(w))
		}
	}
	if AllDays.Has(time.Weekday(7)) || AllDays.Has(time.Weekday(-1)) {
		t.Error("a weekday outside 0..6 is in the set")
	}
}

func TestParseClockTime(t *testing.T) {
	tests := []struct {
		in   string
		want ClockTime
		ok   bool
	}{
		{"00:00", 0, true},
		{"06:00", 360, true},
		{"18:30", 1110, true},
		{"23:59", 1439, true},
		{"24:00", EndOfDay, true},
		{"24:01", 0, false},
		{"25:00", 0, false},
		{"12:60", 0, false},
		{"6:00", 0, false},
		{"06:0", 0, false},
		{"06-00", 0, false},
		{"ab:cd", 0, false},
		{"", 0, false},
		{"006:00", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseClockTime(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseClockTime(%q) = %v, %v; want %v ok=%v", tt.in, int(got), err, int(tt.want), tt.ok)
		}
		if tt.ok && got.String() != tt.in {
			t.Errorf("ClockTime(%d).String() = %q, want %q", int(got), got.String(), tt.in)
		}
	}
}
