package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

func init() {
	register("version", command{
		summary: "print the build's version",
		run: func(args []string, stdout, stderr io.Writer) error {
			fs := newFlags("version", stderr)
			if err := parseFlags(fs, args); err != nil {
				return err
			}
			v := "devel"
			if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
				v = bi.Main.Version
			}
			_, err := fmt.Fprintln(stdout, "slotfare", v)
			return err
		},
	})
}
