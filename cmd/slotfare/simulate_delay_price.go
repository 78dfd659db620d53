package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"time"

	"slotfare/booking/sim"
	"slotfare/forecast/swf"
)

// runDelayPriceExperiment is `simulate --experiment delay-price` (alias
// premium): seed 001 Sec. 4 (the delay-based premium against alpha and the
// load, Fig. 3-4 and 6) on the trace with sim.DefaultPremium. It prints the
// table and adds delay_price.csv and the charts to files.
func runDelayPriceExperiment(log *swf.Log, traceName string, seed uint64, workers int, stdout io.Writer, files map[string][]byte) ([]sim.PremiumRow, error) {
	o := sim.DefaultPremium
	o.Seed = seed
	t0 := time.Now()
	rows, err := sim.PremiumSweep(log, o, workers)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "delay-price: delay-based reservation premium against alpha and load (seed 001 Sec. 4, Fig. 3-4, 6), %s, first %d days, %s backfilling, %.0f%% reservations, seed %d, %.1f s\n",
		traceName, o.Days, o.Policy, 100*o.ReservationShare, seed, time.Since(t0).Seconds())
	if err := sim.WritePremiumTable(stdout, rows); err != nil {
		return nil, err
	}
	fmt.Fprintln(stdout)
	var b bytes.Buffer
	if err := sim.WritePremiumCSV(&b, rows); err != nil {
		return nil, err
	}
	files["delay_price.csv"] = b.Bytes()
	charts, err := sim.PremiumCharts(o, rows)
	if err != nil {
		return nil, err
	}
	maps.Copy(files, charts)
	return rows, nil
}
