// Command play pits Ocvist's agents against people, GUIs and each other.
//
//	play [terminal] [flags]   a person against an agent in the terminal
//	play gomocup [flags]      a Gomocup protocol engine on stdin/stdout
//	play match [flags]        paired games between two agents, with Elo
//
// Agents are named on the command line: random, patterns, forest[:MODEL]
// and engine:COMMAND (an external Gomocup engine; COMMAND is split on
// spaces, without shell quoting). Run "play SUBCOMMAND -h" for the flags.
//
// Installed under a name starting with "pbrain-" (as Gomocup managers
// require), the program starts as the engine: "pbrain-ocvist" is
// "play gomocup".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	args := os.Args[1:]
	if strings.HasPrefix(filepath.Base(os.Args[0]), "pbrain-") {
		args = append([]string{"gomocup"}, args...)
	}
	err := Run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	default:
		fmt.Fprintf(os.Stderr, "play: %v\n", err)
		os.Exit(1)
	}
}

const usage = `usage: play [terminal|gomocup|match] [flags]

  terminal   play against an agent in the terminal (the default)
  gomocup    run as a Gomocup protocol engine on stdin/stdout
  match      play paired games between two agents and estimate the Elo difference

Agents: random, patterns, forest[:MODEL], engine:COMMAND.
Run "play SUBCOMMAND -h" for a subcommand's flags.
`

// Run runs the command line args (without the program name).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	sub := "terminal"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "terminal":
		return runTerminal(ctx, args, stdin, stdout, stderr)
	case "gomocup":
		return runGomocup(ctx, args, stdin, stdout, stderr)
	case "match":
		return runMatch(ctx, args, stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown subcommand %q", sub)
}

// newFlagSet returns a flag set whose -h prints doc and the flags.
func newFlagSet(name, doc string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, doc)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and refuses positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}
