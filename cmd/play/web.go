package main

import (
	"context"
	"fmt"
	"io"
	"net"

	"ocvist/internal/cli"
	"ocvist/web"
)

const webAbout = `
Serve Ocvist's page: play and analyse against the engine (search, forest or
patterns), watch two agents play each other, and, with -db, a live dashboard
of training databases (read only). The page and its scripts are in the
program; nothing is fetched from elsewhere. It listens on 127.0.0.1 unless
-addr says otherwise; Ctrl-C stops it.`

func runWeb(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	var f web.Flags
	fs := cli.NewFlagSet("play web", "[-addr HOST:PORT] [-db FILE]...", webAbout, stderr)
	f.Register(fs)
	if err := cli.ParseNoArgs(fs, args); err != nil {
		return err
	}
	return serveWeb(ctx, "play web", f, "/", stdout)
}

// serveWeb starts the server, says where it is and serves until ctx ends.
func serveWeb(ctx context.Context, name string, f web.Flags, path string, stdout io.Writer) error {
	if err := f.Validate(); err != nil {
		return cli.Usagef("%s: %v", name, err)
	}
	srv, err := web.New(f.Config)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", f.Addr)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(stdout, "Ocvist is at http://%s%s (Ctrl-C stops)\n", ln.Addr(), path)
	if f.Public() {
		fmt.Fprintf(stdout, "note: -addr %s reaches beyond this machine: anyone who reaches it can use the engine and read the dashboard\n", f.Addr)
	}
	return srv.Serve(ctx, ln)
}
