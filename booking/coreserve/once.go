package coreserve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"slotfare"
	"slotfare/booking"
)

// IdempotencyField names the Idempotency-Key in the errors of ReserveOnce,
// as the API's header.
const IdempotencyField = "Idempotency-Key"

// onceID is the id of the co-reservation made by account with key: the
// same on every replica, so the store's version check (Put over version 0)
// lets one request with a key store its co-reservation, however many
// replicas it reached at once.
func onceID(account, key string) string {
	h := sha256.Sum256([]byte("co-reservation\x00" + account + "\x00" + key))
	return "co_" + hex.EncodeToString(h[:12])
}

// ReserveOnce is Reserve with an Idempotency-Key (a broker retrying after a
// timeout): the first request with the key makes the co-reservation; a
// retry with the same fingerprint answers it as it is now (replayed true),
// a retry with another fingerprint is a Conflict naming the key. Two
// requests with the key at once, on one replica or several, may both take
// holds, but only one stores its co-reservation: the other cancels its
// holds and answers the winner's. A request that failed stored nothing, so
// its retry runs anew.
func (b *Broker) ReserveOnce(ctx context.Context, p booking.Principal, req Request, key booking.Idempotency) (View, bool, error) {
	const op slotfare.Op = "coreserve.Reserve"
	if key.Key == "" || key.Fingerprint == "" {
		return View{}, false, slotfare.E(op, slotfare.Invalid, slotfare.Field(IdempotencyField), "a key and a fingerprint are required")
	}
	if p.Role != booking.RoleUser {
		return View{}, false, slotfare.E(op, slotfare.Forbidden, "co-reservations are made by users")
	}
	id := onceID(p.AccountID, key.Key)
	if v, found, err := b.replay(ctx, op, p, id, key.Fingerprint); found || err != nil {
		return v, found, err
	}
	v, err := b.reserveAs(ctx, p, req, id, key.Fingerprint)
	if err == nil || !errors.Is(err, errTaken) {
		return v, false, err
	}
	// Another request with the key stored first: its answer is this one's.
	v, found, rerr := b.replay(ctx, op, p, id, key.Fingerprint)
	if rerr == nil && !found {
		rerr = slotfare.E(op, slotfare.Other, fmt.Sprintf("co-reservation %s was stored by another request and is gone", id))
	}
	return v, found, rerr
}

// replay answers the co-reservation stored under id for a request with
// fingerprint fp: found false when there is none.
func (b *Broker) replay(ctx context.Context, op slotfare.Op, p booking.Principal, id, fp string) (View, bool, error) {
	rec, found, err := b.st.Get(ctx, id)
	if err != nil {
		return View{}, false, slotfare.E(op, slotfare.Unavailable, err)
	}
	if !found {
		return View{}, false, nil
	}
	if rec.AccountID != p.AccountID || rec.Fingerprint != fp {
		return View{}, false, slotfare.E(op, slotfare.Conflict, slotfare.Field(IdempotencyField),
			"this Idempotency-Key was used with another request")
	}
	v, err := b.Get(ctx, p, id)
	return v, true, err
}
