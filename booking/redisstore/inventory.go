// Package redisstore keeps slotfare's state in Redis, for several replicas
// of the service behind one load balancer: every decision that must hold
// across replicas is one Lua script run where the data lives. It is where
// slotfare's Redis code lives: the service's ports, and the stores of
// booking/runs (Runs), booking/coreserve (CoReservations) and
// booking/webhooks (Webhooks).
//
// Key layout: every key of a resource carries its id as a hash tag,
// "sf:{<resource>}:...", so a resource's keys share one hash slot and each
// script touches one slot (Redis Cluster shards resources across masters).
package redisstore

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking/events"
	"slotfare/booking/inventory"
	"slotfare/booking/lease"
	"slotfare/calendar"
)

//go:embed inventory.lua
var inventoryLua string

// profileRead is how many breakpoints Profile reads at once, from the
// last before the window's end back: in most windows those inside, the one
// at or before its start, and the one before that.
const profileRead = 3

// Inventory is inventory.Port on Redis: a resource's nested groups are step
// functions of free nodes and of capacity (a sorted set of "time:value"
// breakpoints each), its held bookings a hash. Every step is one
// function of slotfare's library (library.go), or for an offer's read one
// MULTI/EXEC, so admission is atomic across replicas; every step is safe to
// run twice (go-redis retries after a timeout): an admission already made
// answers OK, a release of what is gone answers OK.
type Inventory struct {
	rdb    redis.UniversalClient
	prefix string
	// groups caches each resource's group count (fixed once ensured), so
	// a script can be given every key it touches.
	mu     sync.RWMutex
	groups map[string]int
	// laid caches keys' answers: a flow's three steps name a resource's
	// layout keys each, and building them anew was 1% of a replica's CPU.
	laid map[layoutOf][]string
	// keepEvents is how many events a resource's stream keeps
	// (events.DefaultKeep when 0), as Records'.
	keepEvents atomic.Int64
}

// layoutOf names one answer of keys.
type layoutOf struct {
	res    string
	groups int
}

var (
	_ inventory.Port           = (*Inventory)(nil)
	_ inventory.CapacitySetter = (*Inventory)(nil)
	_ events.Keeper            = (*Inventory)(nil)
)

// NewInventory returns the inventory on rdb, its keys under prefix ("sf"
// when empty).
func NewInventory(rdb redis.UniversalClient, prefix string) *Inventory {
	if prefix == "" {
		prefix = "sf"
	}
	return &Inventory{rdb: rdb, prefix: prefix, groups: map[string]int{}, laid: map[layoutOf][]string{}}
}

// keys are the resource's keys for a script over its first groups groups.
// Callers share the answer: they may append to it (its capacity is its
// length, so an append copies) but not change it.
func (v *Inventory) keys(res string, groups int) []string {
	at := layoutOf{res, groups}
	v.mu.RLock()
	ks, ok := v.laid[at]
	v.mu.RUnlock()
	if ok {
		return ks
	}
	base := slotBase(v.prefix, res)
	ks = make([]string, 0, 2+2*groups)
	ks = append(ks, base+"meta", base+"held")
	for j := range groups {
		g := base + "g" + strconv.Itoa(j) + ":"
		ks = append(ks, g+"free", g+"cap")
	}
	v.mu.Lock()
	if len(v.laid) >= maxLaid {
		clear(v.laid)
	}
	v.laid[at] = ks
	v.mu.Unlock()
	return ks
}

// maxLaid bounds keys' cache: a provider's resources, at a few group
// counts each, fit many times over; ids a caller made up do not grow it
// without end.
const maxLaid = 4096

// groupsOf is the resource's group count, read once from Redis.
func (v *Inventory) groupsOf(ctx context.Context, op slotfare.Op, res string) (int, error) {
	v.mu.RLock()
	n, ok := v.groups[res]
	v.mu.RUnlock()
	if ok {
		return n, nil
	}
	s, err := v.rdb.HGet(ctx, v.keys(res, 0)[0], "groups").Result()
	if err == redis.Nil {
		return 0, inventory.ErrUnknownResource(op, res)
	}
	if err != nil {
		return 0, unavailable(op, err)
	}
	n, err = strconv.Atoi(s)
	if err != nil {
		return 0, slotfare.E(op, slotfare.Other, "a resource's group count is not a number", err)
	}
	v.mu.Lock()
	v.groups[res] = n
	v.mu.Unlock()
	return n, nil
}

