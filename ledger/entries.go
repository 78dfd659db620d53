package ledger

import (
	"sort"
	"time"

	"slotfare"
)

// Entries lists the postings that touch account, in (time, id) order, a
// page of at most limit (0 means DefaultLimit) after cursor ("" for the
// first page). The cursor holds the last posting's (time, id), not a
// position, so a walk over the pages returns every posting present when it
// started exactly once, however many are appended meanwhile; a posting
// appended during the walk shows up only if it sorts after the cursor. A
// customer's entries are those of CustomerAccount(customer). An account
// without postings has an empty first page.
func (l *Ledger) Entries(account AccountID, cursor string, limit int) (Page[Posting], error) {
	const op slotfare.Op = "ledger.Entries"
	a, err := ParseAccountID(string(account), "account_id")
	if err != nil {
		return Page[Posting]{}, slotfare.E(op, err)
	}
	n, err := limitOf(op, limit)
	if err != nil {
		return Page[Posting]{}, err
	}
	var (
		afterT  time.Time
		afterID string
	)
	if cursor != "" {
		parts, err := decodeCursor(op, "e1", cursor, 3)
		if err != nil {
			return Page[Posting]{}, err
		}
		t, terr := time.Parse(timeLayout, parts[1])
		if parts[0] != string(a) || terr != nil {
			return Page[Posting]{}, slotfare.Errorf(op, "cursor", "not a cursor of account %s's entries", a)
		}
		afterT, afterID = t, parts[2]
	}

	l.mu.RLock()
	defer l.mu.RUnlock()
	page := Page[Posting]{Data: []Posting{}}
	acc := l.book.accounts[a]
	if acc == nil {
		return page, nil
	}
	start := 0
	if cursor != "" {
		start = sort.Search(len(acc.recs), func(i int) bool {
			r := acc.recs[i]
			return !less(r, afterT, afterID) && !isAt(r, afterT, afterID)
		})
	}
	end := min(start+n, len(acc.recs))
	for _, r := range acc.recs[start:end] {
		page.Data = append(page.Data, r.p.clone())
	}
	if end < len(acc.recs) {
		last := acc.recs[end-1].p
		page.HasMore = true
		page.NextCursor = encodeCursor("e1", string(a), last.Time.Format(timeLayout), last.ID)
	}
	return page, nil
}

// isAt reports whether r is the posting at (t, id).
func isAt(r *record, t time.Time, id string) bool { return r.p.Time.Equal(t) && r.p.ID == id }
