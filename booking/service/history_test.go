package service_test

import (
	"context"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"

	"slotfare/booking"
	"slotfare/booking/apikey"
	"slotfare/booking/catalog"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/booking/embedded"
	"slotfare/booking/lease"
	"slotfare/booking/records"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
	"slotfare/booking/service"
	"slotfare/overbook"
	"slotfare/pricing"
)

// countingRecords counts the bookings the history and the change log
// answer: what a replica reads to keep booking control up to the records.
type countingRecords struct {
	*embedded.Records
	read atomic.Int64
}

func (c *countingRecords) History(ctx context.Context, resource, after string, limit int) ([]records.Stored, string, error) {
	page, next, err := c.Records.History(ctx, resource, after, limit)
	c.read.Add(int64(len(page)))
	return page, next, err
}

func (c *countingRecords) Changes(ctx context.Context, resource string, after int64, limit int) (records.ChangePage, error) {
	page, err := c.Records.Changes(ctx, resource, after, limit)
	c.read.Add(int64(len(page.Bookings)))
	return page, err
}

// historyPorts are shared ports for the history tests and how many reads
// of stored bookings they have answered so far: bookings through the
// records port in process, HMGETs (one a record, History's and Changes's
// alike) on Redis.
type historyPorts struct {
	name string
	make func(t *testing.T) (*service.Ports, func() int64)
}

var historyKinds = []historyPorts{
	{"memory", func(t *testing.T) (*service.Ports, func() int64) {
		inv, inner, keys := inProcess(t)
		recs := &countingRecords{Records: inner}
		return &service.Ports{Inventory: inv, Records: recs, Idem: keys,
			Lease: lease.NewMemory(), Catalog: catalog.NewMemory(), Keys: apikey.NewMemory()}, recs.read.Load
	}},
	{"redis", func(t *testing.T) (*service.Ports, func() int64) {
		rdb := redistest.Start(t)
		p := redisPorts(rdb)
		p.Lease = lease.NewMemory() // leases expire on the test's clock, not Redis's
		return p, func() int64 { return redisCalls(t, rdb, "hmget") }
	}},
}

