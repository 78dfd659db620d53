package service

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/catalog"
	"slotfare/booking/config"
)

// keyDocPrefix marks the catalog documents that hold API keys on shared
// ports (a resource id never has a colon): a key created on one replica
// authenticates on every one.
const keyDocPrefix = "key:"

// saveKey stores an API key's record where every replica reads it: the
// catalog on shared ports, the process's store otherwise. The caller holds
// s.keysMu.
func (s *Service) saveKey(ctx context.Context, op string, rec booking.KeyRecord) error {
	if !s.shared {
		if err := s.store.Write(ctx, booking.Batch{Keys: []booking.KeyRecord{rec}}); err != nil {
			return slotfare.E(op, slotfare.Unavailable, err)
		}
		return nil
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return slotfare.E(op, slotfare.Other, err)
	}
	v, err := s.ports.Catalog.Put(ctx, keyDocPrefix+rec.Name, body, s.keyVersions[rec.Name])
	if err != nil {
		if slotfare.KindOf(err) == slotfare.Conflict {
			return slotfare.E(op, slotfare.Conflict, slotfare.Field("name"), fmt.Sprintf("key %q was changed meanwhile by another replica; list the keys and try again", rec.Name), err)
		}
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	s.keyVersions[rec.Name] = v
	return nil
}

// installKeyDocs takes the API keys among the catalog's documents (shared
// ports): live ones are installed, revoked ones dropped. The caller holds
// s.keysMu.
func (s *Service) installKeyDocs(docs []catalog.Doc) error {
	for _, d := range docs {
		name, ok := strings.CutPrefix(d.ID, keyDocPrefix)
		if !ok || s.keyVersions[name] == d.Version {
			continue
		}
		var k booking.KeyRecord
		if err := json.Unmarshal(d.Body, &k); err != nil {
			return slotfare.E("booking.keys", slotfare.Other, fmt.Sprintf("stored key %s", name), err)
		}
		s.keyVersions[name] = d.Version
		if k.RevokedAt == nil {
			s.apiKeys[name] = k
		} else {
			delete(s.apiKeys, name)
		}
	}
	s.installKeys()
	return nil
}

// syncCatalog brings this replica up to the catalog when its version moved
// (shared ports; Tick calls it every second): API keys, and resources
// created, changed or retired on another replica, each installed as that
// replica configured it, without laying anything out again on the shared
// inventory (the replica that made the change did).
func (s *Service) syncCatalog(ctx context.Context, now time.Time) error {
	const op = "booking.syncCatalog"
	v, err := s.ports.Catalog.Version(ctx)
	if err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	if v == s.catalogVersion.Load() {
		return nil
	}
	docs, v, err := s.ports.Catalog.All(ctx)
	if err != nil {
		return slotfare.E(op, slotfare.Unavailable, err)
	}
	s.keysMu.Lock()
	err = s.installKeyDocs(docs)
	s.keysMu.Unlock()
	if err != nil {
		return err
	}
	var errs []error
	for _, d := range docs {
		if strings.HasPrefix(d.ID, keyDocPrefix) {
			continue
		}
		if err := s.syncResource(d, now); err != nil {
			errs = append(errs, err)
		}
	}
	if err := slotfare.Join(errs...); err != nil {
		return err // read again on the next tick
	}
	s.catalogVersion.Store(v)
	return nil
}

// syncResource installs one resource document when it is newer than what
// this replica has.
func (s *Service) syncResource(d catalog.Doc, now time.Time) error {
	const op = "booking.syncCatalog"
	var rr booking.ResourceRecord
	if err := json.Unmarshal(d.Body, &rr); err != nil {
		return slotfare.E(op, slotfare.Other, fmt.Sprintf("stored resource %s", d.ID), err)
	}
	rc, err := config.DecodeStored(rr)
	if err != nil {
		return slotfare.E(op, fmt.Sprintf("stored resource %s", d.ID), err)
	}
	s.mu.Lock()
	r := s.resources[d.ID]
	if r == nil {
		r = &resource{id: d.ID, svc: s, live: map[string]*entry{}}
		r.mu.Lock()
		s.resources[d.ID] = r
		s.mu.Unlock()
	} else {
		s.mu.Unlock()
		r.mu.Lock()
	}
	defer r.mu.Unlock()
	if r.version >= d.Version && r.key != "" {
		return nil
	}
	if err := r.configure(rc, rr.Queue); err != nil {
		return slotfare.E(op, fmt.Sprintf("stored resource %s", d.ID), err)
	}
	hist, err := s.historyOf(context.Background(), d.ID)
	if err != nil {
		return slotfare.E(op, slotfare.Unavailable, fmt.Sprintf("resource %s", d.ID), err)
	}
	r.replay(hist, now)
	if err := r.rebuild(now, false); err != nil {
		return slotfare.E(op, fmt.Sprintf("resource %s", d.ID), err)
	}
	r.version = d.Version
	r.retired = time.Time{}
	if rr.RetiredAt != nil {
		r.retired = *rr.RetiredAt
	}
	return nil
}
