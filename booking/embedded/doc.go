// Package embedded is the default deployment's implementation of the
// booking ports (inventory, records, idem, catalog, lease): durable in the process's
// own data directory, through a booking.Store (bbolt, the append-only log,
// or memstore in tests and the simulator).
//
// The store decides nothing and keeps no versions, so the decisions live
// here, in memory: Open loads the store's State once and builds the indexes
// every read answers from; each mutation is checked against them, written
// to the store as one Batch, and applied to memory only once the store has
// acknowledged it. When the store refuses a write, memory is as it was and
// the caller gets the store's error.
//
// This is sound because one process owns the data: the stores flock their
// directory (booking/dirlock), and memstore refuses a second open. Versions
// (booking records, catalog documents, the catalog's own) therefore need to
// be consistent only within the process that assigned them: on Open every
// loaded booking record and every configuration is at version 1, and each
// change adds one. A second Open on the same store in one process would
// keep its own memory and must not be made.
//
// Writes on different bookings do not wait for each other: no lock is held
// while the store syncs, so concurrent Applies share its group commits. An
// Apply reserves what it writes (its bookings, posting ids and write id)
// from its checks until the store answers; a concurrent Apply touching any
// of them waits for that answer and then checks against the result.
//
// The inventory lives in memory only: a resource laid out (Ensure) holds
// its live bookings from the records, so it agrees with them on every
// start. Records' guarded steps (AdmitApply, WithinApply, ReplaceApply)
// change the inventory and the records as one step, as Redis's do; a
// hold's step claims and finishes its Idempotency-Key in Idem too.
package embedded
