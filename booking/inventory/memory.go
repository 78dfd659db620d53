package inventory

import (
	"context"
	"slices"
	"sync"

	"slotfare"
	"slotfare/booking/events"
	"slotfare/booking/lease"
	"slotfare/calendar"
)

// Memory is the in-process inventory: one calendar (the tree) per group,
// each resource behind its own lock. It serves tests, the simulator and the
// embedded deployment, where one process owns the resources and rebuilds
// them from the stored bookings on start.
type Memory struct {
	mu  sync.RWMutex
	res map[string]*memResource
	// newCalendar makes a group's calendar (calendar.New: the tree).
	newCalendar func(capacity int) (calendar.Calendar, error)
}

type memResource struct {
	mu      sync.Mutex
	groups  []calendar.Calendar
	held    map[string]Held
	retired bool
	// fences are the newest token seen per lease name (lease.Fence).
	fences map[string]int64
	// caps are the groups' capacities, which a calendar answers only at
	// an instant: a publication that changes none writes no event.
	caps []capacities
	// published are the write ids of the last publications that wrote
	// their event, so that a retry writes none again.
	published []string
}

// publishedKept is how many publications' write ids a resource keeps: a
// retry follows its write at once.
const publishedKept = 16

// NewMemory returns an empty in-process inventory.
func NewMemory() *Memory { return NewMemoryOn(nil) }

// NewMemoryOn returns an empty in-process inventory whose groups are
// calendars made by newCalendar (calendar.New, the tree, when nil): a
// simulation may compare calendar implementations under the same service.
func NewMemoryOn(newCalendar func(capacity int) (calendar.Calendar, error)) *Memory {
	if newCalendar == nil {
		newCalendar = calendar.New
	}
	return &Memory{res: map[string]*memResource{}, newCalendar: newCalendar}
}

var (
	_ Port           = (*Memory)(nil)
	_ CapacitySetter = (*Memory)(nil)
)

func (m *Memory) resource(op slotfare.Op, res string) (*memResource, error) {
	m.mu.RLock()
	r := m.res[res]
	m.mu.RUnlock()
	if r == nil {
		return nil, ErrUnknownResource(op, res)
	}
	return r, nil
}

// Ensure implements Port.
func (m *Memory) Ensure(ctx context.Context, res string, groups, nodes int) error {
	return m.EnsureHolding(ctx, res, groups, nodes, nil)
}

// EnsureHolding is Ensure of a resource that holds bookings already: when
// res is made, held (nil: none) are what it holds from the start, each on
// min(its groups, groups) groups, even where they exceed nodes (an
// overbooked past stays overbooked; nothing more fits there). The
// resource appears with them in one step, so no admission sees it
// without them; held runs only when res is made, with no resource lock
// held but the inventory's (it reads where the bookings live).
func (m *Memory) EnsureHolding(ctx context.Context, res string, groups, nodes int, held func() ([]Held, error)) error {
	const op slotfare.Op = "inventory.Ensure"
	if err := CheckEnsure(res, groups, nodes); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.res[res]; r != nil {
		if len(r.groups) != groups {
			return slotfare.E(op, slotfare.Conflict, slotfare.Field("groups"), "resource "+res+" has another number of groups")
		}
		return nil
	}
	var hs []Held
	if held != nil {
		var err error
		if hs, err = held(); err != nil {
			return slotfare.E(op, err)
		}
	}
	r, err := m.newResource(groups, nodes, hs)
	if err != nil {
		return slotfare.E(op, err)
	}
	m.res[res] = r
	return nil
}

