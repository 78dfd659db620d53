// Package inventory is admission: the one place that decides whether nodes
// are sold. A resource's capacity is kept as nested class groups (seed 004
// Sec. 7.4): group j holds every booking of class index >= j and has the
// capacity b_j, the nested booking limit of its class in the rate period in
// force (group 0's is the overbooking limit, Sec. 7.5). A booking of class
// index k occupies groups 0..k and must fit in each.
//
// Port is what the booking service asks of an inventory. Every
// implementation decides in one atomic step where the data lives, in
// continuous time (no slot rounding), exactly as calendar's tree decides:
// the contract suite (booking/internal/inventorytest) runs the same cases
// on each and compares them with the tree.
package inventory

import (
	"context"
	"errors"
	"fmt"

	"slotfare"
	"slotfare/booking/events"
	"slotfare/booking/lease"
	"slotfare/calendar"
)

// Terms are the interval [Start, End) in Unix seconds and the nodes a
// booking holds.
type Terms struct {
	Start, End int64
	Nodes      int
}

// Held is one booking as the inventory holds it.
type Held struct {
	ID     string
	Groups int
	Terms  Terms
}

// Port is the inventory of every resource. Resource and booking ids are
// opaque strings; a booking id is unique within its resource. Retrying any
// call with the same arguments is safe (an admission already made answers
// nil, a release of what is gone answers nil), so a store that may run a
// step twice after a timeout never sells twice.
type Port interface {
	// Ensure makes resource res exist with groups nested groups; a new
	// resource's groups have capacity nodes everywhere. An existing
	// resource keeps what it holds; a different number of groups is a
	// Conflict (Rebuild changes it).
	Ensure(ctx context.Context, res string, groups, nodes int) error
	// Admit puts booking id on groups 0..groups-1 of res when its terms
	// fit on every one of them; otherwise nothing changes (NoCapacity).
	// An id already held with these terms and groups is nil; with others,
	// a Conflict.
	Admit(ctx context.Context, res, id string, groups int, t Terms) error
	// Release takes booking id off every group of res. An unknown id is
	// nil: it was released already.
	Release(ctx context.Context, res, id string) error
	// Replace moves booking id to new terms on all its groups in one step:
	// the new terms need room only where they hold more nodes than the old
	// (calendar.Calendar's Replace). Otherwise nothing changes
	// (NoCapacity): a refused change never drops what the booking held.
	// NotFound for an unknown id.
	Replace(ctx context.Context, res, id string, t Terms) error
	// Within reports whether booking id is within the capacities in force
	// on every group it occupies: false where a capacity was lowered below
	// what is held. NotFound for an unknown id.
	Within(ctx context.Context, res, id string) (bool, error)
	// ReleaseOrphans releases what res holds for bookings the records
	// kept beside the inventory store as no longer holding capacity, and
	// answers their ids: a booking whose change was stored but whose
	// release failed after (the store briefly unreachable), which nothing
	// else gives back. A hold's admission and record are one step, so a
	// booking the records list as live is never one. An inventory kept
	// apart from any records knows of none.
	ReleaseOrphans(ctx context.Context, res string) ([]string, error)
	// SetCapacity sets group g's capacity over [from, to). What is held is
	// never lost: where it exceeds the new capacity it stays and nothing
	// more is admitted there. The write carries fence f: one whose token
	// is older than the newest res has seen under f's lease is refused
	// (lease.ErrFenced) and changes nothing; a newer one becomes the newest, in
	// the same step.
	SetCapacity(ctx context.Context, res string, f lease.Fence, g int, from, to int64, nodes int) error
	// Publish lays out booking control's limits: the pieces cs in order,
	// fenced by f as SetCapacities is, and p's event written to res's event
	// log in the same step as the first piece that changes a stored
	// capacity (the first step, when p.Force), once per p.WriteID. A write
	// refused (its fence, a bad piece) writes no event, nor does one that
	// changes nothing. logged reports whether this call wrote the event.
	Publish(ctx context.Context, res string, f lease.Fence, cs []Capacity, p Publication) (logged bool, err error)
	// KeepEvents bounds the events an inventory that keeps its own event
	// log beside the records' (Redis: the resource's slot) keeps of it.
	events.Keeper
	// Fits reports whether nodes fit over [from, to) on group g.
	Fits(ctx context.Context, res string, g int, from, to int64, nodes int) (bool, error)
	// NextFree is the earliest t in [from, limit] at which [t, t+duration)
	// fits nodes on group g; ok is false when there is none.
	NextFree(ctx context.Context, res string, g int, from, limit, duration int64, nodes int) (t int64, ok bool, err error)
	// Profile is group g's free capacity over [from, to) as steps in time
	// order, never below zero (calendar.Calendar's Profile).
	Profile(ctx context.Context, res string, g int, from, to int64) ([]calendar.Step, error)
	// Get returns booking id as held.
	Get(ctx context.Context, res, id string) (Held, bool, error)
	// Drop forgets resource res with every group and all it holds (the
	// service keeps one layout per resource and drops none; a benchmark's
	// layout is dropped when it is done). An unknown resource is nil: it
	// was dropped already.
	Drop(ctx context.Context, res string) error
	// Retire marks resource res retired if it holds no booking, in one
	// step, where its bookings live: no replica admits a booking on a
	// resource retired on another one before it has heard of the
	// retirement. held is how many it holds, and then nothing is marked.
	// Admit refuses a retired resource (ErrRetired) until Reinstate. A
	// retired resource is retired again harmlessly; one never ensured is
	// NotFound.
	Retire(ctx context.Context, res string) (held int, err error)
	// Reinstate lets a retired resource admit again: a resource put in
	// service anew under its id. One not retired is nil.
	Reinstate(ctx context.Context, res string) error
}

