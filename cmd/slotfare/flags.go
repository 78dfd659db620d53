package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"slotfare"
)

// newFlags returns the flag set of one command. It prints nothing itself:
// parseFlags turns a parse error into a usage error that names the flag
// once, and -h into the flag list, which run prints on stdout. The writer
// is not used; every command passes its stderr, as before.
func newFlags(name string, _ io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("slotfare "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args. -h (or --help) returns a helpShown carrying the
// command's flag list; a flag the command does not have, a missing value or
// a value of the wrong type is a usage error naming the flag.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return helpShown{flagUsage(fs)}
	}
	if err != nil {
		return parseError(fs, err)
	}
	if fs.NArg() > 0 {
		return slotfare.E(slotfare.Invalid, "unexpected argument "+strings.Join(fs.Args(), " "))
	}
	return nil
}

// parseError rewrites the flag package's messages ("flag provided but not
// defined: -x", "invalid value "y" for flag -x: ...") in the form of every
// other flag error: the flag with two dashes, then what is wrong with it.
func parseError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return badFlag(name, "not a flag of %s (%s -h lists them)", fs.Name(), fs.Name())
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return badFlag(name, "needs a value")
	}
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		value, rest, _ := strings.Cut(rest, " for flag -")
		name, why, _ := strings.Cut(rest, ": ")
		return badFlag(name, "invalid value %s: %s", value, why)
	}
	return slotfare.E(slotfare.Invalid, msg)
}

// flagUsage is a command's help: its summary, its usage line and each flag
// with its default.
func flagUsage(fs *flag.FlagSet) string {
	var b strings.Builder
	name := strings.TrimPrefix(fs.Name(), "slotfare ")
	if c, ok := commands[name]; ok {
		fmt.Fprintf(&b, "%s: %s\n\n", fs.Name(), c.summary)
	}
	fmt.Fprintf(&b, "usage: %s [flags]\n\nflags:\n", fs.Name())
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(&b, "  --%s", f.Name)
		if arg != "" {
			fmt.Fprintf(&b, " %s", arg)
		}
		fmt.Fprintf(&b, "\n      %s", usage)
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			fmt.Fprintf(&b, " (default %q)", f.DefValue)
		}
		b.WriteByte('\n')
	})
	return b.String()
}

// helpShown is returned for -h; run prints text on stdout and exits 0.
type helpShown struct{ text string }

func (helpShown) Error() string { return "help asked for" }

// flagProblems collects what is wrong with one command line, at most one
// problem per flag, so that a run names every bad or missing flag at once
// rather than the first.
type flagProblems struct{ errs []error }

// add records err unless it is nil or its flag already has a problem (a
// missing flag's empty value is not also "not a number").
func (p *flagProblems) add(err error) {
	if err == nil {
		return
	}
	if f := slotfare.FieldOf(err); f != "" {
		for _, e := range p.errs {
			if slotfare.FieldOf(e) == f {
				return
			}
		}
	}
	p.errs = append(p.errs, err)
}

// require records each of names that was not given on the command line.
func (p *flagProblems) require(fs *flag.FlagSet, names ...string) {
	for _, n := range names {
		if !flagSet(fs, n) {
			p.add(badFlag(n, "is required"))
		}
	}
}

// err is nil, the one problem, or a usage error listing each problem on
// its own line.
func (p *flagProblems) err() error {
	switch len(p.errs) {
	case 0:
		return nil
	case 1:
		return p.errs[0]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d flags need fixing:", len(p.errs))
	for _, e := range p.errs {
		b.WriteString("\n  ")
		b.WriteString(e.Error())
	}
	return &slotfare.Error{Kind: slotfare.Invalid, Msg: b.String()}
}

// requireFlags reports every one of names that was not set on the command
// line, in one error.
func requireFlags(fs *flag.FlagSet, names ...string) error {
	var p flagProblems
	p.require(fs, names...)
	return p.err()
}

// writeJSON prints v as one line of JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
