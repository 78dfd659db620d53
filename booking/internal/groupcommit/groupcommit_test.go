package groupcommit

import (
	"errors"
	"runtime"
	"sync"
	"testing"
)

// TestGroupsShareCommits: concurrent waited writes are all committed exactly
// once, in fewer commits than writes when they overlap. The first commit is
// held until every other write has queued behind it, whatever the
// scheduler does, so the rest must share the commits that follow.
func TestGroupsShareCommits(t *testing.T) {
	var mu sync.Mutex
	seen := map[int]int{}
	commits := 0
	gate := make(chan struct{})
	first := make(chan int, 1)
	var once sync.Once
	q := New(func(items []int) error {
		once.Do(func() { first <- len(items) })
		<-gate
		mu.Lock()
		defer mu.Unlock()
		commits++
		for _, x := range items {
			seen[x]++
		}
		return nil
	})
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := q.Submit(i, true); err != nil {
				t.Error(err)
			}
		}()
	}
	inFirst := <-first
	for len(q.queue) < 200-inFirst {
		runtime.Gosched() // the writers are still queueing
	}
	close(gate)
	wg.Wait()
	q.Close()
	if len(seen) != 200 {
		t.Fatalf("%d of 200 items committed", len(seen))
	}
	for x, n := range seen {
		if n != 1 {
			t.Fatalf("item %d committed %d times", x, n)
		}
	}
	if commits >= 200 {
		t.Fatalf("%d commits for 200 concurrent writes: no grouping", commits)
	}
}

// TestCloseCommitsQueuedWrites: writes queued without waiting are committed
// by Close, and Submit after Close fails.
func TestCloseCommitsQueuedWrites(t *testing.T) {
	var got []string
	q := New(func(items []string) error { got = append(got, items...); return nil })
	for _, s := range []string{"a", "b", "c"} {
		if err := q.Submit(s, false); err != nil {
			t.Fatal(err)
		}
	}
	q.Close()
	q.Close()
	if len(got) != 3 || got[0] != "a" || got[2] != "c" {
		t.Fatalf("committed %q, want a b c in order", got)
	}
	if err := q.Submit("late", true); !errors.Is(err, ErrClosed) {
		t.Fatalf("Submit after Close = %v, want ErrClosed", err)
	}
}

// TestCommitErrorReachesEveryWriter: a failed commit is every member's answer.
func TestCommitErrorReachesEveryWriter(t *testing.T) {
	boom := errors.New("disk on fire")
	q := New(func([]int) error { return boom })
	defer q.Close()
	if err := q.Submit(1, true); !errors.Is(err, boom) {
		t.Fatalf("Submit = %v, want the commit's error", err)
	}
}
