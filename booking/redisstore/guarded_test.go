package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/idem"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/booking/records"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
	"slotfare/ledger"
)

func guardedRec(id string, st booking.Status) booking.Record {
	t0 := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	return booking.Record{Booking: booking.Booking{ID: id, AccountID: "alice", ResourceID: "R", Status: st,
		Start: t0.Add(time.Hour), End: t0.Add(2 * time.Hour), Nodes: 2, FareClass: "premium",
		Price:     booking.Price{Base: decimal.RequireFromString("10"), DelayPremium: decimal.Zero, Total: decimal.RequireFromString("10"), Currency: "GRD"},
		CreatedAt: t0, UpdatedAt: t0}, Groups: 1}
}

// TestGuardedStepsAreWholeOrNothing: an admission and the write of the
// hold it admits happen together or not at all (no capacity: nothing
// stored; a write that finds its booking moved: nothing admitted), a
// retried step answers as the first, and a commit checked against lowered
// limits writes nothing. A stored write is indexed by the same call (its
// booking found by id, its posting on the account), a refused one nowhere:
// on one server the index rides in the step's pipeline, guarded by the
// write's marker; on a cluster it is a second round trip.
func TestGuardedStepsAreWholeOrNothing(t *testing.T) {
	onEachDeployment(t, guardedWholeOrNothing)
}

