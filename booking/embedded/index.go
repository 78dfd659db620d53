package embedded

import (
	"context"
	"slices"
	"strings"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/records"
	"slotfare/ledger"
)

// put stores st, whose records.ListKey is key, and moves it in the account,
// resource-history and live indexes. The caller holds mu (or is loading);
// st and key are made before, outside the lock, and st is never changed
// once stored.
func (s *Records) put(st *records.Stored, key string) {
	b := st.Record.Booking
	old, had := s.recs[b.ID]
	s.recs[b.ID] = st
	inAccount, inHistory := false, false
	if had {
		ob := old.Record.Booking
		sameKey := ob.CreatedAt.Equal(b.CreatedAt)
		if inAccount = ob.AccountID == b.AccountID && sameKey; !inAccount {
			s.accounts[ob.AccountID] = remove(s.accounts[ob.AccountID], records.ListKey(old.Record))
		}
		if inHistory = ob.ResourceID == b.ResourceID && sameKey; !inHistory {
			s.history[ob.ResourceID] = remove(s.history[ob.ResourceID], records.ListKey(old.Record))
		}
		if ob.ResourceID != b.ResourceID || !b.Status.Holding() {
			s.live[ob.ResourceID] = s.live[ob.ResourceID].leave(b.ID)
		}
	}
	if !inAccount {
		s.accounts[b.AccountID] = insert(s.accounts[b.AccountID], key)
	}
	if !inHistory {
		s.history[b.ResourceID] = insert(s.history[b.ResourceID], key)
	}
	if b.Status.Holding() {
		s.live[b.ResourceID] = s.live[b.ResourceID].join(st)
	}
}

// liveSet is a resource's bookings that hold capacity, kept in id order
// (the order Live answers in, so that a tick reads it without sorting),
// with each one's records.DueAt beside it (every holding record has one):
// Due reads those instants side by side, not every live record, which
// was a tenth of a simulated run. Beside them too are the nodes of each
// active booking (0 for the others), whose DueAt is its end: Running sums
// those still running without reading a record.
type liveSet struct {
	recs  []*records.Stored
	due   []time.Time
	nodes []int
}

// join puts st in the set in place of its earlier record.
func (l liveSet) join(st *records.Stored) liveSet {
	at, _ := records.DueAt(st.Record)
	n := 0
	if b := st.Record.Booking; b.Status == booking.Active {
		n = b.Nodes
	}
	i, found := slices.BinarySearchFunc(l.recs, st.Record.Booking.ID, byID)
	if found {
		l.recs[i], l.due[i], l.nodes[i] = st, at, n
		return l
	}
	return liveSet{recs: slices.Insert(l.recs, i, st), due: slices.Insert(l.due, i, at), nodes: slices.Insert(l.nodes, i, n)}
}

// leave takes booking id out of the set.
func (l liveSet) leave(id string) liveSet {
	if i, found := slices.BinarySearchFunc(l.recs, id, byID); found {
		return liveSet{recs: slices.Delete(l.recs, i, i+1), due: slices.Delete(l.due, i, i+1), nodes: slices.Delete(l.nodes, i, i+1)}
	}
	return l
}

// running are the nodes of the set's active bookings that end after at.
func (l liveSet) running(at time.Time) int {
	sum := 0
	for i, n := range l.nodes {
		if n > 0 && l.due[i].After(at) {
			sum += n
		}
	}
	return sum
}

// dueBy are the records due at or before until, in id order: what
// records.DueOf answers on the set.
func (l liveSet) dueBy(until time.Time) []*records.Stored {
	var out []*records.Stored
	for i, at := range l.due {
		if !at.After(until) {
			out = append(out, l.recs[i])
		}
	}
	return out
}

func byID(st *records.Stored, id string) int { return strings.Compare(st.Record.Booking.ID, id) }

// insert adds key to the sorted keys, once.
func insert(keys []string, key string) []string {
	if i, found := slices.BinarySearch(keys, key); !found {
		return slices.Insert(keys, i, key)
	}
	return keys
}

// remove deletes key from the sorted keys.
func remove(keys []string, key string) []string {
	if i, found := slices.BinarySearch(keys, key); found {
		return slices.Delete(keys, i, i+1)
	}
	return keys
}