// checkGroup checks group g of res and an interval before a script runs.
func (v *Inventory) checkGroup(ctx context.Context, op slotfare.Op, res string, g int, from, to int64) error {
	n, err := v.groupsOf(ctx, op, res)
	if err != nil {
		return err
	}
	return inventory.CheckGroupSpan(op, g, n, from, to)
}

// errOldLayout refuses a resource laid out by an earlier slotfare, which
// kept each step function in a sorted set and a hash: its keys are not
// read as this layout's (that could sell what it holds), and it must be
// laid out anew (its keys deleted, the service restarted).
func errOldLayout(op slotfare.Op, res string) error {
	return slotfare.E(op, slotfare.Other, "resource "+res+" is laid out on Redis by an earlier slotfare (inventory layout 1): delete its keys and restart, so that it is laid out anew")
}

func unavailable(op slotfare.Op, err error) error {
	return slotfare.E(op, slotfare.Unavailable, "redis", err)
}

// run runs one operation of the script with every key of res's groups.
func (v *Inventory) run(ctx context.Context, op slotfare.Op, res string, args ...any) (any, error) {
	return v.runWith(ctx, op, res, nil, args...)
}

// runWith is run with extra keys after the groups' (of res's slot).
func (v *Inventory) runWith(ctx context.Context, op slotfare.Op, res string, extra []string, args ...any) (any, error) {
	g, err := v.groupsOf(ctx, op, res)
	if err != nil {
		return nil, err
	}
	out, err := inventoryFunc.Run(ctx, v.rdb, append(v.keys(res, g), extra...), args...).Result()
	if err != nil {
		return nil, unavailable(op, err)
	}
	if err := layoutAnswer(op, res, g, out); err != nil {
		return nil, err
	}
	return out, nil
}

// layoutAnswer is the error of a script's answer about res's layout as a
// whole (laid out by an earlier slotfare, not laid out, fewer groups than
// asked: it has groups), nil for any other answer.
func layoutAnswer(op slotfare.Op, res string, groups int, out any) error {
	switch out {
	case "OLDLAYOUT":
		return errOldLayout(op, res)
	case "NORES":
		return inventory.ErrUnknownResource(op, res)
	case "GROUPS":
		return slotfare.Errorf(op, "group", "resource %s has %d groups", res, groups)
	}
	return nil
}

// Ensure implements inventory.Port.
func (v *Inventory) Ensure(ctx context.Context, res string, groups, nodes int) error {
	const op slotfare.Op = "redisstore.Inventory.Ensure"
	if err := inventory.CheckEnsure(res, groups, nodes); err != nil {
		return err
	}
	out, err := inventoryFunc.Run(ctx, v.rdb, v.keys(res, groups), "ensure", groups, nodes).Result()
	if err != nil {
		return unavailable(op, err)
	}
	if out == "OLDLAYOUT" {
		return errOldLayout(op, res)
	}
	if out == "CONFLICT" {
		return slotfare.E(op, slotfare.Conflict, slotfare.Field("groups"), "resource "+res+" has another number of groups")
	}
	v.mu.Lock()
	v.groups[res] = groups
	v.mu.Unlock()
	return nil
}

// Admit implements inventory.Port.
func (v *Inventory) Admit(ctx context.Context, res, id string, groups int, t inventory.Terms) error {
	const op slotfare.Op = "redisstore.Inventory.Admit"
	if err := inventory.CheckAdmit(res, id, groups, t); err != nil {
		return err
	}
	out, err := v.run(ctx, op, res, "admit", id, groups, t.Start, t.End, t.Nodes)
	if err != nil {
		if slotfare.FieldOf(err) == "group" {
			return slotfare.Errorf(op, "groups", "resource %s has fewer groups than %d", res, groups)
		}
		return err
	}
	return termsAnswer(op, res, id, t, out)
}

