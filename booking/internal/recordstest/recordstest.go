// Package recordstest is the contract every records.Port implementation
// passes.
package recordstest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/lease"
	"slotfare/booking/records"
	"slotfare/ledger"
)

var bg = context.Background() // a test suite's call: no request's

var t0 = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

// Run runs the contract on fresh ports from open.
func Run(t *testing.T, open func(t *testing.T) records.Port) {
	t.Run("Versions", func(t *testing.T) { versions(t, open(t)) })
	t.Run("WholeOrNothing", func(t *testing.T) { wholeOrNothing(t, open(t)) })
	t.Run("RetriedWrite", func(t *testing.T) { retried(t, open(t)) })
	t.Run("CommitRacesCancel", func(t *testing.T) { races(t, open(t)) })
	t.Run("AccountPages", func(t *testing.T) { accountPages(t, open(t)) })
	t.Run("LiveAndPostings", func(t *testing.T) { liveAndPostings(t, open(t)) })
	t.Run("WriteOfTwoAccounts", func(t *testing.T) { twoAccounts(t, open(t)) })
	t.Run("BadWrites", func(t *testing.T) { badWrites(t, open(t)) })
	t.Run("BookingWithPostings", func(t *testing.T) { bookingWithPostings(t, open(t)) })
	t.Run("PostingOfAnotherResource", func(t *testing.T) { postingElsewhere(t, open(t)) })
	t.Run("History", func(t *testing.T) { history(t, open(t)) })
	t.Run("HistoryPages", func(t *testing.T) { historyPages(t, open(t)) })
	t.Run("HistoryWrites", func(t *testing.T) { historyWrites(t, open(t)) })
	t.Run("Refusals", func(t *testing.T) { refusals(t, open(t)) })
	t.Run("DemandCounts", func(t *testing.T) { demandCounts(t, open(t)) })
	t.Run("DemandRace", func(t *testing.T) { demandRace(t, open(t)) })
	t.Run("HoldClaims", func(t *testing.T) { holdClaims(t, open(t)) })
	t.Run("HoldClaimsRace", func(t *testing.T) { holdClaimsRace(t, open(t)) })
	t.Run("Changes", func(t *testing.T) { changes(t, open(t)) })
	t.Run("ChangesTrimmed", func(t *testing.T) { changesTrimmed(t, open(t)) })
	t.Run("FencedWrites", func(t *testing.T) { fencedWrites(t, open(t)) })
	t.Run("EventLog", func(t *testing.T) { eventLog(t, open(t)) })
	t.Run("Running", func(t *testing.T) { running(t, open(t)) })
}

// fencedWrites: a write fenced with a lease token older than the newest
// its resource has seen is refused (Fenced) and writes nothing, neither
// record nor posting; an equal or newer token is applied; a retry of an
// applied write answers nil whatever was seen since; a write with no
// fence is never refused; tokens are kept per resource and lease.
func fencedWrites(t *testing.T, p records.Port) {
	holder := func(token int64) lease.Fence { return lease.Fence{Name: "tick:R", Token: token} }
	step := func(id string, f lease.Fence, st booking.Status, replaces int64, posts ...ledger.Posting) records.Write {
		r := rec("bk1", "alice", "R", st, t0)
		return records.Write{Resource: "R", WriteID: id, Fence: f, Changes: []records.Change{{Record: r, Replaces: replaces}}, Postings: posts}
	}
	must(t, p.Apply(bg, step("hold", lease.Fence{}, booking.Held, 0)))
	commit := step("commit", holder(2), booking.Committed, 1, charge(t, "bk1", "alice", "R"))
	must(t, p.Apply(bg, commit))
	stale := step("stale", holder(1), booking.Cancelled, 2, charge(t, "bk1", "alice", "R"))
	stale.Postings[0].ID = "stale-posting"
	err := p.Apply(bg, stale)
	if slotfare.KindOf(err) != slotfare.Fenced {
		t.Fatalf("a write with token 1 after token 2: %v, want Fenced", err)
	}
	st, ps, _, err := p.Booking(bg, "bk1")
	must(t, err)
	if st.Version != 2 || st.Record.Booking.Status != booking.Committed || len(ps) != 1 {
		t.Fatalf("after a refused write: version %d, %s, %d postings", st.Version, st.Record.Booking.Status, len(ps))
	}
	must(t, p.Apply(bg, commit)) // its retry
	must(t, p.Apply(bg, step("same", holder(2), booking.Active, 2)))
	must(t, p.Apply(bg, step("newer", holder(5), booking.Completed, 3)))
	err = p.Apply(bg, step("older", holder(4), booking.Completed, 4))
	if slotfare.KindOf(err) != slotfare.Fenced {
		t.Fatalf("a write with token 4 after token 5: %v, want Fenced", err)
	}
	must(t, p.Apply(bg, step("unfenced", lease.Fence{}, booking.Completed, 4)))
	must(t, p.Apply(bg, records.Write{Resource: "S", WriteID: "other resource", Fence: lease.Fence{Name: "tick:R", Token: 1},
		Changes: []records.Change{{Record: rec("bkS", "alice", "S", booking.Held, t0)}}}))
	must(t, p.Apply(bg, step("other lease", lease.Fence{Name: "other", Token: 1}, booking.Completed, 5)))
	if st := get(t, p, "bk1"); st.Version != 6 {
		t.Fatalf("version %d after 6 writes applied", st.Version)
	}
	err = p.Apply(bg, step("bad", lease.Fence{Name: "tick:R", Token: -1}, booking.Completed, 6))
	if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "fence" {
		t.Fatalf("a negative token: %v, want Invalid on fence", err)
	}
}