// post records postings as stored: each kept once, the indexes by
// account, resource and booking pointing at it. The caller holds mu (or is
// loading).
func (s *Records) post(ps []ledger.Posting) {
	for _, p := range ps {
		i := len(s.posts)
		s.posts = append(s.posts, p)
		s.posted[p.ID] = struct{}{}
		s.postings[p.Customer] = append(s.postings[p.Customer], i)
		s.byRes[p.Resource] = append(s.byRes[p.Resource], i)
		if p.BookingID != "" {
			s.byBook[p.BookingID] = append(s.byBook[p.BookingID], i)
		}
	}
}

// postingsAt are the postings at indexes ix of posts. The caller holds mu.
func (s *Records) postingsAt(ix []int) []ledger.Posting {
	if ix == nil {
		return nil
	}
	out := make([]ledger.Posting, len(ix))
	for k, i := range ix {
		out[k] = s.posts[i]
	}
	return out
}

// Get implements records.Port.
func (s *Records) Get(ctx context.Context, id string) (records.Stored, bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if st, ok := s.recs[id]; ok {
		return *st, true, nil
	}
	return records.Stored{}, false, nil
}

// Booking implements records.Port: the record and its postings under one
// read lock, so they are of one moment.
func (s *Records) Booking(ctx context.Context, id string) (records.Stored, []ledger.Posting, bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st, ok := s.recs[id]
	if !ok {
		return records.Stored{}, nil, false, nil
	}
	return *st, s.postingsAt(s.byBook[id]), true, nil
}

// OfAccount implements records.Port, from the account's sorted keys.
func (s *Records) OfAccount(ctx context.Context, account, after string, limit int) ([]records.Stored, string, error) {
	return s.pageOf("embedded.Records.OfAccount", s.accounts, account, after, limit)
}

// History implements records.Port, from the resource's sorted keys.
func (s *Records) History(ctx context.Context, resource, after string, limit int) ([]records.Stored, string, error) {
	return s.pageOf("embedded.Records.History", s.history, resource, after, limit)
}

// pageOf is a page of index[key]: the sorted keys of an account or of a
// resource. An index map is made once (only its entries change), so it may
// be passed in before the lock is taken; its entries are read under it.
func (s *Records) pageOf(op slotfare.Op, index map[string][]string, key, after string, limit int) ([]records.Stored, string, error) {
	if limit < 1 {
		return nil, "", slotfare.Errorf(op, "limit", "must be positive, got %d", limit)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	page, next := s.page(index[key], after, limit)
	return page, next, nil
}

// page is at most limit records of the sorted keys, from the first key
// after after, and the key to go on after ("" when none is left). The
// caller holds mu for reading.
func (s *Records) page(keys []string, after string, limit int) ([]records.Stored, string) {
	i, found := slices.BinarySearch(keys, after)
	if found {
		i++
	}
	end := min(i+limit, len(keys))
	page := make([]records.Stored, 0, end-i)
	for _, k := range keys[i:end] {
		page = append(page, *s.recs[k[strings.IndexByte(k, '|')+1:]])
	}
	next := ""
	if end < len(keys) {
		next = keys[end-1]
	}
	return page, next
}

// Live implements records.Port.
func (s *Records) Live(ctx context.Context, resource string) ([]*records.Stored, error) {
	s.mu.RLock()
	// Each record is never changed once stored (put): shared, not copied.
	out := slices.Clone(s.live[resource].recs)
	s.mu.RUnlock()
	return out, nil
}

// Due implements records.Port: the live bookings, in id order, filtered
// by when they are due.
func (s *Records) Due(ctx context.Context, resource string, until time.Time) ([]*records.Stored, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.live[resource].dueBy(until), nil
}

// Running implements records.Port: the live set's nodes of the active
// bookings, side by side with their ends.
func (s *Records) Running(ctx context.Context, resource string, at time.Time) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.live[resource].running(at), nil
}

// RepairIndex implements records.Port: a write is indexed under its
// accounts in the step that stores it, so there is nothing to repair.
func (s *Records) RepairIndex(ctx context.Context, resource string) (int, error) { return 0, nil }

// Postings implements records.Port.
func (s *Records) Postings(ctx context.Context, account string) ([]ledger.Posting, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.postingsAt(s.postings[account]), nil
}

// ResourcePostings implements records.Port.
func (s *Records) ResourcePostings(ctx context.Context, resource string) ([]ledger.Posting, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.postingsAt(s.byRes[resource]), nil
}

// refuse indexes refusals as stored, each once, and moves the version of
// the observations of each resource that gained one on. The caller holds
// mu (or is loading).
func (s *Records) refuse(rs []booking.RefusalRecord) {
	moved := map[string]bool{}
	for _, f := range rs {
		k := f.Resource + "\x00" + records.RefusalKey(f)
		if _, ok := s.refKeys[k]; !ok {
			s.refKeys[k] = struct{}{}
			s.refused[f.Resource] = append(s.refused[f.Resource], f)
			moved[f.Resource] = true
		}
	}
	for res := range moved {
		s.observed[res]++
	}
}

