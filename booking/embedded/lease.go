package embedded

import "slotfare/booking/lease"

// Lease is the ticker's lease in the embedded deployment: the in-process
// table (lease.Memory). The data directory is flock'ed to one process
// (booking/dirlock), so only that process can ever hold a resource's
// lease, and nothing about a lease needs to outlive it: after a restart
// every lease is free and the new process takes them with fresh tokens.
type Lease = lease.Memory

// NewLease returns an empty lease table.
func NewLease() *Lease { return lease.NewMemory() }