func claim(id, account string, ns int64, exp, now time.Time) records.HoldClaim {
	return records.HoldClaim{Resource: "R", Account: account, BookingID: id, Expires: exp, NodeSeconds: ns, MaxHolds: 3, MaxNodeSeconds: 100, Now: now}
}

// holdClaims: an account's holds on a resource count until they lapse,
// are stored as other than held, or are unclaimed; both limits refuse,
// saying what stands in the way; a claim made again (a retry) counts once;
// other accounts and resources count apart.
func holdClaims(t *testing.T, p records.Port) {
	exp := t0.Add(10 * time.Minute)
	try := func(c records.HoldClaim) (bool, []records.Held) {
		t.Helper()
		ok, counted, err := p.ClaimHold(bg, c)
		must(t, err)
		return ok, counted
	}
	for i, ns := range []int64{40, 30} {
		if ok, _ := try(claim(fmt.Sprintf("h%d", i), "alice", ns, exp.Add(time.Duration(i)*time.Minute), t0)); !ok {
			t.Fatalf("claim %d refused", i)
		}
	}
	if ok, _ := try(claim("h1", "alice", 30, exp.Add(time.Minute), t0)); !ok {
		t.Fatal("a retried claim is refused")
	}
	// 70 claimed of 100: 40 more is over, and says which holds count.
	ok, counted := try(claim("h2", "alice", 40, exp, t0))
	if ok || len(counted) != 2 || counted[0].BookingID != "h0" || counted[0].NodeSeconds != 40 || !counted[0].Expires.Equal(exp) || counted[1].BookingID != "h1" {
		t.Fatalf("over the node-seconds: %v %+v", ok, counted)
	}
	if ok, _ := try(claim("h2", "alice", 30, exp, t0)); !ok {
		t.Fatal("30 more within the node-seconds refused")
	}
	if ok, counted := try(claim("h3", "alice", 1, exp, t0)); ok || len(counted) != 3 {
		t.Fatalf("a fourth hold with max_holds 3: %v %+v", ok, counted)
	}
	// Another account, another resource: apart.
	if ok, _ := try(claim("b0", "bob", 100, exp, t0)); !ok {
		t.Fatal("bob's claim refused for alice's holds")
	}
	other := claim("s0", "alice", 100, exp, t0)
	other.Resource = "S"
	if ok, _ := try(other); !ok {
		t.Fatal("alice's claim on S refused for her holds on R")
	}
	// h0 stored committed, h1 unclaimed: two places free.
	held := rec("h0", "alice", "R", booking.Held, t0)
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "h0-held", Changes: []records.Change{{Record: held}}}))
	if ok, counted := try(claim("h3", "alice", 1, exp, t0)); ok || len(counted) != 3 {
		t.Fatalf("a hold stored held still counts: %v %+v", ok, counted)
	}
	committed := held
	committed.Booking.Status = booking.Committed
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "h0-committed", Changes: []records.Change{{Record: committed, Replaces: 1}}}))
	must(t, p.UnclaimHold(bg, "R", "alice", "h1"))
	if ok, _ := try(claim("h3", "alice", 1, exp, t0)); !ok {
		t.Fatal("the committed and the unclaimed hold still count")
	}
	if ok, _ := try(claim("h4", "alice", 1, exp, t0)); !ok {
		t.Fatal("three holds: h2, h3, h4 should fit")
	}
	// At exp, h2, h3 and h4 lapse.
	if ok, counted := try(claim("h5", "alice", 100, exp.Add(time.Hour), exp)); !ok {
		t.Fatalf("lapsed claims still count: %+v", counted)
	}
	for _, bad := range []struct {
		c     records.HoldClaim
		field string
	}{
		{claim("", "alice", 1, exp, t0), "booking_id"},
		{claim("x", "", 1, exp, t0), "account_id"},
		{claim("x", "alice", 1, t0, t0), "hold_expires_at"},
		{claim("x", "alice", 0, exp, t0), "hold_limits"},
	} {
		if _, _, err := p.ClaimHold(bg, bad.c); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != bad.field {
			t.Fatalf("claim %+v: %v, want Invalid on %s", bad.c, err, bad.field)
		}
	}
}

// holdClaimsRace: twenty claims of one account at once, max_holds 3:
// exactly three stand.
func holdClaimsRace(t *testing.T, p records.Port) {
	exp := t0.Add(10 * time.Minute)
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, _, err := p.ClaimHold(bg, claim(fmt.Sprintf("r%d", i), "alice", 1, exp, t0))
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if won != 3 {
		t.Fatalf("%d of 20 racing claims stand with max_holds 3", won)
	}
}

