package config

import (
	"slotfare"
	"slotfare/overbook"
)

// Hold limits. A hold is free and sets capacity aside until it expires, so
// without a bound one account could hold a whole resource over the whole
// horizon and renew it every hold_seconds (issue 9, #9). Each resource
// bounds what one account may hold on it at once: how many holds, and how
// many node-seconds ((end - start) x nodes, summed). The service enforces
// them (booking/service/holdlimits.go); this is their configuration.

const (
	// MinShowRate bounds the show rate booking control plans with from below
	// (overbook.MinShowRate, the lowest plausible show rate): however many
	// users fail to show, a resource never sells more than twice its nodes
	// (overbook.LimitCeiling), which keeps a burst of no-shows from turning
	// into a burst of denials.
	MinShowRate = overbook.MinShowRate
	// DefaultMaxHolds is how many holds one account may have on a resource
	// at once unless the resource says otherwise. Brokers and load
	// generators (`slotfare bench api`) keep many small holds in flight;
	// the node-seconds limit, not this one, is what bounds the capacity an
	// account can block.
	DefaultMaxHolds = 100
	// DefaultHeldSecondsPerNode sizes the default node-seconds limit: an
	// account may hold nodes x 24 hours on a resource at once, the whole
	// resource for one day. Any job of up to a day can still be held even
	// on every node (a day is the usual longest wall time of a batch
	// system), while free holds of one account can block at most one day in
	// the 90 of the default book-ahead horizon; longer or wider bookings are
	// for providers to allow explicitly.
	DefaultHeldSecondsPerNode = 24 * 3600
	// maxMaxHolds bounds max_holds (a typo guard, like the other bounds).
	maxMaxHolds = 1_000_000
	// maxHeldNodeSeconds bounds max_held_node_seconds: the most nodes over
	// the longest horizon, far from overflowing an int64.
	maxHeldNodeSeconds = int64(MaxNodes) * maxBookAheadSeconds
)

// HoldLimits bound what one account may hold on a resource at once (the
// "hold_limits" object of a resource's configuration and of PUT and GET
// /v1/resources/{id}). Zero means the default: DefaultMaxHolds holds and
// nodes x DefaultHeldSecondsPerNode node-seconds. GET shows the limits in
// force, never zero.
type HoldLimits struct {
	// MaxHolds is how many holds one account may have at once.
	MaxHolds int `json:"max_holds,omitempty"`
	// MaxHeldNodeSeconds is how many node-seconds one account's holds may
	// add up to at once.
	MaxHeldNodeSeconds int64 `json:"max_held_node_seconds,omitempty"`
}

// Effective is l with every default filled in for a resource of nodes.
func (l HoldLimits) Effective(nodes int) HoldLimits {
	if l.MaxHolds == 0 {
		l.MaxHolds = DefaultMaxHolds
	}
	if l.MaxHeldNodeSeconds == 0 {
		l.MaxHeldNodeSeconds = int64(nodes) * DefaultHeldSecondsPerNode
	}
	return l
}

// validate checks the limits as kept (zero = default); at prefixes the
// field names.
func (l HoldLimits) validate(op slotfare.Op, at func(string) string) error {
	if l.MaxHolds < 0 || l.MaxHolds > maxMaxHolds {
		return slotfare.Errorf(op, at("hold_limits.max_holds"), "must be between 1 and %d (leave it out for the default %d), got %d", maxMaxHolds, DefaultMaxHolds, l.MaxHolds)
	}
	if l.MaxHeldNodeSeconds < 0 || l.MaxHeldNodeSeconds > maxHeldNodeSeconds {
		return slotfare.Errorf(op, at("hold_limits.max_held_node_seconds"), "must be between 1 and %d (leave it out for the default of nodes x %d), got %d", maxHeldNodeSeconds, DefaultHeldSecondsPerNode, l.MaxHeldNodeSeconds)
	}
	return nil
}
