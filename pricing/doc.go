// Package pricing says what a reservation costs: fare classes and the rate
// calendar (seed 004 Sec. 7.2, 7.6), the reservation price and its penalties
// and compensations (Eq. 7.10-7.12), nested booking limits by EMSR (Sec. 7.4,
// Alg. 10-11, 14) and the delay-based premium of seed 001. It is pure: no
// I/O, no clock; time and data come in as arguments.
//
// Money is shopspring/decimal at full precision; a resource's base cost is
// money per node-second. Rounding happens once, with RoundMoney (half-even),
// when an amount is posted or shown.
//
// What the service calls, step by step:
//
//   - PUT .../rate-periods: DecodeRatePeriods(body), then
//     NewRateCalendar(loc, periods) with loc from the resource's time_zone;
//     then ValidateFareClasses(current classes, cal.PeriodNames()) so the
//     classes still fit the new names.
//   - PUT .../fare-classes: DecodeFareClasses(body), then
//     ValidateFareClasses(classes, cal.PeriodNames()).
//   - Demo configuration: DemoRatePeriods() and DemoFareClasses(vo) (seed 004
//     Tables 7.6, 7.9 and 7.1); their JSON is in testdata/demo_*.json.
//   - Who may buy a class: FareClass.Admits(user's VO).
//   - An offer or a commit: PriceReservation(cal, class, baseCost, nodes,
//     start, end); show and charge ReservationPrice.Rounded(places); invoice
//     lines from Pieces, rounded with RoundedPieces so they add up.
//   - Cancel or no-show of a committed booking: SettleCancellation(class,
//     charged, places) gives the penalty kept and the refund.
//   - Denial at an overbooked start: DeniedServiceCost(class, price) is the
//     compensation owed, and the denied cost the denial strategies sort by.
//   - Period instances for booking limits, forecasts and show rates:
//     cal.Split(from, to) over the horizon (one piece per instance) and
//     cal.PeriodAt(t); the fares EMSR takes in a period:
//     FaresInPeriod(classes, period), highest class first.
package pricing
