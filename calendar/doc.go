// Package calendar keeps the node capacity of one resource over time and
// answers whether n nodes can be reserved over [start, end), where the next
// free interval is, what the free-capacity profile of a window looks like and
// which elastic offers fit a fuzzy request. It knows nothing of money or
// classes. Time comes in as arguments; nothing here reads a clock.
package calendar
