package webhooks

import (
	"context"
	"sort"
	"sync"
)

// Memory is the in-process Port (tests). The adapters live with their
// dependency: booking/boltstore.Webhooks in the data directory (serve),
// booking/redisstore.Webhooks on the Redis replicas share (serve --redis).
type Memory struct {
	mu    sync.Mutex
	hooks map[string]Hook
}

// NewMemory returns an empty in-process Port.
func NewMemory() *Memory { return &Memory{hooks: map[string]Hook{}} }

func (m *Memory) Create(ctx context.Context, h Hook) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hooks[h.ID] = h
	return nil
}

func (m *Memory) Save(ctx context.Context, h Hook) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.hooks[h.ID]; !ok {
		return false, nil
	}
	m.hooks[h.ID] = h
	return true, nil
}

func (m *Memory) List(ctx context.Context) ([]Hook, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Hook, 0, len(m.hooks))
	for _, h := range m.hooks {
		out = append(out, h)
	}
	return Sorted(out), nil
}

func (m *Memory) Delete(ctx context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.hooks[id]
	delete(m.hooks, id)
	return ok, nil
}

func (m *Memory) Close() error { return nil }

// Sorted sorts hs in id order, as List answers, and returns it.
func Sorted(hs []Hook) []Hook {
	sort.Slice(hs, func(i, j int) bool { return hs[i].ID < hs[j].ID })
	return hs
}
