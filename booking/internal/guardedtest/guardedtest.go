// Package guardedtest is the contract of the guarded steps of a records
// port that keeps the inventory too (AdmitApply, WithinApply; ReplaceApply
// is replacetest's): each is one step, all of it or nothing. Every
// implementation passes it (Redis: one function of the library; embedded:
// the process's inventory beside its records).
package guardedtest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/idem"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/booking/records"
	"slotfare/ledger"
)

// Guarded are the steps under test.
type Guarded interface {
	AdmitApply(ctx context.Context, res, id string, groups int, t inventory.Terms, w records.Write, c records.HoldClaim) (bool, []records.Held, error)
	WithinApply(ctx context.Context, res, id string, w records.Write) (bool, error)
}

// Ports are what the contract runs on: an inventory with no resource "R"
// yet, the records, and the guarded steps over both.
type Ports struct {
	Inventory inventory.Port
	Records   records.Port
	Guarded   Guarded
	// Idem are the Idempotency-Keys that Guarded's hold step claims.
	Idem idem.Port
	// Traced, if set, reports whether the store keeps any trace of
	// booking id (an index entry, say) beyond what Records answers.
	Traced func(t *testing.T, id string) bool
}

var bg = context.Background() // a test suite's call: no request's

// Run runs the contract on fresh ports from open.
func Run(t *testing.T, open func(t *testing.T) Ports) {
	t.Run("WholeOrNothing", func(t *testing.T) { wholeOrNothing(t, open(t)) })
	t.Run("Groups", func(t *testing.T) { groups(t, open(t)) })
	t.Run("Orphans", func(t *testing.T) { orphans(t, open(t)) })
	t.Run("Keys", func(t *testing.T) { keys(t, open(t)) })
	t.Run("KeysRefused", func(t *testing.T) { keysRefused(t, open(t)) })
}

// Rec is booking id's record on resource R with status st, over one group.
func Rec(id string, st booking.Status) booking.Record {
	t0 := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	return booking.Record{Booking: booking.Booking{ID: id, AccountID: "alice", ResourceID: "R", Status: st,
		Start: t0.Add(time.Hour), End: t0.Add(2 * time.Hour), Nodes: 2, FareClass: "premium",
		Price:     booking.Price{Base: decimal.RequireFromString("10"), DelayPremium: decimal.Zero, Total: decimal.RequireFromString("10"), Currency: "GRD"},
		CreatedAt: t0, UpdatedAt: t0}, Groups: 1}
}

var now = time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)

// claim is hold id's claim on alice's hold limits of maxHolds holds.
func claim(id string, maxHolds int) records.HoldClaim {
	return records.HoldClaim{Resource: "R", Account: "alice", BookingID: id, Expires: now.Add(10 * time.Minute),
		NodeSeconds: 7200, MaxHolds: maxHolds, MaxNodeSeconds: 1 << 40, Now: now}
}

