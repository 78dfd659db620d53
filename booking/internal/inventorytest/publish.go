package inventorytest

import (
	"fmt"
	"testing"
	"time"

	"slotfare"
	"slotfare/booking/events"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/calendar"
)

// Log is an event log a publication writes to and a test reads.
type Log interface {
	events.Reader
	events.Appender
}

// RunPublish runs the contract of Publish on the inventories open returns,
// each with the event log it writes to (a fresh, empty pair per call): a
// publication's event is written with the capacities that change, and
// only then, once per write id.
func RunPublish(t *testing.T, open func(t *testing.T) (inventory.Port, Log)) {
	for _, c := range []struct {
		name string
		run  func(t *testing.T, p inventory.Port, log Log)
	}{
		{"PublicationWritesOneEvent", publicationWritesOneEvent},
		{"FencedPublicationWritesNothing", fencedPublicationWritesNothing},
		{"RepublishWritesNoEvent", republishWritesNoEvent},
		{"RetryWritesOneEvent", retryWritesOneEvent},
		{"ManyPiecesOneEvent", manyPiecesOneEvent},
		{"ForcedPublicationWritesOnce", forcedPublicationWritesOnce},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, log := open(t)
			c.run(t, p, log)
		})
	}
}

// publication is write id's publication of limits on log, its event about R.
func publication(t *testing.T, log Log, id string) inventory.Publication {
	t.Helper()
	e, err := events.New("evt_limits_"+id, events.LimitsPublished, "resources/R", time.Unix(1e9, 0),
		map[string]any{"resource_id": "R", "write": id})
	ok(t, err)
	return inventory.Publication{WriteID: id, Event: e, Log: log}
}

// loggedIDs are the ids of every event of R's stream.
func loggedIDs(t *testing.T, log Log) []string {
	t.Helper()
	ls, err := log.ReadEvents(bg, []string{"R"}, events.Cursor{}, 1000)
	ok(t, err)
	ids := make([]string, len(ls))
	for i, l := range ls {
		if l.Event.Type != events.LimitsPublished || l.Event.Subject != "resources/R" {
			t.Fatalf("event %+v, want limits.published about resources/R", l.Event)
		}
		ids[i] = l.Event.ID
	}
	return ids
}

func wantIDs(t *testing.T, log Log, want ...string) {
	t.Helper()
	if got := loggedIDs(t, log); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}

func wantLogged(t *testing.T, logged bool, err error, want bool) {
	t.Helper()
	ok(t, err)
	if logged != want {
		t.Fatalf("logged = %v, want %v", logged, want)
	}
}

// limits are two groups' capacities over [0, 100) and [100, 200).
func limits(b0, b1 int) []inventory.Capacity {
	return []inventory.Capacity{{Group: 0, From: 0, To: 100, Nodes: b0}, {Group: 1, From: 0, To: 100, Nodes: b1},
		{Group: 0, From: 100, To: 200, Nodes: b0}, {Group: 1, From: 100, To: 200, Nodes: b1}}
}

// freeOf is group g's free capacity over [0, 200) as a string.
func freeOf(t *testing.T, p inventory.Port, g int) string {
	t.Helper()
	steps, err := p.Profile(bg, "R", g, 0, 200)
	ok(t, err)
	return fmt.Sprint(steps)
}

func publicationWritesOneEvent(t *testing.T, p inventory.Port, log Log) {
	ok(t, p.Ensure(bg, "R", 2, 10))
	pub := publication(t, log, "w1")
	logged, err := p.Publish(bg, "R", lease.Fence{Name: "tick:R", Token: 1}, limits(12, 6), pub)
	wantLogged(t, logged, err, true)
	wantIDs(t, log, "evt_limits_w1")
	ls, err := log.ReadEvents(bg, []string{"R"}, events.Cursor{}, 10)
	ok(t, err)
	if got, want := string(ls[0].Event.Data), string(pub.Event.Data); got != want {
		t.Fatalf("event data %s, want %s", got, want)
	}
	if got, want := freeOf(t, p, 1), fmt.Sprint([]calendar.Step{{Start: 0, End: 200, Free: 6}}); got != want {
		t.Fatalf("group 1 free %s, want %s", got, want)
	}
}