// Capacity is one piece of a layout: group Group's capacity over [From,
// To) is Nodes.
type Capacity struct {
	Group    int
	From, To int64
	Nodes    int
}

// Publication is what a layout of booking control's limits publishes:
// the event that records it (events.LimitsPublished).
type Publication struct {
	// WriteID names the write: a retry of it, or of one of its steps (a
	// store that lays many pieces out in several), writes no second event.
	WriteID string
	Event   events.Event
	// Force writes the event even where no stored capacity changes: the
	// limits laid out on a layout made anew, whose capacities until then
	// were the resource's nodes, not limits anyone published.
	Force bool
	// Log is where an in-process inventory writes the event (the records
	// port's log), with the resource locked; nil: it writes none. An
	// inventory that keeps the log beside the layout (Redis: the
	// resource's stream, in its hash slot) writes there and ignores Log.
	Log events.Appender
}

// CapacitySetter is an inventory that sets many capacities in few steps
// (Redis: a few scripts for a layout's thousands of pieces, not a round
// trip each). SetCapacities is SetCapacity of each piece in order, each
// step fenced by f; on an error, the pieces before it may be set. A
// layout cut short by a refusal is harmless: the newer holder that was
// seen lays its own out over the whole horizon.
type CapacitySetter interface {
	SetCapacities(ctx context.Context, res string, f lease.Fence, cs []Capacity) error
}

// SetCapacities sets the pieces in order on p, fenced by f: in few steps
// when p is a CapacitySetter, else one SetCapacity each.
func SetCapacities(ctx context.Context, p Port, res string, f lease.Fence, cs []Capacity) error {
	if b, ok := p.(CapacitySetter); ok {
		return b.SetCapacities(ctx, res, f, cs)
	}
	for _, c := range cs {
		if err := p.SetCapacity(ctx, res, f, c.Group, c.From, c.To, c.Nodes); err != nil {
			return err
		}
	}
	return nil
}

// MinTime and MaxTime bound the times an inventory accepts. They fit a
// float64 exactly (Redis scores and Lua numbers), and leave room for
// t + duration.
const (
	MinTime int64 = -1 << 50
	MaxTime int64 = 1 << 50
)

// MaxGroups bounds the nested groups of one resource (fare classes).
const MaxGroups = 64

// MaxNodes bounds capacities and node counts.
const MaxNodes = 1 << 30

func checkTerms(op slotfare.Op, t Terms) error {
	if t.Start < MinTime || t.End > MaxTime {
		return slotfare.Errorf(op, "start", "interval [%d, %d) is outside [%d, %d)", t.Start, t.End, MinTime, MaxTime)
	}
	if t.End <= t.Start {
		return slotfare.Errorf(op, "end", "end %d must be after start %d", t.End, t.Start)
	}
	if t.Nodes < 1 || t.Nodes > MaxNodes {
		return slotfare.Errorf(op, "nodes", "must be in 1..%d, got %d", MaxNodes, t.Nodes)
	}
	return nil
}

func checkID(op slotfare.Op, field, id string) error {
	if id == "" || len(id) > 256 {
		return slotfare.Errorf(op, field, "must be 1 to 256 bytes, got %d", len(id))
	}
	return nil
}

func checkGroups(op slotfare.Op, groups int) error {
	if groups < 1 || groups > MaxGroups {
		return slotfare.Errorf(op, "groups", "must be in 1..%d, got %d", MaxGroups, groups)
	}
	return nil
}

func checkSpan(op slotfare.Op, from, to int64) error {
	if from < MinTime || to > MaxTime || to <= from {
		return slotfare.Errorf(op, "to", "interval [%d, %d) must be non-empty within [%d, %d)", from, to, MinTime, MaxTime)
	}
	return nil
}

