package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// newFlags returns a flag set for a subcommand. Parse errors are not printed
// by the flag package: parseFlags turns them into one error line, and -h
// prints the summary, the usage line and the flags to stderr.
func newFlags(name, usageLine, about string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("train "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: train %s %s\n\n%s\n\nFlags:\n", name, usageLine, strings.TrimSpace(about))
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parseFlags parses args, mapping -h to errHelpShown and bad flags to a
// usageError naming the subcommand.
func parseFlags(fs *flag.FlagSet, args []string) error {
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage()
		return errHelpShown
	case err != nil:
		return usageError{fmt.Sprintf("%s: %v (see -h)", fs.Name(), err)}
	}
	return nil
}

// flagSet reports whether the named flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// parseNoArgs parses args for a command that takes flags only, refusing
// positional arguments.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("%s: unexpected argument %q (see -h)", fs.Name(), fs.Arg(0))}
	}
	return nil
}