// refusals: stored per resource, once each however often sent, oldest
// first; a refusal on another resource or without a class is refused. A
// write that stores one moves its resource's observations' version on by
// one and answers it; a refused write moves nothing.
func refusals(t *testing.T, p records.Port) {
	f := func(res, class string, at int) booking.RefusalRecord {
		return booking.RefusalRecord{Resource: res, Class: class, Start: t0.Add(time.Hour), End: t0.Add(3 * time.Hour), At: t0.Add(time.Duration(at) * time.Minute)}
	}
	v0 := observed(t, p, "R")
	wantVersion(t, "first refusals", must1(t)(p.Refused(bg, "R", []booking.RefusalRecord{f("R", "budget", 5), f("R", "economy", 1)}, true)), v0+1)
	wantVersion(t, "one sent again, one new", must1(t)(p.Refused(bg, "R", []booking.RefusalRecord{f("R", "budget", 5), f("R", "budget", 3)}, false)), v0+2)
	must1(t)(p.Refused(bg, "S", []booking.RefusalRecord{f("S", "budget", 2)}, false))
	wantVersion(t, "R after refusals on S", observed(t, p, "R"), v0+2)
	got, err := p.Refusals(bg, "R")
	must(t, err)
	var s []string
	for _, x := range got {
		s = append(s, fmt.Sprintf("%s@%d", x.Class, int(x.At.Sub(t0)/time.Minute)))
		if !x.Start.Equal(t0.Add(time.Hour)) || !x.End.Equal(t0.Add(3*time.Hour)) || x.Resource != "R" {
			t.Fatalf("refusal read back as %+v", x)
		}
	}
	if fmt.Sprint(s) != "[economy@1 budget@3 budget@5]" {
		t.Fatalf("refusals on R: %v", s)
	}
	if got, _ := p.Refusals(bg, "T"); len(got) != 0 {
		t.Fatalf("refusals on T: %v", got)
	}
	for _, bad := range []struct {
		f     booking.RefusalRecord
		field string
	}{{f("S", "budget", 1), "resource"}, {f("R", "", 1), "class"}, {booking.RefusalRecord{Resource: "R", Class: "budget", Start: t0, End: t0}, "end"}} {
		if _, err := p.Refused(bg, "R", []booking.RefusalRecord{bad.f}, false); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != bad.field {
			t.Fatalf("refusal %+v: %v, want Invalid on %s", bad.f, err, bad.field)
		}
	}
	if got, _ := p.Refusals(bg, "R"); len(got) != 3 {
		t.Fatalf("a refused write stored something: %d refusals on R", len(got))
	}
	wantVersion(t, "R after refused writes", observed(t, p, "R"), v0+2)
}

func rec(id, account, res string, st booking.Status, created time.Time) booking.Record {
	return booking.Record{Booking: booking.Booking{ID: id, AccountID: account, ResourceID: res, Status: st,
		Start: t0.Add(time.Hour), End: t0.Add(2 * time.Hour), Nodes: 2, FareClass: "premium",
		Price:     booking.Price{Base: decimal.RequireFromString("10"), DelayPremium: decimal.Zero, Total: decimal.RequireFromString("10"), Currency: "GRD"},
		CreatedAt: created, UpdatedAt: created}, Groups: 1}
}

func charge(t *testing.T, id, account, res string) ledger.Posting {
	t.Helper()
	l, err := ledger.New(ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Charge(ledger.BookingRef{ID: id, Customer: account, Resource: res, Currency: "GRD"}, decimal.RequireFromString("10"), t0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, p records.Port, id string) records.Stored {
	t.Helper()
	s, ok, err := p.Get(bg, id)
	if err != nil || !ok {
		t.Fatalf("Get(%s) = %v, %v", id, ok, err)
	}
	return s
}

func wantConflict(t *testing.T, err error, field string) {
	t.Helper()
	if slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != field {
		t.Fatalf("error %v, want a Conflict on %s", err, field)
	}
}

func versions(t *testing.T, p records.Port) {
	held := rec("bk1", "alice", "R", booking.Held, t0)
	// A hold may be acknowledged once queued (NoWait); it is applied all the same.
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "w1", Changes: []records.Change{{Record: held}}, NoWait: true}))
	if s := get(t, p, "bk1"); s.Version != 1 || s.Record.Booking.Status != booking.Held || s.Record.Groups != 1 {
		t.Fatalf("after the hold: %+v", s)
	}
	committed := held
	committed.Booking.Status = booking.Committed
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "w2", Changes: []records.Change{{Record: committed, Replaces: 1}},
		Postings: []ledger.Posting{charge(t, "bk1", "alice", "R")}}))
	if s := get(t, p, "bk1"); s.Version != 2 || s.Record.Booking.Status != booking.Committed || !s.Record.Booking.Price.Total.Equal(decimal.RequireFromString("10")) {
		t.Fatalf("after the commit: %+v", s)
	}
	cancelled := held
	cancelled.Booking.Status = booking.Cancelled
	wantConflict(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "w3", Changes: []records.Change{{Record: cancelled, Replaces: 1}}}), "booking_id")
	wantConflict(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "w4", Changes: []records.Change{{Record: held}}}), "booking_id") // not new
	if _, ok, err := p.Get(bg, "nope"); err != nil || ok {
		t.Fatalf("Get(nope) = %v, %v", ok, err)
	}
}

// wholeOrNothing: a write with one good change and a posting already stored
// writes nothing.
func wholeOrNothing(t *testing.T, p records.Port) {
	a := rec("bkA", "alice", "R", booking.Committed, t0)
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "w1", Changes: []records.Change{{Record: a}}, Postings: []ledger.Posting{charge(t, "bkA", "alice", "R")}}))
	b := rec("bkB", "alice", "R", booking.Committed, t0)
	err := p.Apply(bg, records.Write{Resource: "R", WriteID: "w2", Changes: []records.Change{{Record: b}},
		Postings: []ledger.Posting{charge(t, "bkB", "alice", "R"), charge(t, "bkA", "alice", "R")}})
	wantConflict(t, err, "postings")
	if _, ok, err := p.Get(bg, "bkB"); err != nil || ok {
		t.Fatalf("a refused write stored bkB: %v %v", ok, err)
	}
	ps, err := p.Postings(bg, "alice")
	must(t, err)
	if len(ps) != 1 || ps[0].ID != "bkA/charge" {
		t.Fatalf("postings after a refused write: %v", ps)
	}
	a2 := a
	a2.Booking.Status = booking.Active
	wantConflict(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "w3", Changes: []records.Change{{Record: a2, Replaces: 1}, {Record: b, Replaces: 4}}}), "booking_id")
	if s := get(t, p, "bkA"); s.Version != 1 || s.Record.Booking.Status != booking.Committed {
		t.Fatalf("a refused write moved bkA: %+v", s)
	}
}

