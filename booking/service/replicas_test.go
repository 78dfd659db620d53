package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/apikey"
	"slotfare/booking/catalog"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/booking/embedded"
	"slotfare/booking/idem"
	"slotfare/booking/lease"
	"slotfare/booking/memstore"
	"slotfare/booking/records"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
	"slotfare/booking/service"
	"slotfare/ledger"
	"slotfare/overbook"
	"slotfare/pricing"
)

// replicas are services sharing one set of in-process ports, as replicas
// share Redis: each has its own store for what it keeps alone.
type replicas struct {
	t     *testing.T
	clk   *clock
	ports *service.Ports
	svcs  []*service.Service
	mu    sync.Mutex
	tr    map[[2]booking.Status]int
}

// sharedPorts are the ways replicas share ports in these tests: in
// process, on a real redis-server and on a real three-master Redis Cluster
// (skipped, saying why, without redis-server).
var sharedPorts = []struct {
	name string
	make func(t *testing.T) *service.Ports
}{
	{"memory", func(t *testing.T) *service.Ports {
		inv, recs, keys := inProcess(t)
		return &service.Ports{Inventory: inv, Records: recs, Idem: keys,
			Lease: lease.NewMemory(), Catalog: catalog.NewMemory(), Keys: apikey.NewMemory()}
	}},
	{"redis", func(t *testing.T) *service.Ports { return redisPorts(redistest.Start(t)) }},
	{"cluster", func(t *testing.T) *service.Ports { return redisPorts(redistest.StartCluster(t)) }},
}

// inProcess are an inventory, records and Idempotency-Keys that several
// services in one process share: the embedded ports' over a memstore,
// whose records take the guarded steps on that inventory and claim a
// hold's key in those keys.
func inProcess(t *testing.T) (*embedded.Inventory, *embedded.Records, *embedded.Idem) {
	t.Helper()
	p, _, err := embedded.Open(bg, memstore.New(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Inventory, p.Records, p.Idem
}

func redisPorts(rdb redis.UniversalClient) *service.Ports {
	return &service.Ports{Inventory: redisstore.NewInventory(rdb, "sf"), Records: redisstore.NewRecords(rdb, "sf"),
		Idem: redisstore.NewKeys(rdb, "sf"), Lease: redisstore.NewLeases(rdb, "sf"), Catalog: redisstore.NewCatalog(rdb, "sf"),
		Keys: redisstore.NewAPIKeys(rdb, "sf")}
}

// onSharedPorts runs test on each kind of shared ports.
func onSharedPorts(t *testing.T, test func(t *testing.T, ports func(t *testing.T) *service.Ports)) {
	for _, sp := range sharedPorts {
		t.Run(sp.name, func(t *testing.T) { test(t, sp.make) })
	}
}

func newReplicas(t *testing.T, n int, cfg config.Config, ports func(t *testing.T) *service.Ports) *replicas {
	rs := &replicas{t: t, clk: &clock{t: t0}, tr: map[[2]booking.Status]int{}, ports: ports(t)}
	for range n {
		svc, err := service.Open(cfg, *rs.ports, service.Options{Now: rs.clk.Now,
			OnTransition: func(from, to booking.Status) {
				rs.mu.Lock()
				rs.tr[[2]booking.Status{from, to}]++
				rs.mu.Unlock()
			}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		rs.svcs = append(rs.svcs, svc)
	}
	return rs
}

func (rs *replicas) tickAll(now time.Time) {
	rs.t.Helper()
	for _, s := range rs.svcs {
		if err := s.Tick(now); err != nil {
			rs.t.Fatal(err)
		}
	}
}

// TestReplicasNeverSellTwice: clients of three replicas race for the last
// nodes of one resource; what is committed never exceeds the capacity at
// any instant, and it fills it.
func TestReplicasNeverSellTwice(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rc := resourceConfig("C", 7, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
		rs := newReplicas(t, 3, testConfig(rc), ports)
		rs.tickAll(t0)
		start := t0.Add(2 * time.Hour)
		var wg sync.WaitGroup
		var mu sync.Mutex
		committed := 0
		for w := range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := rs.svcs[w%3]
				p := alice
				if w%2 == 1 {
					p = bob
				}
				b, _, err := s.Hold(bg, p, booking.HoldRequest{ResourceID: "C", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "premium"}, booking.Idempotency{})
				if err != nil {
					if slotfare.KindOf(err) != slotfare.NoCapacity {
						t.Error(err)
					}
					return
				}
				if _, err := rs.svcs[(w+1)%3].Commit(bg, p, b.ID); err != nil { // committed through another replica
					t.Error(err)
					return
				}
				mu.Lock()
				committed++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if committed != 7 {
			t.Fatalf("%d committed on 7 nodes, want exactly 7", committed)
		}
	})
}

// TestReplicasCommitRacesCancel: a commit on one replica and a cancel on
// another, on one hold: whatever the order, the booking ends cancelled or
// committed consistently, charged at most once, and a cancellation after a
// commit refunds what the other replica charged.
func TestReplicasCommitRacesCancel(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rs := newReplicas(t, 2, testConfig(), ports)
		for i := range 20 {
			start := t0.Add(time.Duration(2+i) * time.Hour)
			b, _, err := rs.svcs[0].Hold(bg, alice, booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 2, FareClass: "premium"}, booking.Idempotency{})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var cerr, xerr error
			wg.Add(2)
			go func() { defer wg.Done(); _, cerr = rs.svcs[0].Commit(bg, alice, b.ID) }()
			go func() { defer wg.Done(); _, xerr = rs.svcs[1].Cancel(bg, alice, b.ID) }()
			wg.Wait()
			if xerr != nil {
				t.Fatalf("cancel: %v", xerr)
			}
			final := must[booking.Booking](t)(rs.svcs[1].Get(bg, alice, b.ID))
			if final.Status != booking.Cancelled {
				t.Fatalf("booking %s ended %s", b.ID, final.Status)
			}
			_, ps, _, err := rs.ports.Records.Booking(bg, b.ID)
			if err != nil {
				t.Fatal(err)
			}
			charges := 0
			for _, p := range ps {
				if p.Kind == ledger.KindCharge {
					charges++
				}
			}
			switch {
			case cerr == nil && charges != 1:
				t.Fatalf("commit won: %d charges, want 1", charges)
			case cerr != nil && charges != 0:
				t.Fatalf("cancel won (commit: %v): %d charges, want 0", cerr, charges)
			case cerr == nil && final.Refund == nil:
				t.Fatal("cancelled after the commit without a refund")
			}
		}
	})
}

