package logconvert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/dirlock"
	"slotfare/ledger"
	"slotfare/ledger/recordlog"
)

// ConvertedName is what the log is renamed to once the bbolt store holds
// its contents: kept, unchanged, until its owner deletes it.
const ConvertedName = FileName + ".converted"

// building is the directory, inside the data directory, where the new
// bbolt file is written and verified before it is moved into place: a
// conversion cut short leaves no slotfare.db that serve would start on.
const building = "slotfare.db.converting"

// Result is what Convert did.
type Result struct {
	Log    recordlog.Report // what was read of the log (a torn tail left out)
	Store  string           // the bbolt file written
	Counts boltstore.Counts // what it holds, equal to what the log held
	Kept   string           // where the log is now
}

// Convert moves the log store's data in dir into the bbolt store there,
// holding the directory's lock (*dirlock.InUse when a server runs there).
// It refuses, changing nothing, when dir has no log (NotFound), when a
// bbolt store with data (or a damaged one) or an earlier conversion's kept
// log is there (Conflict), or when the log is damaged (Other, with the
// *recordlog.Damage in the chain). The new store is written beside, checked
// (every record decodes, bbolt's consistency check passes, it loads the
// same records as the log), and only then moved into place; the log is then
// renamed to ConvertedName.
func Convert(ctx context.Context, dir string) (Result, error) {
	const op slotfare.Op = "logconvert.Convert"
	lock, err := dirlock.Acquire(dir)
	if err != nil {
		return Result{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	defer lock.Release()
	res := Result{Store: filepath.Join(dir, boltstore.FileName), Kept: filepath.Join(dir, ConvertedName)}
	logPath := filepath.Join(dir, FileName)
	if err := refuse(dir, logPath, res.Kept); err != nil {
		return Result{}, slotfare.E(op, err)
	}
	st, rep, err := Read(logPath)
	res.Log = rep
	if err != nil {
		return res, slotfare.E(op, slotfare.Other, "nothing was written", err)
	}
	tmp := filepath.Join(dir, building)
	if err := os.RemoveAll(tmp); err != nil {
		return res, slotfare.E(op, slotfare.Unavailable, err)
	}
	defer os.RemoveAll(tmp)
	if res.Counts, err = write(ctx, tmp, st); err != nil {
		return res, slotfare.E(op, slotfare.Other, "nothing was moved into place", err)
	}
	if err := os.Rename(filepath.Join(tmp, boltstore.FileName), res.Store); err != nil {
		return res, slotfare.E(op, slotfare.Unavailable, err)
	}
	if err := os.Rename(logPath, res.Kept); err != nil {
		return res, slotfare.E(op, slotfare.Unavailable, "the bbolt store is in place but the log was not renamed", err)
	}
	if err := syncDir(dir); err != nil {
		return res, slotfare.E(op, slotfare.Unavailable, err)
	}
	return res, nil
}

// refuse says why dir cannot be converted, nil if it can. An empty bbolt
// store (no record, no offer secret) is replaced.
func refuse(dir, logPath, kept string) error {
	if _, err := os.Stat(logPath); errors.Is(err, fs.ErrNotExist) {
		return slotfare.E(slotfare.NotFound, fmt.Sprintf("%s holds no %s: nothing to convert", dir, FileName))
	} else if err != nil {
		return slotfare.E(slotfare.Unavailable, err)
	}
	if _, err := os.Stat(kept); err == nil {
		return slotfare.E(slotfare.Conflict, fmt.Sprintf("%s is there already, from an earlier conversion; move it away first", kept))
	}
	rep, err := boltstore.Check(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return slotfare.E(slotfare.Unavailable, err)
	case rep.Damage != nil || len(rep.Consistency) > 0:
		return slotfare.E(slotfare.Conflict, fmt.Sprintf("%s is there already and damaged; 'slotfare store check' tells what is intact", rep.File))
	case rep.Intact != (boltstore.Counts{}):
		return slotfare.E(slotfare.Conflict, fmt.Sprintf("%s holds data already (%s): the log was converted before, or the "+
			"directory was served from bbolt since; nothing was changed", rep.File, describe(rep.Intact)))
	}
	return nil
}

// write stores st in a new bbolt store in dir as one transaction, then
// verifies it.
func write(ctx context.Context, dir string, st booking.State) (boltstore.Counts, error) {
	s, err := boltstore.Open(dir, boltstore.Options{})
	if err != nil {
		return boltstore.Counts{}, err
	}
	err = s.Write(ctx, booking.Batch{Bookings: st.Bookings, Postings: st.Postings, Resources: st.Resources,
		Refusals: st.Refusals, Keys: st.Keys, Secret: st.Secret})
	if e := s.Close(); err == nil {
		err = e
	}
	if err != nil {
		return boltstore.Counts{}, err
	}
	return verify(ctx, dir, st)
}

// verify checks the bbolt store in dir as store check does and that it
// loads what st holds.
func verify(ctx context.Context, dir string, st booking.State) (boltstore.Counts, error) {
	rep, err := boltstore.Check(dir)
	if err != nil {
		return rep.Intact, err
	}
	if rep.Damage != nil {
		return rep.Intact, rep.Damage
	}
	if len(rep.Consistency) > 0 {
		return rep.Intact, fmt.Errorf("bbolt's consistency check: %s", strings.Join(rep.Consistency, "; "))
	}
	if want := count(st); rep.Intact != want {
		return rep.Intact, fmt.Errorf("the bbolt store holds %s, the log %s", describe(rep.Intact), describe(want))
	}
	s, err := boltstore.Open(dir, boltstore.Options{})
	if err != nil {
		return rep.Intact, err
	}
	got, err := s.Load(ctx)
	if e := s.Close(); err == nil {
		err = e
	}
	if err != nil {
		return rep.Intact, err
	}
	return rep.Intact, same(st, got)
}

func count(st booking.State) boltstore.Counts {
	return boltstore.Counts{Bookings: len(st.Bookings), Postings: len(st.Postings), Resources: len(st.Resources),
		Refusals: len(st.Refusals), Keys: len(st.Keys), Secret: st.Secret != nil}
}

// describe writes counts as store check does.
func describe(n boltstore.Counts) string {
	return fmt.Sprintf("%d bookings, %d postings, %d resources, %d refusals, %d keys, offer secret %v",
		n.Bookings, n.Postings, n.Resources, n.Refusals, n.Keys, n.Secret)
}

// same reports the first record in which two states differ, comparing
// their stored forms: bookings, resources and keys by id or name (a store
// gives them back in any order), postings and refusals in order.
func same(want, got booking.State) error {
	w, err := storedForms(want)
	if err != nil {
		return err
	}
	g, err := storedForms(got)
	if err != nil {
		return err
	}
	for k, v := range w {
		if !bytes.Equal(g[k], v) {
			return fmt.Errorf("%s: the bbolt store loads %s, the log held %s", k, g[k], v)
		}
	}
	if len(g) != len(w) {
		return fmt.Errorf("the bbolt store loads %d records, the log held %d", len(g), len(w))
	}
	return nil
}

// storedForms maps every record of st to its JSON.
func storedForms(st booking.State) (map[string][]byte, error) {
	m := map[string][]byte{"secret": st.Secret}
	add := func(key string, v any) error {
		b, err := json.Marshal(v)
		m[key] = b
		return err
	}
	var err error
	for _, r := range st.Bookings {
		err = errors.Join(err, add("booking "+r.Booking.ID, r))
	}
	for i, p := range st.Postings {
		b, e := ledger.EncodePosting(p)
		m[fmt.Sprintf("posting %d", i)], err = b, errors.Join(err, e)
	}
	for _, r := range st.Resources {
		err = errors.Join(err, add("resource "+r.ID, r))
	}
	for i, r := range st.Refusals {
		err = errors.Join(err, add(fmt.Sprintf("refusal %d", i), r))
	}
	for _, k := range st.Keys {
		err = errors.Join(err, add("key "+k.Name, k))
	}
	return m, err
}

// syncDir makes the renames in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if e := d.Close(); err == nil {
		err = e
	}
	return err
}