// retried: the same write sent again after it was applied is nil and
// changes nothing.
func retried(t *testing.T, p records.Port) {
	w := records.Write{Resource: "R", WriteID: "once", Changes: []records.Change{{Record: rec("bk1", "alice", "R", booking.Committed, t0)}},
		Postings: []ledger.Posting{charge(t, "bk1", "alice", "R")}}
	must(t, p.Apply(bg, w))
	must(t, p.Apply(bg, w))
	if s := get(t, p, "bk1"); s.Version != 1 {
		t.Fatalf("a retried write bumped the version: %+v", s)
	}
	ps, err := p.Postings(bg, "alice")
	must(t, err)
	if len(ps) != 1 {
		t.Fatalf("a retried write posted %d times", len(ps))
	}
}

// races: replicas changing one booking from the same version, one wins.
func races(t *testing.T, p records.Port) {
	base := rec("bk1", "alice", "R", booking.Held, t0)
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "hold", Changes: []records.Change{{Record: base}}}))
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := map[booking.Status]int{}
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := base
			w := records.Write{Resource: "R", WriteID: fmt.Sprintf("r%d", i)}
			if i%2 == 0 {
				r.Booking.Status = booking.Committed
				w.Postings = []ledger.Posting{charge(t, "bk1", "alice", "R")}
			} else {
				r.Booking.Status = booking.Cancelled
			}
			w.Changes = []records.Change{{Record: r, Replaces: 1}}
			err := p.Apply(bg, w)
			if err != nil && slotfare.KindOf(err) != slotfare.Conflict {
				t.Error(err)
			}
			if err == nil {
				mu.Lock()
				won[r.Booking.Status]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if won[booking.Committed]+won[booking.Cancelled] != 1 {
		t.Fatalf("%v won the race for one booking", won)
	}
	s := get(t, p, "bk1")
	ps, err := p.Postings(bg, "alice")
	must(t, err)
	if s.Version != 2 || (s.Record.Booking.Status == booking.Committed) != (len(ps) == 1) || len(ps) > 1 {
		t.Fatalf("after the race: %+v with %d postings", s, len(ps))
	}
}

// accountPages: pages in (created_at, id) order, no repeat or skip, later
// bookings on later pages.
func accountPages(t *testing.T, p records.Port) {
	created := []int{5, 1, 3, 1, 9, 2, 7}
	for i, c := range created {
		r := rec(fmt.Sprintf("bk%d", i), "alice", []string{"R", "S"}[i%2], booking.Held, t0.Add(time.Duration(c)*time.Minute))
		must(t, p.Apply(bg, records.Write{Resource: r.Booking.ResourceID, WriteID: "w" + r.Booking.ID, Changes: []records.Change{{Record: r}}}))
	}
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "bob", Changes: []records.Change{{Record: rec("bkX", "bob", "R", booking.Held, t0)}}}))
	var got []string
	after := ""
	for page := 0; ; page++ {
		ps, next, err := p.OfAccount(bg, "alice", after, 2)
		must(t, err)
		for _, s := range ps {
			got = append(got, s.Record.Booking.ID)
		}
		if page == 0 {
			r := rec("bkLate", "alice", "S", booking.Held, t0.Add(time.Hour))
			must(t, p.Apply(bg, records.Write{Resource: "S", WriteID: "late", Changes: []records.Change{{Record: r}}}))
		}
		if next == "" {
			break
		}
		after = next
	}
	want := "[bk1 bk3 bk5 bk2 bk0 bk6 bk4 bkLate]"
	if fmt.Sprint(got) != want {
		t.Fatalf("pages gave %v, want %s", got, want)
	}
	if _, _, err := p.OfAccount(bg, "alice", "", 0); slotfare.KindOf(err) != slotfare.Invalid {
		t.Fatalf("limit 0: %v", err)
	}
}

