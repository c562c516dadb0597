package main

import (
	"flag"
	"io"

	"ocvist/internal/cli"
)

// The subcommands' flag helpers are the scaffold's (package internal/cli),
// under the names the subcommands use.

// usageError is a bad command line: exit status 2 (it unwraps to the
// scaffold's cli.UsageError).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }
func (e usageError) Unwrap() error { return cli.UsageError{Msg: e.msg} }

// newFlags returns the flag set of "train NAME"; -h prints the usage line,
// about and the flags to stderr.
func newFlags(name, usageLine, about string, stderr io.Writer) *flag.FlagSet {
	return cli.NewFlagSet("train "+name, usageLine, about, stderr)
}

// parseFlags parses args: -h shows the help, a bad flag is a usageError.
func parseFlags(fs *flag.FlagSet, args []string) error { return cli.Parse(fs, args) }

// parseNoArgs is parseFlags refusing positional arguments.
func parseNoArgs(fs *flag.FlagSet, args []string) error { return cli.ParseNoArgs(fs, args) }

// flagSet reports whether the named flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool { return cli.IsSet(fs, name) }
