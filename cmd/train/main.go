// Command train is Ocvist's training job: self-play workers, SQLite store,
// merge, prune, conclude, and the learning loop. Run "train -h" for help.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, errHelpShown) {
			fmt.Fprintln(os.Stderr, "train:", strings.ReplaceAll(err.Error(), "\n", "; "))
		}
		os.Exit(exitCode(err))
	}
}

// errHelpShown reports that -h printed the usage: exit 0, print nothing more.
var errHelpShown = errors.New("help shown")

func exitCode(err error) int {
	if errors.Is(err, errHelpShown) {
		return 0
	}
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// usageError is a bad command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// command is one subcommand of train.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	hidden        bool
}

func commands() []command {
	return []command{
		{name: "run", summary: "play self-play games into a database (the main job; the default)", run: runCmd},
		{name: "merge", summary: "merge shard or database files into a database", run: mergeCmd},
		{name: "prune", summary: "delete positions seen in fewer than N games", run: pruneCmd},
		{name: "conclude", summary: "blacklist moves whose statistics are clearly bad", run: concludeCmd},
		{name: "stats", summary: "print a database's counts (text or -json)", run: statsCmd},
		{name: "fit", summary: "fit the forest policy on a database and save the model", run: fitCmd},
		{name: "report", summary: "draw the learning curve of the generations (PNG or SVG)", run: reportCmd},
		{name: "export", summary: "write all move statistics as CSV", run: exportCmd},
		{name: "worker", summary: "internal: one self-play worker process", run: workerCmd, hidden: true},
	}
}

// Run runs the train command line args (without the program name).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return runCmd(ctx, nil, stdout, stderr)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	if args[0] != "" && args[0][0] == '-' { // flags of the default command
		return runCmd(ctx, args, stdout, stderr)
	}
	return usageError{fmt.Sprintf("unknown command %q (see train -h)", args[0])}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `train: Ocvist's self-play training job.

Usage:
  train [run] [flags]        play games into data/ocvist.db (defaults: about a minute, all cores)
  train COMMAND [flags]      see "train COMMAND -h"

Commands:
`)
	for _, c := range commands() {
		if !c.hidden {
			fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
		}
	}
}
