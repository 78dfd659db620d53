// Package service is the booking service: it ties the core's life cycle
// (package booking), booking control, configuration, calendar, pricing,
// overbook and the ledger together behind one clock.
//
// Service keeps everything in memory and writes through to a Store (the
// embedded boltstore): a change is acknowledged only once its batch — the
// booking's new record with the ledger postings it causes — is durable, except a new hold, which is queued before the commit
// that follows it (Batch.NoWait) and carries no money. Concurrent writes
// share one sync (group commit).
//
// Per resource it keeps one calendar per nested class group (Sec. 7.4):
// group j holds the bookings of classes ranked j and below, with capacity
// b_j, booking control's nested limit for the rate period in force (b_1 is
// the overbooking limit of the resource's policy, Sec. 7.5). A booking of
// class k must fit in groups 1..k, so no instant ever holds more than the
// limits allow. A closed class is offered at the next higher open class the
// user may buy.
//
// The life cycle is the core's state machine (package booking).
//
// Tick moves bookings on at a given time (serve calls it every second);
// every other method reads the service's clock (Options.Now).
//
// Locks: an entry's mutex serialises the changes of one booking and is held
// across its store write; a resource's mutex guards its calendars, booking
// control and configuration and is held across a store write on the
// booking paths only by a modification, whose move on the inventory and
// write are one step; the service's mutex guards its maps. Order: entry,
// resource, service.
package service