// termsAnswer is what the library's answer to admitting booking id on
// terms t, or moving it to them, means: nil for OK, the port's refusal, or
// an unexpected answer's error.
func termsAnswer(op slotfare.Op, res, id string, t inventory.Terms, out any) error {
	if out == "OK" {
		return nil
	}
	if word, ok := out.(string); ok {
		if err := refusal(op, res, id, t, word); err != nil {
			return err
		}
	}
	return unexpected(op, out)
}

// refusal is the inventory.Port error that the library's word for a
// refused admission or move of booking id to terms t stands for, or nil
// when word is not one. The plain commands and the guarded steps answer
// with the same words.
func refusal(op slotfare.Op, res, id string, t inventory.Terms, word string) error {
	switch word {
	case "NOCAP":
		return inventory.ErrNoCapacity(op, res, t)
	case "CONFLICT":
		return inventory.ErrHeldOtherwise(op, res, id)
	case "RETIRED":
		return inventory.ErrRetired(op, res)
	case "NOTFOUND":
		return inventory.ErrUnknownBooking(op, res, id)
	}
	return nil
}

// Retire implements inventory.Port: the resource's meta hash is marked
// retired in the same step that finds it holds no booking, and every
// admission (inventory_lib.lua's admit, also the guarded hold's) reads it.
func (v *Inventory) Retire(ctx context.Context, res string) (int, error) {
	const op slotfare.Op = "redisstore.Inventory.Retire"
	out, err := v.run(ctx, op, res, "retire")
	if err != nil {
		return 0, err
	}
	n, ok := out.(int64)
	if !ok {
		return 0, unexpected(op, out)
	}
	return int(n), nil
}

// ReleaseOrphans implements inventory.Port: the records' live set of res
// (Records' key under the same prefix) shares the layout's slot, so one
// script compares the two and releases every booking held that the set
// does not list: stored as no longer holding, or admitted on the inventory
// alone (never by a hold, whose admission and record are one step).
func (v *Inventory) ReleaseOrphans(ctx context.Context, res string) ([]string, error) {
	const op slotfare.Op = "redisstore.Inventory.ReleaseOrphans"
	out, err := v.runWith(ctx, op, res, []string{slotBase(v.prefix, res) + "live"}, "orphans")
	if err != nil {
		return nil, err
	}
	a, ok := out.([]any)
	if !ok {
		return nil, unexpected(op, out)
	}
	ids := make([]string, len(a))
	for i, x := range a {
		if ids[i], ok = x.(string); !ok {
			return nil, unexpected(op, out)
		}
	}
	return ids, nil
}

// Reinstate implements inventory.Port.
func (v *Inventory) Reinstate(ctx context.Context, res string) error {
	const op slotfare.Op = "redisstore.Inventory.Reinstate"
	out, err := v.run(ctx, op, res, "reinstate")
	if err != nil {
		return err
	}
	if n, ok := out.(int64); !ok || n != 0 {
		return unexpected(op, out)
	}
	return nil
}

// slotBase is where the keys of resource res's hash slot start under
// prefix: its inventory layout's and its records' alike.
func slotBase(prefix, res string) string { return prefix + ":{" + res + "}:" }

func unexpected(op slotfare.Op, out any) error {
	return slotfare.E(op, slotfare.Other, fmt.Sprintf("unexpected answer %v from the inventory script", out))
}

// Release implements inventory.Port.
func (v *Inventory) Release(ctx context.Context, res, id string) error {
	const op slotfare.Op = "redisstore.Inventory.Release"
	out, err := v.run(ctx, op, res, "release", id)
	if err != nil {
		return err
	}
	if out != "OK" {
		return unexpected(op, out)
	}
	return nil
}

// Replace implements inventory.Port.
func (v *Inventory) Replace(ctx context.Context, res, id string, t inventory.Terms) error {
	const op slotfare.Op = "redisstore.Inventory.Replace"
	if err := inventory.CheckReplace(res, id, t); err != nil {
		return err
	}
	out, err := v.run(ctx, op, res, "replace", id, t.Start, t.End, t.Nodes)
	if err != nil {
		return err
	}
	return termsAnswer(op, res, id, t, out)
}

// Within implements inventory.Port.
func (v *Inventory) Within(ctx context.Context, res, id string) (bool, error) {
	const op slotfare.Op = "redisstore.Inventory.Within"
	out, err := v.run(ctx, op, res, "within", id)
	if err != nil {
		return false, err
	}
	switch out {
	case int64(1):
		return true, nil
	case int64(0):
		return false, nil
	case "NOTFOUND":
		return false, inventory.ErrUnknownBooking(op, res, id)
	}
	return false, unexpected(op, out)
}

