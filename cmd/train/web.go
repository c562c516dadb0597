package main

import (
	"context"
	"io"

	"ocvist/internal/cli"
	"ocvist/web"
)

const webAbout = `
Serve a live dashboard of training databases in the browser: the runs with
their configuration, games and games/s and the database's size as a job
writes it, the learning loop's generations with every figure "train stats
-json" gives, the learning curve, and the models, each with a button to play
against it. The databases are opened read-only and never block a job. The
page also has the board of "play web". Without -db it shows ` + defaultDB + `.
It listens on 127.0.0.1 unless -addr says otherwise; Ctrl-C stops it.`

func webCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f web.Flags
	fs := newFlags("web", "[-db FILE]... [-addr HOST:PORT]", webAbout, stderr)
	f.Register(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if len(f.Config.DBs) == 0 {
		f.Config.DBs = []string{defaultDB}
	}
	if err := f.Validate(); err != nil {
		return cli.Usagef("train web: %v", err)
	}
	return f.Serve(ctx, "train web", "Ocvist's dashboard", "/?tab=dash", stdout)
}
