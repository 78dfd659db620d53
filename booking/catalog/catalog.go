// Package catalog keeps what every replica must agree on before it decides
// anything: the resources' configurations, each with a version, a version
// of the whole catalog that every change raises (a replica polls it, cheaply,
// and reloads what changed, so a provider's change reaches every replica
// within its poll interval), and the offer-signing secret, created once for
// all replicas. Documents are bytes the core encodes: a resource as the
// stores keep it, booking.ResourceRecord's JSON. Memory and Redis keep them
// opaque; the embedded catalog (booking/embedded) writes each as the
// store's resource record, so it requires that shape.
package catalog

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"sync"

	"slotfare"
)

// Doc is one resource's configuration as stored.
type Doc struct {
	ID      string
	Body    []byte
	Version int64
}

// Port stores the catalog.
type Port interface {
	// Put stores body as resource id's configuration when the stored one
	// is still at version replaces (0: no configuration yet), and returns
	// the new version; otherwise a Conflict: someone changed it since it
	// was read. Putting the body already stored at replaces+1 is nil (a
	// retry).
	Put(ctx context.Context, id string, body []byte, replaces int64) (int64, error)
	// All returns every configuration, by id, and the catalog's version.
	All(ctx context.Context) ([]Doc, int64, error)
	// Version is the catalog's version: it grows with every Put.
	Version(ctx context.Context) (int64, error)
	// Secret returns the offer-signing secret, storing candidate when there
	// is none yet: every replica gets the one stored first.
	Secret(ctx context.Context, candidate []byte) ([]byte, error)
}

// CheckPut validates Put's arguments.
func CheckPut(id string, body []byte, replaces int64) error {
	const op slotfare.Op = "catalog.Put"
	if id == "" || len(id) > 256 {
		return slotfare.Errorf(op, "id", "must be 1 to 256 bytes, got %d", len(id))
	}
	if len(body) == 0 {
		return slotfare.Errorf(op, "body", "empty configuration")
	}
	if replaces < 0 {
		return slotfare.Errorf(op, "replaces", "a version is never negative")
	}
	return nil
}

// CheckSecret validates a candidate secret.
func CheckSecret(candidate []byte) error {
	if len(candidate) < 16 {
		return slotfare.Errorf("catalog.Secret", "secret", "must be at least 16 bytes, got %d", len(candidate))
	}
	return nil
}

// ErrMoved is the Conflict of a Put whose configuration changed meanwhile.
func ErrMoved(id string, want, have int64) error {
	return slotfare.E(slotfare.Op("catalog.Put"), slotfare.Conflict, slotfare.Field("version"),
		fmt.Sprintf("resource %s is at version %d, the change replaces %d: read it again", id, have, want))
}

// Memory is the in-process Port.
type Memory struct {
	mu      sync.Mutex
	docs    map[string]Doc
	version int64
	secret  []byte
}

// NewMemory returns an empty in-process catalog.
func NewMemory() *Memory { return &Memory{docs: map[string]Doc{}} }

var _ Port = (*Memory)(nil)

// Put implements Port.
func (m *Memory) Put(ctx context.Context, id string, body []byte, replaces int64) (int64, error) {
	if err := CheckPut(id, body, replaces); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cur := m.docs[id]
	if cur.Version == replaces+1 && bytes.Equal(cur.Body, body) {
		return cur.Version, nil
	}
	if cur.Version != replaces {
		return 0, ErrMoved(id, replaces, cur.Version)
	}
	m.docs[id] = Doc{ID: id, Body: bytes.Clone(body), Version: replaces + 1}
	m.version++
	return replaces + 1, nil
}

// All implements Port.
func (m *Memory) All(ctx context.Context) ([]Doc, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Doc, 0, len(m.docs))
	for _, d := range m.docs {
		out = append(out, Doc{ID: d.ID, Body: bytes.Clone(d.Body), Version: d.Version})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, m.version, nil
}

// Version implements Port.
func (m *Memory) Version(ctx context.Context) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.version, nil
}

// Secret implements Port.
func (m *Memory) Secret(ctx context.Context, candidate []byte) ([]byte, error) {
	if err := CheckSecret(candidate); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.secret == nil {
		m.secret = bytes.Clone(candidate)
	}
	return bytes.Clone(m.secret), nil
}
