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
	"slotfare/booking/logstore"
)

func init() {
	register("store check", command{
		summary: "check a data directory's store for damage and report what is intact",
		run:     runStoreCheck,
	})
}

// runStoreCheck examines the store under --data without changing it (it
// takes the directory's lock, so not while a server runs there). Exit 0:
// clean, or only a torn last write, which serve cuts off on start without
// losing anything acknowledged; 1: damage, which serve refuses to start on;
// 2: bad usage, or the directory is in use.
func runStoreCheck(args []string, stdout, stderr io.Writer) error {
	fls := newFlags("store check", stderr)
	data := fls.String("data", "", "the data directory (serve's --data)")
	kind := fls.String("store", "bbolt", "the store under --data: bbolt or log (serve's --store)")
	if err := parseFlags(fls, args); err != nil {
		return err
	}
	var bad flagProblems
	bad.require(fls, "data")
	bad.add(checkStoreKind(*kind))
	if err := bad.err(); err != nil {
		return err
	}
	dir, err := filepath.Abs(*data)
	if err != nil {
		return slotfare.E("", slotfare.Invalid, slotfare.Field("--data"), err.Error())
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return slotfare.E("", slotfare.Invalid, slotfare.Field("--data"), "is not a directory: "+dir)
	}
	file := boltstore.FileName
	if *kind == "log" {
		file = logstore.FileName
	}
	if _, err := os.Stat(filepath.Join(dir, file)); errors.Is(err, fs.ErrNotExist) {
		return slotfare.E("", slotfare.Invalid, slotfare.Field("--data"), fmt.Sprintf("%s holds no %s (is --store right?)", dir, file))
	}
	lock, err := dirlock.Acquire(dir)
	if err != nil {
		var inUse *dirlock.InUse
		if errors.As(err, &inUse) {
			return slotfare.E("", slotfare.Invalid, inUse.Error()+"; stop it first")
		}
		return slotfare.E("", slotfare.Other, err)
	}
	defer lock.Release()
	var damaged bool
	if *kind == "log" {
		damaged, err = checkLog(dir, stdout)
	} else {
		damaged, err = checkBolt(dir, stdout)
	}
	if err != nil {
		return slotfare.E("", slotfare.Other, err)
	}
	if damaged {
		return slotfare.E("", slotfare.Other, fmt.Sprintf("the store in %s is damaged; serve refuses to start on it", dir))
	}
	return nil
}

func checkLog(dir string, w io.Writer) (damaged bool, err error) {
	rep, err := logstore.Check(dir)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(w, "file: %s (%d bytes)\n", rep.File, rep.Size)
	fmt.Fprintf(w, "intact: %d batches, bytes 0 to %d", rep.Records, rep.Intact)
	if rep.Legacy > 0 {
		fmt.Fprintf(w, " (%d of them without a checksum, the older format)", rep.Legacy)
	}
	fmt.Fprintln(w)
	if rep.Torn > 0 {
		fmt.Fprintf(w, "torn tail: %d bytes at byte offset %d, an unfinished last write that was never acknowledged; serve cuts it off on start\n", rep.Torn, rep.Intact)
	}
	switch d := rep.Damage; {
	case d != nil:
		fmt.Fprintf(w, "damage: byte offset %d, line %d: %s\n", d.Offset, d.Line, d.Reason)
		fmt.Fprintf(w, "after the damage: %d more lines, %d of them with a good checksum (cutting the file at byte %d would lose them)\n",
			rep.LinesAfter, rep.IntactAfter, d.Offset)
		fmt.Fprintln(w, "status: damaged")
		return true, nil
	case rep.Torn > 0:
		fmt.Fprintln(w, "status: torn tail only (recoverable: nothing acknowledged is lost)")
	default:
		fmt.Fprintln(w, "status: clean")
	}
	return false, nil
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