func liveAndPostings(t *testing.T, p records.Port) {
	for i, st := range []booking.Status{booking.Held, booking.Committed, booking.Active, booking.Cancelled, booking.Expired, booking.Completed} {
		r := rec(fmt.Sprintf("bk%d", i), "alice", "R", st, t0)
		w := records.Write{Resource: "R", WriteID: "w" + r.Booking.ID, Changes: []records.Change{{Record: r}}}
		if st != booking.Held && st != booking.Expired {
			w.Postings = []ledger.Posting{charge(t, r.Booking.ID, "alice", "R")}
		}
		must(t, p.Apply(bg, w))
	}
	must(t, p.Apply(bg, records.Write{Resource: "S", WriteID: "s", Changes: []records.Change{{Record: rec("bkS", "bob", "S", booking.Held, t0)}},
		Postings: []ledger.Posting{charge(t, "bkS", "bob", "S")}}))
	live, err := p.Live(bg, "R")
	must(t, err)
	var ids []string
	for _, s := range live {
		ids = append(ids, s.Record.Booking.ID)
	}
	if fmt.Sprint(ids) != "[bk0 bk1 bk2]" {
		t.Fatalf("live on R: %v", ids)
	}
	// A booking that stops holding leaves the live set.
	done := rec("bk2", "alice", "R", booking.Completed, t0)
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "done", Changes: []records.Change{{Record: done, Replaces: 1}}}))
	if live, _ := p.Live(bg, "R"); len(live) != 2 {
		t.Fatalf("live after a completion: %d", len(live))
	}
	ps, err := p.Postings(bg, "alice")
	must(t, err)
	var pids []string
	for _, x := range ps {
		pids = append(pids, x.ID)
	}
	if fmt.Sprint(pids) != "[bk1/charge bk2/charge bk3/charge bk5/charge]" {
		t.Fatalf("alice's postings: %v", pids)
	}
	if ps, _ := p.Postings(bg, "bob"); len(ps) != 1 || !ps[0].Lines[0].Amount.Equal(decimal.RequireFromString("10")) {
		t.Fatalf("bob's postings: %v", ps)
	}
	// By resource: R's side of the ledger holds alice's charges, not bob's.
	for res, want := range map[string]string{"R": "[bk1/charge bk2/charge bk3/charge bk5/charge]", "S": "[bkS/charge]", "T": "[]"} {
		ps, err := p.ResourcePostings(bg, res)
		must(t, err)
		var ids []string
		for _, x := range ps {
			ids = append(ids, x.ID)
		}
		if got := fmt.Sprint(ids); got != want {
			t.Fatalf("postings on %s: %s, want %s", res, got, want)
		}
	}
	// A compensation, of no booking, is on its resource too; a posting of
	// another resource has no place in the write.
	comp := charge(t, "bkC", "carol", "T")
	comp.BookingID = ""
	if err := p.Apply(bg, records.Write{Resource: "R", WriteID: "elsewhere", Postings: []ledger.Posting{comp}}); slotfare.KindOf(err) != slotfare.Invalid {
		t.Fatalf("a posting on T in a write on R: %v", err)
	}
	must(t, p.Apply(bg, records.Write{Resource: "T", WriteID: "comp", Postings: []ledger.Posting{comp}}))
	if ps, _ := p.ResourcePostings(bg, "T"); len(ps) != 1 || ps[0].ID != comp.ID {
		t.Fatalf("postings on T after a posting of no booking: %v", ps)
	}
}

func badWrites(t *testing.T, p records.Port) {
	r := rec("bk1", "alice", "R", booking.Held, t0)
	for _, c := range []struct {
		w     records.Write
		field string
	}{
		{records.Write{WriteID: "w", Changes: []records.Change{{Record: r}}}, "resource"},
		{records.Write{Resource: "R", Changes: []records.Change{{Record: r}}}, "write_id"},
		{records.Write{Resource: "S", WriteID: "w", Changes: []records.Change{{Record: r}}}, "resource_id"},
		{records.Write{Resource: "R", WriteID: "w", Changes: []records.Change{{Record: r}, {Record: r}}}, "booking_id"},
		{records.Write{Resource: "R", WriteID: "w"}, "changes"},
		{records.Write{Resource: "R", WriteID: "w", Changes: []records.Change{{Record: r}}, Postings: []ledger.Posting{charge(t, "bk1", "alice", "R")}, NoWait: true}, "no_wait"},
	} {
		if err := p.Apply(bg, c.w); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != c.field {
			t.Fatalf("%+v: %v, want Invalid on %s", c.w, err, c.field)
		}
	}
	if _, ok, _ := p.Get(bg, "bk1"); ok {
		t.Fatal("a refused write stored something")
	}
}

// rebuild is booking id read with its postings and a ledger replayed from
// them alone: the state a replica decides money from.
func rebuild(t *testing.T, p records.Port, id string) (records.Stored, []ledger.Posting, *ledger.Ledger) {
	t.Helper()
	s, ps, ok, err := p.Booking(bg, id)
	if err != nil || !ok {
		t.Fatalf("Booking(%s) = %v, %v", id, ok, err)
	}
	l, err := ledger.New(ledger.Options{})
	must(t, err)
	must(t, l.Replay(bg, ps))
	return s, ps, l
}

func postingIDs(ps []ledger.Posting) string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return fmt.Sprint(ids)
}

// twoAccounts: one write that changes bookings of two accounts and posts
// to both is read under each account (its booking, its posting), and by id;
// its retry adds nothing.
func twoAccounts(t *testing.T, p records.Port) {
	w := records.Write{Resource: "R", WriteID: "two", Changes: []records.Change{
		{Record: rec("bkA", "alice", "R", booking.Committed, t0)}, {Record: rec("bkB", "bob", "R", booking.Committed, t0)}},
		Postings: []ledger.Posting{charge(t, "bkA", "alice", "R"), charge(t, "bkB", "bob", "R")}}
	for range 2 {
		must(t, p.Apply(bg, w))
	}
	for acct, id := range map[string]string{"alice": "bkA", "bob": "bkB"} {
		page, _, err := p.OfAccount(bg, acct, "", 10)
		must(t, err)
		if len(page) != 1 || page[0].Record.Booking.ID != id {
			t.Fatalf("%s's bookings: %+v", acct, page)
		}
		ps, err := p.Postings(bg, acct)
		must(t, err)
		if got := postingIDs(ps); got != "["+id+"/charge]" {
			t.Fatalf("%s's postings: %s", acct, got)
		}
		if st, found, err := p.Get(bg, id); err != nil || !found || st.Record.Booking.AccountID != acct {
			t.Fatalf("%s by id: %+v %v %v", id, st, found, err)
		}
	}
}

