// Package groupcommit is the single-writer queue the durable store
// (boltstore) puts in front of its file: concurrent writes queue
// up while one group is being synced and then go to disk together, so many
// clients committing at once share one fsync without any added delay.
package groupcommit

import (
	"errors"
	"sync"
	"time"
)

// ErrClosed is what Submit answers after Close.
var ErrClosed = errors.New("the store is closed")

// MaxGroup bounds how many writes share one commit.
const MaxGroup = 1024

// Queue hands every write to one goroutine that commits them in groups.
// It is safe for concurrent use.
type Queue[T any] struct {
	commit func([]T) error
	queue  chan request[T]
	stop   chan struct{}
	done   chan struct{}
	mu     sync.RWMutex // Submit holds it shared; Close exclusively
	shut   bool
	closed sync.Once
}

type request[T any] struct {
	item T
	err  chan error
}

// New starts the writer. commit stores a group of items durably (one
// transaction, one sync); its error is every item's answer.
func New[T any](commit func([]T) error) *Queue[T] {
	q := &Queue[T]{commit: commit, queue: make(chan request[T], MaxGroup), stop: make(chan struct{}), done: make(chan struct{})}
	go q.writer()
	return q
}

// Submit queues item and, when wait is set, returns once the group holding it
// is committed. Without wait it returns once queued: a later waited write
// lands in the same group or a later one, so it is durable only after the
// item is. Once queued a write is never abandoned.
func (q *Queue[T]) Submit(item T, wait bool) error {
	r := request[T]{item: item, err: make(chan error, 1)}
	q.mu.RLock()
	if q.shut {
		q.mu.RUnlock()
		return ErrClosed
	}
	q.queue <- r
	q.mu.RUnlock()
	if !wait {
		return nil // r.err has room: the writer never blocks on it
	}
	return <-r.err
}

func (q *Queue[T]) writer() {
	defer close(q.done)
	group := make([]request[T], 0, MaxGroup)
	items := make([]T, 0, MaxGroup)
	for {
		select {
		case r := <-q.queue:
			group = append(group[:0], r)
		case <-q.stop:
			return
		}
	drain:
		for len(group) < MaxGroup {
			select {
			case r := <-q.queue:
				group = append(group, r)
			default:
				break drain
			}
		}
		items = items[:0]
		for _, r := range group {
			items = append(items, r.item)
		}
		err := q.commit(items)
		for _, r := range group {
			r.err <- err
		}
		clear(items) // let the committed items be collected
	}
}

// Close commits every write already queued, stops the writer and refuses
// later Submits. It is idempotent.
func (q *Queue[T]) Close() {
	q.closed.Do(func() {
		q.mu.Lock()
		q.shut = true
		q.mu.Unlock()
		// No Submit can queue now; the writer drains what is queued
		// before it can see stop.
		for len(q.queue) > 0 {
			time.Sleep(time.Millisecond)
		}
		close(q.stop)
		<-q.done
	})
}
