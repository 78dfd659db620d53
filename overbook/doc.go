// Package overbook decides how far beyond capacity a resource may sell
// (seed 004 Sec. 7.5: probability, risk and service-level policies) and, when
// more users show up than there are nodes, whom to deny (Alg. 15-17: Lottery,
// DCF, LC-DCF). It is pure: no I/O, no clock.
package overbook