// TestReplicasReadResourceAccounts: a resource's side of the ledger
// (revenue, refunds, penalty revenue) is readable on every replica, from
// what the store holds: two charges on one replica, a cancellation with its
// penalty and refund on the other, and both replicas give the same entries
// and balances, which balance the customers' (double entry: debits minus
// credits over every account is zero).
func TestReplicasReadResourceAccounts(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rs := newReplicas(t, 2, testConfig(), ports)
		var ids []string
		for i, p := range []booking.Principal{alice, bob} {
			start := t0.Add(time.Duration(30+i) * time.Hour)
			b, _, err := rs.svcs[0].Hold(bg, p, booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 2, FareClass: "premium"}, booking.Idempotency{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rs.svcs[0].Commit(bg, p, b.ID); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, b.ID)
		}
		if _, err := rs.svcs[1].Cancel(bg, bob, ids[1]); err != nil {
			t.Fatal(err)
		}
		billing := booking.Principal{AccountID: "billing", Role: booking.RoleBilling}
		var views [2]string
		for i, s := range rs.svcs {
			entries := must[ledger.Page[ledger.Posting]](t)(s.LedgerEntries(bg, billing, "revenue:T", "", 0))
			refunds := must[ledger.Page[ledger.Posting]](t)(s.LedgerEntries(bg, billing, "refunds:T", "", 0))
			if len(entries.Data) != 2 || len(refunds.Data) != 1 || refunds.Data[0].BookingID != ids[1] {
				t.Fatalf("replica %d: revenue:T %d entries, refunds:T %+v", i, len(entries.Data), refunds.Data)
			}
			sum := decimal.Zero
			for _, acct := range []string{"revenue:T", "penalty_revenue:T", "refunds:T", "compensation_expense:T"} {
				bal := must[map[ledger.Currency]decimal.Decimal](t)(s.Balance(bg, billing, acct))
				for _, v := range bal {
					sum = sum.Add(v)
				}
				views[i] += acct + "=" + fmt.Sprint(bal) + " "
			}
			owed := decimal.Zero
			for _, c := range []string{"alice", "bob"} {
				for _, v := range must[map[ledger.Currency]decimal.Decimal](t)(s.Balance(bg, billing, c)) {
					owed = owed.Add(v)
				}
			}
			if !sum.Add(owed).IsZero() || !owed.IsPositive() {
				t.Fatalf("replica %d: the resource's accounts sum to %s, its customers owe %s", i, sum, owed)
			}
		}
		if views[0] != views[1] {
			t.Fatalf("the replicas disagree: %s / %s", views[0], views[1])
		}
	})
}

