// Package pricing says what a reservation costs: fare classes and the rate
// calendar (seed 004 Sec. 7.2, 7.6), the reservation price and its penalties
// and compensations (Eq. 7.10-7.12), nested booking limits by EMSR (Sec. 7.4,
// Alg. 10-11, 14) and the delay-based premium of seed 001. It is pure: no
// I/O, no clock; time and data come in as arguments.
package pricing
