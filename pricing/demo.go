package pricing

import "github.com/shopspring/decimal"

// The rate-period names of the demo configuration (seed 004 Table 7.6).
const (
	PeriodPeak       = "peak"
	PeriodOffPeak    = "off_peak"
	PeriodSuperSaver = "super_saver"
)

// The fare-class names of the demo configuration (seed 004 Tables 7.1, 7.9).
const (
	ClassPremium  = "premium"
	ClassBusiness = "business"
	ClassBudget   = "budget"
)

// DemoRatePeriods is seed 004 Table 7.6 as rate periods: on weekdays super
// saver 00:00-06:00, peak 06:00-18:00, off-peak 18:00-24:00; on weekends
// off-peak 06:00-18:00 and super saver 18:00-06:00, read as the evening and
// the early morning of the same weekend day (see RatePeriod). The five rows
// cover the week exactly once. Its JSON form is
// pricing/testdata/demo_rate_periods.json.
func DemoRatePeriods() []RatePeriod {
	return []RatePeriod{
		{Name: PeriodSuperSaver, Days: Weekdays, From: Clock(0, 0), To: Clock(6, 0)},
		{Name: PeriodPeak, Days: Weekdays, From: Clock(6, 0), To: Clock(18, 0)},
		{Name: PeriodOffPeak, Days: Weekdays, From: Clock(18, 0), To: EndOfDay},
		{Name: PeriodSuperSaver, Days: Weekends, From: Clock(18, 0), To: Clock(6, 0)},
		{Name: PeriodOffPeak, Days: Weekends, From: Clock(6, 0), To: Clock(18, 0)},
	}
}

// DemoFareClasses is the thesis's three classes: taus of seed 004 Table 7.6
// as printed (tau_1 and tau_2 are tau_3 plus 50% and 25%, rounded to two
// decimals half away from zero: 1.5 x 1.75 = 2.625 is printed 2.63), penalty
// rates and denied-cost factors of Table 7.9 (premium 0% and tau_ds = 5 tau_1,
// business 10% and 4 tau_2, budget 25% and 3 tau_3). Table 7.1 restricts
// business and budget to the resource's own VO: they get vo, premium is open
// (pass vo "" to open all three). Its JSON form, with vo "1" (RAL's VO in
// Table 7.7), is pricing/testdata/demo_fare_classes.json.
func DemoFareClasses(vo VO) []FareClass {
	tau := func(superSaver, peak, offPeak string) map[string]decimal.Decimal {
		return map[string]decimal.Decimal{
			PeriodSuperSaver: decimal.RequireFromString(superSaver),
			PeriodPeak:       decimal.RequireFromString(peak),
			PeriodOffPeak:    decimal.RequireFromString(offPeak),
		}
	}
	return []FareClass{
		{Name: ClassPremium, Rank: 1, Tau: tau("1.88", "3.38", "2.63"),
			PenaltyRate: decimal.Zero, DeniedCostFactor: decimal.NewFromInt(5)},
		{Name: ClassBusiness, Rank: 2, Tau: tau("1.56", "2.81", "2.19"),
			PenaltyRate: decimal.RequireFromString("0.10"), DeniedCostFactor: decimal.NewFromInt(4), VO: vo},
		{Name: ClassBudget, Rank: 3, Tau: tau("1.25", "2.25", "1.75"),
			PenaltyRate: decimal.RequireFromString("0.25"), DeniedCostFactor: decimal.NewFromInt(3), VO: vo},
	}
}
