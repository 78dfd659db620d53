// Package forecast estimates what the revenue engine needs to know about the
// future from the past: demand per class and period, show rates by time before
// start (seed 004 Sec. 7.3, 7.5) and job durations (seed 002 Sec. 4.3). It is
// pure: history and time come in as arguments.
//
// What the service calls:
//
//   - Booking limits: ForecastDemand(history, now, cfg) with one
//     DemandObservation per (resource, class, period instance) that has
//     started: the nodes booked, and Closed when the class closed first. Each
//     DemandForecast gives Mean and SD for EMSR-a/b and CDF for Alg. 10.
//     Closed observations are unconstrained by EM before smoothing.
//   - Overbooking: ShowRates(records, now) with one BookingRecord per booking
//     of the resource (Key = resource and the period of its start); for a
//     period instance starting at s, q = curve.Q(s.Sub(now)). Until
//     curve.Observed(), use the configured default show rate (DemoShowRate
//     for the demo periods).
//   - Reservation lengths: NewDurationPredictor(runs, samples, window), then
//     TCT(host, app, now) or ETTS(host, app, bytes, start, now); fall back on
//     the user's own estimate when they report no history.
package forecast
