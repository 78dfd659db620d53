package forecast

// DemoShowRate is the show rate q of the thesis's evaluation for a demo rate
// period, one minus its no-show probability q_ns of 0.05 (peak), 0.10
// (off-peak) and 0.15 (super saver) (seed 004 Sec. 7.7.1): the default the
// service uses until a period has booking history. Period names are those of
// pricing's demo calendar.
func DemoShowRate(period string) (float64, bool) {
	switch period {
	case "peak":
		return 0.95, true
	case "off_peak":
		return 0.90, true
	case "super_saver":
		return 0.85, true
	}
	return 0, false
}
