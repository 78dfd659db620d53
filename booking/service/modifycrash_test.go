package service_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
	"slotfare/booking/service"
	"slotfare/overbook"
)

// modifyNodes is the capacity of the resource the modify crash test
// changes bookings on, with overbooking off: no instant may hold more.
const modifyNodes = 20

// modifyStart is when every booking of the modify crash test starts: they
// all compete for the same hour.
var modifyStart = t0.Add(24 * time.Hour)

// modifyResources are the resources of the modify crash test: a change
// locks its resource on its replica, so changes on four are under way at
// once.
var modifyResources = []string{"M0", "M1", "M2", "M3"}

func modifyCrashConfig() config.Config {
	var rcs []config.ResourceConfig
	for _, id := range modifyResources {
		rcs = append(rcs, resourceConfig(id, modifyNodes, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF}))
	}
	return testConfig(rcs...)
}

// TestModifyCrashChild is the process TestModifyCrashKill kills: with
// SLOTFARE_MODIFY_REDIS set it commits 2 premium bookings of 2 nodes over
// the same hour on each resource, on shared Redis ports, then changes each between 1 and 3
// nodes from its own goroutine forever, printing a line per change
// acknowledged or refused for want of room.
func TestModifyCrashChild(t *testing.T) {
	addr := os.Getenv("SLOTFARE_MODIFY_REDIS")
	if addr == "" {
		t.Skip("only run as TestModifyCrashKill's child process")
	}
	svc, err := service.Open(modifyCrashConfig(), *redisPorts(redistest.Connect(t, addr)), service.Options{Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	var out sync.Mutex
	w := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fail := func(what string, err error) {
				fmt.Fprintln(os.Stderr, what+":", err)
				os.Exit(3)
			}
			b, _, err := svc.Hold(bg, alice, booking.HoldRequest{ResourceID: modifyResources[g%len(modifyResources)], Start: modifyStart, End: modifyStart.Add(time.Hour), Nodes: 2, FareClass: "premium"}, booking.Idempotency{})
			if err != nil {
				fail("hold", err)
			}
			if _, err := svc.Commit(bg, alice, b.ID); err != nil {
				fail("commit", err)
			}
			for i := 0; ; i++ {
				nodes := 1 + 2*((g+i)%2)
				_, err := svc.Modify(bg, alice, b.ID, booking.ModifyRequest{Nodes: &nodes})
				if err != nil && slotfare.KindOf(err) != slotfare.NoCapacity {
					fail("modify", err)
				}
				out.Lock()
				fmt.Fprintf(w, "modified %s %d\n", b.ID, nodes)
				w.Flush()
				out.Unlock()
			}
		}()
	}
	wg.Wait()
}

// TestModifyCrashKill changes bookings' nodes under load in a child
// process on shared Redis ports, kills it with SIGKILL mid-flight, and
// checks that the inventory holds exactly what the records say: each live
// booking with its stored terms, the hour's free nodes the capacity less
// the stored bookings' nodes, and those never above the capacity. Kills
// land while changes are under way in several goroutines at once, so a
// change that moves the booking on the inventory and stores its record in
// two steps is cut between them.
func TestModifyCrashKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	rdb := redistest.Start(t)
	changes := 0
	done, stderr := killChildAfter(t, "TestModifyCrashChild", []string{"SLOTFARE_MODIFY_REDIS=" + rdb.Options().Addr}, func(line string) bool {
		if strings.HasPrefix(line, "modified ") {
			changes++
		}
		return changes == 400
	})
	if !done {
		t.Fatalf("the child made only %d changes: %s", changes, stderr)
	}
	inv, recs := redisstore.NewInventory(rdb, "sf"), redisstore.NewRecords(rdb, "sf")
	var errs []error
	for _, res := range modifyResources {
		errs = append(errs, agree(t, inv, recs, res))
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("after SIGKILL mid-change (%d changes made), inventory and records disagree:\n%v", changes, err)
	}
	t.Logf("%d changes made; the inventory holds what the records say", changes)
}

// agree is nil when the inventory holds on resource res exactly the live
// bookings the records have, with their stored terms, and no more nodes
// over the hour than its capacity.
func agree(t *testing.T, inv *redisstore.Inventory, recs *redisstore.Records, res string) error {
	live, err := recs.Live(bg, res)
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 2 {
		return fmt.Errorf("%s: %d live bookings stored, want 2", res, len(live))
	}
	var stored int
	var errs []error
	for _, st := range live {
		b := st.Record.Booking
		stored += b.Nodes
		h, found, err := inv.Get(bg, res, b.ID)
		if err != nil || !found || h.Terms.Nodes != b.Nodes || h.Terms.Start != b.Start.Unix() || h.Terms.End != b.End.Unix() {
			errs = append(errs, fmt.Errorf("%s: stored with %d nodes over [%s, %s), held as %+v (%v %v)", b.ID, b.Nodes, b.Start, b.End, h, found, err))
		}
	}
	if stored > modifyNodes {
		errs = append(errs, fmt.Errorf("%s: %d nodes stored over the hour, on %d", res, stored, modifyNodes))
	}
	prof, err := inv.Profile(bg, res, 0, modifyStart.Unix(), modifyStart.Add(time.Hour).Unix())
	if err != nil {
		t.Fatal(err)
	}
	if len(prof) != 1 || prof[0].Free != modifyNodes-stored {
		errs = append(errs, fmt.Errorf("%s: free over the hour on the inventory %+v, the records leave %d", res, prof, modifyNodes-stored))
	}
	return errors.Join(errs...)
}
