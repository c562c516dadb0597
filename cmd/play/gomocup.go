package main

import (
	"context"
	"io"
	"runtime/debug"

	"ocvist/arena"
	"ocvist/gomocup"
	"ocvist/gomoku"
	"ocvist/internal/cli"
	"ocvist/search"
)

const gomocupAbout = `
Runs an agent as a Gomocup protocol engine ("pbrain") on stdin and stdout,
for tournament managers and GUIs such as Piskvork, c-gomoku-cli and
Yixin-Board. Supported: START 15, RECTSTART 15,15, RESTART, BEGIN, TURN,
BOARD (field 3 is ignored), TAKEBACK, PLAY, ABOUT, END, YXSTOP (a thinking
agent answers at once with its best move), INFO timeout_turn, timeout_match,
time_left, max_memory, thread_num and rule (Piskvork's bitmask: 0 freestyle,
1 standard, 4 renju, the continuous-game bit 2 ignored, caro refused with an
ERROR on each move; -yixin-rules reads 2 as renju, as Yixin-Board sends it),
and the analysis extensions of Yixin-Board: YXBOARD (a position without a
move), YXNBEST N (the N best moves as MESSAGE lines "(rank) ev | depth | pv",
the best answered, not played), YXSHOWFORBID (Black's forbidden points under
renju, "FORBID xxyy…."), YXSHOWINFO, YXHASHCLEAR, INFO hash_size (KiB),
max_node, max_depth, pondering (declined) and caution_factor (ignored);
SWAP2BOARD is answered from the search's scores (0 stones: three stones; 3:
SWAP, a move, or two more stones; 5: SWAP or a move). While it thinks, the
search reports its best line after each iteration and at least once a
second: "MESSAGE REALTIME BEST x,y" and "MESSAGE depth D | ev S | nodes N |
nps K | time T ms | pv x,y …" (S is +Mn/-Mn for a proved win or loss in n
plies). A malformed value is ignored, with a MESSAGE. The agent gets the
clock as the manager states it and the search's time manager decides how
much to use: at 1 s a move about 60-90% of it, never more than the turn less
30 ms and 8%; under a match clock at most a seventh of the time left.
INFO max_memory is the process's memory limit, and half of it sizes the
search's table (a power of two: 128 MiB under 350 MB, where the engine
peaked at about 215 MB on two threads) unless INFO hash_size is given;
without either the table is 16 MiB. INFO
thread_num N (or -threads N, which it overrides) makes the search think on N
threads. Managers need an executable whose name starts with "pbrain-": a
copy of this program named, say, pbrain-ocvist starts as the engine without
arguments. The default engine, the search over the shipped models, plays
renju with the renju models (data/README.md), and standard with the freestyle
ones, fitted for freestyle (a MESSAGE says so; against the search without them
they scored 66% under standard, 400 games at 100 ms a move). The forest agent
and a model named in -agent play their model's rule only.`

// about is the engine's answer to ABOUT.
var about = gomocup.ReplyAbout{Pairs: []gomocup.Pair{
	{Key: "name", Value: "Ocvist"}, {Key: "version", Value: cli.Version},
	{Key: "author", Value: "Ocvist developers"}, {Key: "country", Value: "Unknown"},
}}

// gomocupConfig is the typed configuration of play gomocup.
type gomocupConfig struct {
	agent      agentFlags
	model      string
	yixinRules bool
}

func (c *gomocupConfig) parse(args []string, stderr io.Writer) error {
	fs := cli.NewFlagSet("play gomocup", "[-agent A | -model FILE] [-seed S] [-threads N] [-yixin-rules]", gomocupAbout, stderr)
	c.agent.register(fs, "the engine's agent")
	fs.StringVar(&c.model, "model", "", "forest model `file` (the same as -agent forest:FILE); default: the shipped model")
	fs.BoolVar(&c.yixinRules, "yixin-rules", false, "read INFO rule 2 as renju, as Yixin-Board sends it (default: Piskvork's bitmask, where 2 is the continuous-game bit and 4 is renju)")
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
	var eng gomocup.Engine = ag
	if s, ok := ag.(*arena.Search); ok {
		eng = searchEngine{s}
	}
	srv := gomocup.NewServer(eng, stdout, gomocup.Options{
		About:          about,
		SetMemoryLimit: func(n int64) { debug.SetMemoryLimit(n) },
		YixinRules:     c.yixinRules,
	})
	lines := cli.ReadLines(ctx, stdin)
	if err := srv.Serve(ctx, lines.C); err != nil {
		return err
	}
	return lines.Err()
}

// searchEngine is the search agent as the Gomocup server sees it: its
// analysis (YXNBEST, SWAP2BOARD), reports (the realtime MESSAGE lines),
// table (hash_size, YXHASHCLEAR) and limits (max_node, max_depth) reach
// the protocol's extensions.
type searchEngine struct{ *arena.Search }

// Analyze lists the root moves with their exact scores, best first; the
// first carries the principal variation. A root settled without the
// alpha-beta (a five, a block, a threat-search win) gives one line.
func (e searchEngine) Analyze(ctx context.Context, b *gomoku.Board, clk gomoku.Clock) ([]gomocup.Line, error) {
	res, err := e.Search.Analyze(ctx, b, clk)
	if err != nil {
		return nil, err
	}
	lines := []gomocup.Line{lineOf(res)}
	for _, m := range res.Root {
		if m.Move != res.Move {
			lines = append(lines, gomocup.Line{Move: m.Move, Score: m.Score, Mate: search.MatePlies(m.Score), Depth: res.Depth})
		}
	}
	return lines, nil
}

func lineOf(r search.Result) gomocup.Line {
	return gomocup.Line{Move: r.Move, Score: r.Score, Mate: search.MatePlies(r.Score), Depth: r.Depth, PV: r.PV}
}

func (e searchEngine) SetReport(f func(gomocup.Report)) {
	if f == nil {
		e.Search.SetReport(nil)
		return
	}
	e.Search.SetReport(func(r search.Result) {
		f(gomocup.Report{Line: lineOf(r), Nodes: r.Nodes, Elapsed: r.Elapsed})
	})
}

func (e searchEngine) SetHashSize(bytes int64)                { e.SetTableBytes(bytes) }
func (e searchEngine) ClearHash()                             { e.ClearTables() }
func (e searchEngine) SetSearchLimits(nodes int64, depth int) { e.SetLimits(nodes, depth) }
