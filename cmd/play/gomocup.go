package main

import (
	"context"
	"io"
	"runtime/debug"

	"ocvist/gomocup"
	"ocvist/internal/cli"
)

const gomocupAbout = `
Runs an agent as a Gomocup protocol engine ("pbrain") on stdin and stdout,
for tournament managers and GUIs such as Piskvork or c-gomoku-cli. Supported:
START 15, RECTSTART 15,15, RESTART, BEGIN, TURN, BOARD (field 3 is ignored),
INFO (rule 0 freestyle, 1 standard, bit 2 "continuous game" ignored, renju
and caro refused with an ERROR on each move; timeout_turn, timeout_match,
time_left, max_memory, thread_num; a malformed value is ignored, with a
MESSAGE), TAKEBACK, PLAY, ABOUT, END, and YXSTOP (a thinking agent answers at
once with its best move). The agent gets the clock as the manager states it
and the search's time manager decides how much to use: at 1 s a move about
60-90% of it, never more than the turn less 30 ms and 5%; under a match clock
at most a seventh of the time left. INFO thread_num N (or -threads N, which it
overrides) makes the search think on N threads. Managers need an executable whose name starts
with "pbrain-": a copy of this program named, say, pbrain-ocvist starts as the
engine without arguments. The shipped models were fitted for freestyle; the
default engine, the search over them, uses them in standard games too (a
MESSAGE says so): there it scored 66% against the search without them (400
games, 100 ms a move). The forest agent and a model named in -agent play
their model's rule only.`

// about is the engine's answer to ABOUT.
var about = gomocup.ReplyAbout{Pairs: []gomocup.Pair{
	{Key: "name", Value: "Ocvist"}, {Key: "version", Value: cli.Version},
	{Key: "author", Value: "Ocvist developers"}, {Key: "country", Value: "Unknown"},
}}

// gomocupConfig is the typed configuration of play gomocup.
type gomocupConfig struct {
	agent agentFlags
	model string
}

func (c *gomocupConfig) parse(args []string, stderr io.Writer) error {
	fs := cli.NewFlagSet("play gomocup", "[-agent A | -model FILE] [-seed S] [-threads N]", gomocupAbout, stderr)
	c.agent.register(fs, "the engine's agent")
	fs.StringVar(&c.model, "model", "", "forest model `file` (the same as -agent forest:FILE); default: the shipped model")
	if err := cli.ParseNoArgs(fs, args); err != nil {
		return err
	}
	if c.model != "" {
		c.agent.spec = "forest:" + c.model
	}
	return nil
}

func runGomocup(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var c gomocupConfig
	if err := c.parse(args, stderr); err != nil {
		return err
	}
	ag, err := c.agent.new(agentEnv{turn: defaultTurn})
	if err != nil {
		return err
	}
	defer ag.Close()
	srv := gomocup.NewServer(ag, stdout, gomocup.Options{
		About:          about,
		SetMemoryLimit: func(n int64) { debug.SetMemoryLimit(n) },
	})
	lines := cli.ReadLines(ctx, stdin)
	if err := srv.Serve(ctx, lines.C); err != nil {
		return err
	}
	return lines.Err()
}
