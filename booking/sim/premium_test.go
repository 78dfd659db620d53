package sim_test

import (
	"os"
	"reflect"
	"testing"

	"slotfare/booking/sim"
	"slotfare/forecast/swf"
)

func sp2Log(t *testing.T) *swf.Log {
	t.Helper()
	f, err := os.Open(swf.TestTrace(t, "SDSC-SP2-1998-first4961.swf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, err := swf.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return log
}

// TestPremiumRisesWithLoadFallsWithAlpha: seed 001 Sec. 4, Fig. 3-4 on the
// SDSC SP2 trace: the premium a reservation pays rises with the load of the
// best-effort queue (40% of the jobs duplicated) and falls as alpha moves
// from the earliest start (0) to the cheapest (1), where it is zero; the
// wait moves the other way. Two runs with one seed give the same rows.
func TestPremiumRisesWithLoadFallsWithAlpha(t *testing.T) {
	o := sim.DefaultPremium
	o.Seed, o.Days, o.Loads, o.Alphas, o.MaxReservations = 1, 10, []int{0, 40}, []float64{0, 0.5, 1}, 40
	log := sp2Log(t)
	rows, err := sim.PremiumSweep(log, o, 2)
	if err != nil {
		t.Fatal(err)
	}
	at := map[[2]float64]sim.PremiumRow{}
	for _, r := range rows {
		t.Logf("%+v", r)
		at[[2]float64{float64(r.LoadPct), r.Alpha}] = r
		if r.Reservations == 0 {
			t.Fatalf("load +%d%%: no reservation priced", r.LoadPct)
		}
	}
	for _, load := range []float64{0, 40} {
		a0, a5, a1 := at[[2]float64{load, 0}], at[[2]float64{load, 0.5}], at[[2]float64{load, 1}]
		if !a1.MeanPremiumSU.IsZero() || a1.FreeShare != 1 {
			t.Errorf("load +%.0f%%, alpha 1: mean premium %s, free share %.4f: want 0 and 1", load, a1.MeanPremiumSU, a1.FreeShare)
		}
		if !(a0.MeanPremiumSU.GreaterThanOrEqual(a5.MeanPremiumSU) && a5.MeanPremiumSU.GreaterThanOrEqual(a1.MeanPremiumSU) && a0.MeanPremiumSU.GreaterThan(a1.MeanPremiumSU)) {
			t.Errorf("load +%.0f%%: premium %s, %s, %s at alpha 0, 0.5, 1: want falling", load, a0.MeanPremiumSU, a5.MeanPremiumSU, a1.MeanPremiumSU)
		}
		if !(a0.MeanWaitHours <= a5.MeanWaitHours && a5.MeanWaitHours <= a1.MeanWaitHours && a0.MeanWaitHours < a1.MeanWaitHours) {
			t.Errorf("load +%.0f%%: wait %.2f, %.2f, %.2f h at alpha 0, 0.5, 1: want rising", load, a0.MeanWaitHours, a5.MeanWaitHours, a1.MeanWaitHours)
		}
	}
	lo, hi := at[[2]float64{0, 0}], at[[2]float64{40, 0}]
	if !(hi.Utilisation > lo.Utilisation) {
		t.Errorf("utilisation %.4f at +0%%, %.4f at +40%%: want higher", lo.Utilisation, hi.Utilisation)
	}
	if !hi.MeanPremiumSU.GreaterThan(lo.MeanPremiumSU) {
		t.Errorf("alpha 0: mean premium %s SU at +0%%, %s at +40%%: want higher with the load", lo.MeanPremiumSU, hi.MeanPremiumSU)
	}
	if !(hi.RhoAtMostOneShare < lo.RhoAtMostOneShare) {
		t.Errorf("alpha 0: %.4f pay rho <= 1 at +0%%, %.4f at +40%%: want fewer with the load (Fig. 6)", lo.RhoAtMostOneShare, hi.RhoAtMostOneShare)
	}
	again, err := sim.PremiumSweep(log, o, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows, again) {
		t.Error("two runs with one seed differ")
	}
}
