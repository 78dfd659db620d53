// Package overbook decides how far beyond capacity a resource may sell
// (seed 004 Sec. 7.5: probability, risk and service-level policies) and, when
// more users show up than there are nodes, whom to deny (Alg. 15-17: Lottery,
// DCF, LC-DCF). It is pure: no I/O, no clock.
//
// How the booking service uses it, per resource and rate period:
//
//  1. forecast gives each class's mean demand and the show rate q for the
//     time left before the start;
//  2. WeightedPrice turns the classes' prices (and, the same way, their
//     denied costs) into the single p and cost_ds of Eq. 7.4;
//  3. Limit(policy, Params{...}) gives the overbooking limit ob with its
//     expected net revenue and service level; ExpectedNetRevenue and
//     ServiceLevelOf evaluate any other limit for the provider's dashboard;
//  4. pricing.AllocateOverbooked(method, C, ob, classes) turns ob into the
//     classes' nested booking limits (Alg. 14) — pricing does not import
//     this package, nor this one pricing: the service passes ob across;
//  5. at each start time, Deny(strategy, freeNodes, shows, opts) says which
//     bookings to deny and what each is owed; ParseDenialStrategy reads the
//     provider's setting ("lottery", "dcf", "lc-dcf").
//
// Show rates and probabilities are float64; prices, denied costs, expected
// net revenue and compensation are shopspring decimals.
package overbook