// bookingWithPostings: Booking reads a record with exactly its own
// postings, in the order they were stored, whatever else the writes
// carried; a retried write shows its postings once, a refused one none;
// and the ledger replayed from them decides as the one that made them.
func bookingWithPostings(t *testing.T, p records.Port) {
	if s, ps, ok, err := p.Booking(bg, "nope"); err != nil || ok || ps != nil || s.Version != 0 {
		t.Fatalf("Booking(nope) = %+v, %v, %v, %v", s, ps, ok, err)
	}
	one, two := rec("bk1", "alice", "R", booking.Held, t0), rec("bk2", "alice", "R", booking.Held, t0)
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "holds", Changes: []records.Change{{Record: one}, {Record: two}}}))
	if s, ps, ok, err := p.Booking(bg, "bk1"); err != nil || !ok || s.Version != 1 || len(ps) != 0 {
		t.Fatalf("a hold read with its postings: %+v, %v, %v, %v", s, ps, ok, err)
	}
	// One write commits both bookings of R; bob's booking on S is
	// charged too. None of these may show under another booking.
	maker, err := ledger.New(ledger.Options{})
	must(t, err)
	var both []ledger.Posting
	for _, id := range []string{"bk1", "bk2"} {
		c, err := maker.Charge(ledger.BookingRef{ID: id, Customer: "alice", Resource: "R", Currency: "GRD"}, decimal.RequireFromString("10"), t0)
		must(t, err)
		both = append(both, c)
	}
	commit := func(r booking.Record) booking.Record { r.Booking.Status = booking.Committed; return r }
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "commits", Changes: []records.Change{{Record: commit(one), Replaces: 1}, {Record: commit(two), Replaces: 1}}, Postings: both}))
	pend, err := maker.Prepare(both...)
	must(t, err)
	must(t, pend.Commit())
	must(t, p.Apply(bg, records.Write{Resource: "S", WriteID: "bob", Changes: []records.Change{{Record: rec("bkS", "bob", "S", booking.Committed, t0)}},
		Postings: []ledger.Posting{charge(t, "bkS", "bob", "S")}}))

	// bk1 is re-priced from the ledger rebuilt from its stored postings.
	s, ps, l := rebuild(t, p, "bk1")
	if s.Version != 2 || postingIDs(ps) != "[bk1/charge]" {
		t.Fatalf("bk1 after the commits: version %d, postings %s", s.Version, postingIDs(ps))
	}
	rp, err := l.Modification("bk1", decimal.RequireFromString("14"), "GRD", decimal.Zero, t0.Add(time.Minute))
	must(t, err)
	if len(rp.Postings) != 1 || !rp.Previous.Equal(decimal.RequireFromString("10")) {
		t.Fatalf("re-pricing from the stored postings: %+v", rp)
	}
	modified := commit(one)
	modified.Booking.Nodes = 3
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "modify", Changes: []records.Change{{Record: modified, Replaces: s.Version}}, Postings: rp.Postings}))

	// The cancellation is decided from the stored postings: it refunds
	// the charge and the adjustment, 14 in all.
	s, ps, l = rebuild(t, p, "bk1")
	if s.Version != 3 || s.Record.Booking.Nodes != 3 || postingIDs(ps) != "[bk1/charge bk1/adjustment/1]" {
		t.Fatalf("bk1 after the modification: version %d, nodes %d, postings %s", s.Version, s.Record.Booking.Nodes, postingIDs(ps))
	}
	set, err := l.Cancellation("bk1", decimal.RequireFromString("0.25"), t0.Add(2*time.Minute))
	must(t, err)
	if !set.Charged.Equal(decimal.RequireFromString("14")) || len(set.Postings) == 0 {
		t.Fatalf("cancellation from the stored postings: %+v", set)
	}
	cancelled := modified
	cancelled.Booking.Status = booking.Cancelled
	// Refused: from a version that has moved, and with a posting already
	// stored. Neither shows.
	wantConflict(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "stale", Changes: []records.Change{{Record: cancelled, Replaces: 2}}, Postings: set.Postings}), "booking_id")
	wantConflict(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "twice", Changes: []records.Change{{Record: cancelled, Replaces: 3}},
		Postings: append(append([]ledger.Posting(nil), set.Postings...), both[0])}), "postings")
	if s, ps, _ := rebuild(t, p, "bk1"); s.Version != 3 || postingIDs(ps) != "[bk1/charge bk1/adjustment/1]" {
		t.Fatalf("refused writes showed: version %d, postings %s", s.Version, postingIDs(ps))
	}
	// Applied, then retried: its postings show once, after the others.
	w := records.Write{Resource: "R", WriteID: "cancel", Changes: []records.Change{{Record: cancelled, Replaces: 3}}, Postings: set.Postings}
	must(t, p.Apply(bg, w))
	must(t, p.Apply(bg, w))
	s, ps, l = rebuild(t, p, "bk1")
	want := append([]ledger.Posting{both[0]}, rp.Postings...)
	want = append(want, set.Postings...)
	if s.Version != 4 || s.Record.Booking.Status != booking.Cancelled || postingIDs(ps) != postingIDs(want) {
		t.Fatalf("bk1 after its cancellation and a retry: version %d, postings %s, want %s", s.Version, postingIDs(ps), postingIDs(want))
	}
	for i := range ps {
		if !ps[i].Time.Equal(want[i].Time) || ps[i].Kind != want[i].Kind || len(ps[i].Lines) != len(want[i].Lines) ||
			!ps[i].Lines[0].Amount.Equal(want[i].Lines[0].Amount) {
			t.Fatalf("posting %d read back as %+v, stored %+v", i, ps[i], want[i])
		}
	}
	if _, err := l.NoShow("bk1", decimal.RequireFromString("0.5"), t0.Add(3*time.Minute)); slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("a no-show of a booking settled in the store: %v", err)
	}

	// Nothing leaked into the other bookings.
	if _, ps, _ := rebuild(t, p, "bk2"); postingIDs(ps) != "[bk2/charge]" {
		t.Fatalf("bk2's postings: %s", postingIDs(ps))
	}
	if _, ps, _ := rebuild(t, p, "bkS"); postingIDs(ps) != "[bkS/charge]" || ps[0].Customer != "bob" {
		t.Fatalf("bkS's postings: %s", postingIDs(ps))
	}
}

