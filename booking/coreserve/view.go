package coreserve

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/booking"
	"slotfare/booking/runs"
	"slotfare/ledger"
)

// viewJSON is a co-reservation on the wire: API.md's co_reservation_id,
// status and parts (each part's booking object, in the request's order),
// with the policy, the earliest hold expiry while held, the attempts the
// broker made, the failure when expired or rejected, and the total of the
// parts' prices when they share a currency.
type viewJSON struct {
	ID            string            `json:"co_reservation_id"`
	AccountID     string            `json:"account_id"`
	Status        Status            `json:"status"`
	Policy        string            `json:"policy"`
	Alpha         *float64          `json:"alpha,omitempty"`
	FareClass     string            `json:"fare_class,omitempty"`
	HoldExpiresAt *time.Time        `json:"hold_expires_at"`
	Attempts      int               `json:"attempts"`
	Failure       *Failure          `json:"failure,omitempty"`
	Total         *booking.Price    `json:"total,omitempty"`
	Charged       string            `json:"charged,omitempty"`
	Refunded      string            `json:"refunded,omitempty"`
	CreatedAt     time.Time         `json:"created_at"`
	UpdatedAt     time.Time         `json:"updated_at"`
	Parts         []json.RawMessage `json:"parts"`
}

// MarshalJSON writes the co-reservation as the API shows it.
func (v View) MarshalJSON() ([]byte, error) {
	j := viewJSON{ID: v.ID, AccountID: v.AccountID, Status: v.Status, Policy: v.Policy, FareClass: v.FareClass,
		Attempts: v.Attempts, Failure: v.Failed, CreatedAt: v.CreatedAt.UTC(), UpdatedAt: v.UpdatedAt.UTC(),
		Parts: make([]json.RawMessage, 0, len(v.Bookings))}
	if v.Policy == string(Alpha) {
		a := v.Alpha
		j.Alpha = &a
	}
	sum := booking.Price{Base: decimal.Zero, DelayPremium: decimal.Zero, Total: decimal.Zero}
	oneCurrency := true
	for i, bk := range v.Bookings {
		data, err := bk.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if i < len(v.Parts) && v.Parts[i].Prediction != nil {
			// A part by profile: its booking with the prediction its
			// duration came from.
			pr, err := v.Parts[i].Prediction.MarshalJSON()
			if err != nil {
				return nil, err
			}
			data = append(append(append(data[:len(data)-1:len(data)-1], `,"prediction":`...), pr...), '}')
		}
		j.Parts = append(j.Parts, data)
		if v.Status == Held && bk.HoldExpiresAt != nil && (j.HoldExpiresAt == nil || bk.HoldExpiresAt.Before(*j.HoldExpiresAt)) {
			t := bk.HoldExpiresAt.UTC()
			j.HoldExpiresAt = &t
		}
		if i == 0 {
			sum.Currency = bk.Price.Currency
		}
		oneCurrency = oneCurrency && bk.Price.Currency == sum.Currency
		sum.Base = sum.Base.Add(bk.Price.Base)
		sum.DelayPremium = sum.DelayPremium.Add(bk.Price.DelayPremium)
		sum.Total = sum.Total.Add(bk.Price.Total)
	}
	if oneCurrency && len(v.Bookings) > 0 {
		j.Total = &sum
	}
	if charged, refunded, cur, ok := partsMoney(v.Bookings); ok {
		rule := ledger.Currencies(nil).Rule(ledger.Currency(cur))
		j.Charged, j.Refunded = rule.Format(charged), rule.Format(refunded)
	}
	return json.Marshal(j)
}

// partsMoney is what the parts bks were billed (their charges and
// re-pricings, kept or refunded since) and what of it was refunded, in
// their one currency; ok is false when they are in several.
func partsMoney(bks []booking.Booking) (charged, refunded decimal.Decimal, currency string, ok bool) {
	for i, bk := range bks {
		if i == 0 {
			currency = bk.Price.Currency
		}
		if bk.Price.Currency != currency {
			return decimal.Zero, decimal.Zero, "", false
		}
		switch {
		case bk.Refund != nil:
			// Settled: billed its price (all credited back, the refund)
			// and any penalty apart.
			refunded = refunded.Add(*bk.Refund)
			charged = charged.Add(*bk.Refund)
			if bk.Penalty != nil {
				charged = charged.Add(*bk.Penalty)
			}
		case bk.Status == booking.Committed || bk.Status == booking.Active || bk.Status == booking.Completed || bk.Status == booking.Terminated:
			charged = charged.Add(bk.Price.Total)
		}
	}
	return charged, refunded, currency, len(bks) > 0
}

// moneyNote says what a co-reservation that is not kept was charged and
// refunded, when it was charged at all.
func moneyNote(bks []booking.Booking) string {
	charged, refunded, cur, ok := partsMoney(bks)
	if !ok || charged.IsZero() {
		return ""
	}
	rule := ledger.Currencies(nil).Rule(ledger.Currency(cur))
	return fmt.Sprintf("; it was charged %s %s and refunded %s %s", rule.Format(charged), cur, rule.Format(refunded), cur)
}

// candidateJSON is one probe candidate on the wire: the offer (offer_id,
// resource_id, start, end, nodes, fare_class, expires_at, price) and its
// rating (0 best).
type candidateJSON struct {
	OfferID    string           `json:"offer_id"`
	ResourceID string           `json:"resource_id"`
	Start      time.Time        `json:"start"`
	End        time.Time        `json:"end"`
	Nodes      int              `json:"nodes"`
	FareClass  string           `json:"fare_class"`
	ExpiresAt  time.Time        `json:"expires_at"`
	Price      booking.Price    `json:"price"`
	Rating     float64          `json:"rating"`
	Prediction *runs.Prediction `json:"prediction,omitempty"`
}

// MarshalJSON writes the candidate as POST /v1/probes answers it.
func (c Candidate) MarshalJSON() ([]byte, error) {
	o := c.Offer
	return json.Marshal(candidateJSON{OfferID: o.OfferID, ResourceID: o.ResourceID, Start: o.Start.UTC(), End: o.End.UTC(),
		Nodes: o.Nodes, FareClass: o.FareClass, ExpiresAt: o.ExpiresAt.UTC(), Price: o.Price, Rating: c.Rating,
		Prediction: c.Prediction})
}
