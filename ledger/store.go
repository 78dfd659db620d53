package ledger

import "context"

// Store is where postings outlive the process. The service's embedded
// (bbolt) and Redis adapters implement it; FileStore is a plain-file one.
// Contract:
//   - AppendPostings is atomic and durable: when it returns nil every
//     posting of the batch survives a crash; when it fails (or the process
//     dies during it) none of them is ever loaded.
//   - LoadPostings calls fn for every stored posting in the order they were
//     appended (batches in the order their AppendPostings calls returned,
//     postings within a batch in slice order), stops at fn's first error
//     and returns it. The ledger replays bookings in that order.
//   - Postings are stored as EncodePosting's bytes (or anything that
//     decodes back to equal postings).
//
// A store never decides anything: the ledger has validated, rounded and
// de-duplicated every posting it hands over.
type Store interface {
	AppendPostings(ctx context.Context, ps []Posting) error
	LoadPostings(ctx context.Context, fn func(Posting) error) error
}
