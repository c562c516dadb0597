// Package cli is the one scaffold of Ocvist's commands (cmd/play and
// cmd/train): the version string, subcommand dispatch, flag sets whose -h
// explains them, and the mapping of a command's error to one line on
// stderr and an exit status.
//
// Exit status: 0 when the command is done, when -h printed the help, or
// when the user stopped it (Ctrl-C or SIGTERM cancelled its context); 2
// for a bad command line (a UsageError or a flag the command does not
// know); 1 for any other failure. An error is printed as one line,
// prefixed by the command's name ("play: …").
//
// It is used only by the commands' main packages: Main installs the signal
// handler and exits the process, and Lines reads input on a goroutine of
// the command, so that a command can stop waiting for a line when its
// context is cancelled.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"ocvist/internal/stop"
)

// Version is Ocvist's version: the one string every command reports (ABOUT,
// run records, -h).
const Version = "0.1.0"

// RunFunc is a command's body: Run(ctx, args, stdin, stdout, stderr) with
// args without the program name. ctx is cancelled when the user stops the
// command.
type RunFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error

// Main runs the command name with the process's arguments, under a context
// cancelled by SIGINT or SIGTERM, reports its error on stderr and exits
// with ExitCode. The context carries (package stop) a second one that the
// next signal cancels: the work a command does to finish after a stop
// (merging, pruning) runs under it, so a second Ctrl-C cuts that short
// too. A third signal kills the process the default way.
func Main(name string, args []string, run RunFunc) {
	ctx, release := Signals(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	release()
	Report(os.Stderr, name, ctx, err)
	os.Exit(ExitCode(ctx, err))
}

// Signals returns a context cancelled by the first of the signals, which
// carries (stop.WithNext) one cancelled by the second; after the second,
// the signals have their default effect again. release stops listening.
func Signals(parent context.Context, sigs ...os.Signal) (ctx context.Context, release func()) {
	next, cancelNext := context.WithCancel(parent)
	ctx, cancel := context.WithCancel(stop.WithNext(next, next))
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		defer signal.Stop(ch)
		for _, cancelOne := range []context.CancelFunc{cancel, cancelNext} {
			select {
			case <-ch:
				cancelOne()
			case <-done:
				return
			}
		}
	}()
	return ctx, func() { close(done); cancel(); cancelNext() }
}

// IsTerminal reports whether w is a terminal (a line there can be
// rewritten in place; a file or a pipe gets whole lines).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// UsageError is a bad command line: exit status 2.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, a ...any) error { return UsageError{fmt.Sprintf(format, a...)} }

// Stopped reports whether err means that the user stopped the command: ctx
// (the command's context) is done and err is or wraps context.Canceled.
func Stopped(ctx context.Context, err error) bool {
	return ctx.Err() != nil && errors.Is(err, context.Canceled)
}

// ExitCode is the exit status for a command's error (see the package
// documentation).
func ExitCode(ctx context.Context, err error) int {
	var u UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp), Stopped(ctx, err):
		return 0
	case errors.As(err, &u):
		return 2
	}
	return 1
}

// Report writes err to w as one line prefixed by name, with any line
// breaks inside it replaced by "; ". It writes nothing for nil, for the
// help sentinel and for a bare context.Canceled when the user stopped the
// command (a stop that says more, such as how far a match got, is
// reported).
func Report(w io.Writer, name string, ctx context.Context, err error) {
	if err == nil || errors.Is(err, flag.ErrHelp) || (Stopped(ctx, err) && err == context.Canceled) {
		return
	}
	fmt.Fprintf(w, "%s: %s\n", name, strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; "))
}