func guardedWholeOrNothing(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	inv, recs := laidOut(t, rdb, "g", 1, 3)
	terms := inventory.Terms{Start: 100, End: 200, Nodes: 2}
	hold := func(id, wid string) records.Write {
		return records.Write{Resource: "R", WriteID: wid, Changes: []records.Change{{Record: guardedRec(id, booking.Held)}}}
	}
	now := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	claim := func(id string, maxHolds int) records.HoldClaim {
		return records.HoldClaim{Resource: "R", Account: "alice", BookingID: id, Expires: now.Add(10 * time.Minute),
			NodeSeconds: 7200, MaxHolds: maxHolds, MaxNodeSeconds: 1 << 40, Now: now}
	}
	admit := func(id string, t inventory.Terms, w records.Write, maxHolds int) error {
		ok, counted, err := recs.AdmitApply(ctx, "R", id, 1, t, w, claim(id, maxHolds))
		if err == nil && !ok {
			return fmt.Errorf("over the hold limits: %v", counted)
		}
		return err
	}
	if err := admit("b1", terms, hold("b1", "w1"), 5); err != nil {
		t.Fatal(err)
	}
	if err := admit("b1", terms, hold("b1", "w1"), 5); err != nil {
		t.Fatalf("the same step again: %v", err)
	}
	// Over the account's hold limits (b1 holds its one place): nothing.
	ok, counted, err := recs.AdmitApply(ctx, "R", "b0", 1, inventory.Terms{Start: 300, End: 400, Nodes: 1}, hold("b0", "w0"), claim("b0", 1))
	if err != nil || ok || len(counted) != 1 || counted[0].BookingID != "b1" {
		t.Fatalf("a hold past the account's one hold: ok %v, counted %v, %v", ok, counted, err)
	}
	if _, found, _ := inv.Get(ctx, "R", "b0"); found {
		t.Fatal("a hold over the limits is held on the inventory")
	}
	if st, found, err := recs.Get(ctx, "b1"); err != nil || !found || st.Version != 1 {
		t.Fatalf("b1 after its hold: %+v %v %v", st, found, err)
	}
	if mine, _, err := recs.OfAccount(ctx, "alice", "", 10); err != nil || len(mine) != 1 || mine[0].Record.Booking.ID != "b1" {
		t.Fatalf("alice's bookings after b1's hold: %+v, %v", mine, err)
	}
	if n, err := rdb.Exists(ctx, "g:{bk:b0}:res").Result(); err != nil || n != 0 {
		t.Fatalf("a hold over the limits points at its resource: %d, %v", n, err)
	}
	// No room for b2: neither admitted nor stored.
	err = admit("b2", terms, hold("b2", "w2"), 5)
	if slotfare.KindOf(err) != slotfare.NoCapacity {
		t.Fatalf("b2 over a full interval: %v", err)
	}
	if _, found, _ := inv.Get(ctx, "R", "b2"); found {
		t.Fatal("a refused hold is held on the inventory")
	}
	if live, _ := recs.Live(ctx, "R"); len(live) != 1 {
		t.Fatalf("live after a refused hold: %d records", len(live))
	}
	if _, found, err := recs.Get(ctx, "b2"); err != nil || found {
		t.Fatalf("a refused hold is found by id: %v, %v", found, err)
	}
	if mine, _, err := recs.OfAccount(ctx, "alice", "", 10); err != nil || len(mine) != 1 {
		t.Fatalf("a refused hold is indexed on its account: %+v, %v", mine, err)
	}
	// A fenced write (a lease holder's) is no request's step: nothing.
	fenced := hold("b3", "w4")
	fenced.Fence = lease.Fence{Name: "tick:R", Token: 1}
	err = admit("b3", inventory.Terms{Start: 300, End: 400, Nodes: 1}, fenced, 5)
	if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "fence" {
		t.Fatalf("a guarded step with a fence: %v", err)
	}
	if _, found, _ := inv.Get(ctx, "R", "b3"); found {
		t.Fatal("a refused guarded step with a fence is held on the inventory")
	}
	// b1 written again as new (its version moved): nothing admitted.
	err = admit("b1x", inventory.Terms{Start: 300, End: 400, Nodes: 1},
		records.Write{Resource: "R", WriteID: "w3", Changes: []records.Change{{Record: guardedRec("b1", booking.Held)}}}, 5)
	if slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("a write over a moved booking: %v", err)
	}
	if _, found, _ := inv.Get(ctx, "R", "b1x"); found {
		t.Fatal("the admission of a refused write was kept")
	}
	// The limit lowered under b1: its commit is refused and writes nothing.
	if err := inv.SetCapacity(ctx, "R", lease.Fence{}, 0, 150, 160, 1); err != nil {
		t.Fatal(err)
	}
	l, err := ledger.New(ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	charge, err := l.Charge(ledger.BookingRef{ID: "b1", Customer: "alice", Resource: "R", Currency: "GRD"}, decimal.RequireFromString("10"), now)
	if err != nil {
		t.Fatal(err)
	}
	commit := records.Write{Resource: "R", WriteID: "w4", Changes: []records.Change{{Record: guardedRec("b1", booking.Committed), Replaces: 1}},
		Postings: []ledger.Posting{charge}}
	within, err := recs.WithinApply(ctx, "R", "b1", commit)
	if err != nil || within {
		t.Fatalf("commit past a lowered limit: within %v, %v", within, err)
	}
	if ps, err := recs.Postings(ctx, "alice"); err != nil || len(ps) != 0 {
		t.Fatalf("a refused commit's charge is on the account: %+v, %v", ps, err)
	}
	if st, _, _ := recs.Get(ctx, "b1"); st.Version != 1 || st.Record.Booking.Status != booking.Held {
		t.Fatalf("a refused commit wrote: %+v", st)
	}
	if err := inv.SetCapacity(ctx, "R", lease.Fence{}, 0, 150, 160, 3); err != nil {
		t.Fatal(err)
	}
	if within, err = recs.WithinApply(ctx, "R", "b1", commit); err != nil || !within {
		t.Fatalf("commit within the limits: %v, %v", within, err)
	}
	if st, _, _ := recs.Get(ctx, "b1"); st.Version != 2 || st.Record.Booking.Status != booking.Committed {
		t.Fatalf("commit not written: %+v", st)
	}
	// Sent again (a retry): answered as stored, indexed once.
	if within, err = recs.WithinApply(ctx, "R", "b1", commit); err != nil || !within {
		t.Fatalf("the same commit again: %v, %v", within, err)
	}
	if ps, err := recs.Postings(ctx, "alice"); err != nil || len(ps) != 1 || ps[0].ID != charge.ID {
		t.Fatalf("alice's postings after the commit: %+v, %v", ps, err)
	}
	if _, err := recs.WithinApply(ctx, "R", "nobody", records.Write{Resource: "R", WriteID: "w5",
		Changes: []records.Change{{Record: guardedRec("nobody", booking.Committed)}}}); slotfare.KindOf(err) != slotfare.NotFound {
		t.Fatalf("commit of a booking the inventory does not hold: %v", err)
	}
}