// TestReplicasShareKeysAndConfiguration: a key created on one replica
// authenticates on the others at once; a resource created on another is
// seen by the rest after their next tick.
func TestReplicasShareKeysAndConfiguration(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rs := newReplicas(t, 2, testConfig(), ports)
		nk := must[service.NewKey](t)(rs.svcs[0].CreateKey(bg, provider, service.KeyRequest{Name: "carol-key", Role: booking.RoleUser, AccountID: "carol", VO: "1"}))
		if p, err := rs.svcs[1].Authenticate(bg, nk.Key); err != nil || p.AccountID != "carol" {
			t.Fatalf("the other replica, before any tick: %+v, %v", p, err)
		}
		spec := resourceSpec{Nodes: 5, BaseCost: decimal.RequireFromString("0.001"), Currency: "GRD", TimeZone: "UTC"}
		if _, _, err := putSpec(rs.svcs[1], bg, provider, "N", spec); err != nil {
			t.Fatal(err)
		}
		rs.tickAll(t0)
		carol, err := rs.svcs[1].Authenticate(bg, nk.Key)
		if err != nil || carol.AccountID != "carol" {
			t.Fatalf("key on the other replica: %+v, %v", carol, err)
		}
		start := t0.Add(3 * time.Hour)
		b, _, err := rs.svcs[0].Hold(bg, carol, booking.HoldRequest{ResourceID: "N", Start: start, End: start.Add(time.Hour), Nodes: 5, FareClass: "budget"}, booking.Idempotency{})
		if err != nil {
			t.Fatalf("hold on a resource the other replica created: %v", err)
		}
		_, _, err = rs.svcs[1].Hold(bg, carol, booking.HoldRequest{ResourceID: "N", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "budget"}, booking.Idempotency{})
		wantKind(t, err, slotfare.NoCapacity)
		must[booking.Booking](t)(rs.svcs[1].Commit(bg, carol, b.ID))
		inv, err := rs.svcs[0].Invoices(bg, billing, "carol", "", "", 10)
		if err != nil || len(inv.Data) != 1 || !inv.Data[0].Total.Amount.Equal(b.Price.Total) {
			t.Fatalf("invoices on the replica that did not charge: %+v, %v", inv, err)
		}
	})
}

// TestReplicasNeverSellARetiredResource: a resource retired on one replica
// takes no hold on another that has not read the catalog since: the
// inventory, where both admit, keeps the retirement. A hold the other
// replica admitted first makes the DELETE a Conflict; a PUT on the id puts
// it in service again on both.
func TestReplicasNeverSellARetiredResource(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rs := newReplicas(t, 2, testConfig(), ports)
		a, b := rs.svcs[0], rs.svcs[1]
		start := t0.Add(3 * time.Hour)
		req := booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "budget"}
		held, _, err := b.Hold(bg, alice, req, booking.Idempotency{})
		if err != nil {
			t.Fatal(err)
		}
		wantKind(t, a.DeleteResource(bg, provider, "T"), slotfare.Conflict)
		must[booking.Booking](t)(b.Cancel(bg, alice, held.ID))
		if err := a.DeleteResource(bg, provider, "T"); err != nil {
			t.Fatal(err)
		}
		// b has not ticked: it still lists T as in service.
		if _, err := b.Resource(bg, alice, "T"); err != nil {
			t.Fatalf("b read the retirement before its tick: %v", err)
		}
		_, _, err = b.Hold(bg, alice, req, booking.Idempotency{})
		wantKind(t, err, slotfare.Invalid)
		if f := slotfare.FieldOf(err); f != "resource_id" {
			t.Fatalf("the refusal names %q, want resource_id: %v", f, err)
		}
		rs.tickAll(t0)
		_, _, err = b.Hold(bg, alice, req, booking.Idempotency{})
		wantKind(t, err, slotfare.Invalid)
		if _, _, err := putSpec(a, bg, provider, "T", resourceSpec{Nodes: 2, BaseCost: decimal.RequireFromString("0.001"), Currency: "GRD", TimeZone: "UTC"}); err != nil {
			t.Fatal(err)
		}
		rs.tickAll(t0)
		for _, svc := range rs.svcs {
			nb, _, err := svc.Hold(bg, alice, req, booking.Idempotency{})
			if err != nil {
				t.Fatalf("a hold once T is in service again: %v", err)
			}
			must[booking.Booking](t)(svc.Commit(bg, alice, nb.ID))
		}
	})
}