// wholeOrNothing: an admission and the write of the hold it admits happen
// together or not at all (no capacity: nothing stored; a write that finds
// its booking moved: nothing admitted), a retried step answers as the
// first, and a commit checked against lowered limits writes nothing. A
// stored write is indexed by the same call (its booking found by id, its
// posting on the account), a refused one nowhere.
func wholeOrNothing(t *testing.T, p Ports) {
	must(t, p.Inventory.Ensure(bg, "R", 1, 3))
	terms := inventory.Terms{Start: 100, End: 200, Nodes: 2}
	hold := func(id, wid string) records.Write {
		return records.Write{Resource: "R", WriteID: wid, Changes: []records.Change{{Record: Rec(id, booking.Held)}}}
	}
	admit := func(id string, t inventory.Terms, w records.Write, maxHolds int) error {
		ok, counted, err := p.Guarded.AdmitApply(bg, "R", id, 1, t, w, claim(id, maxHolds))
		if err == nil && !ok {
			return fmt.Errorf("over the hold limits: %v", counted)
		}
		return err
	}
	must(t, admit("b1", terms, hold("b1", "w1"), 5))
	if err := admit("b1", terms, hold("b1", "w1"), 5); err != nil {
		t.Fatalf("the same step again: %v", err)
	}
	// Over the account's hold limits (b1 holds its one place): nothing.
	ok, counted, err := p.Guarded.AdmitApply(bg, "R", "b0", 1, inventory.Terms{Start: 300, End: 400, Nodes: 1}, hold("b0", "w0"), claim("b0", 1))
	if err != nil || ok || len(counted) != 1 || counted[0].BookingID != "b1" {
		t.Fatalf("a hold past the account's one hold: ok %v, counted %v, %v", ok, counted, err)
	}
	nowhere(t, p, "b0")
	if st, found, err := p.Records.Get(bg, "b1"); err != nil || !found || st.Version != 1 {
		t.Fatalf("b1 after its hold: %+v %v %v", st, found, err)
	}
	if mine, _, err := p.Records.OfAccount(bg, "alice", "", 10); err != nil || len(mine) != 1 || mine[0].Record.Booking.ID != "b1" {
		t.Fatalf("alice's bookings after b1's hold: %+v, %v", mine, err)
	}
	// No room for b2: neither admitted nor stored, and its claim given back.
	if err := admit("b2", terms, hold("b2", "w2"), 5); slotfare.KindOf(err) != slotfare.NoCapacity {
		t.Fatalf("b2 over a full interval: %v", err)
	}
	nowhere(t, p, "b2")
	if live, _ := p.Records.Live(bg, "R"); len(live) != 1 {
		t.Fatalf("live after a refused hold: %d records", len(live))
	}
	if mine, _, err := p.Records.OfAccount(bg, "alice", "", 10); err != nil || len(mine) != 1 {
		t.Fatalf("a refused hold is indexed on its account: %+v, %v", mine, err)
	}
	// A fenced write (a lease holder's) is no request's step: nothing.
	fenced := hold("b3", "w4")
	fenced.Fence = lease.Fence{Name: "tick:R", Token: 1}
	err = admit("b3", inventory.Terms{Start: 300, End: 400, Nodes: 1}, fenced, 5)
	if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "fence" {
		t.Fatalf("a guarded step with a fence: %v", err)
	}
	nowhere(t, p, "b3")
	// b1 written again as new (its version moved): nothing admitted, and
	// the claim given back (b1x alone may hold: b1 holds its one place).
	err = admit("b1x", inventory.Terms{Start: 300, End: 400, Nodes: 1},
		records.Write{Resource: "R", WriteID: "w3", Changes: []records.Change{{Record: Rec("b1", booking.Held)}}}, 5)
	if slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("a write over a moved booking: %v", err)
	}
	nowhere(t, p, "b1x")
	if ok, counted, err := p.Guarded.AdmitApply(bg, "R", "b4", 1, inventory.Terms{Start: 300, End: 400, Nodes: 1}, hold("b4", "w6"), claim("b4", 2)); err != nil || !ok {
		t.Fatalf("a second hold where the refused ones gave their claims back: %v %v %v", ok, counted, err)
	}
	commits(t, p)
}

// commits: the limit lowered under b1 refuses its commit, which writes
// nothing; raised again, the commit is stored, and a retry answers as
// stored.
func commits(t *testing.T, p Ports) {
	must(t, p.Inventory.SetCapacity(bg, "R", lease.Fence{}, 0, 150, 160, 1))
	l, err := ledger.New(ledger.Options{})
	must(t, err)
	charge, err := l.Charge(ledger.BookingRef{ID: "b1", Customer: "alice", Resource: "R", Currency: "GRD"}, decimal.RequireFromString("10"), now)
	must(t, err)
	commit := records.Write{Resource: "R", WriteID: "w5", Changes: []records.Change{{Record: Rec("b1", booking.Committed), Replaces: 1}},
		Postings: []ledger.Posting{charge}}
	within, err := p.Guarded.WithinApply(bg, "R", "b1", commit)
	if err != nil || within {
		t.Fatalf("commit past a lowered limit: within %v, %v", within, err)
	}
	if ps, err := p.Records.Postings(bg, "alice"); err != nil || len(ps) != 0 {
		t.Fatalf("a refused commit's charge is on the account: %+v, %v", ps, err)
	}
	if st, _, _ := p.Records.Get(bg, "b1"); st.Version != 1 || st.Record.Booking.Status != booking.Held {
		t.Fatalf("a refused commit wrote: %+v", st)
	}
	must(t, p.Inventory.SetCapacity(bg, "R", lease.Fence{}, 0, 150, 160, 3))
	if within, err = p.Guarded.WithinApply(bg, "R", "b1", commit); err != nil || !within {
		t.Fatalf("commit within the limits: %v, %v", within, err)
	}
	if st, _, _ := p.Records.Get(bg, "b1"); st.Version != 2 || st.Record.Booking.Status != booking.Committed {
		t.Fatalf("commit not written: %+v", st)
	}
	// Sent again (a retry): answered as stored, indexed once.
	if within, err = p.Guarded.WithinApply(bg, "R", "b1", commit); err != nil || !within {
		t.Fatalf("the same commit again: %v, %v", within, err)
	}
	if ps, err := p.Records.Postings(bg, "alice"); err != nil || len(ps) != 1 || ps[0].ID != charge.ID {
		t.Fatalf("alice's postings after the commit: %+v, %v", ps, err)
	}
	if _, err := p.Guarded.WithinApply(bg, "R", "nobody", records.Write{Resource: "R", WriteID: "w7",
		Changes: []records.Change{{Record: Rec("nobody", booking.Committed)}}}); slotfare.KindOf(err) != slotfare.NotFound {
		t.Fatalf("commit of a booking the inventory does not hold: %v", err)
	}
	if _, found, err := p.Records.Get(bg, "nobody"); err != nil || found {
		t.Fatalf("the commit of a booking not held is stored: %v %v", found, err)
	}
}

