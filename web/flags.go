package web

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
)

// DefaultAddr is where the server listens unless told otherwise: this
// machine only.
const DefaultAddr = "127.0.0.1:8080"

// Flags are the command-line flags of a command that serves the page
// ("play web", "train web").
type Flags struct {
	Addr   string
	Config Config
}

// Register adds the flags to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Addr, "addr", DefaultAddr, "listen on `HOST:PORT` (port 0: any free port)")
	fs.Func("db", "a database `FILE` or PostgreSQL URL for the dashboard, opened read-only (repeatable)", func(s string) error {
		f.Config.DBs = append(f.Config.DBs, s)
		return nil
	})
	fs.IntVar(&f.Config.MaxSearches, "searches", 0, "engine searches at once in the server (0: half the cores, at least 1); more wait in a queue")
	fs.IntVar(&f.Config.Nice, "nice", 19, "niceness of the engine's search threads (Linux), so that a training job on the same cores keeps its speed; 0 leaves them alone")
	fs.Int64Var(&f.Config.Nodes, "nodes", 0, "bound every search by `N` nodes instead of the move time (deterministic play)")
}

// Validate checks the flags' ranges.
func (f *Flags) Validate() error {
	switch {
	case f.Config.Nice < 0 || f.Config.Nice > 19:
		return fmt.Errorf("-nice %d: want 0 to 19", f.Config.Nice)
	case f.Config.Nodes < 0:
		return fmt.Errorf("-nodes %d is negative", f.Config.Nodes)
	case f.Config.MaxSearches < 0:
		return fmt.Errorf("-searches %d is negative", f.Config.MaxSearches)
	}
	if _, _, err := net.SplitHostPort(f.Addr); err != nil {
		return fmt.Errorf("-addr %q: want HOST:PORT", f.Addr)
	}
	return nil
}

// Public reports whether the address reaches beyond this machine.
func (f *Flags) Public() bool {
	host, _, _ := net.SplitHostPort(f.Addr)
	return !strings.EqualFold(host, "localhost") && !isLoopback(host)
}

// Serve starts the server of f.Config on f.Addr, writes to out where it is
// (what, "Ocvist" or "Ocvist's dashboard", at path) and whether it reaches
// beyond this machine, and serves until ctx ends. cmd names the command in
// its errors. f must be valid (Validate).
func (f *Flags) Serve(ctx context.Context, cmd, what, path string, out io.Writer) error {
	srv, err := New(f.Config)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", f.Addr)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	fmt.Fprintf(out, "%s is at http://%s%s (Ctrl-C stops)\n", what, ln.Addr(), path)
	if f.Public() {
		fmt.Fprintf(out, "note: -addr %s reaches beyond this machine: anyone who reaches it can use the engine and read the dashboard\n", f.Addr)
	}
	return srv.Serve(ctx, ln)
}
