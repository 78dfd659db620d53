// Package booking is the reservation life cycle (seed 004 Sec. 3.3.1), booking
// control and the service that ties calendar, pricing, overbook and ledger
// together behind one clock.
package booking
