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

// keyDocPrefix marks the catalog documents that held API keys on shared
// ports before the Keys port (a resource id never has a colon): read only
// to adopt them (adoptOldKeys).
const keyDocPrefix = "key:"

// syncCatalog brings this replica up to the catalog when its version moved
// (shared ports; Tick calls it every second): resources created, changed or
// retired on another replica, each installed as that replica configured
// it, without laying anything out again on the shared inventory (the
// replica that made the change did).
func (s *Service) syncCatalog(ctx context.Context, now time.Time) error {
	const op slotfare.Op = "service.syncCatalog"
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
	var errs []error
	for _, d := range docs {
		if strings.HasPrefix(d.ID, keyDocPrefix) {
			continue
		}
		if err := s.syncResource(ctx, d, now); err != nil {
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
func (s *Service) syncResource(ctx context.Context, d catalog.Doc, now time.Time) error {
	const op slotfare.Op = "service.syncCatalog"
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
		r = s.blankResource(d.ID)
		r.mu.Lock()
		s.resources[d.ID] = r
		s.mu.Unlock()
	} else {
		s.mu.Unlock()
		r.mu.Lock()
	}
	defer r.mu.Unlock()
	if r.version >= d.Version && r.groups > 0 {
		return nil
	}
	if err := r.configure(rc, rr.Queue); err != nil {
		return slotfare.E(op, fmt.Sprintf("stored resource %s", d.ID), err)
	}
	hist, err := s.historyOf(ctx, d.ID)
	if err != nil {
		return slotfare.E(op, slotfare.Unavailable, fmt.Sprintf("resource %s", d.ID), err)
	}
	demand, err := s.storedDemand(ctx, d.ID, now)
	if err != nil {
		return slotfare.E(op, slotfare.Unavailable, fmt.Sprintf("resource %s", d.ID), err)
	}
	r.replay(ctx, hist, demand, now)
	if err := r.rebuild(ctx, now, false); err != nil {
		return slotfare.E(op, fmt.Sprintf("resource %s", d.ID), err)
	}
	r.version = d.Version
	r.retired = time.Time{}
	if rr.RetiredAt != nil {
		r.retired = *rr.RetiredAt
	}
	return nil
}