func fencedPublicationWritesNothing(t *testing.T, p inventory.Port, log Log) {
	ok(t, p.Ensure(bg, "R", 2, 10))
	holder := func(token int64) lease.Fence { return lease.Fence{Name: "tick:R", Token: token} }
	logged, err := p.Publish(bg, "R", holder(2), limits(12, 6), publication(t, log, "w1"))
	wantLogged(t, logged, err, true)
	before0, before1 := freeOf(t, p, 0), freeOf(t, p, 1)
	logged, err = p.Publish(bg, "R", holder(1), limits(11, 4), publication(t, log, "w2"))
	wantKind(t, err, slotfare.Fenced)
	if logged {
		t.Fatal("a fenced write logged its event")
	}
	if a, b := freeOf(t, p, 0), freeOf(t, p, 1); a != before0 || b != before1 {
		t.Fatalf("a fenced write changed the capacities: %s %s, were %s %s", a, b, before0, before1)
	}
	wantIDs(t, log, "evt_limits_w1")
	// The write id a fenced write carried is not spent.
	logged, err = p.Publish(bg, "R", holder(3), limits(11, 4), publication(t, log, "w2"))
	wantLogged(t, logged, err, true)
	wantIDs(t, log, "evt_limits_w1", "evt_limits_w2")
}

func republishWritesNoEvent(t *testing.T, p inventory.Port, log Log) {
	ok(t, p.Ensure(bg, "R", 2, 10))
	f := lease.Fence{Name: "tick:R", Token: 1}
	logged, err := p.Publish(bg, "R", f, limits(12, 6), publication(t, log, "w1"))
	wantLogged(t, logged, err, true)
	logged, err = p.Publish(bg, "R", f, limits(12, 6), publication(t, log, "w2"))
	wantLogged(t, logged, err, false)
	// Half of it again: still nothing changes.
	logged, err = p.Publish(bg, "R", f, limits(12, 6)[2:], publication(t, log, "w3"))
	wantLogged(t, logged, err, false)
	wantIDs(t, log, "evt_limits_w1")
	// One piece that moves is a change.
	moved := limits(12, 6)
	moved[3].Nodes = 5
	logged, err = p.Publish(bg, "R", f, moved, publication(t, log, "w4"))
	wantLogged(t, logged, err, true)
	wantIDs(t, log, "evt_limits_w1", "evt_limits_w4")
}

func retryWritesOneEvent(t *testing.T, p inventory.Port, log Log) {
	ok(t, p.Ensure(bg, "R", 2, 10))
	f := lease.Fence{Name: "tick:R", Token: 1}
	pub := publication(t, log, "w1")
	logged, err := p.Publish(bg, "R", f, limits(12, 6), pub)
	wantLogged(t, logged, err, true)
	logged, err = p.Publish(bg, "R", f, limits(12, 6), pub) // sent again
	wantLogged(t, logged, err, false)
	// Sent again after the capacities moved (another write in
	// between): the capacities are set again, the event not.
	ok(t, p.SetCapacity(bg, "R", lease.Fence{}, 0, 0, 200, 10))
	logged, err = p.Publish(bg, "R", f, limits(12, 6), pub)
	wantLogged(t, logged, err, false)
	if got, want := freeOf(t, p, 0), fmt.Sprint([]calendar.Step{{Start: 0, End: 200, Free: 12}}); got != want {
		t.Fatalf("group 0 free %s, want %s", got, want)
	}
	wantIDs(t, log, "evt_limits_w1")
}

// manyPiecesOneEvent publishes more pieces than a store may lay out in
// one step, the first several hundred unchanged: one event, written with
// the pieces that change.
func manyPiecesOneEvent(t *testing.T, p inventory.Port, log Log) {
	ok(t, p.Ensure(bg, "R", 1, 10))
	cs := make([]inventory.Capacity, 900)
	for i := range cs {
		cs[i] = inventory.Capacity{Group: 0, From: int64(i), To: int64(i + 1), Nodes: 10}
		if i >= 600 {
			cs[i].Nodes = 10 + i%2
		}
	}
	logged, err := p.Publish(bg, "R", lease.Fence{}, cs, publication(t, log, "w1"))
	wantLogged(t, logged, err, true)
	wantIDs(t, log, "evt_limits_w1")
	steps, err := p.Profile(bg, "R", 0, 599, 602)
	ok(t, err)
	if want := fmt.Sprint([]calendar.Step{{Start: 599, End: 601, Free: 10}, {Start: 601, End: 602, Free: 11}}); fmt.Sprint(steps) != want {
		t.Fatalf("free %v, want %s", steps, want)
	}
}

// forcedPublicationWritesOnce: a forced publication (a layout made anew)
// writes its event though it changes nothing, once per write id.
func forcedPublicationWritesOnce(t *testing.T, p inventory.Port, log Log) {
	ok(t, p.Ensure(bg, "R", 2, 10))
	pub := publication(t, log, "w1")
	logged, err := p.Publish(bg, "R", lease.Fence{}, limits(10, 10), pub)
	wantLogged(t, logged, err, false)
	pub.Force = true
	logged, err = p.Publish(bg, "R", lease.Fence{}, limits(10, 10), pub)
	wantLogged(t, logged, err, true)
	logged, err = p.Publish(bg, "R", lease.Fence{}, limits(10, 10), pub) // sent again
	wantLogged(t, logged, err, false)
	wantIDs(t, log, "evt_limits_w1")
}