// TestTickReleasesOrphans: on Redis, a booking stored as cancelled whose
// inventory release was lost keeps its nodes out of sale and the resource
// undeletable, until the lease holder's next whole tick releases it.
func TestTickReleasesOrphans(t *testing.T) {
	for _, sp := range sharedPorts[1:] { // the memory ports' admission is not one step with the record
		t.Run(sp.name, func(t *testing.T) {
			rs := newReplicas(t, 2, testConfig(), sp.make)
			start := t0.Add(3 * time.Hour)
			b, _, err := rs.svcs[0].Hold(bg, alice, booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "budget"}, booking.Idempotency{})
			if err != nil {
				t.Fatal(err)
			}
			// The cancellation is stored; its release never happens.
			st, found, err := rs.ports.Records.Get(bg, b.ID)
			if err != nil || !found {
				t.Fatalf("the hold's record: %v %v", found, err)
			}
			rec := st.Record
			rec.Booking.Status = booking.Cancelled
			if err := rs.ports.Records.Apply(bg, records.Write{Resource: "T", WriteID: "lost-release", Changes: []records.Change{{Record: rec, Replaces: st.Version}}}); err != nil {
				t.Fatal(err)
			}
			if _, held, err := rs.ports.Inventory.Get(bg, "T", b.ID); err != nil || !held {
				t.Fatalf("the inventory before the tick: held %v, %v", held, err)
			}
			wantKind(t, rs.svcs[1].DeleteResource(bg, provider, "T"), slotfare.Conflict)
			rs.tickAll(t0)
			if _, held, err := rs.ports.Inventory.Get(bg, "T", b.ID); err != nil || held {
				t.Fatalf("the inventory after the tick: held %v, %v", held, err)
			}
			if err := rs.svcs[1].DeleteResource(bg, provider, "T"); err != nil {
				t.Fatalf("DELETE once the orphan is released: %v", err)
			}
		})
	}
}

// TestReplicasShareHoldLimits: an account's hold limits count its holds on
// every replica: 30 holds sent at once to three replicas with max_holds 5
// leave exactly 5, the others refused with when to retry; a commit on one
// replica frees a place on another.
func TestReplicasShareHoldLimits(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rc := resourceConfig("T", 40, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
		rc.HoldLimits.MaxHolds = 5
		rs := newReplicas(t, 3, testConfig(rc), ports)
		start := t0.Add(3 * time.Hour)
		req := booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "premium"}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var held []booking.Booking
		refused := 0
		for i := range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b, _, err := rs.svcs[i%3].Hold(bg, alice, req, booking.Idempotency{})
				mu.Lock()
				defer mu.Unlock()
				var hle *service.HoldLimitError
				switch {
				case err == nil:
					held = append(held, b)
				case slotfare.KindOf(err) == slotfare.LimitExceeded && errors.As(err, &hle) && hle.Limit == "max_holds" && hle.RetryAfter > 0:
					refused++
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if len(held) != 5 || refused != 25 {
			t.Fatalf("%d holds stand and %d were refused, with max_holds 5", len(held), refused)
		}
		_, _, err := rs.svcs[1].Hold(bg, alice, req, booking.Idempotency{})
		wantKind(t, err, slotfare.LimitExceeded)
		must[booking.Booking](t)(rs.svcs[0].Commit(bg, alice, held[0].ID))
		must[booking.Booking](t)(rs.svcs[2].Cancel(bg, alice, held[1].ID))
		for _, s := range []*service.Service{rs.svcs[1], rs.svcs[2]} {
			if _, _, err := s.Hold(bg, alice, req, booking.Idempotency{}); err != nil {
				t.Fatalf("after a commit and a cancel elsewhere: %v", err)
			}
		}
		_, _, err = rs.svcs[0].Hold(bg, alice, req, booking.Idempotency{})
		wantKind(t, err, slotfare.LimitExceeded)
		if _, _, err := rs.svcs[0].Hold(bg, bob, req, booking.Idempotency{}); err != nil {
			t.Fatalf("bob's hold, refused for alice's: %v", err)
		}
	})
}

// TestReplicasTickOnce: 200 holds made on three replicas expire once, by the replica holding the
// resource's lease, with one transition each and nothing posted twice.
func TestReplicasTickOnce(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rc := resourceConfig("T", 10, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
		rc.HoldLimits.MaxHolds = 200 // one account's 200 holds, across the replicas
		rs := newReplicas(t, 3, testConfig(rc), ports)
		var ids []string
		for i := range 200 { // 10 nodes: 10 one-node holds in each of 20 hours
			start := t0.Add(time.Duration(2+i%20) * time.Hour)
			b, _, err := rs.svcs[i%3].Hold(bg, alice, booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "budget"}, booking.Idempotency{})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, b.ID)
		}
		later := t0.Add(20 * time.Minute) // past every hold's 600 s
		rs.clk.Set(later)
		var wg sync.WaitGroup
		for _, s := range rs.svcs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.Tick(later); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		for _, id := range ids {
			b := must[booking.Booking](t)(rs.svcs[0].Get(bg, alice, id))
			if b.Status != booking.Expired {
				t.Fatalf("hold %s is %s after the tick", id, b.Status)
			}
		}
		rs.mu.Lock()
		defer rs.mu.Unlock()
		if n := rs.tr[[2]booking.Status{booking.Held, booking.Expired}]; n != len(ids) {
			t.Fatalf("%d expirations for %d holds", n, len(ids))
		}
	})
}

