// Package calendar keeps the node capacity of one resource over time and
// answers whether n nodes can be reserved over [start, end), where the next
// free interval is, what the free-capacity profile of a window looks like and
// which elastic offers fit a fuzzy request. It knows nothing of money or
// classes. Time comes in as arguments; nothing here reads a clock.
//
// Three implementations of Calendar, all checked against one oracle:
//
//   - Tree (the default): continuous time, exact. The free capacity is a
//     step function kept as a sorted array of breakpoints for small books
//     and as a B+-tree with lazy range adds and subtree minimums above 8,192
//     breakpoints (O(log n) admission and update); see Tree.
//   - FreeList: Schneider's time-exclusive list of free blocks (seed 000,
//     Fig. 3), exact; the baseline the tree is measured against.
//   - Slotted: GarQ's ring of fixed slots (seed 004, Alg. 5-7). It rounds
//     reservations out to whole slots, so it accepts less than the exact
//     ones, and its ring bounds how far ahead it can book.
//
// Why the tree beats the free list even on the tiny books of the shared
// traces (9 to 150 live reservations), where fixed costs per request
// dominate: the array moves the shorter side on an edit and searches by
// galloping from the front (where the traffic is once the past has merged);
// Add reuses the positions found by the Fits or NextFree just before it; and
// reservation ids live in an open-addressing table (one hash per call)
// instead of a Go map. `slotfare bench calendar` replays the shared traces
// against each implementation (docs/benchmarks.md has the figures).
package calendar
