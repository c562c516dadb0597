// Command play pits Ocvist's agents against people, GUIs and each other.
//
//	play [terminal] [flags]   a person against an agent in the terminal
//	play gomocup [flags]      a Gomocup protocol engine on stdin/stdout
//	play match [flags]        paired games between two agents, with Elo
//	play web [flags]          the page in the browser: play, analyse, watch, dashboard
//	play bench [flags]        the search's bench signature
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
	"io"
	"os"
	"path/filepath"
	"strings"

	"ocvist/internal/cli"
)

func main() {
	args := os.Args[1:]
	if strings.HasPrefix(filepath.Base(os.Args[0]), "pbrain-") {
		args = append([]string{"gomocup"}, args...)
	}
	cli.Main("play", args, Run)
}

// program is play's subcommands; "terminal" is the default.
var program = cli.Program{
	Name:    "play",
	About:   "play Ocvist's agents against people, GUIs and each other.",
	Default: "terminal",
	Commands: []cli.Command{
		{Name: "terminal", Summary: "play against an agent in the terminal (the default)", Run: runTerminal},
		{Name: "gomocup", Summary: "run as a Gomocup protocol engine on stdin/stdout", Run: runGomocup},
		{Name: "web", Summary: "serve the page: play, analyse and watch in the browser, and a training dashboard", Run: runWeb},
		{Name: "match", Summary: "play paired games between two agents and estimate the Elo difference", Run: runMatch},
		{Name: "bench", Summary: "print the search's bench signature (its node count on fixed positions)", Run: runBench},
	},
	Notes: "Agents: " + agentHelp + `.
Without MODEL, forest plays the shipped pure policy (data/forest.ocf) and search
ranks its moves with the shipped policy (data/model.ocf) and evaluates with the
shipped value model (data/value.ocf; in renju games, the renju ones).
A copy of this program named pbrain-NAME starts as "play gomocup".
` + searchOptionsHelp(),
}

// Run runs the command line args (without the program name).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return program.Run(ctx, args, stdin, stdout, stderr)
}
