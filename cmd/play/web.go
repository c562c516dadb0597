package main

import (
	"context"
	"io"

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
	if err := f.Validate(); err != nil {
		return cli.Usagef("play web: %v", err)
	}
	return f.Serve(ctx, "play web", "Ocvist", "/", stdout)
}
