// Package ledger is slotfare's append-only, double-entry book of decimal
// amounts: charges, penalties, refunds and compensations, and the invoices
// billing systems pull from it.
package ledger
