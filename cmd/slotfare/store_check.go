package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"slotfare"
	"slotfare/booking/boltstore"
	"slotfare/booking/dirlock"
)

func init() {
	register("store check", command{
		summary: "check a data directory's store for damage and report what is intact",
		run:     runStoreCheck,
	})
}

// runStoreCheck examines the store under --data without changing it (it
// takes the directory's lock, so not while a server runs there). Exit 0:
// clean; 1: damage, which serve refuses to start on; 2: bad usage, the
// directory is in use, or it holds only an old log store's log (store
// convert moves it).
func runStoreCheck(args []string, stdout, stderr io.Writer) error {
	fls := newFlags("store check", stderr)
	data := fls.String("data", "", "the data directory (serve's --data)")
	kind := fls.String("store", "bbolt", "the store under --data: bbolt, the only one")
	if err := parseFlags(fls, args); err != nil {
		return err
	}
	var bad flagProblems
	bad.require(fls, "data")
	bad.add(checkStoreKind(*kind))
	if err := bad.err(); err != nil {
		return err
	}
	dir, err := existingDataDir(*data)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, boltstore.FileName)); errors.Is(err, fs.ErrNotExist) {
		if err := unconverted(dir); err != nil {
			return err
		}
		return slotfare.E(slotfare.Invalid, slotfare.Field("--data"), fmt.Sprintf("%s holds no %s", dir, boltstore.FileName))
	}
	lock, err := dirlock.Acquire(dir)
	if err != nil {
		var inUse *dirlock.InUse
		if errors.As(err, &inUse) {
			return slotfare.E(slotfare.Invalid, inUse.Error()+"; stop it first")
		}
		return slotfare.E(slotfare.Other, err)
	}
	defer lock.Release()
	damaged, err := checkBolt(dir, stdout)
	if err != nil {
		return slotfare.E(slotfare.Other, err)
	}
	if damaged {
		return slotfare.E(slotfare.Other, fmt.Sprintf("the store in %s is damaged; serve refuses to start on it", dir))
	}
	return nil
}

// existingDataDir is --data as an absolute path, refused unless it is a
// directory already: store check and convert read what a server left there
// and must not create an empty one.
func existingDataDir(data string) (string, error) {
	dir, err := filepath.Abs(data)
	if err != nil {
		return "", slotfare.E(slotfare.Invalid, slotfare.Field("--data"), err.Error())
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", slotfare.E(slotfare.Invalid, slotfare.Field("--data"), "is not a directory: "+dir)
	}
	return dir, nil
}

func checkBolt(dir string, w io.Writer) (damaged bool, err error) {
	rep, err := boltstore.Check(dir)
	if err != nil {
		return false, err
	}
	fi, err := os.Stat(rep.File)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(w, "file: %s (%d bytes)\n", rep.File, fi.Size())
	n := rep.Intact
	fmt.Fprintf(w, "intact: %d bookings, %d postings, %d resources, offer secret %v\n", n.Bookings, n.Postings, n.Resources, n.Secret)
	if d := rep.Damage; d != nil {
		fmt.Fprintf(w, "damage: %s\n", d.Error())
		fmt.Fprintln(w, "(the counts are the records read before the damage; bbolt's own consistency check was not run)")
		damaged = true
	}
	for _, c := range rep.Consistency {
		fmt.Fprintf(w, "consistency: %s\n", c)
		damaged = true
	}
	if damaged {
		fmt.Fprintln(w, "status: damaged")
	} else {
		fmt.Fprintln(w, "status: clean (every record decodes and passes its checksum; bbolt's consistency check passes)")
	}
	return damaged, nil
}
