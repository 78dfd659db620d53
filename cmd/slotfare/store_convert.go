package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"slotfare"
	"slotfare/booking/dirlock"
	"slotfare/booking/logconvert"
	"slotfare/ledger/recordlog"
)

func init() {
	register("store convert", command{
		summary: "move a data directory written by the old log store (slotfare.log) into the bbolt store, once",
		run:     runStoreConvert,
	})
}

// runStoreConvert converts the log store's data under --data into bbolt
// (booking/logconvert), taking the directory's lock, so not while a server
// runs there. Exit 0: converted and verified; 2: bad usage, or a refusal
// that changed nothing (no log, data already in bbolt, the directory in
// use, a damaged log); 1: a failure while writing.
func runStoreConvert(args []string, stdout, stderr io.Writer) error {
	fls := newFlags("store convert", stderr)
	data := fls.String("data", "", "the data directory the log store wrote (serve's --data)")
	if err := parseFlags(fls, args); err != nil {
		return err
	}
	var bad flagProblems
	bad.require(fls, "data")
	if err := bad.err(); err != nil {
		return err
	}
	dir, err := existingDataDir(*data)
	if err != nil {
		return err
	}
	res, err := logconvert.Convert(context.Background(), dir) // the command's root
	if err != nil {
		return convertRefused(err)
	}
	fmt.Fprintf(stdout, "read: %s, %d batches (%d bytes)\n", filepath.Join(dir, logconvert.FileName), res.Log.Records, res.Log.Intact)
	if res.Log.Torn > 0 {
		fmt.Fprintf(stdout, "left out: a torn tail of %d bytes at byte offset %d, an unfinished last write that was never acknowledged\n",
			res.Log.Torn, res.Log.Intact)
	}
	n := res.Counts
	fmt.Fprintf(stdout, "wrote: %s: %d bookings, %d postings, %d resources, %d refusals, %d keys, offer secret %v\n",
		res.Store, n.Bookings, n.Postings, n.Resources, n.Refusals, n.Keys, n.Secret)
	fmt.Fprintln(stdout, "verified: every record decodes and passes its checksum, bbolt's consistency check passes, and the store loads what the log held")
	fmt.Fprintf(stdout, "kept: the log, unchanged, as %s (delete it once the server runs well on bbolt)\n", res.Kept)
	return nil
}

// convertRefused makes a refusal that changed nothing a usage error (exit
// 2) saying what to do; any other failure stays one (exit 1).
func convertRefused(err error) error {
	var inUse *dirlock.InUse
	if errors.As(err, &inUse) {
		return slotfare.E(slotfare.Invalid, inUse.Error()+"; stop it first")
	}
	var d *recordlog.Damage
	if errors.As(err, &d) {
		return slotfare.E(slotfare.Invalid, fmt.Sprintf("refusing to convert: %v; nothing was written and the log was not changed", d))
	}
	switch slotfare.KindOf(err) {
	case slotfare.NotFound, slotfare.Conflict:
		return slotfare.E(slotfare.Invalid, slotfare.MessageOf(err))
	}
	return err
}
