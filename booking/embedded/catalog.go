package embedded

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"sync"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/catalog"
)

// Catalog is catalog.Port on a booking.Store. A document is a resource as
// the service stores it today: its Body is the JSON of a
// booking.ResourceRecord (the configuration object, whose "id" must be the
// document's id, the last queue snapshot and the retirement time), written
// as Batch.Resources. Put keeps the body re-encoded by encoding/json, which
// is how the stores keep a record and how All gives it back, before and
// after a restart, so a body encoded by json.Marshal comes back byte for
// byte. On Open every stored resource is a document at version 1, and the
// catalog's version is their count. The secret is written once, as
// Batch.Secret.
//
// Catalog writes are rare (provider operations, the secret once) and are
// taken one at a time, across the store's sync; reads never wait for them.
type Catalog struct {
	store booking.Store
	write sync.Mutex // one catalog write at a time, held across store.Write

	mu      sync.RWMutex
	docs    map[string]catalog.Doc
	version int64
	secret  []byte
}

var _ catalog.Port = (*Catalog)(nil)

func newCatalog(store booking.Store, res []booking.ResourceRecord, secret []byte) (*Catalog, error) {
	c := &Catalog{store: store, docs: map[string]catalog.Doc{}, secret: bytes.Clone(secret)}
	for _, r := range res {
		if r.ID == "" {
			return nil, slotfare.E(slotfare.Op("embedded.Open"), slotfare.Other, "a stored resource's configuration has no id")
		}
		body, err := json.Marshal(r)
		if err != nil {
			return nil, slotfare.E(slotfare.Op("embedded.Open"), slotfare.Other, "resource "+r.ID+" does not encode", err)
		}
		c.docs[r.ID] = catalog.Doc{ID: r.ID, Body: body, Version: 1}
	}
	c.version = int64(len(c.docs))
	return c, nil
}

// decodeDoc reads body as the booking.ResourceRecord of resource id and
// returns it with its stored encoding.
func decodeDoc(id string, body []byte) (booking.ResourceRecord, []byte, error) {
	const op slotfare.Op = "embedded.Catalog.Put"
	var r booking.ResourceRecord
	if err := json.Unmarshal(body, &r); err != nil {
		return r, nil, slotfare.E(op, slotfare.Invalid, slotfare.Field("body"), "not a stored resource (booking.ResourceRecord)", err)
	}
	if r.ID != id {
		return r, nil, slotfare.Errorf(op, "body", "the configuration's id is %q, the document's %q", r.ID, id)
	}
	enc, err := json.Marshal(r)
	if err != nil {
		return r, nil, slotfare.E(op, slotfare.Invalid, slotfare.Field("body"), err)
	}
	return r, enc, nil
}

// Put implements catalog.Port.
func (c *Catalog) Put(ctx context.Context, id string, body []byte, replaces int64) (int64, error) {
	const op slotfare.Op = "embedded.Catalog.Put"
	if err := catalog.CheckPut(id, body, replaces); err != nil {
		return 0, err
	}
	rec, enc, err := decodeDoc(id, body)
	if err != nil {
		return 0, err
	}
	c.write.Lock()
	defer c.write.Unlock()
	c.mu.RLock()
	cur := c.docs[id]
	c.mu.RUnlock()
	if cur.Version == replaces+1 && bytes.Equal(cur.Body, enc) {
		return cur.Version, nil
	}
	if cur.Version != replaces {
		return 0, catalog.ErrMoved(id, replaces, cur.Version)
	}
	if err := c.store.Write(ctx, booking.Batch{Resources: []booking.ResourceRecord{rec}}); err != nil {
		return 0, slotfare.E(op, err)
	}
	c.mu.Lock()
	c.docs[id] = catalog.Doc{ID: id, Body: enc, Version: replaces + 1}
	c.version++
	c.mu.Unlock()
	return replaces + 1, nil
}

// All implements catalog.Port.
func (c *Catalog) All(ctx context.Context) ([]catalog.Doc, int64, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]catalog.Doc, 0, len(c.docs))
	for _, d := range c.docs {
		out = append(out, catalog.Doc{ID: d.ID, Body: bytes.Clone(d.Body), Version: d.Version})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, c.version, nil
}

// Version implements catalog.Port.
func (c *Catalog) Version(ctx context.Context) (int64, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.version, nil
}

// Secret implements catalog.Port: the first candidate is written to the
// store and kept; a failed write keeps none, and the next call tries again.
func (c *Catalog) Secret(ctx context.Context, candidate []byte) ([]byte, error) {
	if err := catalog.CheckSecret(candidate); err != nil {
		return nil, err
	}
	c.mu.RLock()
	sec := c.secret
	c.mu.RUnlock()
	if sec != nil {
		return bytes.Clone(sec), nil
	}
	c.write.Lock()
	defer c.write.Unlock()
	if c.secret == nil {
		s := bytes.Clone(candidate)
		if err := c.store.Write(ctx, booking.Batch{Secret: s}); err != nil {
			return nil, slotfare.E(slotfare.Op("embedded.Catalog.Secret"), err)
		}
		c.mu.Lock()
		c.secret = s
		c.mu.Unlock()
	}
	return bytes.Clone(c.secret), nil
}
