package embedded_test

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/embedded"
	"slotfare/booking/memstore"
	"slotfare/ledger"
)

var bg = context.Background()

var t0 = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

// kind is a store the ports run on. A place is what survives a close: a
// directory for the file stores, a memstore.Memory for memstore.
type kind struct {
	name     string
	newPlace func(t testing.TB) any
	open     func(place any) (booking.Store, error)
}

var kinds = []kind{
	{"bbolt", func(t testing.TB) any { return t.TempDir() },
		func(p any) (booking.Store, error) { return boltstore.Open(p.(string), boltstore.Options{}) }},
	{"mem", func(t testing.TB) any { return memstore.NewMemory() },
		func(p any) (booking.Store, error) { return memstore.Open(p.(*memstore.Memory)) }},
}

// openStore opens a store of k on place, closed when the test ends.
func openStore(t testing.TB, k kind, place any) booking.Store {
	t.Helper()
	st, err := k.open(place)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return st
}

// openPorts builds the ports on st.
func openPorts(t testing.TB, st booking.Store, o embedded.Options) *embedded.Ports {
	t.Helper()
	p, _, err := embedded.Open(bg, st, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fresh returns ports on a new, empty store of k.
func fresh(t testing.TB, k kind) *embedded.Ports {
	return openPorts(t, openStore(t, k, k.newPlace(t)), embedded.Options{})
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func rec(id, account, res string, st booking.Status, created time.Time) booking.Record {
	return booking.Record{Booking: booking.Booking{ID: id, AccountID: account, ResourceID: res, Status: st,
		Start: t0.Add(time.Hour), End: t0.Add(2 * time.Hour), Nodes: 1, FareClass: "budget",
		Price:     booking.Price{Base: decimal.RequireFromString("10"), DelayPremium: decimal.Zero, Total: decimal.RequireFromString("10"), Currency: "GRD"},
		CreatedAt: created, UpdatedAt: created}, Groups: 1}
}

func charge(t testing.TB, id, account, res string) ledger.Posting {
	t.Helper()
	l, err := ledger.New(ledger.Options{})
	must(t, err)
	p, err := l.Charge(ledger.BookingRef{ID: id, Customer: account, Resource: res, Currency: "GRD"}, decimal.RequireFromString("10"), t0)
	must(t, err)
	return p
}
