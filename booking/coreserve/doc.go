// Package coreserve is the co-reservation broker: several resources
// reserved all or nothing, by the protocol of seed 003 (003_e4cb52323df53693.txt)
// Sec. 3.3 run above the booking service's public operations.
//
//	probe      each candidate resource answers reservation candidates
//	           (Sec. 3.1 "Probing phase", step 3 of Sec. 3.3): Service.Offers,
//	           at most Options.CandidatesPerResource each (a resource limits
//	           what it reveals, end of Sec. 3.3)
//	reserve    the broker picks a co-reservation candidate by policy and takes
//	           a preliminary reservation (a hold, Service.Hold) of every part
//	           (step 4-5); one failed part rolls every hold back (Service.Cancel)
//	           and the next candidate without the failed placement is tried
//	           (step 6b), at most Options.MaxAttempts times
//	commit     every part is prepared (Bookings.Prepare: its hold standing,
//	           within the limits in force) before any is committed, then every
//	           part is committed, or none when one cannot be (step 6a); a part
//	           committed before a sibling failed is unwound (Bookings.Unwind),
//	           all it was billed refunded: a co-reservation not kept costs
//	           nothing
//	timeout    a hold not committed in time is expired by its resource's own
//	           ticker (step 6c, Sec. 3.4); the co-reservation then expires whole
//
// Parts live on different resources, so there is no single atomic step
// across them, on the embedded store or on Redis: all or nothing comes from
// the protocol. The broker keeps one Record per co-reservation on its own
// port (Store: Memory here, booking/boltstore/coreservebolt in the data
// directory, or booking/redisstore.CoReservations shared by replicas),
// written with versions, and reaches the bookings only through the service's public
// methods (Bookings), so it works on whatever store the service runs on.
//
// Each unsettled record is filed in its store's due index under when it is
// next to be looked at (Record.DueAt): a held one when its first part's
// hold can lapse, a committing or cancelling one when its broker is
// presumed dead. Recover, run by the server's ticker, reads only what is
// due and claims it, so replicas ticking together do not settle the same
// record; reading a co-reservation settles it at once. A broker that dies
// mid-way leaves one of these, and Recover settles it:
//   - holds taken before the record was written: never named anywhere, they
//     expire at their timeout (Sec. 3.3 step 6c), as the seed's protocol does;
//   - a record "committing" (written durably before the first part commit):
//     rolled forward (the remaining holds committed) while every part is
//     still held or committed, else rolled back (committed parts unwound),
//     so no committed part outlives its siblings' failure;
//   - a record "cancelling": the remaining parts are cancelled;
//   - a record "held" whose part's hold lapsed: the siblings' holds are
//     cancelled and the co-reservation is expired as a whole, by the tick
//     at the hold's time. A part its owner cancelled on its own is met when
//     the co-reservation is read or, at the latest, at that time.
package coreserve
