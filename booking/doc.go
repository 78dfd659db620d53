// Package booking is the core of the reservation life cycle (seed 004 Sec.
// 3.3.1): the types the API and the stores share (Booking, Offer, Price,
// Principal, the requests), the statuses and the state machine
// (CanTransition), and the ports the service's state sits behind (Store,
// with the records it keeps). It decides nothing and imports neither
// pricing nor overbook, so a store that imports it stays small.
//
// The packages below it do the work, each testable on its own:
//
//	booking/service    the service: life cycle, tick, offers, billing, provider operations
//	booking/offersign  offer ids (HMAC-signed claims)
//	booking/inventory  admission over the nested class groups (the port)
//	booking/boltstore, memstore, redisstore  the stores
//	booking/logconvert  moves an old log store's directory into bbolt
//
// Life cycle (only these transitions; anything else is a Conflict):
//
//	held ──commit──► committed ──start, checked in──► active ──end──► completed
//	  │                 │  │  └─start + grace, no check-in──► no_show (penalty)
//	  │                 │  └─start, shows exceed nodes──► denied (refund + compensation)
//	  │                 └─cancel before start──► cancelled (penalty, refund)
//	  ├─hold timeout (Tick)──► expired          active ──Terminate──► terminated
//	  ├─cancel──► cancelled
//	  └─no longer fits lowered limits (at commit)──► rejected
package booking