// TestReplicasTakeOverTheTicker: when the replica running a resource's
// ticker dies, another takes it over once the lease runs out (a few
// seconds) and the holds left to expire expire.
func TestReplicasTakeOverTheTicker(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rs := newReplicas(t, 2, testConfig(), ports)
		start := t0.Add(2 * time.Hour)
		b, _, err := rs.svcs[1].Hold(bg, alice, booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "budget"}, booking.Idempotency{})
		if err != nil {
			t.Fatal(err)
		}
		now := t0.Add(599 * time.Second) // the hold lasts 600 s
		rs.clk.Set(now)
		if err := rs.svcs[0].Tick(now); err != nil { // the first replica takes the lease
			t.Fatal(err)
		}
		if err := rs.svcs[0].Close(); err != nil { // and dies holding it
			t.Fatal(err)
		}
		now = now.Add(2 * time.Second) // the hold is due, the lease still runs
		rs.clk.Set(now)
		if err := rs.svcs[1].Tick(now); err != nil {
			t.Fatal(err)
		}
		if got := must[booking.Booking](t)(rs.svcs[1].Get(bg, alice, b.ID)); got.Status != booking.Held {
			t.Fatalf("expired by a replica that does not hold the lease: %s", got.Status)
		}
		deadline := time.Now().Add(15 * time.Second) // Redis expires the lease in real time
		for {
			now = now.Add(time.Second)
			rs.clk.Set(now)
			if err := rs.svcs[1].Tick(now); err != nil {
				t.Fatal(err)
			}
			got := must[booking.Booking](t)(rs.svcs[1].Get(bg, alice, b.ID))
			if got.Status == booking.Expired {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no replica took the ticker over: the hold is %s", got.Status)
			}
			time.Sleep(250 * time.Millisecond)
		}
	})
}

// TestReplicasShareTheLimits: the replica holding the lease marks the
// no-shows of bookings made on another replica, raises the overbooking
// limit from them, and every replica's admission meets that limit; a
// replica taking the lease over rebuilds the same limit from the stored
// history.
func TestReplicasShareTheLimits(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rc := resourceConfig("Q", 4, config.OverbookingConfig{Policy: overbook.Probability, Denial: overbook.DCF})
		rs := newReplicas(t, 3, testConfig(rc), ports)
		holder, other, heir := rs.svcs[0], rs.svcs[1], rs.svcs[2]
		if err := holder.Tick(t0); err != nil { // takes the lease
			t.Fatal(err)
		}
		tuesday := t0.Add(26 * time.Hour) // Tuesday 08:00 UTC, peak
		hold := func(s *service.Service, p booking.Principal, start time.Time, nodes int) (booking.Booking, error) {
			b, _, err := s.Hold(bg, p, booking.HoldRequest{ResourceID: "Q", Start: start, End: start.Add(time.Hour), Nodes: nodes, FareClass: "premium"}, booking.Idempotency{})
			return b, err
		}
		b := must[booking.Booking](t)(hold(other, alice, tuesday, 4))
		must[booking.Booking](t)(other.Commit(bg, alice, b.ID))
		_, err := hold(other, alice, tuesday, 1)
		wantKind(t, err, slotfare.NoCapacity) // no history: the limit is the capacity
		for hr := range 10 {
			for range 4 {
				b := must[booking.Booking](t)(hold(other, bob, t0.Add(time.Duration(hr)*time.Hour), 1))
				must[booking.Booking](t)(other.Commit(bg, bob, b.ID))
			}
		}
		now := t0.Add(11 * time.Hour)
		rs.clk.Set(now)
		for _, s := range []*service.Service{holder, other, heir} { // only the holder moves Q on (first in line when a virtual clock outran its lease)
			if err := s.Tick(now); err != nil {
				t.Fatal(err)
			}
		}
		if p := must[booking.Page[booking.Booking]](t)(other.List(bg, bob, booking.ListQuery{Status: booking.NoShow})); len(p.Data) != 40 {
			t.Fatalf("%d no-shows", len(p.Data))
		}
		now = now.Add(time.Second)
		rs.clk.Set(now)
		if err := holder.Tick(now); err != nil {
			t.Fatal(err)
		}
		rep := must[control.LimitsReport](t)(holder.Limits(bg, provider, "Q", tuesday, tuesday.Add(time.Hour)))
		limit := rep.Periods[0].OverbookingLimit
		if limit <= 4 {
			t.Fatalf("after 40 no-shows the holder's limit is %d", limit)
		}
		must[booking.Booking](t)(hold(other, alice, tuesday, limit-4)) // admitted elsewhere, up to the holder's limit
		_, err = hold(heir, alice, tuesday, 1)
		wantKind(t, err, slotfare.NoCapacity)

		if err := holder.Close(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(15 * time.Second) // Redis expires the lease in real time
		for {
			now = now.Add(time.Second)
			rs.clk.Set(now)
			if err := heir.Tick(now); err != nil {
				t.Fatal(err)
			}
			rep := must[control.LimitsReport](t)(heir.Limits(bg, provider, "Q", tuesday, tuesday.Add(time.Hour)))
			if got := rep.Periods[0].OverbookingLimit; got == limit {
				return
			} else if time.Now().After(deadline) {
				t.Fatalf("the heir's limit is %d, the holder's was %d", got, limit)
			}
			time.Sleep(250 * time.Millisecond)
		}
	})
}

