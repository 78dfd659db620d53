package service_test

import (
	"encoding/base64"
	"math/rand/v2"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking"
)

// walk pages through p's bookings of one status with the given page size,
// calling between(i) after page i; it returns the ids in the order listed.
func walk(t *testing.T, h *harness, p booking.Principal, st booking.Status, limit int, between func(page int)) []booking.Booking {
	t.Helper()
	var out []booking.Booking
	cursor := ""
	for page := 0; ; page++ {
		if page > 100 {
			t.Fatal("the walk does not end")
		}
		pg, err := h.svc.List(bg, p, booking.ListQuery{Status: st, Cursor: cursor, Limit: limit})
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		if len(pg.Data) > limit || pg.HasMore != (pg.NextCursor != "") {
			t.Fatalf("page %d: %d bookings, has_more %v, cursor %q", page, len(pg.Data), pg.HasMore, pg.NextCursor)
		}
		out = append(out, pg.Data...)
		if !pg.HasMore {
			return out
		}
		cursor = pg.NextCursor
		between(page)
	}
}

// holdsOutOfOrder makes n holds for alice whose creation times are a
// shuffle of n seconds, so the order they were made in (the in-memory
// order) is not their (created_at, id) order, which is the order a store
// loads them in after a restart. Every other one is committed.
func holdsOutOfOrder(t *testing.T, h *harness, n int, seed uint64) map[string]booking.Booking {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 13))
	made := map[string]booking.Booking{}
	for i, sec := range rng.Perm(n) {
		h.clk.Set(t0.Add(time.Duration(sec) * time.Second))
		b, err := h.hold(alice, "T", t0.Add(4*time.Hour+time.Duration(len(made)+int(seed))*time.Hour), time.Hour, 1, "premium")
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if b, err = h.svc.Commit(bg, alice, b.ID); err != nil {
				t.Fatal(err)
			}
		}
		made[b.ID] = b
	}
	h.clk.Set(t0.Add(time.Duration(n) * time.Second))
	return made
}

// checkWalk asserts the walk returned exactly the bookings of want (each
// once) in strictly increasing (created_at, id) order, allowing extra ones
// made during the walk but never a repeat.
func checkWalk(t *testing.T, got []booking.Booking, want map[string]booking.Booking, extra map[string]bool) {
	t.Helper()
	seen := map[string]bool{}
	for _, b := range got {
		if seen[b.ID] {
			t.Fatalf("booking %s listed twice", b.ID)
		}
		seen[b.ID] = true
		if _, ok := want[b.ID]; !ok && !extra[b.ID] {
			t.Fatalf("booking %s listed but not expected", b.ID)
		}
	}
	for id := range want {
		if !seen[id] {
			t.Fatalf("booking %s skipped (%d of %d listed)", id, len(got), len(want))
		}
	}
	for i := 1; i < len(got); i++ {
		prev, b := got[i-1], got[i]
		if !(prev.CreatedAt.Before(b.CreatedAt) || prev.CreatedAt.Equal(b.CreatedAt) && prev.ID < b.ID) {
			t.Fatalf("listed out of (created_at, id) order: %s %s then %s %s", prev.CreatedAt, prev.ID, b.CreatedAt, b.ID)
		}
	}
}

// TestListCursorAcrossRestart pages through alice's bookings with the
// service reopened on the same store between every two pages: no booking
// is skipped or repeated (issue 9, defect 13: the cursor was a position in
// an order a restart changes).
func TestListCursorAcrossRestart(t *testing.T) {
	h := newHarness(t, testConfig())
	made := holdsOutOfOrder(t, h, 14, 0)
	committed := map[string]booking.Booking{}
	for id, b := range made {
		if b.Status == booking.Committed {
			committed[id] = b
		}
	}
	for _, limit := range []int{1, 3, 5} {
		checkWalk(t, walk(t, h, alice, "", limit, func(int) { h.reopen() }), made, nil)
		checkWalk(t, walk(t, h, alice, booking.Committed, limit, func(int) { h.reopen() }), committed, nil)
	}
	// Without restarts the walk is the same.
	checkWalk(t, walk(t, h, alice, "", 4, func(int) {}), made, nil)
}