// Refused implements records.Port: the refusals not stored yet are
// written to the store (appended, as Batch.Refusals are), then indexed.
func (s *Records) Refused(ctx context.Context, resource string, rs []booking.RefusalRecord, noWait bool) (int64, error) {
	if err := records.CheckRefusals(resource, rs); err != nil {
		return 0, err
	}
	s.mu.RLock()
	var fresh []booking.RefusalRecord
	for _, f := range rs {
		if _, ok := s.refKeys[resource+"\x00"+records.RefusalKey(f)]; !ok {
			fresh = append(fresh, f)
		}
	}
	v := s.observed[resource]
	s.mu.RUnlock()
	if len(fresh) == 0 {
		return v, nil
	}
	if err := s.store.Write(ctx, booking.Batch{Refusals: fresh, NoWait: noWait}); err != nil {
		return 0, slotfare.E(slotfare.Op("embedded.Records.Refused"), slotfare.Unavailable, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse(fresh)
	return s.observed[resource], nil
}

// Observed implements records.Port. The versions live in this process
// only: no other process opens the store while it is open.
func (s *Records) Observed(ctx context.Context, resource string) (int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.observed[resource], nil
}

// Refusals implements records.Port.
func (s *Records) Refusals(ctx context.Context, resource string) ([]booking.RefusalRecord, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return records.SortRefusals(slices.Clone(s.refused[resource])), nil
}

// ClaimHold implements records.HoldClaims: the claims are kept beside the
// records, under the same lock, and a stored hold claims again on load.
func (s *Records) ClaimHold(ctx context.Context, c records.HoldClaim) (bool, []records.Held, error) {
	if err := records.CheckClaim(c); err != nil {
		return false, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ok, counted := s.claims.Claim(c, func(id string) (booking.Status, bool) {
		if st := s.recs[id]; st != nil {
			return st.Record.Booking.Status, true
		}
		return "", false
	})
	return ok, counted, nil
}

// UnclaimHold implements records.HoldClaims.
func (s *Records) UnclaimHold(ctx context.Context, resource, account, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.claims.Unclaim(resource, account, id)
	return nil
}

// ChangeCursor implements records.Changes.
func (s *Records) ChangeCursor(ctx context.Context, resource string) (int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if log := s.changes[resource]; log != nil {
		return log.Cursor(), nil
	}
	return 0, nil
}

// Changes implements records.Changes.
func (s *Records) Changes(ctx context.Context, resource string, after int64, limit int) (records.ChangePage, error) {
	if err := records.CheckChanges(resource, after, limit); err != nil {
		return records.ChangePage{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	log := s.changes[resource]
	if log == nil {
		log = &records.ChangeLog{}
	}
	ids, next, more, lost := log.Page(after, limit)
	page := records.ChangePage{Bookings: make([]records.Stored, len(ids)), Next: next, More: more, Lost: lost}
	for i, id := range ids {
		page.Bookings[i] = *s.recs[id]
	}
	return page, nil
}

// KeepChanges implements records.Changes.
func (s *Records) KeepChanges(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keep = n
}

// CountDemand implements records.DemandPort: the write goes to the store
// (added to the file's records in the commit's transaction), then to the
// index. A write id is kept as Apply's are (recentWrites): within a
// request's life, in this process.
func (s *Records) CountDemand(ctx context.Context, w booking.DemandWrite) (int64, error) {
	if err := records.CheckDemand(w); err != nil {
		return 0, err
	}
	id := "demand\x00" + w.Resource + "\x00" + w.ID
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.applied.has(id) {
		return s.observed[w.Resource], nil
	}
	// Under the lock: two flushes reach the file and the index in the
	// same order, and the write is a few records (one group commit).
	if err := s.store.Write(ctx, booking.Batch{Demand: []booking.DemandWrite{w}, NoWait: true}); err != nil {
		return 0, slotfare.E(slotfare.Op("embedded.Records.CountDemand"), slotfare.Unavailable, err)
	}
	s.applied.add(id)
	s.demand.Count(w)
	s.observed[w.Resource]++
	return s.observed[w.Resource], nil
}

// Demand implements records.DemandPort.
func (s *Records) Demand(ctx context.Context, resource string, since time.Time) ([]booking.DemandRecord, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.demand.Since(resource, since), nil
}