// TestReplicasOverbookFromTheStart: the first replica up lays the
// overbooking limit out when it opens, so replicas sell up to it before
// any tick has run.
func TestReplicasOverbookFromTheStart(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rc := resourceConfig("O", 4, config.OverbookingConfig{Policy: overbook.Probability, Denial: overbook.DCF})
		rc.Limits.ShowRates = map[string]float64{"peak": 0.5, "off_peak": 0.5, "super_saver": 0.5}
		rs := newReplicas(t, 2, testConfig(rc), ports)
		start := t0.Add(26 * time.Hour)
		rep := must[control.LimitsReport](t)(rs.svcs[0].Limits(bg, provider, "O", start, start.Add(time.Hour)))
		limit := rep.Periods[0].OverbookingLimit
		if limit <= 4 {
			t.Fatalf("show rate 0.5 on 4 nodes gives an overbooking limit of %d", limit)
		}
		sold := 0
		for i := 0; ; i++ {
			_, _, err := rs.svcs[i%2].Hold(bg, alice, booking.HoldRequest{ResourceID: "O", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "premium"}, booking.Idempotency{})
			if err != nil {
				wantKind(t, err, slotfare.NoCapacity)
				break
			}
			sold++
		}
		if sold != limit {
			t.Fatalf("%d sold before any tick, the overbooking limit is %d", sold, limit)
		}
	})
}

// TestReplicasTickWhatIsDue: between two reads of every live booking
// (a minute apart) a ticker on Redis reads only the bookings due by now
// (records.DueLister); holds that expire then expire, once each, and a
// committed booking not yet due is left as it is.
func TestReplicasTickWhatIsDue(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rc := resourceConfig("T", 10, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
		rc.HoldLimits.MaxHolds = 50
		rs := newReplicas(t, 3, testConfig(rc), ports)
		var ids []string
		for i := range 30 {
			start := t0.Add(time.Duration(2+i%3) * time.Hour)
			b, _, err := rs.svcs[i%3].Hold(bg, alice, booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "budget"}, booking.Idempotency{})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, b.ID)
		}
		kept := ids[0]
		if _, err := rs.svcs[1].Commit(bg, alice, kept); err != nil {
			t.Fatal(err)
		}
		before := t0.Add(590 * time.Second) // every replica reads all it holds
		rs.clk.Set(before)
		rs.tickAll(before)
		after := t0.Add(601 * time.Second) // past every hold's 600 s, within the minute
		rs.clk.Set(after)
		rs.tickAll(after)
		for _, id := range ids {
			b := must[booking.Booking](t)(rs.svcs[2].Get(bg, alice, id))
			want := booking.Expired
			if id == kept {
				want = booking.Committed
			}
			if b.Status != want {
				t.Fatalf("booking %s is %s after the tick, want %s", id, b.Status, want)
			}
		}
		rs.mu.Lock()
		defer rs.mu.Unlock()
		if n := rs.tr[[2]booking.Status{booking.Held, booking.Expired}]; n != len(ids)-1 {
			t.Fatalf("%d expirations for %d holds", n, len(ids)-1)
		}
	})
}