// TestListCursorWithNewBookings makes bookings between pages (some dated
// before the cursor by the clock, some after) and restarts too: every
// booking present when the walk began is listed exactly once, none twice.
func TestListCursorWithNewBookings(t *testing.T) {
	h := newHarness(t, testConfig())
	made := holdsOutOfOrder(t, h, 10, 0)
	extra := map[string]bool{}
	n := 0
	got := walk(t, h, alice, "", 3, func(page int) {
		for _, at := range []time.Duration{-time.Hour, time.Second, time.Hour} {
			h.clk.Set(t0.Add(at))
			b, err := h.hold(alice, "T", t0.Add(40*time.Hour+time.Duration(n)*time.Hour), time.Hour, 1, "premium")
			if err != nil {
				t.Fatal(err)
			}
			extra[b.ID] = true
			n++
		}
		if page%2 == 1 {
			h.reopen()
		}
	})
	checkWalk(t, got, made, extra)
}

// TestListCursorRefused: a cursor that is not one this listing issued is
// Invalid naming "cursor", a cursor of another status filter included.
func TestListCursorRefused(t *testing.T) {
	h := newHarness(t, testConfig())
	holdsOutOfOrder(t, h, 4, 0)
	pg, err := h.svc.List(bg, alice, booking.ListQuery{Limit: 1})
	if err != nil || pg.NextCursor == "" {
		t.Fatalf("first page: %v %+v", err, pg)
	}
	for _, q := range []booking.ListQuery{
		{Cursor: "!!"}, {Cursor: "MTI"}, {Cursor: b64("b1\x00\x00x\x000\x00bk_1")}, {Cursor: b64("b1\x00\x001\x001000000000\x00bk_1")},
		{Cursor: b64("b2\x00\x001\x000\x00bk_1")}, {Cursor: b64("b1\x00\x001\x000\x00")}, {Cursor: b64("b1\x00\x001\x000")},
		{Cursor: pg.NextCursor, Status: booking.Held},
	} {
		_, err := h.svc.List(bg, alice, q)
		if slotfare.KindOf(err) != slotfare.Invalid || slotfare.FieldOf(err) != "cursor" {
			t.Errorf("List(%+v) = %v, want Invalid naming cursor", q, err)
		}
	}
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// TestLedgerEntriesCursorAcrossRestart: the ledger's entry cursor is a key
// on (time, id) too, so paging alice's postings with restarts between pages
// lists each exactly once, in order (checked here because the booking
// cursor was not).
func TestLedgerEntriesCursorAcrossRestart(t *testing.T) {
	h := newHarness(t, testConfig())
	holdsOutOfOrder(t, h, 12, 0) // every other one committed: a charge each
	all, err := h.svc.LedgerEntries(bg, billing, "alice", "", 1000)
	if err != nil || len(all.Data) < 6 || all.HasMore {
		t.Fatalf("all entries: %v, %d", err, len(all.Data))
	}
	var got []string
	cursor := ""
	for page := 0; page < 100; page++ {
		pg, err := h.svc.LedgerEntries(bg, billing, "alice", cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pg.Data {
			got = append(got, p.ID)
		}
		if !pg.HasMore {
			break
		}
		cursor = pg.NextCursor
		h.reopen()
	}
	if len(got) != len(all.Data) {
		t.Fatalf("paged %d entries across restarts, %d in one page", len(got), len(all.Data))
	}
	for i, p := range all.Data {
		if got[i] != p.ID {
			t.Fatalf("entry %d: %s across restarts, %s in one page", i, got[i], p.ID)
		}
	}
}