// redisCalls is how many times command ran on rdb's server, scripts' calls
// included.
func redisCalls(t *testing.T, rdb *redis.Client, command string) int64 {
	t.Helper()
	info, err := rdb.Info(bg, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	u, err := redisstore.ParseUsage(info)
	if err != nil {
		t.Fatal(err)
	}
	return u.Calls[command]
}

// storeHistory stores n settled bookings of resource H over the 60 days
// before t0, as replicas gone before would have: nine in ten completed,
// the rest no-shows and paid cancellations.
func storeHistory(t *testing.T, p records.Port, n int) {
	t.Helper()
	classes := []string{pricing.ClassPremium, pricing.ClassBusiness, pricing.ClassBudget}
	from, step := t0.AddDate(0, 0, -60), 60*24*time.Hour/time.Duration(n)
	pen, ref := decimal.RequireFromString("0.5"), decimal.RequireFromString("1")
	const batch = 500
	for lo := 0; lo < n; lo += batch {
		w := records.Write{Resource: "H", WriteID: fmt.Sprintf("history-%d", lo)}
		for i := lo; i < min(lo+batch, n); i++ {
			start := from.Add(time.Duration(i) * step).Truncate(time.Minute)
			b := booking.Booking{ID: fmt.Sprintf("h%06d", i), AccountID: "alice", ResourceID: "H", FareClass: classes[i%3],
				Nodes: 1 + i%3, Start: start, End: start.Add(time.Hour), CreatedAt: start.Add(-time.Hour), UpdatedAt: start,
				Status: booking.Completed, Price: booking.Price{Base: ref, DelayPremium: decimal.Zero, Total: ref, Currency: "GRD"}}
			switch i % 10 {
			case 0:
				b.Status = booking.NoShow
			case 1:
				b.Status, b.Penalty, b.Refund = booking.Cancelled, &pen, &ref
			}
			w.Changes = append(w.Changes, records.Change{Record: booking.Record{Booking: b, Groups: 1}})
		}
		if err := p.Apply(bg, w); err != nil {
			t.Fatal(err)
		}
	}
}

// historyConfig is resource H, 8 nodes, overbooked by the probability
// policy: its limit moves with the show rate the history gives.
func historyConfig() config.Config {
	rc := resourceConfig("H", 8, config.OverbookingConfig{Policy: overbook.Probability, Denial: overbook.DCF})
	return testConfig(rc)
}

// TestHistoryRefreshReadsWhatChanged: the replica holding a resource's
// ticker lease brings its booking control up to the records every minute
// by reading what changed since, not the whole history, and so does the
// replica that takes the lease over: with 5,000 and with 50,000 bookings
// stored, the refresh after another replica booked, modified and
// cancelled a few, and the takeover after the holder stopped, read the
// same few records.
func TestHistoryRefreshReadsWhatChanged(t *testing.T) {
	for _, kind := range historyKinds {
		t.Run(kind.name, func(t *testing.T) {
			reads, takeover := map[int]int64{}, map[int]int64{}
			for _, n := range []int{5000, 50000} {
				ports, read := kind.make(t)
				storeHistory(t, ports.Records, n)
				rs := newReplicasOn(t, 2, historyConfig(), ports)
				holder, other := rs.svcs[0], rs.svcs[1] // the first open takes the lease
				changeElsewhere(t, other, t0.Add(2*time.Hour))
				now := t0.Add(time.Minute)
				rs.clk.Set(now)
				before, began := read(), time.Now()
				if err := holder.Tick(now); err != nil {
					t.Fatal(err)
				}
				took := time.Since(began)
				reads[n] = read() - before
				t.Logf("%s, %d bookings stored: the refreshing tick read %d records in %s", kind.name, n, reads[n], took.Round(time.Millisecond))

				now = now.Add(6 * time.Second) // the holder stopped: its lease (5 s) ran out
				rs.clk.Set(now)
				before, began = read(), time.Now()
				if err := other.Tick(now); err != nil { // takes the lease over
					t.Fatal(err)
				}
				took = time.Since(began)
				takeover[n] = read() - before
				t.Logf("%s, %d bookings stored: the tick taking the lease over read %d records in %s", kind.name, n, takeover[n], took.Round(time.Millisecond))
			}
			if reads[50000] != reads[5000] || reads[5000] > 40 {
				t.Errorf("a refresh read %d records with 5,000 bookings stored and %d with 50,000; want the same few (the bookings changed)", reads[5000], reads[50000])
			}
			if takeover[50000] != takeover[5000] || takeover[5000] > 40 {
				t.Errorf("a takeover read %d records with 5,000 bookings stored and %d with 50,000; want the same few (the bookings changed since the heir opened)", takeover[5000], takeover[50000])
			}
		})
	}
}

// newReplicasOn opens n replicas on ports, at t0.
func newReplicasOn(t *testing.T, n int, cfg config.Config, ports *service.Ports) *replicas {
	return newReplicas(t, n, cfg, func(*testing.T) *service.Ports { return ports })
}

// changeElsewhere books on s (a replica not holding the lease) what the
// holder has to take in: three bookings committed from start on, one of
// them modified and one cancelled, and a hold left held. It answers the
// committed bookings.
func changeElsewhere(t *testing.T, s *service.Service, start time.Time) []booking.Booking {
	t.Helper()
	var out []booking.Booking
	for i := range 3 {
		st := start.Add(time.Duration(i) * time.Hour)
		b := must[booking.Booking](t)(holdOn(s, bob, "H", st, 1+i))
		out = append(out, must[booking.Booking](t)(s.Commit(bg, bob, b.ID)))
	}
	nodes := 3
	out[0] = must[booking.Booking](t)(s.Modify(bg, bob, out[0].ID, booking.ModifyRequest{Nodes: &nodes}))
	must[booking.Booking](t)(s.Cancel(bg, bob, out[1].ID))
	must[booking.Booking](t)(holdOn(s, alice, "H", start, 1))
	return out
}

func holdOn(s *service.Service, p booking.Principal, res string, start time.Time, nodes int) (booking.Booking, error) {
	b, _, err := s.Hold(bg, p, booking.HoldRequest{ResourceID: res, Start: start, End: start.Add(time.Hour), Nodes: nodes, FareClass: pricing.ClassPremium}, booking.Idempotency{})
	return b, err
}

// TestHistoryRefreshEqualsReplay: what the holder's booking control comes
// to by refreshing every minute, while other replicas book, modify and
// cancel and the holder's ticker settles their bookings as no-shows, is
// what a replica replaying the whole history at that moment computes: the
// same limits, show rates and protection levels in every period; and so
// is what the replica taking the lease over comes to from what changed
// since it opened.
func TestHistoryRefreshEqualsReplay(t *testing.T) {
	for _, kind := range historyKinds {
		t.Run(kind.name, func(t *testing.T) {
			ports, _ := kind.make(t)
			storeHistory(t, ports.Records, 2000)
			rs := newReplicasOn(t, 2, historyConfig(), ports)
			holder, other := rs.svcs[0], rs.svcs[1]
			now := t0
			for round := range 6 {
				start := t0.Add(time.Duration(1+round) * time.Hour)
				changeElsewhere(t, other, start)
				b := must[booking.Booking](t)(holdOn(holder, alice, "H", start.Add(30*time.Minute), 1))
				must[booking.Booking](t)(holder.Commit(bg, alice, b.ID))
				for range 4 { // ticks a quarter apart: each refreshes, one settles the hour's no-shows
					now = now.Add(15 * time.Minute)
					rs.clk.Set(now)
					if err := holder.Tick(now); err != nil {
						t.Fatal(err)
					}
				}
			}
			if p := must[booking.Page[booking.Booking]](t)(other.List(bg, bob, booking.ListQuery{Status: booking.NoShow})); len(p.Data) < 6 {
				t.Fatalf("%d of bob's bookings became no-shows; the test wants them settled by the holder", len(p.Data))
			}
			fresh, err := service.Open(historyConfig(), *ports, service.Options{Now: rs.clk.Now})
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			from, to := t0.AddDate(0, 0, -14), t0.AddDate(0, 0, 7)
			got := must[control.LimitsReport](t)(holder.Limits(bg, provider, "H", from, to))
			want := must[control.LimitsReport](t)(fresh.Limits(bg, provider, "H", from, to))
			if !reflect.DeepEqual(got, want) {
				for i := range want.Periods {
					if !reflect.DeepEqual(got.Periods[i], want.Periods[i]) {
						t.Fatalf("period instance %d: the holder has %+v, a replay %+v", i, got.Periods[i], want.Periods[i])
					}
				}
				t.Fatalf("the holder's limits differ from a replay's")
			}
			if l := want.Periods[0]; l.Source != "forecast" || l.OverbookingLimit <= 8 {
				t.Fatalf("the replay's limits %+v: want them from the forecast and overbooked, so that the comparison means something", l)
			}
			// The holder stops; the other replica takes the lease over from
			// what changed since it opened.
			now = now.Add(6 * time.Second) // past the holder's lease (5 s)
			rs.clk.Set(now)
			if err := other.Tick(now); err != nil {
				t.Fatal(err)
			}
			again, err := service.Open(historyConfig(), *ports, service.Options{Now: rs.clk.Now})
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			want = must[control.LimitsReport](t)(again.Limits(bg, provider, "H", from, to))
			if heir := must[control.LimitsReport](t)(other.Limits(bg, provider, "H", from, to)); !reflect.DeepEqual(heir, want) {
				t.Fatalf("the heir's limits differ from a replay's")
			}
		})
	}
}

// observationReads counts the reads of the stored observations (refusals
// and demand records) the replicas make through a records port.
type observationReads struct {
	*embedded.Records
	refusals, demand atomic.Int64
}

func (o *observationReads) Refusals(ctx context.Context, resource string) ([]booking.RefusalRecord, error) {
	o.refusals.Add(1)
	return o.Records.Refusals(ctx, resource)
}

func (o *observationReads) Demand(ctx context.Context, resource string, since time.Time) ([]booking.DemandRecord, error) {
	o.demand.Add(1)
	return o.Records.Demand(ctx, resource, since)
}

// TestRefreshReadsObservationsAnotherReplicaStored: the lease holder's
// refresh reads the stored refusals and demand records again only when
// another replica stored some since it took them in; its own writes, which
// its booking control counted as it made them, make it read nothing, so a
// replica alone on its store never reads them after the first refresh.
// After the other replica flushes its demand, one refresh reads them once.
func TestRefreshReadsObservationsAnotherReplicaStored(t *testing.T) {
	inv, inner, keys := inProcess(t)
	recs := &observationReads{Records: inner}
	ports := &service.Ports{Inventory: inv, Records: recs, Idem: keys,
		Lease: lease.NewMemory(), Catalog: catalog.NewMemory(), Keys: apikey.NewMemory()}
	rs := newReplicasOn(t, 2, historyConfig(), ports)
	holder, other := rs.svcs[0], rs.svcs[1]
	query := func(s *service.Service, at time.Time) {
		t.Helper()
		d, n := int64(3600), 1
		must[[]booking.Offer](t)(s.Offers(bg, alice, booking.OfferQuery{ResourceID: "H", EarliestStart: at.Add(2 * time.Hour),
			LatestEnd: at.Add(4 * time.Hour), DurationSeconds: &d, Nodes: &n, FareClass: pricing.ClassBudget}))
	}
	now := t0
	tickAfter := func(s *service.Service, d time.Duration) {
		t.Helper()
		now = now.Add(d)
		rs.clk.Set(now)
		if err := s.Tick(now); err != nil {
			t.Fatal(err)
		}
	}
	tick := func(s *service.Service) { tickAfter(s, time.Minute) } // a refresh a minute (historyRefresh)
	reads := func() [2]int64 { return [2]int64{recs.refusals.Load(), recs.demand.Load()} }
	tick(holder) // the first refresh since it opened reads them
	first := reads()
	for range 5 {
		query(holder, now)
		tick(holder) // flushes its demand, then refreshes
	}
	if got := reads(); got != first {
		t.Fatalf("the holder alone read the observations again: %v reads of (refusals, demand), %v after its first refresh", got, first)
	}
	offered := func() int64 {
		var n int64
		for _, r := range must[[]booking.DemandRecord](t)(inner.Demand(bg, "H", time.Time{})) { // not counted
			n += r.Counts.Offered.Requests
		}
		return n
	}
	mine := offered()
	query(other, now)
	tickAfter(other, time.Second) // within the holder's lease: it stores its demand
	if offered() <= mine {
		t.Fatalf("the other replica's query was not stored: %d offered requests, %d before", offered(), mine)
	}
	tick(holder)
	if got, want := reads(), [2]int64{first[0] + 1, first[1] + 1}; got != want {
		t.Fatalf("after the other replica stored its demand: %v reads of (refusals, demand), want %v", got, want)
	}
	tick(holder)
	if got, want := reads(), [2]int64{first[0] + 1, first[1] + 1}; got != want {
		t.Fatalf("a second refresh read them again: %v, want %v", got, want)
	}
}