// TestReplicasStartShowsFromWhatIsDue: a checked-in booking whose start
// comes between two reads of every live booking starts on a tick that read
// only what is due: it then reads the running bookings too while holding
// the due ones, and must not wait on its own locks (when it did, the tick
// never ended, and Close, waiting for it, kept the test from ending too:
// a regression shows as the test binary's timeout).
func TestReplicasStartShowsFromWhatIsDue(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rs := newReplicas(t, 2, testConfig(), ports)
		start := t0.Add(2 * time.Hour)
		req := booking.HoldRequest{ResourceID: "T", Start: start, End: start.Add(time.Hour), Nodes: 2, FareClass: "budget"}
		show := must[booking.Booking](t)(func() (booking.Booking, error) {
			b, _, err := rs.svcs[0].Hold(bg, alice, req, booking.Idempotency{})
			return b, err
		}())
		if _, err := rs.svcs[1].Commit(bg, alice, show.ID); err != nil {
			t.Fatal(err)
		}
		rs.clk.Set(start.Add(-30 * time.Minute))
		if _, err := rs.svcs[1].CheckIn(bg, alice, show.ID); err != nil {
			t.Fatal(err)
		}
		before := start.Add(-30 * time.Second) // every replica reads all it holds
		rs.clk.Set(before)
		rs.tickAll(before)
		after := start.Add(time.Second) // within the minute: only what is due
		rs.clk.Set(after)
		done := make(chan struct{})
		go func() {
			defer close(done)
			rs.tickAll(after)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("the tick did not end: it waits on a lock it holds")
		}
		if b := must[booking.Booking](t)(rs.svcs[1].Get(bg, alice, show.ID)); b.Status != booking.Active {
			t.Fatalf("the show is %s after its start, want active", b.Status)
		}
	})
}

// TestReplicasChangeTheFareClasses: a provider changes the number of a
// resource's fare classes on one replica (3 to 2, then 4) while the
// replicas share its layout; the other replica follows at its next tick,
// sells the classes in force, and the replicas together never hold more
// than the nodes.
func TestReplicasChangeTheFareClasses(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rs := newReplicas(t, 2, testConfig(resourceConfig("C", 4, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})), ports)
		rs.tickAll(t0)
		start := t0.Add(3 * time.Hour)
		hold := func(s *service.Service, class string) error {
			_, _, err := s.Hold(bg, alice, booking.HoldRequest{ResourceID: "C", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: class}, booking.Idempotency{})
			return err
		}
		put := func(classes []pricing.FareClass) {
			t.Helper()
			body, err := json.Marshal(classes)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rs.svcs[0].PutFareClasses(bg, provider, "C", body); err != nil {
				t.Fatalf("%d fare classes: %v", len(classes), err)
			}
			rs.tickAll(t0)
		}
		demo := pricing.DemoFareClasses("")
		if err := hold(rs.svcs[1], "budget"); err != nil {
			t.Fatal(err)
		}
		two := []pricing.FareClass{demo[0], demo[2]}
		two[1].Rank = 2
		put(two)
		wantKind(t, hold(rs.svcs[1], "business"), slotfare.Invalid) // gone, on the other replica too
		if err := hold(rs.svcs[1], "budget"); err != nil {
			t.Fatal(err)
		}
		four := append(append([]pricing.FareClass(nil), demo...), demo[2])
		four[3].Name, four[3].Rank, four[3].Tau = "economy", 4, map[string]decimal.Decimal{}
		for period, tau := range demo[2].Tau {
			four[3].Tau[period] = tau.Sub(decimal.RequireFromString("0.25")) // below budget's
		}
		put(four)
		if err := hold(rs.svcs[1], "economy"); err != nil {
			t.Fatalf("a class added on the other replica: %v", err)
		}
		if err := hold(rs.svcs[0], "premium"); err != nil {
			t.Fatal(err)
		}
		for i, s := range rs.svcs { // 4 nodes held: none left, on either replica
			wantKind(t, hold(s, "premium"), slotfare.NoCapacity)
			if i == 0 {
				wantKind(t, hold(s, "economy"), slotfare.NoCapacity)
			}
		}
	})
}