// SetCapacity implements inventory.Port.
func (v *Inventory) SetCapacity(ctx context.Context, res string, f lease.Fence, g int, from, to int64, nodes int) error {
	_, err := v.setCapacities(ctx, "redisstore.Inventory.SetCapacity", res, f, []inventory.Capacity{{Group: g, From: from, To: to, Nodes: nodes}}, nil, []any{"setcap", f.Name, f.Token})
	return err
}

// setcapBatch is how many pieces one script lays out: a layout's
// thousands of pieces take a few round trips, each short enough not to
// hold Redis up for long.
const setcapBatch = 256

// SetCapacities implements inventory.CapacitySetter: the pieces in order,
// setcapBatch of them per script, each script fenced by f.
func (v *Inventory) SetCapacities(ctx context.Context, res string, f lease.Fence, cs []inventory.Capacity) error {
	_, err := v.setCapacities(ctx, "redisstore.Inventory.SetCapacities", res, f, cs, nil, []any{"setcap", f.Name, f.Token})
	return err
}

// Publish implements inventory.Port: the pieces as SetCapacities lays
// them out, each script also given the event, the resource's event stream
// and the write's marker (keys of the resource's slot, beside the
// layout). The first script whose pieces change a stored capacity sets
// the marker and adds the event in the same step, so a retried script, or
// a later one of the same write, adds none.
func (v *Inventory) Publish(ctx context.Context, res string, f lease.Fence, cs []inventory.Capacity, p inventory.Publication) (bool, error) {
	const op slotfare.Op = "redisstore.Inventory.Publish"
	if err := inventory.CheckPublication(p); err != nil {
		return false, err
	}
	e, err := json.Marshal(p.Event)
	if err != nil {
		return false, slotfare.E(op, slotfare.Other, err)
	}
	keep := v.keepEvents.Load()
	if keep < 1 {
		keep = events.DefaultKeep
	}
	force := 0
	if p.Force {
		force = 1
	}
	extra := []string{resourceStream(v.prefix, res), slotBase(v.prefix, res) + "limits:w:" + p.WriteID}
	return v.setCapacities(ctx, op, res, f, cs, extra, []any{"publish", f.Name, f.Token, keep, string(e), force})
}

// KeepEvents implements events.Keeper: how many events the stream Publish
// adds to keeps, as Records' KeepEvents.
func (v *Inventory) KeepEvents(n int) { v.keepEvents.Store(int64(n)) }

// setCapacities runs the script's operation head (its name and arguments
// before the pieces) on the pieces, setcapBatch at a time, with extra keys
// after the layout's. logged is true when a script answered that it added
// its event.
func (v *Inventory) setCapacities(ctx context.Context, op slotfare.Op, res string, f lease.Fence, cs []inventory.Capacity, extra []string, head []any) (logged bool, err error) {
	if err := lease.CheckFence(op, f); err != nil {
		return false, err
	}
	for _, c := range cs {
		if err := inventory.CheckNodes(op, c.Nodes, true); err != nil {
			return false, err
		}
	}
	g, err := v.groupsOf(ctx, op, res)
	if err != nil {
		return false, err
	}
	for _, c := range cs {
		if err := inventory.CheckGroupSpan(op, c.Group, g, c.From, c.To); err != nil {
			return false, err
		}
	}
	for len(cs) > 0 {
		n := min(len(cs), setcapBatch)
		args := make([]any, 0, len(head)+4*n)
		args = append(args, head...)
		for _, c := range cs[:n] {
			args = append(args, c.Group, c.From, c.To, c.Nodes)
		}
		out, err := v.runWith(ctx, op, res, extra, args...)
		if err != nil {
			return logged, err
		}
		if out == "LOGGED" {
			logged, out = true, "OK"
		}
		if err := fenceAnswer(op, res, f, out); err != nil {
			return logged, err
		}
		cs = cs[n:]
	}
	return logged, nil
}

