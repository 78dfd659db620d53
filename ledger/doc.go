// Package ledger is slotfare's append-only, double-entry book of decimal
// amounts: charges, penalties, refunds and compensations, and the invoices
// billing systems pull from it.
//
// # Chart of accounts
//
// An account is a role held by an owner, written "role:owner"
// (AccountID). Customers are the API's account_id; provider accounts are
// kept per resource (the API's resource_id), as the thesis reports revenue
// per resource (seed 004, Tables 7.11-7.12).
//
//	receivable:<customer>            asset    what the customer owes
//	revenue:<resource>               income   service revenue (charges, price rises)
//	penalty_revenue:<resource>       income   cancellation and no-show penalties
//	refunds:<resource>               contra-income  charges credited back
//	compensation_expense:<resource>  expense  denied-service compensation
//
// # Entries of each event (debit / credit)
//
//	charge (commit)            receivable:c      / revenue:r            price
//	adjustment, price up       receivable:c      / revenue:r            new - billed
//	adjustment, price down     refunds:r         / receivable:c         billed - new
//	cancellation or no-show    refunds:r         / receivable:c         billed (refund posting)
//	                           receivable:c      / penalty_revenue:r    rate x billed (penalty posting)
//	denial                     refunds:r         / receivable:c         billed (refund posting)
//	                           compensation_expense:r / receivable:c    cost_ds (compensation posting)
//	compensation (goodwill)    compensation_expense:r / receivable:c    amount
//
// A cancellation does not edit or partly reverse the charge: like a credit
// note, it credits the customer everything billed for the booking and bills
// the penalty anew, in two postings appended together. The customer's net
// credit is Settlement.Refund = billed - penalty, which is what the API
// reports as the cancellation's refund; on the invoice it reads as a refund
// line of -billed and a penalty line of +penalty. Revenue is never debited,
// so gross sales, refunds and penalties each stay visible; net service
// revenue is revenue minus refunds.
//
// # Invariants
//
// Every posting is checked when prepared (and again when replayed):
//   - it balances: debits equal credits, exactly before rounding and
//     still after (a posting has one currency);
//   - amounts are rounded once, when posted, to the currency's scale
//     (CurrencyRule: half-even and scale 2 unless configured; ISO 4217
//     scales for JPY, KWD and the like; the demo's GRD has scale 2), and the
//     rounding of a side's lines is allocated so the sides still agree;
//   - it has its kind's shape (every debit on one role, every credit on
//     another, as in the table above), touches only its own customer's
//     receivable, and so has one customer-facing amount;
//   - against its booking: one charge; re-pricing only before settlement;
//     one refund, crediting exactly what was billed; at most one penalty,
//     no larger than the amount billed (refund and penalty come in one
//     batch, and either settles the booking);
//   - ids are unique: the same id with the same content is a no-op that
//     returns the stored posting, with other content a Conflict.
//
// There is no way to change or remove a posting; corrections are new
// postings.
//
// # Persistence and crash consistency
//
// A ledger lives in memory; the postings outlive it in the caller's store,
// beside the bookings they belong to. A write is Prepare (check, round,
// reserve ids and bookings), persist Pending.ToPersist (in the caller's own
// transaction, with the booking it belongs to), then Pending.Commit (make
// visible) or Pending.Abort. So memory never shows a posting the store
// lacks. A decision about a booking's money is taken on a ledger rebuilt by
// Replay from the booking's stored postings, which re-runs every check in
// stored order. Reservations keep a booking's batches strictly one after
// the other, so the stored order is always an order the checks accept, and
// Commit cannot fail.
//
// # Reading
//
// Entries lists an account's postings in (time, id) order with an opaque
// keyset cursor; Balance gives an account's balance per currency; Invoices
// groups a customer's postings by UTC calendar month and currency.
package ledger
