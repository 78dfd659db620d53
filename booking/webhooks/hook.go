// Package webhooks pushes the event log (booking/events) to the URLs
// providers and billing systems register, signed per Standard Webhooks:
// at least once, in the log's order, each endpoint retried with
// exponential backoff while it fails and disabled, with a webhook.disabled
// event, once it has failed for a day. An endpoint's progress (the cursor
// of the last event it acknowledged) is stored after each acknowledged
// delivery, so a process killed mid-delivery sends that event again on
// restart, under the same webhook-id; only the holder of the "webhooks"
// lease delivers, so each event is sent by one replica.
package webhooks

import (
	"context"
	"time"

	"slotfare/booking"
)

// Hook is a registered endpoint with its delivery state.
type Hook struct {
	ID        string       `json:"webhook_id"`
	URL       string       `json:"url"`
	Types     []string     `json:"event_types"`
	Account   string       `json:"account_id"`
	Role      booking.Role `json:"role"`
	Secret    string       `json:"secret"`
	CreatedAt time.Time    `json:"created_at"`
	// Cursor is the event log's next_cursor after the last event the
	// endpoint acknowledged ("" before the first).
	Cursor string `json:"cursor"`
	// FailingSince is when the first failure of the current run of
	// failures was; NextAttempt when to try again; Attempts how many
	// failed in a row.
	FailingSince *time.Time `json:"failing_since,omitempty"`
	NextAttempt  time.Time  `json:"next_attempt"`
	Attempts     int        `json:"attempts"`
	LastError    string     `json:"last_error,omitempty"`
	DisabledAt   *time.Time `json:"disabled_at,omitempty"`
}

// Port keeps the hooks where every replica reads them.
type Port interface {
	// Create stores a new hook.
	Create(ctx context.Context, h Hook) error
	// Save replaces a hook's record if it is still stored (a hook deleted
	// meanwhile stays deleted): ok is false then.
	Save(ctx context.Context, h Hook) (ok bool, err error)
	// List is every stored hook, in id order.
	List(ctx context.Context) ([]Hook, error)
	// Delete removes hook id; found is false when there was none.
	Delete(ctx context.Context, id string) (found bool, err error)
	Close() error
}
