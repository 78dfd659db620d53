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
// public path or the in-process offers by their terms, priced or priced
// only where a user weighs the price.
func TestInProcessOffersBookTheSame(t *testing.T) {
	s, err := EUDataGrid(1)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = WithOverbooking(s, OverbookingResources, overbook.Probability, overbook.Lottery); err != nil {
		t.Fatal(err)
	}
	run := func(path offerPath) *Result {
		r, err := Run(context.Background(), s, Options{Seed: 3, Cancel: true, NoShow: true, path: path})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	signed := run(signedOffers)
	if len(signed.Bookings) == 0 {
		t.Fatal("no bookings")
	}
	for _, path := range []offerPath{pricedOffers, unpricedOffers} {
		sameBookings(t, signed, run(path))
	}
}

// sameBookings fails unless two runs booked the same at the same prices.
func sameBookings(t *testing.T, signed, inProcess *Result) {
	t.Helper()
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

// TestUnpricedOffersBookTheSamePriced: on the priced demand, where users
// weigh every offer they could use against their willingness to pay, the
// offers priced only then book what offers priced at once book.
func TestUnpricedOffersBookTheSamePriced(t *testing.T) {
	s, err := EUDataGridPriced(1)
	if err != nil {
		t.Fatal(err)
	}
	run := func(path offerPath) *Result {
		r, err := Run(context.Background(), s, Options{Seed: 5, Cancel: true, NoShow: true, path: path})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	priced, unpriced := run(pricedOffers), run(unpricedOffers)
	var refused int
	for _, st := range priced.Streams {
		refused += st.Refused
	}
	if len(priced.Bookings) == 0 || refused == 0 {
		t.Fatalf("%d bookings, %d refused for the price: the comparison proves little", len(priced.Bookings), refused)
	}
	sameBookings(t, priced, unpriced)
}
