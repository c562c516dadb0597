package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// NewFlagSet returns the flag set of the (sub)command name, e.g. "play
// gomocup". The flag package prints nothing on a parse error (Parse turns
// it into one UsageError line); -h prints "Usage: NAME USAGE", about and
// the flags to stderr.
func NewFlagSet(name, usage, about string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s %s\n\n%s\n\nFlags:\n", name, usage, strings.TrimSpace(about))
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// Parse parses args. After -h it has printed the help and returns
// flag.ErrHelp (exit status 0); a bad flag gives a UsageError naming the
// command.
func Parse(fs *flag.FlagSet, args []string) error {
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage()
		return flag.ErrHelp
	case err != nil:
		return Usagef("%s: %v (see -h)", fs.Name(), err)
	}
	return nil
}

// ParseNoArgs is Parse for a command that takes flags only: a positional
// argument is a UsageError.
func ParseNoArgs(fs *flag.FlagSet, args []string) error {
	if err := Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("%s: unexpected argument %q (see -h)", fs.Name(), fs.Arg(0))
	}
	return nil
}

// IsSet reports whether the named flag was given on the command line.
func IsSet(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// Command is one subcommand of a Program.
type Command struct {
	Name, Summary string
	Run           RunFunc
	Hidden        bool // left out of the help (an internal command)
}

// Program is a command with subcommands.
type Program struct {
	Name     string    // "play"
	About    string    // one line saying what it is for
	Default  string    // the subcommand run without a name (args empty or a flag first)
	Commands []Command // in the order the help lists them
	Notes    string    // printed after the list of commands
}

// Run runs the subcommand named by args[0], or the default one. "help",
// "-h", "-help" and "--help" print the program's help to stdout; an unknown
// name is a UsageError.
func (p Program) Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	name := p.Default
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	} else if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help":
			name = "help"
		}
	}
	if name == "help" {
		p.help(stdout)
		return nil
	}
	for _, c := range p.Commands {
		if c.Name == name {
			return c.Run(ctx, args, stdin, stdout, stderr)
		}
	}
	return Usagef("unknown command %q (see %s -h)", name, p.Name)
}

func (p Program) help(w io.Writer) {
	fmt.Fprintf(w, "%s (Ocvist %s): %s\n\nUsage:\n", p.Name, Version, p.About)
	fmt.Fprintf(w, "  %s [%s] [flags]\n  %s COMMAND [flags]   see \"%s COMMAND -h\"\n\nCommands:\n",
		p.Name, p.Default, p.Name, p.Name)
	for _, c := range p.Commands {
		if !c.Hidden {
			fmt.Fprintf(w, "  %-9s %s\n", c.Name, c.Summary)
		}
	}
	if p.Notes != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(p.Notes))
	}
}
