package main

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"strings"

	"slotfare"
)

// newFlags returns a flag set that reports errors instead of exiting, so that
// run can map them to exit status 2.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("slotfare "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args and turns a flag error into a usage error. -h gives
// the flag list and flag.ErrHelp, which the caller returns as is (exit 0).
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		return slotfare.E("", slotfare.Invalid, err)
	}
	if fs.NArg() > 0 {
		return slotfare.E("", slotfare.Invalid, "unexpected argument "+strings.Join(fs.Args(), " "))
	}
	return nil
}

// errHelp is returned after -h has printed the flags; run treats it as success.
var errHelp = helpShown{}

type helpShown struct{}

func (helpShown) Error() string { return "help shown" }

// requireFlags reports the first of names that was not set on the command line.
func requireFlags(fs *flag.FlagSet, names ...string) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, n := range names {
		if !set[n] {
			return slotfare.E("", slotfare.Invalid, slotfare.Field("--"+n), "is required")
		}
	}
	return nil
}

// writeJSON prints v as one line of JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