// nowhere checks that a refused step left booking id nowhere: not held,
// not stored, no trace.
func nowhere(t *testing.T, p Ports, id string) {
	t.Helper()
	if _, found, err := p.Inventory.Get(bg, "R", id); err != nil || found {
		t.Fatalf("refused %s is held on the inventory: %v %v", id, found, err)
	}
	if _, found, err := p.Records.Get(bg, id); err != nil || found {
		t.Fatalf("refused %s is found by id: %v %v", id, found, err)
	}
	if p.Traced != nil && p.Traced(t, id) {
		t.Fatalf("refused %s left a trace in the store", id)
	}
}

// groups: a hold is admitted on each group it occupies, and a commit is
// checked on every group its hold occupies, whatever its record says.
func groups(t *testing.T, p Ports) {
	must(t, p.Inventory.Ensure(bg, "R", 3, 3))
	hold := func(id string, groups int, terms inventory.Terms) {
		t.Helper()
		rec := Rec(id, booking.Held)
		rec.Groups = groups
		w := records.Write{Resource: "R", WriteID: "h" + id, Changes: []records.Change{{Record: rec}}}
		c := claim(id, 10)
		if ok, _, err := p.Guarded.AdmitApply(bg, "R", id, groups, terms, w, c); err != nil || !ok {
			t.Fatalf("hold %s on %d groups: %v %v", id, groups, ok, err)
		}
	}
	hold("b1", 2, inventory.Terms{Start: 100, End: 200, Nodes: 2})
	hold("b3", 3, inventory.Terms{Start: 300, End: 400, Nodes: 1})
	for g, want := range []int{2, 2, 2} {
		prof, err := p.Inventory.Profile(bg, "R", g, 300, 400)
		if err != nil || len(prof) == 0 || prof[0].Free != want {
			t.Fatalf("group %d under b3 (on all 3 groups): %+v, %v; want %d free", g, prof, err, want)
		}
	}
	commit := func(groups int) (bool, error) {
		rec := Rec("b1", booking.Committed)
		rec.Groups = groups
		return p.Guarded.WithinApply(bg, "R", "b1", records.Write{Resource: "R", WriteID: fmt.Sprint("c", groups),
			Changes: []records.Change{{Record: rec, Replaces: 1}}})
	}
	// Group 1's limit lowered under b1: refused, whatever its record says.
	must(t, p.Inventory.SetCapacity(bg, "R", lease.Fence{}, 1, 150, 160, 1))
	for _, groups := range []int{1, 2, 0} {
		if within, err := commit(groups); err != nil || within {
			t.Fatalf("commit of b1 (record of %d groups) past group 1's lowered limit: within %v, %v", groups, within, err)
		}
	}
	must(t, p.Inventory.SetCapacity(bg, "R", lease.Fence{}, 1, 150, 160, 3))
	if within, err := commit(1); err != nil || !within {
		t.Fatalf("commit of b1 within the limits, its record of 1 group: %v, %v", within, err)
	}
	if st, _, _ := p.Records.Get(bg, "b1"); st.Version != 2 || st.Record.Booking.Status != booking.Committed {
		t.Fatalf("commit not written: %+v", st)
	}
}

