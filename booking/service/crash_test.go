package service_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/service"
	"slotfare/ledger"
	"slotfare/overbook"
)

// crashConfig is a large resource so the load never runs out of capacity.
func crashConfig() config.Config {
	return testConfig(resourceConfig("BIG", 100000, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF}))
}

// TestCrashChild is the process TestCrashKill kills: with SLOTFARE_CRASH_DIR
// set it commits bookings from several goroutines forever, printing each
// booking id once its commit is acknowledged.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("SLOTFARE_CRASH_DIR")
	if dir == "" {
		t.Skip("only run as TestCrashKill's child process")
	}
	st, err := openStore(os.Getenv("SLOTFARE_CRASH_STORE"), dir)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.Open(crashConfig(), deploytest.Embedded(t, st), service.Options{Now: func() time.Time { return t0 }})
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
			p := alice
			if g%2 == 1 {
				p = bob
			}
			for i := 0; ; i++ {
				start := t0.Add(time.Duration(1+(g*1000+i)%2000) * time.Minute)
				b, _, err := svc.Hold(bg, p, booking.HoldRequest{ResourceID: "BIG", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "budget"}, booking.Idempotency{})
				if err != nil {
					fmt.Fprintln(os.Stderr, "hold:", err)
					os.Exit(3)
				}
				if _, err := svc.Commit(bg, p, b.ID); err != nil {
					fmt.Fprintln(os.Stderr, "commit:", err)
					os.Exit(3)
				}
				out.Lock()
				fmt.Fprintf(w, "%s %s\n", p.AccountID, b.ID)
				w.Flush()
				out.Unlock()
			}
		}()
	}
	wg.Wait()
}

// TestCrashKill commits under load in a child process, kills it with
// SIGKILL mid-flight, reopens the store and checks that every commit the
// child saw acknowledged is committed with exactly one charge, and that the
// ledger replays.
func TestCrashKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) { crashKill(t, s.name) })
	}
}

// openStore opens the named store kind in dir.
func openStore(name, dir string) (booking.Store, error) {
	for _, s := range stores {
		if s.name == name {
			return s.open(dir)
		}
	}
	return nil, fmt.Errorf("no store %q", name)
}

func crashKill(t *testing.T, store string) {
	dir := t.TempDir()
	acked := map[string]string{}
	done, stderr := killChildAfter(t, "TestCrashChild", []string{"SLOTFARE_CRASH_DIR=" + dir, "SLOTFARE_CRASH_STORE=" + store}, func(line string) bool {
		acct, id, ok := strings.Cut(line, " ")
		if ok && strings.HasPrefix(id, "bk_") { // else test framework output
			acked[id] = acct
		}
		return len(acked) == 1000
	})
	if !done {
		t.Fatalf("child acknowledged only %d commits: %s", len(acked), stderr)
	}
	st, err := openStore(store, dir)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.Open(crashConfig(), deploytest.Embedded(t, st), service.Options{Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	for id, acct := range acked {
		p := alice
		if acct == "bob" {
			p = bob
		}
		b, err := svc.Get(bg, p, id)
		if err != nil || b.Status != booking.Committed {
			t.Fatalf("acknowledged %s: %+v %v", id, b, err)
		}
		ps := books(t, svc).BookingPostings(id)
		if len(ps) != 1 || ps[0].Kind != ledger.KindCharge || !ps[0].CustomerAmount().Equal(b.Price.Total) {
			t.Fatalf("acknowledged %s has postings %+v", id, ps)
		}
	}
	// Every stored charge belongs to a committed booking (nothing half-written).
	for _, acct := range []booking.Principal{alice, bob} {
		cursor := ""
		for {
			page, err := svc.List(bg, acct, booking.ListQuery{Cursor: cursor, Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range page.Data {
				n := len(books(t, svc).BookingPostings(b.ID))
				if (b.Status == booking.Committed) != (n == 1) || n > 1 {
					t.Fatalf("%s is %s with %d postings", b.ID, b.Status, n)
				}
			}
			if !page.HasMore {
				break
			}
			cursor = page.NextCursor
		}
	}
	t.Logf("%d acknowledged commits survived SIGKILL", len(acked))
}

// killChildAfter runs the test named run in a child process with env added,
// hands each line the child prints to enough until it answers true, then
// kills the child with SIGKILL mid-flight. done is false when the child's
// output ended first; stderr is what it wrote there.
func killChildAfter(t *testing.T, run string, env []string, enough func(line string) bool) (done bool, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+run+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for !done && sc.Scan() {
		done = enough(sc.Text())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	return done, errOut.String()
}
