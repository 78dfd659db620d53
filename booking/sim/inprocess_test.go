package sim

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"slotfare/overbook"
)

// TestInProcessOffersBookTheSame: a simulated day of eu-datagrid with
// overbooking and CNS books the same bookings at the same prices, with the
// same outcomes and revenue, whether users hold the signed offers of the
// public path or the in-process offers by their terms.
func TestInProcessOffersBookTheSame(t *testing.T) {
	s, err := EUDataGrid(1)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = WithOverbooking(s, OverbookingResources, overbook.Probability, overbook.Lottery); err != nil {
		t.Fatal(err)
	}
	run := func(viaOfferIDs bool) *Result {
		r, err := Run(context.Background(), s, Options{Seed: 3, Cancel: true, NoShow: true, viaOfferIDs: viaOfferIDs})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	signed, inProcess := run(true), run(false)
	if len(signed.Bookings) == 0 {
		t.Fatal("no bookings")
	}
	// Amounts compare by value: a signed offer's price is parsed back
	// from its id, so its decimal may carry another exponent.
	a, b := fmt.Sprintf("%+v %v", signed.Bookings, signed.End), fmt.Sprintf("%+v %v", inProcess.Bookings, inProcess.End)
	if !reflect.DeepEqual(signed.Streams, inProcess.Streams) || a != b {
		t.Fatalf("in-process offers booked otherwise: streams %+v vs %+v", signed.Streams, inProcess.Streams)
	}
	for i := range signed.Resources {
		if x, y := resultText(signed.Resources[i]), resultText(inProcess.Resources[i]); x != y {
			t.Fatalf("resource results differ:\n%.2000s\n%.2000s", x, y)
		}
	}
}

// resultText is r with its amounts as decimal strings and its classes'
// results in place of their pointers.
func resultText(r *ResourceResult) string {
	c := *r
	classes := map[string]ClassResult{}
	for k, v := range c.Classes {
		classes[k] = *v
	}
	c.Classes = nil
	return fmt.Sprintf("%+v %+v", c, classes)
}
