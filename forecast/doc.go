// Package forecast estimates what the revenue engine needs to know about the
// future from the past: demand per class and period, show rates by time before
// start (seed 004 Sec. 7.3, 7.5) and job durations (seed 002 Sec. 4.3). It is
// pure: history and time come in as arguments.
package forecast
