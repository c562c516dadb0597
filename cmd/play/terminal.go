package main

import (
	"context"
	"io"
	"time"

	"ocvist/gomoku"
	"ocvist/internal/cli"
	"ocvist/terminal"
)

const terminalAbout = `
Play gomoku against an agent in the terminal. Type a move as a column a-o and
a row 1-15 (h8 is the centre), or a command:
  undo   take back your last move and the agent's reply
  hint   the agent's best moves (or its candidates if it cannot rank)
  new    start a new game
  quit   leave (so does Ctrl-C)
The last move is shown in brackets, a winning line in capitals.`

// terminalConfig is the typed configuration of play terminal.
type terminalConfig struct {
	agent  agentFlags
	color  string
	rule   string
	turnMS int
	player terminal.Config
}

func (c *terminalConfig) parse(args []string, stderr io.Writer) error {
	fs := cli.NewFlagSet("play terminal", "[-agent A] [-color x|o] [-rule R] [-turn-ms MS] [-threads N] [-seed S]", terminalAbout, stderr)
	c.agent.register(fs, "your opponent")
	fs.StringVar(&c.color, "color", "x", "your colour: x (black, moves first) or o (white)")
	fs.StringVar(&c.rule, "rule", "freestyle", "freestyle, standard or renju")
	fs.IntVar(&c.turnMS, "turn-ms", int(defaultTurn/time.Millisecond), "the agent's time limit per move, in milliseconds (the search uses most of it)")
	if err := cli.ParseNoArgs(fs, args); err != nil {
		return err
	}
	if c.turnMS < 1 {
		return cli.Usagef("play terminal: -turn-ms %d: want at least 1", c.turnMS)
	}
	rule, err := gomoku.ParseRule(c.rule)
	if err != nil {
		return cli.Usagef("play terminal: -rule: %v", err)
	}
	c.player = terminal.Config{Human: gomoku.Black, Rule: rule, Turn: time.Duration(c.turnMS) * time.Millisecond}
	switch c.color {
	case "x", "X", "black":
	case "o", "O", "white":
		c.player.Human = gomoku.White
	default:
		return cli.Usagef("play terminal: -color %q: want x or o", c.color)
	}
	return nil
}

func runTerminal(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var c terminalConfig
	if err := c.parse(args, stderr); err != nil {
		return err
	}
	ag, err := c.agent.new(agentEnv{turn: c.player.Turn})
	if err != nil {
		return err
	}
	defer ag.Close()
	lines := cli.ReadLines(ctx, stdin)
	if err := terminal.Play(ctx, ag, c.player, lines.C, stdout); err != nil {
		return err
	}
	return lines.Err()
}