// TestReplicasReplayKeyedHolds: a hold sent with an Idempotency-Key holds
// once whichever replicas its retries reach: a retry names the first
// booking, even once its offer has expired (the retry fails its planning,
// then finds the key done); the key with another request is a Conflict.
// On one Redis server the hold's guarded step claims the key itself.
func TestReplicasReplayKeyedHolds(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rc := resourceConfig("K", 3, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
		rs := newReplicas(t, 2, testConfig(rc), ports)
		rs.tickAll(t0)
		start := t0.Add(3 * time.Hour)
		dur, nodes := int64(3600), 3
		offs, err := rs.svcs[0].Offers(bg, alice, booking.OfferQuery{ResourceID: "K", EarliestStart: start, LatestEnd: start.Add(time.Hour),
			DurationSeconds: &dur, Nodes: &nodes, FareClass: "premium"})
		if err != nil || len(offs) == 0 {
			t.Fatalf("offers: %v, %v", offs, err)
		}
		req := booking.HoldRequest{OfferID: offs[0].OfferID}
		key := booking.Idempotency{Key: "k1", Fingerprint: "fp1"}
		first, replayed, err := rs.svcs[0].Hold(bg, alice, req, key)
		if err != nil || replayed {
			t.Fatalf("first hold: %v (replayed %v)", err, replayed)
		}
		again, replayed, err := rs.svcs[1].Hold(bg, alice, req, key)
		if err != nil || !replayed || again.ID != first.ID {
			t.Fatalf("the same request on the other replica: %+v (replayed %v), %v", again, replayed, err)
		}
		rs.clk.Set(offs[0].ExpiresAt.Add(time.Second))
		if _, _, err := rs.svcs[1].Hold(bg, alice, req, booking.Idempotency{}); err == nil {
			t.Fatal("an expired offer was held")
		}
		again, replayed, err = rs.svcs[1].Hold(bg, alice, req, key)
		if err != nil || !replayed || again.ID != first.ID {
			t.Fatalf("the same request once its offer expired: %+v (replayed %v), %v", again, replayed, err)
		}
		_, _, err = rs.svcs[0].Hold(bg, alice, booking.HoldRequest{ResourceID: "K", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "premium"},
			booking.Idempotency{Key: "k1", Fingerprint: "fp2"})
		wantKind(t, err, slotfare.Conflict)
		if f := slotfare.FieldOf(err); f != "Idempotency-Key" {
			t.Fatalf("another request with the key: %v (field %q)", err, f)
		}
		if live, err := rs.ports.Records.Live(bg, "K"); err != nil || len(live) != 1 {
			t.Fatalf("live bookings on K: %d, %v", len(live), err)
		}
	})
}

// TestReplicasKeyedHoldsAtOnce: one hold sent with one Idempotency-Key to
// both replicas at once, many times over, holds once: every answer names
// the same booking, exactly one is not a replay. A key another request
// holds and never finishes keeps a hold waiting until its context ends
// (Unavailable, nothing held); given back, the hold goes through.
func TestReplicasKeyedHoldsAtOnce(t *testing.T) {
	onSharedPorts(t, func(t *testing.T, ports func(t *testing.T) *service.Ports) {
		rc := resourceConfig("K", 8, config.OverbookingConfig{Policy: overbook.None, Denial: overbook.DCF})
		rs := newReplicas(t, 2, testConfig(rc), ports)
		rs.tickAll(t0)
		start := t0.Add(3 * time.Hour)
		req := booking.HoldRequest{ResourceID: "K", Start: start, End: start.Add(time.Hour), Nodes: 1, FareClass: "premium"}
		key := booking.Idempotency{Key: "k1", Fingerprint: "fp1"}
		const n = 8
		type answer struct {
			id       string
			replayed bool
			err      error
		}
		answers := make(chan answer, n)
		for i := range n {
			go func() {
				b, replayed, err := rs.svcs[i%2].Hold(bg, alice, req, key)
				answers <- answer{b.ID, replayed, err}
			}()
		}
		ids, first := map[string]bool{}, 0
		for range n {
			a := <-answers
			if a.err != nil {
				t.Fatalf("a hold with the key: %v", a.err)
			}
			ids[a.id] = true
			if !a.replayed {
				first++
			}
		}
		if len(ids) != 1 || first != 1 {
			t.Fatalf("%d holds sent at once with one key: bookings %v, %d answered as first", n, ids, first)
		}
		if live, err := rs.ports.Records.Live(bg, "K"); err != nil || len(live) != 1 {
			t.Fatalf("live bookings on K: %d, %v", len(live), err)
		}
		// k2 claimed by a request that never finishes.
		if c, err := rs.ports.Idem.Claim(bg, alice.AccountID, "k2", "fp1", time.Minute, rs.clk.Now()); err != nil || c.State != idem.Claimed {
			t.Fatalf("claiming k2: %+v, %v", c, err)
		}
		ctx, cancel := context.WithTimeout(bg, 50*time.Millisecond)
		defer cancel()
		_, _, err := rs.svcs[1].Hold(ctx, alice, req, booking.Idempotency{Key: "k2", Fingerprint: "fp1"})
		wantKind(t, err, slotfare.Unavailable)
		if live, err := rs.ports.Records.Live(bg, "K"); err != nil || len(live) != 1 {
			t.Fatalf("live bookings on K after a hold that waited: %d, %v", len(live), err)
		}
		if err := rs.ports.Idem.Abandon(bg, alice.AccountID, "k2", "fp1"); err != nil {
			t.Fatal(err)
		}
		if _, replayed, err := rs.svcs[1].Hold(bg, alice, req, booking.Idempotency{Key: "k2", Fingerprint: "fp1"}); err != nil || replayed {
			t.Fatalf("the hold once k2 was given back: %v (replayed %v)", err, replayed)
		}
	})
}
