package api

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"
)

// bookingMoney is a booking's money as its JSON shows it.
type bookingMoney struct {
	ID      string `json:"booking_id"`
	Status  string `json:"status"`
	Penalty string `json:"penalty"`
	Refund  string `json:"refund"`
	Comp    string `json:"compensation"`
	Price   struct {
		Total string `json:"total"`
	} `json:"price"`
}

func dec0(s string) decimal.Decimal {
	if s == "" {
		return decimal.Zero
	}
	return decimal.RequireFromString(s)
}

// invoiceLines sums alice's invoice lines of each booking by kind, and
// checks that each invoice's lines sum to its total.
func invoiceLines(t *testing.T, e *echo.Echo) map[string]map[string]decimal.Decimal {
	t.Helper()
	var page struct {
		Data []struct {
			Lines []struct {
				Kind    string  `json:"kind"`
				Booking *string `json:"booking_id"`
				Amount  string  `json:"amount"`
			} `json:"lines"`
			Total string `json:"total"`
		} `json:"data"`
	}
	json.Unmarshal(call{"GET", "/v1/invoices?account_id=alice", kBill, "", nil}.must(t, e, 200).Body.Bytes(), &page)
	out := map[string]map[string]decimal.Decimal{}
	for _, inv := range page.Data {
		sum := decimal.Zero
		for _, l := range inv.Lines {
			sum = sum.Add(dec0(l.Amount))
			if l.Booking == nil {
				continue
			}
			if out[*l.Booking] == nil {
				out[*l.Booking] = map[string]decimal.Decimal{}
			}
			out[*l.Booking][l.Kind] = out[*l.Booking][l.Kind].Add(dec0(l.Amount))
		}
		if !sum.Equal(dec0(inv.Total)) {
			t.Errorf("invoice lines sum to %s, total %s", sum, inv.Total)
		}
	}
	return out
}

// sameStory checks that booking b's JSON and its invoice lines tell one
// story: charge lines sum to the price, penalty lines to the penalty,
// refund lines to minus the refund, compensation to minus it.
func sameStory(t *testing.T, b bookingMoney, lines map[string]decimal.Decimal) {
	t.Helper()
	for _, c := range []struct {
		what      string
		json, inv decimal.Decimal
	}{
		{"price.total vs charge lines", dec0(b.Price.Total), lines["charge"]},
		{"penalty vs penalty lines", dec0(b.Penalty), lines["cancellation_penalty"].Add(lines["no_show_penalty"])},
		{"refund vs refund lines", dec0(b.Refund), lines["refund"].Neg()},
		{"compensation vs compensation lines", dec0(b.Comp), lines["compensation"].Neg()},
	} {
		if !c.json.Equal(c.inv) {
			t.Errorf("booking %s (%s): %s: JSON %s, invoice %s", b.ID, b.Status, c.what, c.json, c.inv)
		}
	}
}

// TestOneStoryForTheMoney: a cancelled booking, one reduced then
// cancelled, and a no-show show the same money in the cancel answer, the
// booking's JSON and the invoice, line kind by line kind, and the invoice
// sums to what the customer owes. Before, the cancel answered refund
// 11907.00 where the invoice credited 15876.00 back and billed 3969.00
// apart, and a reduction's penalty and re-pricing showed on no booking
// field.
func TestOneStoryForTheMoney(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	clk := &testClock{t: t0}
	e, svc := newServerAt(t, clk)
	start := t0.Add(48 * time.Hour)
	cancelled, _ := bookBudget(t, e, start)
	reduced, _ := bookBudget(t, e, start.Add(4*time.Hour))
	noShow, _ := bookBudget(t, e, t0.Add(2*time.Hour))

	var answer bookingMoney
	json.Unmarshal(call{"POST", "/v1/bookings/" + cancelled + "/cancel", kAlice, "", nil}.must(t, e, 200).Body.Bytes(), &answer)
	call{"PATCH", "/v1/bookings/" + reduced, kAlice, fmt.Sprintf(`{"end":%q}`, start.Add(5*time.Hour).Format(time.RFC3339)), nil}.must(t, e, 200)
	call{"POST", "/v1/bookings/" + reduced + "/cancel", kAlice, "", nil}.must(t, e, 200)
	clk.Set(t0.Add(3 * time.Hour))
	if err := svc.Tick(clk.Now()); err != nil {
		t.Fatal(err)
	}

	lines := invoiceLines(t, e)
	for _, id := range []string{cancelled, reduced, noShow} {
		var b bookingMoney
		json.Unmarshal(call{"GET", "/v1/bookings/" + id, kAlice, "", nil}.must(t, e, 200).Body.Bytes(), &b)
		sameStory(t, b, lines[id])
		if id == cancelled && (b.Penalty != answer.Penalty || b.Refund != answer.Refund) {
			t.Errorf("the cancel answered penalty %s refund %s, the booking shows %s and %s", answer.Penalty, answer.Refund, b.Penalty, b.Refund)
		}
		if id == noShow && b.Status != "no_show" {
			t.Errorf("booking %s is %s, want no_show", id, b.Status)
		}
	}
	if want := quarter(t, answer.Price.Total); answer.Penalty != want || answer.Refund != answer.Price.Total {
		t.Errorf("cancel answered penalty %s refund %s of %s, want %s kept and all of it credited back", answer.Penalty, answer.Refund, answer.Price.Total, want)
	}
}
