// Command slotfare is the one binary of slotfare: the HTTP service, the
// simulator, the benchmarks and the providers' what-if calculators.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"slotfare"
)

// command is one subcommand. run gets the arguments after the command's
// name; an error of kind slotfare.Invalid is a usage error (exit 2).
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands maps each subcommand's name (or "name sub") to its code. Each
// subcommand lives in its own file and adds itself here in an init function
// named after that file, so that files can be added independently.
var commands = map[string]command{}

func register(name string, c command) {
	if _, dup := commands[name]; dup {
		panic("slotfare: command registered twice: " + name)
	}
	commands[name] = c
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the process exit status:
// 0 on success, 2 for bad usage or input, 1 for any other failure. Help
// that was asked for (help, -h, --help, after a command or a group such as
// bench) goes to stdout; usage shown because of a mistake goes to stderr.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr, "")
		return 2
	}
	if isHelp(args[0]) {
		usage(stdout, "")
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		args[0] = "version"
	}
	name, rest := args[0], args[1:]
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		if _, ok := commands[name+" "+rest[0]]; ok {
			name, rest = name+" "+rest[0], rest[1:]
		}
	}
	c, ok := commands[name]
	if !ok && isGroup(name) {
		// A group alone (slotfare bench) or asking for help lists its commands.
		if len(rest) > 0 && isHelp(rest[0]) {
			usage(stdout, name)
			return 0
		}
		if len(rest) > 0 {
			fmt.Fprintf(stderr, "slotfare: unknown command %q\n\n", name+" "+rest[0])
		}
		usage(stderr, name)
		return 2
	}
	if !ok {
		fmt.Fprintf(stderr, "slotfare: unknown command %q\n\n", name)
		usage(stderr, "")
		return 2
	}
	if err := c.run(rest, stdout, stderr); err != nil {
		if h, ok := err.(helpShown); ok {
			io.WriteString(stdout, h.text)
			return 0
		}
		fmt.Fprintf(stderr, "slotfare %s: %v\n", name, err)
		if slotfare.KindOf(err) == slotfare.Invalid {
			return 2
		}
		return 1
	}
	return 0
}

func isHelp(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "--help" || arg == "-help"
}

// isGroup reports whether name is the first word of two-word commands
// (bench, store).
func isGroup(name string) bool {
	for n := range commands {
		if strings.HasPrefix(n, name+" ") {
			return true
		}
	}
	return false
}

// usage lists the commands, or only those of group when it is not empty.
func usage(w io.Writer, group string) {
	if group == "" {
		fmt.Fprintln(w, "usage: slotfare <command> [flags]\n\ncommands:")
	} else {
		fmt.Fprintf(w, "usage: slotfare %s <command> [flags]\n\ncommands:\n", group)
	}
	names := make([]string, 0, len(commands))
	for n := range commands {
		if group == "" || strings.HasPrefix(n, group+" ") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-18s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'slotfare <command> -h' for a command's flags.")
}