// orphans: a booking stored as no longer holding whose release never came
// (its change stored, the release lost) is released by the inventory's
// ReleaseOrphans, with its nodes sold again; a booking still held stays,
// and a second pass finds none.
func orphans(t *testing.T, p Ports) {
	must(t, p.Inventory.Ensure(bg, "R", 1, 2))
	terms := inventory.Terms{Start: 100, End: 200, Nodes: 1}
	for _, id := range []string{"b1", "b2"} {
		w := records.Write{Resource: "R", WriteID: "h" + id, Changes: []records.Change{{Record: Rec(id, booking.Held)}}}
		if ok, _, err := p.Guarded.AdmitApply(bg, "R", id, 1, terms, w, claim(id, 10)); err != nil || !ok {
			t.Fatalf("hold %s: %v %v", id, ok, err)
		}
	}
	if got, err := p.Inventory.ReleaseOrphans(bg, "R"); err != nil || len(got) != 0 {
		t.Fatalf("orphans among live holds: %v, %v", got, err)
	}
	must(t, p.Records.Apply(bg, records.Write{Resource: "R", WriteID: "x1",
		Changes: []records.Change{{Record: Rec("b1", booking.Cancelled), Replaces: 1, From: booking.Held}}}))
	if err := p.Inventory.Admit(bg, "R", "b3", 1, terms); slotfare.KindOf(err) != slotfare.NoCapacity {
		t.Fatalf("b3 admitted while b1's node is still held: %v", err)
	}
	if got, err := p.Inventory.ReleaseOrphans(bg, "R"); err != nil || fmt.Sprint(got) != "[b1]" {
		t.Fatalf("orphans released: %v, %v; want [b1]", got, err)
	}
	for id, want := range map[string]bool{"b1": false, "b2": true} {
		if _, found, err := p.Inventory.Get(bg, "R", id); err != nil || found != want {
			t.Fatalf("%s held %v after the release (%v), want %v", id, found, err, want)
		}
	}
	must(t, p.Inventory.Admit(bg, "R", "b3", 1, terms))
	must(t, p.Inventory.Release(bg, "R", "b3")) // admitted on the inventory alone
	if got, err := p.Inventory.ReleaseOrphans(bg, "R"); err != nil || len(got) != 0 {
		t.Fatalf("second pass: %v, %v; want none", got, err)
	}
}

// keyedHold is AdmitApply of hold id (1 node over terms t, its claim of
// maxHolds) carrying Idempotency-Key key with fingerprint fp, its write
// named after id.
func keyedHold(p Ports, id, key, fp string, t inventory.Terms, maxHolds int) error {
	r := Rec(id, booking.Held)
	r.Account, r.IdemKey, r.Fingerprint = "alice", key, fp
	w := records.Write{Resource: "R", WriteID: "h" + id, Changes: []records.Change{{Record: r}}, KeyTTL: time.Hour}
	ok, counted, err := p.Guarded.AdmitApply(bg, "R", id, 1, t, w, claim(id, maxHolds))
	if err == nil && !ok {
		return fmt.Errorf("over the hold limits: %v", counted)
	}
	return err
}

// keyIs checks the state of key with fingerprint fp as a claim on the idem
// port sees it (a claim that takes the key is given back).
func keyIs(t *testing.T, p Ports, key, fp string, want idem.State, result string) {
	t.Helper()
	c, err := p.Idem.Claim(bg, "alice", key, fp, time.Minute, now)
	if err != nil || c.State != want || c.Result != result {
		t.Fatalf("key %s: %+v, %v; want state %d with %q", key, c, err, want, result)
	}
	if c.State == idem.Claimed {
		must(t, p.Idem.Abandon(bg, "alice", key, fp))
	}
}