// TestDueIndexesWhenTheTickerMustLook: a hold is due at its expiry (or
// its start, if sooner), a committed booking at its start, an active one at
// its end, and a booking that stops holding capacity leaves the index in
// the write that says so.
func TestDueIndexesWhenTheTickerMustLook(t *testing.T) {
	rdb := redistest.Start(t)
	ctx := context.Background()
	recs := redisstore.NewRecords(rdb, "d")
	held := guardedRec("h", booking.Held)
	exp := held.Booking.Start.Add(-30 * time.Minute)
	held.Booking.HoldExpiresAt = &exp
	committed := guardedRec("c", booking.Committed)
	committed.Booking.Start = held.Booking.Start.Add(time.Hour)
	active := guardedRec("a", booking.Active)
	active.Booking.End = held.Booking.Start.Add(3 * time.Hour)
	cancelled := guardedRec("x", booking.Held)
	w := records.Write{Resource: "R", WriteID: "w1", Changes: []records.Change{{Record: held}, {Record: committed}, {Record: active}, {Record: cancelled}}}
	if err := recs.Apply(ctx, w); err != nil {
		t.Fatal(err)
	}
	cancelled.Booking.Status = booking.Cancelled
	if err := recs.Apply(ctx, records.Write{Resource: "R", WriteID: "w2", Changes: []records.Change{{Record: cancelled, Replaces: 1}}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		until time.Time
		want  string
	}{
		{exp.Add(-time.Second), ""},
		{exp, "h"},
		{committed.Booking.Start, "c h"},
		{active.Booking.End, "a c h"},
	} {
		sts, err := recs.Due(ctx, "R", c.until)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, st := range sts {
			ids = append(ids, st.Record.Booking.ID)
		}
		if got := strings.Join(ids, " "); got != c.want {
			t.Fatalf("due by %s: %q, want %q", c.until, got, c.want)
		}
	}
}

// TestGuardedHoldFoldsItsKey: on one server a hold's guarded step claims
// and finishes its Idempotency-Key with the hold; the same request again
// (another booking id) names the first booking and holds nothing, another
// request with the key is a Conflict, and a key another request claimed on
// the idem port stops the step unless the write says it is its own.
func TestGuardedHoldFoldsItsKey(t *testing.T) {
	rdb := redistest.Start(t)
	ctx := context.Background()
	inv, recs, keys := redisstore.NewInventory(rdb, "k"), redisstore.NewRecords(rdb, "k"), redisstore.NewKeys(rdb, "k")
	if !recs.FoldsKeys() {
		t.Fatal("one server does not fold keys")
	}
	if err := inv.Ensure(ctx, "R", 1, 10); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	hold := func(id, key, fp string, claimed bool) error {
		r := guardedRec(id, booking.Held)
		r.Account, r.IdemKey, r.Fingerprint = "alice", key, fp
		w := records.Write{Resource: "R", WriteID: "w-" + id, Changes: []records.Change{{Record: r}}, KeyTTL: time.Hour, KeyClaimed: claimed}
		c := records.HoldClaim{Resource: "R", Account: "alice", BookingID: id, Expires: now.Add(10 * time.Minute),
			NodeSeconds: 1, MaxHolds: 100, MaxNodeSeconds: 1 << 40, Now: now}
		ok, counted, err := recs.AdmitApply(ctx, "R", id, 1, inventory.Terms{Start: 100, End: 200, Nodes: 1}, w, c)
		if err == nil && !ok {
			return fmt.Errorf("over the hold limits: %v", counted)
		}
		return err
	}
	held := func(id string) bool {
		t.Helper()
		_, found, err := inv.Get(ctx, "R", id)
		if err != nil {
			t.Fatal(err)
		}
		return found
	}
	if err := hold("b1", "k1", "fp1", false); err != nil {
		t.Fatal(err)
	}
	if c, err := keys.Claim(ctx, "alice", "k1", "fp1", time.Minute, now); err != nil || c.State != idem.Done || c.Result != "b1" {
		t.Fatalf("the key after its hold: %+v, %v", c, err)
	}
	var done *records.KeyDone
	if err := hold("b2", "k1", "fp1", false); !errors.As(err, &done) || done.Booking != "b1" || held("b2") {
		t.Fatalf("the same request again: %v (b2 held: %v)", err, held("b2"))
	}
	if err := hold("b3", "k1", "fp2", false); slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "Idempotency-Key" || held("b3") {
		t.Fatalf("another request with the key: %v", err)
	}
	// k2 claimed on the idem port by another request, still running.
	if c, err := keys.Claim(ctx, "alice", "k2", "fp1", time.Minute, now); err != nil || c.State != idem.Claimed {
		t.Fatalf("claiming k2: %+v, %v", c, err)
	}
	if err := hold("b4", "k2", "fp1", false); !errors.Is(err, records.ErrKeyPending) || held("b4") {
		t.Fatalf("a key another request holds: %v", err)
	}
	if err := hold("b5", "k2", "fp1", true); err != nil || !held("b5") {
		t.Fatalf("the key's own claimer: %v", err)
	}
	if c, err := keys.Claim(ctx, "alice", "k2", "fp1", time.Minute, now); err != nil || c.State != idem.Done || c.Result != "b5" {
		t.Fatalf("k2 after its claimer's hold: %+v, %v", c, err)
	}
	if redisstore.NewRecords(redistest.StartCluster(t), "k").FoldsKeys() {
		t.Fatal("a cluster folds keys: the key's slot may be on another master")
	}
}

// TestGuardedStepsGetTheirGroups: a guarded step is given the keys of the
// groups its booking occupies only. A commit whose record says fewer
// groups than the hold occupies still checks every one of them (its step
// answers KEYS and runs again with all), and a hold on every group of the
// layout is admitted on each.
func TestGuardedStepsGetTheirGroups(t *testing.T) {
	onEachDeployment(t, guardedGroups)
}

func guardedGroups(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	inv, recs := laidOut(t, rdb, "gg", 3, 3)
	now := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	hold := func(id string, groups int, terms inventory.Terms) {
		t.Helper()
		rec := guardedRec(id, booking.Held)
		rec.Groups = groups
		w := records.Write{Resource: "R", WriteID: "h" + id, Changes: []records.Change{{Record: rec}}}
		c := records.HoldClaim{Resource: "R", Account: "alice", BookingID: id, Expires: now.Add(10 * time.Minute),
			NodeSeconds: 1, MaxHolds: 10, MaxNodeSeconds: 1 << 40, Now: now}
		if ok, _, err := recs.AdmitApply(ctx, "R", id, groups, terms, w, c); err != nil || !ok {
			t.Fatalf("hold %s on %d groups: %v %v", id, groups, ok, err)
		}
	}
	hold("b1", 2, inventory.Terms{Start: 100, End: 200, Nodes: 2})
	hold("b3", 3, inventory.Terms{Start: 300, End: 400, Nodes: 1})
	for g, want := range []int{2, 2, 2} {
		prof, err := inv.Profile(ctx, "R", g, 300, 400)
		if err != nil || len(prof) == 0 || prof[0].Free != want {
			t.Fatalf("group %d under b3 (on all 3 groups): %+v, %v; want %d free", g, prof, err, want)
		}
	}
	commit := func(groups int) (bool, error) {
		rec := guardedRec("b1", booking.Committed)
		rec.Groups = groups
		return recs.WithinApply(ctx, "R", "b1", records.Write{Resource: "R", WriteID: fmt.Sprint("c", groups),
			Changes: []records.Change{{Record: rec, Replaces: 1}}})
	}
	// Group 1's limit lowered under b1: refused, whatever its record says.
	if err := inv.SetCapacity(ctx, "R", lease.Fence{}, 1, 150, 160, 1); err != nil {
		t.Fatal(err)
	}
	for _, groups := range []int{1, 2, 0} {
		if within, err := commit(groups); err != nil || within {
			t.Fatalf("commit of b1 (record of %d groups) past group 1's lowered limit: within %v, %v", groups, within, err)
		}
	}
	if err := inv.SetCapacity(ctx, "R", lease.Fence{}, 1, 150, 160, 3); err != nil {
		t.Fatal(err)
	}
	if within, err := commit(1); err != nil || !within {
		t.Fatalf("commit of b1 within the limits, its record of 1 group: %v, %v", within, err)
	}
	if st, _, _ := recs.Get(ctx, "b1"); st.Version != 2 || st.Record.Booking.Status != booking.Committed {
		t.Fatalf("commit not written: %+v", st)
	}
}