// fenceAnswer is the error of a fenced write's answer: nil for "OK",
// ErrFenced for {"FENCED", newest}.
func fenceAnswer(op slotfare.Op, res string, f lease.Fence, out any) error {
	if out == "OK" {
		return nil
	}
	if a, ok := out.([]any); ok && len(a) == 2 && a[0] == "FENCED" {
		if newest, ok := a[1].(int64); ok {
			return lease.ErrFenced(op, res, f, newest)
		}
	}
	return unexpected(op, out)
}

// Fits implements inventory.Port.
func (v *Inventory) Fits(ctx context.Context, res string, g int, from, to int64, nodes int) (bool, error) {
	const op slotfare.Op = "redisstore.Inventory.Fits"
	if err := inventory.CheckNodes(op, nodes, false); err != nil {
		return false, err
	}
	if err := v.checkGroup(ctx, op, res, g, from, to); err != nil {
		return false, err
	}
	out, err := v.run(ctx, op, res, "fits", g, from, to, nodes)
	if err != nil {
		return false, err
	}
	switch out {
	case int64(1):
		return true, nil
	case int64(0):
		return false, nil
	}
	return false, unexpected(op, out)
}

// NextFree implements inventory.Port.
func (v *Inventory) NextFree(ctx context.Context, res string, g int, from, limit, duration int64, nodes int) (int64, bool, error) {
	const op slotfare.Op = "redisstore.Inventory.NextFree"
	if err := inventory.CheckSearch(from, limit, duration, nodes); err != nil {
		return 0, false, err
	}
	if err := v.checkGroup(ctx, op, res, g, from, from+1); err != nil {
		return 0, false, err
	}
	out, err := v.run(ctx, op, res, "nextfree", g, from, limit, duration, nodes)
	if err != nil {
		return 0, false, err
	}
	a, ok := out.([]any)
	if !ok || len(a) == 0 {
		return 0, false, unexpected(op, out)
	}
	if a[0] == "NONE" {
		return 0, false, nil
	}
	if a[0] != "FOUND" || len(a) != 2 {
		return 0, false, unexpected(op, out)
	}
	t, err := strconv.ParseInt(fmt.Sprint(a[1]), 10, 64)
	if err != nil {
		return 0, false, unexpected(op, out)
	}
	return t, true, nil
}

// Profile implements inventory.Port.
func (v *Inventory) Profile(ctx context.Context, res string, g int, from, to int64) ([]calendar.Step, error) {
	const op slotfare.Op = "redisstore.Inventory.Profile"
	n, err := v.groupsOf(ctx, op, res)
	if err != nil {
		return nil, err
	}
	if err := inventory.CheckGroupSpan(op, g, n, from, to); err != nil {
		return nil, err
	}
	ks := v.keys(res, n)
	a, err := v.profileWindow(ctx, op, res, n, g, ks[0], ks[2+2*g], from, to)
	if err != nil {
		return nil, err
	}
	if len(a) == 0 {
		return nil, unexpected(op, a)
	}
	// a holds, from the last breakpoint before to back, those inside
	// (from, to), then the one at or before from (and perhaps some before
	// it, not needed), each "time:value" as the layout keeps them: times
	// fall strictly, and the first below to.
	times, frees := make([]int64, 0, len(a)), make([]int, 0, len(a))
	for i, m := range a {
		ts, fs, ok := strings.Cut(m, ":")
		t, err1 := strconv.ParseInt(ts, 10, 64)
		f, err2 := strconv.Atoi(fs)
		if !ok || err1 != nil || err2 != nil || t >= to || (i > 0 && t >= times[i-1]) {
			return nil, unexpected(op, a)
		}
		times, frees = append(times, t), append(frees, max(f, 0))
		if t <= from {
			break
		}
	}
	if times[len(times)-1] > from {
		return nil, unexpected(op, a)
	}
	steps := make([]calendar.Step, 0, len(times))
	for i := len(times) - 1; i >= 0; i-- {
		t, f := times[i], frees[i]
		if k := len(steps); k > 0 {
			if steps[k-1].Free == f {
				continue
			}
			steps[k-1].End = t
		}
		steps = append(steps, calendar.Step{Start: max(t, from), End: to, Free: f})
	}
	return steps, nil
}