// keys: a hold's step claims and finishes its Idempotency-Key. The same
// request again (another booking id) names the first booking and holds
// nothing; the step itself sent again is ok; another request with the key
// is a Conflict on Idempotency-Key; a key another request holds and has
// not finished stops the step (ErrKeyPending) until it is given back.
func keys(t *testing.T, p Ports) {
	must(t, p.Inventory.Ensure(bg, "R", 1, 3))
	terms := inventory.Terms{Start: 100, End: 200, Nodes: 1}
	must(t, keyedHold(p, "b1", "k1", "fp1", terms, 10))
	keyIs(t, p, "k1", "fp1", idem.Done, "b1")
	if err := keyedHold(p, "b1", "k1", "fp1", terms, 10); err != nil {
		t.Fatalf("the step sent again: %v", err)
	}
	var done *records.KeyDone
	if err := keyedHold(p, "b2", "k1", "fp1", terms, 10); !errors.As(err, &done) || done.Booking != "b1" {
		t.Fatalf("the same request again: %v", err)
	}
	nowhere(t, p, "b2")
	err := keyedHold(p, "b3", "k1", "fp2", terms, 10)
	if slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "Idempotency-Key" {
		t.Fatalf("another request with the key: %v", err)
	}
	nowhere(t, p, "b3")
	keyIs(t, p, "k1", "fp1", idem.Done, "b1")
	// k2 claimed by another request, still running.
	if c, err := p.Idem.Claim(bg, "alice", "k2", "fp1", time.Minute, now); err != nil || c.State != idem.Claimed {
		t.Fatalf("claiming k2: %+v, %v", c, err)
	}
	err = keyedHold(p, "b4", "k2", "fp1", terms, 10)
	if !errors.Is(err, records.ErrKeyPending) || slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("a key another request holds: %v", err)
	}
	nowhere(t, p, "b4")
	must(t, p.Idem.Abandon(bg, "alice", "k2", "fp1"))
	must(t, keyedHold(p, "b4", "k2", "fp1", terms, 10))
	keyIs(t, p, "k2", "fp1", idem.Done, "b4")
	if live, err := p.Records.Live(bg, "R"); err != nil || len(live) != 2 {
		t.Fatalf("live after two keyed holds: %d, %v", len(live), err)
	}
	r := Rec("b5", booking.Held)
	r.Account, r.IdemKey, r.Fingerprint = "alice", "k5", "fp1"
	w := records.Write{Resource: "R", WriteID: "hb5", Changes: []records.Change{{Record: r}}}
	if _, _, err := p.Guarded.AdmitApply(bg, "R", "b5", 1, terms, w, claim("b5", 10)); slotfare.KindOf(err) != slotfare.Invalid {
		t.Fatalf("a keyed hold with no time for its key: %v", err)
	}
	nowhere(t, p, "b5")
}

// keysRefused: a step that stores nothing (no capacity, over the hold
// limits, a write over a moved booking) leaves its key free for a retry.
func keysRefused(t *testing.T, p Ports) {
	must(t, p.Inventory.Ensure(bg, "R", 1, 3))
	terms := inventory.Terms{Start: 100, End: 200, Nodes: 1}
	must(t, keyedHold(p, "b1", "k1", "fp1", terms, 2))
	if err := keyedHold(p, "b2", "k2", "fp1", inventory.Terms{Start: 100, End: 200, Nodes: 3}, 2); slotfare.KindOf(err) != slotfare.NoCapacity {
		t.Fatalf("a keyed hold over a full interval: %v", err)
	}
	nowhere(t, p, "b2")
	keyIs(t, p, "k2", "fp1", idem.Claimed, "")
	must(t, keyedHold(p, "b3", "k3", "fp1", terms, 2))
	r := Rec("b4", booking.Held)
	r.Account, r.IdemKey, r.Fingerprint = "alice", "k4", "fp1"
	w := records.Write{Resource: "R", WriteID: "hb4", Changes: []records.Change{{Record: r}}, KeyTTL: time.Hour}
	if ok, counted, err := p.Guarded.AdmitApply(bg, "R", "b4", 1, terms, w, claim("b4", 2)); err != nil || ok || len(counted) != 2 {
		t.Fatalf("a keyed hold past the account's two: ok %v, counted %v, %v", ok, counted, err)
	}
	nowhere(t, p, "b4")
	keyIs(t, p, "k4", "fp1", idem.Claimed, "")
	// b1 written again as new under another key: its version moved.
	r = Rec("b1", booking.Held)
	r.Account, r.IdemKey, r.Fingerprint = "alice", "k5", "fp1"
	w = records.Write{Resource: "R", WriteID: "hb1x", Changes: []records.Change{{Record: r}}, KeyTTL: time.Hour}
	if _, _, err := p.Guarded.AdmitApply(bg, "R", "b1x", 1, terms, w, claim("b1x", 10)); slotfare.KindOf(err) != slotfare.Conflict {
		t.Fatalf("a keyed write over a moved booking: %v", err)
	}
	keyIs(t, p, "k5", "fp1", idem.Claimed, "")
	keyIs(t, p, "k1", "fp1", idem.Done, "b1")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
