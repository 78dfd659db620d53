package calendar

import "slices"

// btree is the tree's representation for large books: a B+-tree over the
// breakpoints of the free-capacity step function, augmented for range
// updates and range minimums. Leaves hold breakpoints (time, value); each
// inner entry holds the first time of its child and the least value in the
// child's subtree; every node carries a lazy amount added to everything
// below it. A reservation is then two breakpoint insertions and one range
// add, an admission check one range-minimum walk, each touching O(log n)
// nodes of up to fan entries: no step of the book is visited one by one.
//
// Values are kept in each node's own frame: the value of a leaf entry is its
// stored value plus the lazy amounts of the leaf and of all its ancestors;
// an inner entry's minimum is in the frame of the node holding it (it
// includes the child's lazy amount, not the node's own).
//
// Deletions do not rebalance: a node that empties is unlinked, a root with
// one child is replaced by it. The tree falls back to the flat array well
// before underfull nodes could matter.
type btree struct {
	root *bnode
	fan  int // most entries a node holds
	size int // breakpoints
}

type bnode struct {
	keys []int64  // leaf: breakpoint times; inner: first time of each child
	vals []int    // leaf: values; inner: least value of each child's subtree
	kids []*bnode // nil in a leaf
	lazy int      // added to every value below this node
}

// newNode makes a node with room for fan+1 entries (one over, before a split).
func (t *btree) newNode(leaf bool) *bnode {
	n := &bnode{keys: make([]int64, 0, t.fan+1), vals: make([]int, 0, t.fan+1)}
	if !leaf {
		n.kids = make([]*bnode, 0, t.fan+1)
	}
	return n
}

// entryMin is the least value under n in its parent's frame.
func entryMin(n *bnode) int {
	m := n.vals[0]
	for _, v := range n.vals[1:] {
		m = min(m, v)
	}
	return m + n.lazy
}

