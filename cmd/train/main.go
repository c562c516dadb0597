// Command train is Ocvist's training job: self-play workers, SQLite store,
// merge, prune, conclude, and the learning loop. Run "train -h" for help.
package main

import (
	"context"
	"io"
	"os"

	"ocvist/internal/cli"
)

func main() { cli.Main("train", os.Args[1:], Run) }

// program is train's subcommands; "run" is the default.
var program = cli.Program{
	Name:    "train",
	About:   "Ocvist's self-play training job; with no command it plays games into " + defaultDB + " (about a minute, all cores).",
	Default: "run",
	Commands: []cli.Command{
		{Name: "run", Summary: "play self-play games into a database (the main job; the default)", Run: adapt(runCmd)},
		{Name: "merge", Summary: "merge shard or database files into a database", Run: adapt(mergeCmd)},
		{Name: "prune", Summary: "delete positions seen in fewer than N games", Run: adapt(pruneCmd)},
		{Name: "conclude", Summary: "blacklist moves whose statistics are clearly bad", Run: adapt(concludeCmd)},
		{Name: "stats", Summary: "print a database's counts (text or -json)", Run: adapt(statsCmd)},
		{Name: "fit", Summary: "fit the forest policy on a database and save the model", Run: adapt(fitCmd)},
		{Name: "loop", Summary: "run the learning loop v2: teacher games, policy and value forests, gate, anchors", Run: adapt(loopCmd)},
		{Name: "value", Summary: "fit a value model on a learning loop's teacher games (to compare targets and features)", Run: adapt(valueCmd)},
		{Name: "report", Summary: "draw the learning curve of the generations (PNG or SVG)", Run: adapt(reportCmd)},
		{Name: "web", Summary: "serve a live dashboard of databases in the browser (read only)", Run: adapt(webCmd)},
		{Name: "model", Summary: "fetch a generation's policy or value model from a PostgreSQL database", Run: adapt(modelCmd)},
		{Name: "export", Summary: "write all move statistics as CSV", Run: adapt(exportCmd)},
		{Name: "check", Summary: "check a database's file, young runs, totals and ledger; -repair drops what cannot be read", Run: adapt(checkCmd)},
		{Name: "worker", Summary: "internal: one self-play worker process", Run: workerCmd, Hidden: true},
	},
}

// Run runs the train command line args (without the program name). An
// error met on a damaged database names the command that repairs it.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return withRepairHint(program.Run(ctx, args, stdin, stdout, stderr))
}

// adapt gives a subcommand that reads no input the scaffold's signature.
func adapt(run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) cli.RunFunc {
	return func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		return run(ctx, args, stdout, stderr)
	}
}