// postingElsewhere: a posting of a booking is stored with that booking, on
// its resource, so a write on another resource may not carry it.
func postingElsewhere(t *testing.T, p records.Port) {
	err := p.Apply(bg, records.Write{Resource: "S", WriteID: "w", Changes: []records.Change{{Record: rec("bkS", "alice", "S", booking.Held, t0)}},
		Postings: []ledger.Posting{charge(t, "bk1", "alice", "R")}})
	if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "postings" {
		t.Fatalf("a posting of a booking on R in a write on S: %v", err)
	}
	if _, ps, ok, err := p.Booking(bg, "bkS"); err != nil || ok || len(ps) != 0 {
		t.Fatalf("the refused write stored bkS: %v %v %v", ok, ps, err)
	}
}

// readHistory is every booking of resource read through History in pages
// of limit, checking each page as it comes: never longer than limit, full
// unless it is the last, its next the ListKey of its last booking, and the
// keys strictly increasing across pages (no repeat, no step back).
func readHistory(t *testing.T, p records.Port, resource string, limit int) []records.Stored {
	t.Helper()
	var all []records.Stored
	after := ""
	for pages := 0; ; pages++ {
		if pages > 10000 {
			t.Fatalf("History(%s, limit %d) never ends", resource, limit)
		}
		page, next, err := p.History(bg, resource, after, limit)
		must(t, err)
		if len(page) > limit || (next != "" && len(page) != limit) {
			t.Fatalf("History(%s, after %q, limit %d): a page of %d, next %q", resource, after, limit, len(page), next)
		}
		for _, st := range page {
			if k := records.ListKey(st.Record); k <= after {
				t.Fatalf("History(%s, limit %d): %s after %s", resource, limit, k, after)
			} else {
				after = k
			}
			all = append(all, st)
		}
		if next == "" {
			return all
		}
		if next != after {
			t.Fatalf("History(%s, limit %d): next %q, the page ends at %q", resource, limit, next, after)
		}
	}
}

func historyIDs(ss []records.Stored) string {
	ids := make([]string, len(ss))
	for i, s := range ss {
		ids[i] = s.Record.Booking.ID
	}
	return fmt.Sprint(ids)
}

// history: every booking of a resource, whatever its status and account,
// in (created_at, id) order with its current record; another resource's
// bookings never show; a booking created later than the page read shows
// on a later page.
func history(t *testing.T, p records.Port) {
	if page, next, err := p.History(bg, "R", "", 5); err != nil || len(page) != 0 || next != "" {
		t.Fatalf("History of an empty resource: %v, %q, %v", page, next, err)
	}
	statuses := []booking.Status{booking.Held, booking.Committed, booking.Active, booking.Cancelled, booking.Expired, booking.Completed, booking.NoShow}
	created := []int{5, 1, 3, 1, 9, 2, 7}
	for i, c := range created {
		r := rec(fmt.Sprintf("bk%d", i), []string{"alice", "bob"}[i%2], "R", statuses[i], t0.Add(time.Duration(c)*time.Minute))
		w := records.Write{Resource: "R", WriteID: "w" + r.Booking.ID, Changes: []records.Change{{Record: r}}}
		if statuses[i] != booking.Held && statuses[i] != booking.Expired {
			w.Postings = []ledger.Posting{charge(t, r.Booking.ID, r.Booking.AccountID, "R")}
		}
		must(t, p.Apply(bg, w))
		// The same ids and times on S, and a booking of its own there.
		o := rec(fmt.Sprintf("bkS%d", i), "alice", "S", booking.Committed, t0.Add(time.Duration(c)*time.Minute))
		must(t, p.Apply(bg, records.Write{Resource: "S", WriteID: "s" + r.Booking.ID, Changes: []records.Change{{Record: o}}}))
	}
	want := "[bk1 bk3 bk5 bk2 bk0 bk6 bk4]"
	for _, limit := range []int{1, 2, 3, 7, 100} {
		if got := readHistory(t, p, "R", limit); historyIDs(got) != want {
			t.Fatalf("History of R by %d: %s, want %s", limit, historyIDs(got), want)
		}
	}
	got := readHistory(t, p, "R", 4)
	for _, s := range got {
		i := int(s.Record.Booking.ID[2] - '0')
		if s.Version != 1 || s.Record.Booking.Status != statuses[i] || s.Record.Booking.ResourceID != "R" || s.Record.Groups != 1 {
			t.Fatalf("History gave %s as %+v, stored at version 1 as %s", s.Record.Booking.ID, s, statuses[i])
		}
	}
	if n := len(readHistory(t, p, "S", 3)); n != len(created) {
		t.Fatalf("History of S has %d bookings, want %d", n, len(created))
	}
	if page, next, err := p.History(bg, "T", "", 3); err != nil || len(page) != 0 || next != "" {
		t.Fatalf("History of a resource with no bookings: %v, %q, %v", page, next, err)
	}

	// Paging on while a booking is made: it comes after the page read.
	page, next, err := p.History(bg, "R", "", 3)
	must(t, err)
	if historyIDs(page) != "[bk1 bk3 bk5]" || next != records.ListKey(page[2].Record) {
		t.Fatalf("the first page of 3: %s, next %q", historyIDs(page), next)
	}
	late := rec("bkLate", "carol", "R", booking.Held, t0.Add(time.Hour))
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "late", Changes: []records.Change{{Record: late}}}))
	var rest []records.Stored
	for next != "" {
		page, next, err = p.History(bg, "R", next, 3)
		must(t, err)
		rest = append(rest, page...)
	}
	if historyIDs(rest) != "[bk2 bk0 bk6 bk4 bkLate]" {
		t.Fatalf("the pages after the first: %s", historyIDs(rest))
	}
	// after is a key, not necessarily one stored: the page starts at the
	// first booking past it.
	mid := records.ListKey(rec("bk25", "x", "R", booking.Held, t0.Add(2*time.Minute)))
	if page, _, err := p.History(bg, "R", mid, 2); err != nil || historyIDs(page) != "[bk5 bk2]" {
		t.Fatalf("History after %s: %s, %v", mid, historyIDs(page), err)
	}
	for _, limit := range []int{0, -1} {
		if _, _, err := p.History(bg, "R", "", limit); slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "limit" {
			t.Fatalf("History with limit %d: %v", limit, err)
		}
	}
}