// childIdx returns the largest i with keys[i] <= x, or 0.
func childIdx(keys []int64, x int64) int {
	lo, hi := 0, len(keys)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if keys[m] <= x {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// buildBtree bulk-loads the breakpoints p (sorted, p[0].t == MinTime) into
// nodes filled to three quarters.
func buildBtree(p []point, fan int) *btree {
	t := &btree{fan: fan, size: len(p)}
	per := max(2, fan*3/4)
	var level []*bnode
	for i := 0; i < len(p); i += per {
		leaf := t.newNode(true)
		for _, q := range p[i:min(i+per, len(p))] {
			leaf.keys = append(leaf.keys, q.t)
			leaf.vals = append(leaf.vals, q.v)
		}
		level = append(level, leaf)
	}
	for len(level) > 1 {
		var up []*bnode
		for i := 0; i < len(level); i += per {
			n := t.newNode(false)
			for _, k := range level[i:min(i+per, len(level))] {
				n.keys = append(n.keys, k.keys[0])
				n.vals = append(n.vals, entryMin(k))
				n.kids = append(n.kids, k)
			}
			up = append(up, n)
		}
		level = up
	}
	t.root = level[0]
	return t
}

// points lists the breakpoints with their values, in time order.
func (t *btree) points() []point {
	out := make([]point, 0, t.size)
	var walk func(n *bnode, acc int)
	walk = func(n *bnode, acc int) {
		acc += n.lazy
		for i, k := range n.keys {
			if n.kids == nil {
				out = append(out, point{k, n.vals[i] + acc})
			} else {
				walk(n.kids[i], acc)
			}
		}
	}
	walk(t.root, 0)
	return out
}

// valueAt returns the free value at instant x.
func (t *btree) valueAt(x int64) int {
	n, acc := t.root, 0
	for {
		acc += n.lazy
		i := childIdx(n.keys, x)
		if n.kids == nil {
			return acc + n.vals[i]
		}
		n = n.kids[i]
	}
}

// fits reports whether every value over [s, e) is at least need.
func (t *btree) fits(s, e int64, need int) bool {
	return t.fitsIn(t.root, MaxTime, s, e, need, 0)
}

// fitsIn checks the entries of n (whose span ends at hi) that overlap
// [s, e); acc is the sum of the ancestors' lazy amounts.
func (t *btree) fitsIn(n *bnode, hi, s, e int64, need, acc int) bool {
	acc += n.lazy
	keys := n.keys
	for i := childIdx(keys, s); i < len(keys) && keys[i] < e; i++ {
		if n.vals[i]+acc >= need {
			continue
		}
		if n.kids == nil {
			return false
		}
		end := hi
		if i+1 < len(keys) {
			end = keys[i+1]
		}
		if keys[i] >= s && end <= e {
			return false // the whole child is inside and dips below need
		}
		if !t.fitsIn(n.kids[i], end, s, e, need, acc) {
			return false
		}
	}
	return true
}

// lastBlocked returns the end of the last step overlapping [s, e) whose
// value is below need.
func (t *btree) lastBlocked(n *bnode, hi, s, e int64, need, acc int) (int64, bool) {
	acc += n.lazy
	keys := n.keys
	i0 := childIdx(keys, s)
	for i := childIdx(keys, e-1); i >= i0; i-- {
		if keys[i] >= e || n.vals[i]+acc >= need {
			continue
		}
		end := hi
		if i+1 < len(keys) {
			end = keys[i+1]
		}
		if n.kids == nil {
			return end, true
		}
		if r, ok := t.lastBlocked(n.kids[i], end, s, e, need, acc); ok {
			return r, true
		}
	}
	return 0, false
}

// profile appends the steps over [from, to) under n.
func (t *btree) profile(out []Step, n *bnode, hi, from, to int64, acc int) []Step {
	acc += n.lazy
	keys := n.keys
	for i := childIdx(keys, from); i < len(keys) && keys[i] < to; i++ {
		end := hi
		if i+1 < len(keys) {
			end = keys[i+1]
		}
		if n.kids == nil {
			out = appendStep(out, max(keys[i], from), min(end, to), n.vals[i]+acc)
		} else {
			out = t.profile(out, n.kids[i], end, from, to, acc)
		}
	}
	return out
}

// addRange adds d to every value over [from, to), keeping adjacent values
// distinct.
func (t *btree) addRange(from, to int64, d int) {
	if d == 0 {
		return
	}
	t.split(from)
	if to < MaxTime {
		t.split(to)
	}
	t.add(t.root, MaxTime, from, to, d)
	if to < MaxTime && t.valueAt(to-1) == t.valueAt(to) {
		t.remove(to)
	}
	if from > MinTime && t.valueAt(from-1) == t.valueAt(from) {
		t.remove(from)
	}
}

// add adds d over [s, e), which are breakpoints (or e is MaxTime).
func (t *btree) add(n *bnode, hi, s, e int64, d int) {
	keys := n.keys
	for i := childIdx(keys, s); i < len(keys) && keys[i] < e; i++ {
		if n.kids == nil {
			n.vals[i] += d
			continue
		}
		end := hi
		if i+1 < len(keys) {
			end = keys[i+1]
		}
		k := n.kids[i]
		if keys[i] >= s && end <= e {
			k.lazy += d
			n.vals[i] += d
			continue
		}
		t.add(k, end, s, e, d)
		n.vals[i] = entryMin(k)
	}
}

// split makes x a breakpoint.
func (t *btree) split(x int64) {
	if sib := t.insert(t.root, x); sib != nil {
		old := t.root
		r := t.newNode(false)
		r.keys = append(r.keys, old.keys[0], sib.keys[0])
		r.vals = append(r.vals, entryMin(old), entryMin(sib))
		r.kids = append(r.kids, old, sib)
		t.root = r
	}
}

// insert adds breakpoint x under n (a copy of the step holding x) and
// returns n's new right sibling when n had to split.
func (t *btree) insert(n *bnode, x int64) *bnode {
	i := childIdx(n.keys, x)
	if n.kids == nil {
		if n.keys[i] == x {
			return nil
		}
		n.keys = slices.Insert(n.keys, i+1, x)
		n.vals = slices.Insert(n.vals, i+1, n.vals[i])
		t.size++
	} else {
		sib := t.insert(n.kids[i], x)
		if sib == nil {
			return nil
		}
		n.vals[i] = entryMin(n.kids[i])
		n.keys = slices.Insert(n.keys, i+1, sib.keys[0])
		n.vals = slices.Insert(n.vals, i+1, entryMin(sib))
		n.kids = slices.Insert(n.kids, i+1, sib)
	}
	if len(n.keys) <= t.fan {
		return nil
	}
	half := len(n.keys) / 2
	sib := t.newNode(n.kids == nil)
	sib.lazy = n.lazy
	sib.keys = append(sib.keys, n.keys[half:]...)
	sib.vals = append(sib.vals, n.vals[half:]...)
	n.keys, n.vals = n.keys[:half], n.vals[:half]
	if n.kids != nil {
		sib.kids = append(sib.kids, n.kids[half:]...)
		clear(n.kids[half:])
		n.kids = n.kids[:half]
	}
	return sib
}

// remove deletes breakpoint x (> MinTime), whose step joins the one before.
func (t *btree) remove(x int64) {
	t.removeIn(t.root, x)
	for t.root.kids != nil && len(t.root.keys) == 1 {
		k := t.root.kids[0]
		k.lazy += t.root.lazy
		t.root = k
	}
}

func (t *btree) removeIn(n *bnode, x int64) {
	i := childIdx(n.keys, x)
	if n.kids == nil {
		if n.keys[i] == x {
			n.keys = slices.Delete(n.keys, i, i+1)
			n.vals = slices.Delete(n.vals, i, i+1)
			t.size--
		}
		return
	}
	k := n.kids[i]
	t.removeIn(k, x)
	if len(k.keys) == 0 {
		n.keys = slices.Delete(n.keys, i, i+1)
		n.vals = slices.Delete(n.vals, i, i+1)
		n.kids = slices.Delete(n.kids, i, i+1)
		return
	}
	n.keys[i] = k.keys[0]
	n.vals[i] = entryMin(k)
}
