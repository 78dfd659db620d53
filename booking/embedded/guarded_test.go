package embedded_test

import (
	"sync"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/embedded"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/booking/records"
)

// hourOf is rec's terms on the inventory: hour 1-2 after t0, n nodes.
func hourOf(n int) inventory.Terms {
	return inventory.Terms{Start: t0.Add(time.Hour).Unix(), End: t0.Add(2 * time.Hour).Unix(), Nodes: n}
}

// holdClaim is hold id's claim on alice's hold limits (one hold at most).
func holdClaim(id string) records.HoldClaim {
	return records.HoldClaim{Resource: "R", Account: "alice", BookingID: id, Expires: t0.Add(10 * time.Minute),
		NodeSeconds: 3600, MaxHolds: 1, MaxNodeSeconds: 1 << 40, Now: t0}
}

// TestRefusedHoldLeavesNothing: a hold whose write the store refuses (a
// disk that fails) is given back whole: not held on the inventory, not
// stored, and its claim on the account's one hold free for the next.
func TestRefusedHoldLeavesNothing(t *testing.T) {
	bolt, err := boltstore.Open(t.TempDir(), boltstore.Options{})
	must(t, err)
	t.Cleanup(func() { must(t, bolt.Close()) })
	st := &refusing{Store: bolt}
	p := openPorts(t, st, embedded.Options{})
	must(t, p.Inventory.Ensure(bg, "R", 1, 1))
	hold := func(id string) (bool, error) {
		r := rec(id, "alice", "R", booking.Held, t0)
		w := records.Write{Resource: "R", WriteID: "h" + id, Changes: []records.Change{{Record: r}}, NoWait: true}
		ok, _, err := p.Records.AdmitApply(bg, "R", id, 1, hourOf(1), w, holdClaim(id))
		return ok, err
	}
	st.refuse("bk1")
	if ok, err := hold("bk1"); err == nil || ok {
		t.Fatalf("a hold the disk refuses: %v %v", ok, err)
	}
	if _, found, err := p.Inventory.Get(bg, "R", "bk1"); err != nil || found {
		t.Fatalf("a refused hold is held on the inventory: %v %v", found, err)
	}
	if _, found, err := p.Records.Get(bg, "bk1"); err != nil || found {
		t.Fatalf("a refused hold is stored: %v %v", found, err)
	}
	st.refuse("")
	if ok, err := hold("bk2"); err != nil || !ok {
		t.Fatalf("the next hold, on the node and the claim bk1 gave back: %v %v", ok, err)
	}
}

// TestLaidOutFromTheRecords: the inventory starts empty; a resource
// ensured after a restart holds every live booking of its records (on as
// many groups as it has, even where a lowered capacity is exceeded) and
// none that no longer holds capacity, and ensuring it again, or from many
// requests at once, admits nothing twice.
func TestLaidOutFromTheRecords(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			place := k.newPlace(t)
			st, err := k.open(place)
			must(t, err)
			p := openPorts(t, st, embedded.Options{})
			must(t, p.Inventory.Ensure(bg, "R", 2, 2))
			for _, id := range []string{"bk1", "bk2", "bk3"} {
				r := rec(id, "alice", "R", booking.Held, t0)
				r.Groups = 3 // more than the layout's: admitted on its 2
				w := records.Write{Resource: "R", WriteID: "h" + id, Changes: []records.Change{{Record: r}}}
				c := holdClaim(id)
				c.MaxHolds = 10
				ok, _, err := p.Records.AdmitApply(bg, "R", id, 2, hourOf(1), w, c)
				if id == "bk3" {
					if slotfare.KindOf(err) != slotfare.NoCapacity {
						t.Fatalf("a third node on two: %v %v", ok, err)
					}
					continue
				}
				if err != nil || !ok {
					t.Fatalf("hold %s: %v %v", id, ok, err)
				}
			}
			cancelled := get(t, p, "bk2").Record
			cancelled.Booking.Status = booking.Cancelled
			must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "x", Changes: []records.Change{{Record: cancelled, Replaces: 1}}}))
			must(t, p.Inventory.Release(bg, "R", "bk2"))
			r := rec("bk4", "alice", "R", booking.Committed, t0)
			must(t, p.Inventory.Admit(bg, "R", "bk4", 1, hourOf(1)))
			must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "c", Changes: []records.Change{{Record: r}}}))
			must(t, p.Inventory.SetCapacity(bg, "R", lease.Fence{}, 0, inventory.MinTime, inventory.MaxTime, 1))
			must(t, st.Close())

			p = openPorts(t, openStore(t, k, place), embedded.Options{})
			if _, _, err := p.Inventory.Get(bg, "R", "bk1"); slotfare.KindOf(err) != slotfare.NotFound {
				t.Fatalf("R before it is laid out: %v", err)
			}
			var wg sync.WaitGroup
			errs := make([]error, 8)
			for i := range errs {
				wg.Add(1)
				go func() { defer wg.Done(); errs[i] = p.Inventory.Ensure(bg, "R", 2, 1) }()
			}
			wg.Wait()
			for _, err := range errs {
				must(t, err)
			}
			for id, groups := range map[string]int{"bk1": 2, "bk4": 1} {
				h, found, err := p.Inventory.Get(bg, "R", id)
				if err != nil || !found || h.Groups != groups || h.Terms != hourOf(1) {
					t.Fatalf("%s after the restart: %+v %v %v", id, h, found, err)
				}
			}
			if _, found, _ := p.Inventory.Get(bg, "R", "bk2"); found {
				t.Fatal("a cancelled booking is laid out")
			}
			// bk1 and bk4 on one node: over, and nothing more fits there.
			if ok, err := p.Inventory.Fits(bg, "R", 0, hourOf(1).Start, hourOf(1).End, 1); err != nil || ok {
				t.Fatalf("room beside an overbooked hour: %v %v", ok, err)
			}
			must(t, p.Inventory.Release(bg, "R", "bk1"))
			if ok, err := p.Inventory.Fits(bg, "R", 0, hourOf(1).Start, hourOf(1).End, 1); err != nil || ok {
				t.Fatalf("room beside bk4 on the one node: %v %v", ok, err)
			}
			if ok, err := p.Inventory.Fits(bg, "R", 1, hourOf(1).Start, hourOf(1).End, 1); err != nil || !ok {
				t.Fatalf("group 1, which bk1 alone held, once bk1 is released: %v %v", ok, err)
			}
		})
	}
}