// CheckAdmit validates Admit's arguments (for every implementation).
func CheckAdmit(res, id string, groups int, t Terms) error {
	const op slotfare.Op = "inventory.Admit"
	if err := checkID(op, "resource", res); err != nil {
		return err
	}
	if err := checkID(op, "id", id); err != nil {
		return err
	}
	if err := checkGroups(op, groups); err != nil {
		return err
	}
	return checkTerms(op, t)
}

// CheckReplace validates Replace's arguments.
func CheckReplace(res, id string, t Terms) error {
	const op slotfare.Op = "inventory.Replace"
	if err := checkID(op, "resource", res); err != nil {
		return err
	}
	if err := checkID(op, "id", id); err != nil {
		return err
	}
	return checkTerms(op, t)
}

// CheckPublication validates a Publication's write id and event.
func CheckPublication(p Publication) error {
	const op slotfare.Op = "inventory.Publish"
	if err := checkID(op, "write_id", p.WriteID); err != nil {
		return err
	}
	if p.Event.ID == "" || p.Event.Type == "" {
		return slotfare.Errorf(op, "event", "the event has no id or no type")
	}
	return nil
}

// CheckEnsure validates Ensure's arguments.
func CheckEnsure(res string, groups, nodes int) error {
	const op slotfare.Op = "inventory.Ensure"
	if err := checkID(op, "resource", res); err != nil {
		return err
	}
	if err := checkGroups(op, groups); err != nil {
		return err
	}
	if nodes < 0 || nodes > MaxNodes {
		return slotfare.Errorf(op, "nodes", "must be in 0..%d, got %d", MaxNodes, nodes)
	}
	return nil
}

// CheckGroupSpan validates a group index of groups and an interval.
func CheckGroupSpan(op slotfare.Op, g, groups int, from, to int64) error {
	if g < 0 || g >= groups {
		return slotfare.Errorf(op, "group", "must be in 0..%d, got %d", groups-1, g)
	}
	return checkSpan(op, from, to)
}

// CheckNodes validates a node count or capacity (zero allowed when zeroOK).
func CheckNodes(op slotfare.Op, nodes int, zeroOK bool) error {
	lo := 1
	if zeroOK {
		lo = 0
	}
	if nodes < lo || nodes > MaxNodes {
		return slotfare.Errorf(op, "nodes", "must be in %d..%d, got %d", lo, MaxNodes, nodes)
	}
	return nil
}

// CheckSearch validates NextFree's arguments.
func CheckSearch(from, limit, duration int64, nodes int) error {
	const op slotfare.Op = "inventory.NextFree"
	if duration < 1 {
		return slotfare.Errorf(op, "duration", "must be positive, got %d", duration)
	}
	if from < MinTime || limit < from || limit > MaxTime-duration {
		return slotfare.Errorf(op, "limit", "search [%d, %d] plus %d must lie within [%d, %d]", from, limit, duration, MinTime, MaxTime)
	}
	return CheckNodes(op, nodes, false)
}

// ErrNoCapacity is the refusal of an admission or change that does not fit.
func ErrNoCapacity(op slotfare.Op, res string, t Terms) error {
	return slotfare.E(op, slotfare.NoCapacity, fmt.Sprintf("%d nodes over [%d, %d) do not fit on %s", t.Nodes, t.Start, t.End, res))
}

// ErrUnknownResource is NotFound for a resource never ensured.
func ErrUnknownResource(op slotfare.Op, res string) error {
	return slotfare.E(op, slotfare.NotFound, slotfare.Field("resource"), fmt.Sprintf("no resource %q in the inventory", res))
}

// ErrUnknownBooking is NotFound for a booking the resource does not hold.
func ErrUnknownBooking(op slotfare.Op, res, id string) error {
	return slotfare.E(op, slotfare.NotFound, slotfare.Field("id"), fmt.Sprintf("resource %s holds no booking %q", res, id))
}

// Retired is what ErrRetired wraps (errors.Is): an admission refused
// because its resource is retired (Retirer).
var Retired = errors.New("retired")

// ErrRetired is NotFound for an admission on a resource retired
// (Retirer).
func ErrRetired(op slotfare.Op, res string) error {
	return slotfare.E(op, slotfare.NotFound, slotfare.Field("resource"), fmt.Errorf("resource %q is %w", res, Retired))
}

// ErrHeldOtherwise is the Conflict of an Admit whose id is held with other
// terms.
func ErrHeldOtherwise(op slotfare.Op, res, id string) error {
	return slotfare.E(op, slotfare.Conflict, slotfare.Field("id"), fmt.Sprintf("booking %s is already held on %s with other terms", id, res))
}