// newResource is a resource of groups groups of capacity nodes holding
// hs: the capacities are opened while they are added, then laid at nodes.
func (m *Memory) newResource(groups, nodes int, hs []Held) (*memResource, error) {
	r := &memResource{held: make(map[string]Held, len(hs)), fences: map[string]int64{}}
	for range groups {
		r.caps = append(r.caps, newCapacities(nodes))
		c, err := m.newCalendar(max(nodes, 1))
		if err != nil {
			return nil, err
		}
		r.groups = append(r.groups, c)
	}
	if len(hs) > 0 {
		for _, c := range r.groups {
			if err := c.SetCapacity(calendar.MinTime, calendar.MaxTime, MaxNodes); err != nil {
				return nil, err
			}
		}
		for _, h := range hs {
			if err := CheckAdmit("held", h.ID, h.Groups, h.Terms); err != nil {
				return nil, err
			}
			if _, ok := r.held[h.ID]; ok {
				return nil, slotfare.Errorf("inventory.Ensure", "id", "booking %s is held twice", h.ID)
			}
			h.Groups = min(h.Groups, groups)
			for j := range h.Groups {
				if err := r.groups[j].Add(calendar.Reservation{ID: h.ID, Start: h.Terms.Start, End: h.Terms.End, Nodes: h.Terms.Nodes}); err != nil {
					return nil, err
				}
			}
			r.held[h.ID] = h
		}
	}
	if nodes == 0 || len(hs) > 0 {
		for _, c := range r.groups {
			if err := c.SetCapacity(calendar.MinTime, calendar.MaxTime, nodes); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// given refuses a step that takes capacity for a caller that has given up
// (its context done), as a remote inventory does: nothing is held for a
// request no one waits for. Release does not check: giving back is always
// right.
func given(ctx context.Context, op slotfare.Op) error {
	if err := ctx.Err(); err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	return nil
}

// Admit implements Port.
func (m *Memory) Admit(ctx context.Context, res, id string, groups int, t Terms) error {
	const op slotfare.Op = "inventory.Admit"
	if err := CheckAdmit(res, id, groups, t); err != nil {
		return err
	}
	if err := given(ctx, op); err != nil {
		return err
	}
	r, err := m.resource(op, res)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.retired {
		return ErrRetired(op, res)
	}
	if h, ok := r.held[id]; ok {
		if h.Groups == groups && h.Terms == t {
			return nil // admitted already: a retry
		}
		return ErrHeldOtherwise(op, res, id)
	}
	if groups > len(r.groups) {
		return slotfare.Errorf(op, "groups", "resource %s has %d groups, %d asked", res, len(r.groups), groups)
	}
	for j := range groups {
		ok, err := r.fits(j, t.Start, t.End, t.Nodes)
		if err != nil {
			return slotfare.E(op, err)
		}
		if !ok {
			return ErrNoCapacity(op, res, t)
		}
	}
	for j := range groups {
		if err := r.groups[j].Add(calendar.Reservation{ID: id, Start: t.Start, End: t.End, Nodes: t.Nodes}); err != nil {
			for i := range j {
				if _, derr := r.groups[i].Delete(id); derr != nil {
					return slotfare.E(op, slotfare.Other, "undo of a failed admission", derr)
				}
			}
			return slotfare.E(op, err) // cannot happen: every group was checked
		}
	}
	r.held[id] = Held{ID: id, Groups: groups, Terms: t}
	return nil
}

// fits is Fits on group j, where nodes above the group's largest capacity
// simply do not fit. The caller holds r.mu.
func (r *memResource) fits(j int, from, to int64, nodes int) (bool, error) {
	if nodes > r.groups[j].MaxCapacity() {
		return false, nil
	}
	return r.groups[j].Fits(from, to, nodes)
}

// Release implements Port.
func (m *Memory) Release(ctx context.Context, res, id string) error {
	const op slotfare.Op = "inventory.Release"
	r, err := m.resource(op, res)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.held[id]
	if !ok {
		return nil
	}
	for j := range h.Groups {
		if _, err := r.groups[j].Delete(id); err != nil {
			return slotfare.E(op, slotfare.Other, "a held booking missing from its group", err)
		}
	}
	delete(r.held, id)
	return nil
}

// Replace implements Port: every group is checked before any changes.
func (m *Memory) Replace(ctx context.Context, res, id string, t Terms) error {
	return m.ReplaceThen(ctx, res, id, t, func() error { return nil })
}

// ReplaceThen is Replace with a step that the move rests on (the write of
// the booking's new record): once the new terms are found to fit, then
// runs with the resource locked, and the booking moves only if it
// succeeds. Both happen or neither, and nothing is admitted on the
// resource in between. then's error is returned as it is.
func (m *Memory) ReplaceThen(ctx context.Context, res, id string, t Terms, then func() error) error {
	const op slotfare.Op = "inventory.Replace"
	if err := CheckReplace(res, id, t); err != nil {
		return err
	}
	if err := given(ctx, op); err != nil {
		return err
	}
	r, err := m.resource(op, res)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.held[id]
	if !ok {
		return ErrUnknownBooking(op, res, id)
	}
	nr := calendar.Reservation{ID: id, Start: t.Start, End: t.End, Nodes: t.Nodes}
	for j := range h.Groups {
		ok, err := calendar.ReplaceFits(r.groups[j], id, nr)
		if err != nil {
			return slotfare.E(op, err)
		}
		if !ok {
			return ErrNoCapacity(op, res, t)
		}
	}
	if err := then(); err != nil {
		return err
	}
	for j := range h.Groups {
		if err := r.groups[j].Replace(id, nr); err != nil {
			return slotfare.E(op, slotfare.Other, "a checked replacement refused", err)
		}
	}
	h.Terms = t
	r.held[id] = h
	return nil
}

// Within implements Port.
func (m *Memory) Within(ctx context.Context, res, id string) (bool, error) {
	const op slotfare.Op = "inventory.Within"
	r, err := m.resource(op, res)
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.held[id]
	if !ok {
		return false, ErrUnknownBooking(op, res, id)
	}
	for j := range h.Groups {
		ok, err := calendar.WithinCapacity(r.groups[j], h.Terms.Start, h.Terms.End)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// SetCapacity implements Port.
func (m *Memory) SetCapacity(ctx context.Context, res string, f lease.Fence, g int, from, to int64, nodes int) error {
	_, err := m.setCapacities(ctx, "inventory.SetCapacity", res, f, []Capacity{{Group: g, From: from, To: to, Nodes: nodes}}, nil)
	return err
}

// SetCapacities implements CapacitySetter: every piece in one step.
func (m *Memory) SetCapacities(ctx context.Context, res string, f lease.Fence, cs []Capacity) error {
	_, err := m.setCapacities(ctx, "inventory.SetCapacities", res, f, cs, nil)
	return err
}

// Publish implements Port: every piece in one step, under the resource's
// lock, and the event written to p.Log before any piece is set, so that
// a log that refuses it changes nothing.
func (m *Memory) Publish(ctx context.Context, res string, f lease.Fence, cs []Capacity, p Publication) (bool, error) {
	if err := CheckPublication(p); err != nil {
		return false, err
	}
	return m.setCapacities(ctx, "inventory.Publish", res, f, cs, &p)
}

// setCapacities checks the pieces and the fence, then writes p's event
// (if any, and if the pieces change a capacity) and sets the pieces, all
// under the resource's lock: a bad piece, a refused fence or a refused
// event changes nothing.
func (m *Memory) setCapacities(ctx context.Context, op slotfare.Op, res string, f lease.Fence, cs []Capacity, p *Publication) (bool, error) {
	if err := lease.CheckFence(op, f); err != nil {
		return false, err
	}
	r, err := m.resource(op, res)
	if err != nil {
		return false, err
	}
	for _, c := range cs {
		if err := CheckNodes(op, c.Nodes, true); err != nil {
			return false, err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		if err := CheckGroupSpan(op, c.Group, len(r.groups), c.From, c.To); err != nil {
			return false, err
		}
	}
	ok, newest := f.Admits(r.fences[f.Name])
	if !ok {
		return false, lease.ErrFenced(op, res, f, r.fences[f.Name])
	}
	caps, changed := r.laidOut(cs)
	logged := p != nil && p.Log != nil && (changed || p.Force) && !slices.Contains(r.published, p.WriteID)
	if logged {
		if err := p.Log.AppendEvents(ctx, res, []events.Event{p.Event}); err != nil {
			return false, slotfare.E(op, err)
		}
		r.published = append(r.published[max(0, len(r.published)+1-publishedKept):], p.WriteID)
	}
	if f.Token != 0 {
		r.fences[f.Name] = newest
	}
	if !changed {
		// The calendars have these capacities at every instant already
		// (caps mirrors them): a tick lays the same limits out again
		// whenever booking control recomputed, most often to no change.
		return logged, nil
	}
	for _, c := range cs {
		if err := r.groups[c.Group].SetCapacity(c.From, c.To, c.Nodes); err != nil {
			return false, slotfare.E(op, err) // cannot happen: every piece was checked
		}
	}
	for g, c := range caps {
		r.caps[g] = c
	}
	return logged, nil
}

// laidOut are the capacities of the groups cs touches once cs is set,
// and whether they differ from those in force. The caller holds r.mu.
func (r *memResource) laidOut(cs []Capacity) (map[int]capacities, bool) {
	out := map[int]capacities{}
	changed := false
	for _, c := range cs {
		g, ok := out[c.Group]
		if !ok {
			g = r.caps[c.Group].clone()
		}
		if g.set(c.From, c.To, c.Nodes) {
			changed = true
		}
		out[c.Group] = g
	}
	return out, changed
}

// KeepEvents implements Port: Memory keeps no events (Publish writes to
// the Publication's Log).
func (m *Memory) KeepEvents(int) {}

// Fits implements Port.
func (m *Memory) Fits(ctx context.Context, res string, g int, from, to int64, nodes int) (bool, error) {
	const op slotfare.Op = "inventory.Fits"
	r, err := m.resource(op, res)
	if err != nil {
		return false, err
	}
	if err := CheckNodes(op, nodes, false); err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := CheckGroupSpan(op, g, len(r.groups), from, to); err != nil {
		return false, err
	}
	return r.fits(g, from, to, nodes)
}

// NextFree implements Port.
func (m *Memory) NextFree(ctx context.Context, res string, g int, from, limit, duration int64, nodes int) (int64, bool, error) {
	const op slotfare.Op = "inventory.NextFree"
	r, err := m.resource(op, res)
	if err != nil {
		return 0, false, err
	}
	if err := CheckSearch(from, limit, duration, nodes); err != nil {
		return 0, false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := CheckGroupSpan(op, g, len(r.groups), from, from+1); err != nil {
		return 0, false, err
	}
	if nodes > r.groups[g].MaxCapacity() {
		return 0, false, nil
	}
	return r.groups[g].NextFree(from, limit, duration, nodes)
}

// Profile implements Port.
func (m *Memory) Profile(ctx context.Context, res string, g int, from, to int64) ([]calendar.Step, error) {
	return m.ProfileInto(ctx, nil, res, g, from, to)
}

// ProfileInto is Profile in buf's storage (calendar.ProfileReuser) where
// the group's calendar can write it there; a new profile otherwise, and
// where buf is nil.
func (m *Memory) ProfileInto(ctx context.Context, buf []calendar.Step, res string, g int, from, to int64) ([]calendar.Step, error) {
	const op slotfare.Op = "inventory.Profile"
	r, err := m.resource(op, res)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := CheckGroupSpan(op, g, len(r.groups), from, to); err != nil {
		return nil, err
	}
	if c, ok := r.groups[g].(calendar.ProfileReuser); ok && buf != nil {
		return c.ProfileInto(buf, from, to)
	}
	return r.groups[g].Profile(from, to) // sized for the profile
}

// Get implements Port.
func (m *Memory) Get(ctx context.Context, res, id string) (Held, bool, error) {
	r, err := m.resource("inventory.Get", res)
	if err != nil {
		return Held{}, false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.held[id]
	return h, ok, nil
}

// ReleaseOrphans implements Port: Memory keeps no records beside it, so it
// knows of no booking stored as no longer holding. An inventory that keeps
// them releases its orphans with Held and Release.
func (m *Memory) ReleaseOrphans(ctx context.Context, res string) ([]string, error) {
	_, err := m.resource("inventory.ReleaseOrphans", res)
	return nil, err
}

// Held are the ids of the bookings res holds, sorted.
func (m *Memory) Held(ctx context.Context, res string) ([]string, error) {
	r, err := m.resource("inventory.Held", res)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	ids := make([]string, 0, len(r.held))
	for id := range r.held {
		ids = append(ids, id)
	}
	r.mu.Unlock()
	slices.Sort(ids)
	return ids, nil
}

// Retire implements Retirer.
func (m *Memory) Retire(ctx context.Context, res string) (int, error) {
	r, err := m.resource("inventory.Retire", res)
	if err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.held); n > 0 {
		return n, nil
	}
	r.retired = true
	return 0, nil
}

// Reinstate implements Retirer.
func (m *Memory) Reinstate(ctx context.Context, res string) error {
	r, err := m.resource("inventory.Reinstate", res)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.retired = false
	r.mu.Unlock()
	return nil
}

// Drop implements Port.
func (m *Memory) Drop(ctx context.Context, res string) error {
	m.mu.Lock()
	delete(m.res, res)
	m.mu.Unlock()
	return nil
}