// historyPages: many bookings, several in one second (ordered by id
// there), written in a scrambled order, read back whole and in order by
// every small limit.
func historyPages(t *testing.T, p records.Port) {
	const n = 61
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("bk%03d", i))
	}
	for k := range n {
		i := (k * 17) % n // a permutation of 0..n-1, as n is prime
		// Three bookings a second; within a second the id decides.
		r := rec(want[i], "alice", "R", booking.Held, t0.Add(time.Duration(i/3)*time.Second))
		must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "w" + want[i], Changes: []records.Change{{Record: r}}}))
	}
	for _, limit := range []int{1, 2, 3, 5, 60, 61, 62} {
		if got := historyIDs(readHistory(t, p, "R", limit)); got != fmt.Sprint(want) {
			t.Fatalf("History by %d: %s", limit, got)
		}
	}
	page, next, err := p.History(bg, "R", "", n)
	must(t, err)
	if len(page) != n || next != "" {
		t.Fatalf("one page of exactly all: %d, next %q", len(page), next)
	}
}

// historyWrites: the history follows what writes store. A booking shows
// once however often it changes and however often a write is retried; a
// refused write shows nothing; a change of created_at moves the booking,
// never doubles it.
func historyWrites(t *testing.T, p records.Port) {
	r := rec("bk1", "alice", "R", booking.Held, t0)
	hold := records.Write{Resource: "R", WriteID: "hold", Changes: []records.Change{{Record: r}}}
	must(t, p.Apply(bg, hold))
	must(t, p.Apply(bg, hold))
	for _, st := range []booking.Status{booking.Committed, booking.Active, booking.Completed} {
		r.Booking.Status = st
		w := records.Write{Resource: "R", WriteID: "to-" + string(st), Changes: []records.Change{{Record: r, Replaces: get(t, p, "bk1").Version}}}
		if st == booking.Committed {
			w.Postings = []ledger.Posting{charge(t, "bk1", "alice", "R")}
		}
		must(t, p.Apply(bg, w))
		must(t, p.Apply(bg, w)) // a retry
	}
	got := readHistory(t, p, "R", 1)
	if historyIDs(got) != "[bk1]" || got[0].Version != 4 || got[0].Record.Booking.Status != booking.Completed {
		t.Fatalf("one booking held, committed, started, completed, each write sent twice: %s, %+v", historyIDs(got), got)
	}

	// Refused: a new booking beside a change from a moved version; a new
	// booking beside a posting already stored; a new booking that is not
	// new; and bad input.
	two := rec("bk2", "bob", "R", booking.Held, t0.Add(-time.Minute))
	wantConflict(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "moved", Changes: []records.Change{{Record: two}, {Record: r, Replaces: 1}}}), "booking_id")
	wantConflict(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "posted", Changes: []records.Change{{Record: two}},
		Postings: []ledger.Posting{charge(t, "bk1", "alice", "R")}}), "postings")
	earlier := r
	earlier.Booking.CreatedAt = t0.Add(-time.Hour)
	wantConflict(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "anew", Changes: []records.Change{{Record: earlier}}}), "booking_id")
	if err := p.Apply(bg, records.Write{Resource: "R", WriteID: "bad", Changes: []records.Change{{Record: two}, {Record: two}}}); slotfare.KindOf(err) != slotfare.Invalid {
		t.Fatalf("a write changing bk2 twice: %v", err)
	}
	if got := readHistory(t, p, "R", 2); historyIDs(got) != "[bk1]" || !got[0].Record.Booking.CreatedAt.Equal(t0) {
		t.Fatalf("after refused writes: %s, %+v", historyIDs(got), got)
	}

	// bk2 stored, then its created_at moved past bk1: one entry, in its
	// new place.
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "two", Changes: []records.Change{{Record: two}}}))
	if got := historyIDs(readHistory(t, p, "R", 1)); got != "[bk2 bk1]" {
		t.Fatalf("bk2 made a minute before bk1: %s", got)
	}
	moved := two
	moved.Booking.CreatedAt = t0.Add(time.Minute)
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "move", Changes: []records.Change{{Record: moved, Replaces: 1}}}))
	got = readHistory(t, p, "R", 1)
	if historyIDs(got) != "[bk1 bk2]" || !got[1].Record.Booking.CreatedAt.Equal(moved.Booking.CreatedAt) || got[1].Version != 2 {
		t.Fatalf("bk2 moved a minute after bk1: %s, %+v", historyIDs(got), got)
	}
	// Postings alone (no change) add nothing to the history, even of a
	// booking not stored.
	must(t, p.Apply(bg, records.Write{Resource: "R", WriteID: "fee", Postings: []ledger.Posting{charge(t, "bk9", "alice", "R")}}))
	if got := historyIDs(readHistory(t, p, "R", 5)); got != "[bk1 bk2]" {
		t.Fatalf("after a write of postings alone: %s", got)
	}
}