// profileWindow reads what Profile needs of group g's free-node function z
// over [from, to) on layout meta (res's, with n groups): from the last
// breakpoint before to back, those inside (from, to) and the one at or
// before from (perhaps more before it), as stored. Offers read it on
// every request, so it is plain commands in MULTI/EXEC, each read of one
// moment, with no Lua to set up: the layout and profileRead breakpoints,
// and where those do not reach from, the window whole in a second.
func (v *Inventory) profileWindow(ctx context.Context, op slotfare.Op, res string, n, g int, meta, z string, from, to int64) ([]string, error) {
	end := "(" + strconv.FormatInt(to, 10)
	var layout *redis.SliceCmd
	var first *redis.StringSliceCmd
	if _, err := v.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		layout = p.HMGet(ctx, meta, "groups", "layout")
		first = p.ZRevRangeByScore(ctx, z, &redis.ZRangeBy{Max: end, Min: "-inf", Count: profileRead})
		return nil
	}); err != nil {
		return nil, unavailable(op, err)
	}
	lv := layout.Val()
	var answer string
	switch {
	case len(lv) != 2 || lv[0] == nil:
		answer = "NORES"
	case lv[1] != "2":
		answer = "OLDLAYOUT"
	case !groupBelow(g, lv[0]):
		answer = "GROUPS"
	}
	if answer != "" {
		return nil, layoutAnswer(op, res, n, answer)
	}
	a := first.Val()
	if len(a) < profileRead || reaches(a[len(a)-1], from) {
		return a, nil
	}
	start := strconv.FormatInt(from, 10)
	var inside, before *redis.StringSliceCmd
	if _, err := v.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		inside = p.ZRevRangeByScore(ctx, z, &redis.ZRangeBy{Max: end, Min: "(" + start})
		before = p.ZRevRangeByScore(ctx, z, &redis.ZRangeBy{Max: start, Min: "-inf", Count: 1})
		return nil
	}); err != nil {
		return nil, unavailable(op, err)
	}
	return append(inside.Val(), before.Val()...), nil
}

// groupBelow reports whether group g is below the layout's number of
// groups (as HMGET answers it: a decimal string).
func groupBelow(g int, groups any) bool {
	s, _ := groups.(string)
	n, err := strconv.Atoi(s)
	return err == nil && g < n
}

// reaches reports whether breakpoint m ("time:value") is at or before t;
// a malformed one does not reach (Profile then refuses the answer).
func reaches(m string, t int64) bool {
	ts, _, ok := strings.Cut(m, ":")
	at, err := strconv.ParseInt(ts, 10, 64)
	return ok && err == nil && at <= t
}

// Get implements inventory.Port.
func (v *Inventory) Get(ctx context.Context, res, id string) (inventory.Held, bool, error) {
	const op slotfare.Op = "redisstore.Inventory.Get"
	out, err := v.run(ctx, op, res, "get", id)
	if err != nil {
		return inventory.Held{}, false, err
	}
	s, ok := out.(string)
	if !ok {
		return inventory.Held{}, false, unexpected(op, out)
	}
	if s == "NOTFOUND" {
		return inventory.Held{}, false, nil
	}
	f := strings.Fields(s)
	if len(f) != 4 {
		return inventory.Held{}, false, unexpected(op, out)
	}
	var nums [4]int64
	for i, x := range f {
		if nums[i], err = strconv.ParseInt(x, 10, 64); err != nil {
			return inventory.Held{}, false, unexpected(op, out)
		}
	}
	return inventory.Held{ID: id, Groups: int(nums[0]), Terms: inventory.Terms{Start: nums[1], End: nums[2], Nodes: int(nums[3])}}, true, nil
}

// Drop deletes every key of resource res: its groups and what they hold.
func (v *Inventory) Drop(ctx context.Context, res string) error {
	const op slotfare.Op = "redisstore.Inventory.Drop"
	g, err := v.groupsOf(ctx, op, res)
	if slotfare.KindOf(err) == slotfare.NotFound {
		return nil // dropped already
	}
	if err != nil {
		return err
	}
	if err := v.rdb.Del(ctx, v.keys(res, g)...).Err(); err != nil {
		return unavailable(op, err)
	}
	v.mu.Lock()
	delete(v.groups, res)
	v.mu.Unlock()
	return nil
}
