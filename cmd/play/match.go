package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"ocvist/agent"
	"ocvist/arena"
	"ocvist/gomoku"
	"ocvist/internal/cli"
	"ocvist/internal/splitmix"
	"ocvist/openings"
	"ocvist/policy"
)

const matchDoc = `
Plays paired games between agents A and B: each opening of the set is played
twice, once with A as Black and once with B as Black (-games 80 plays the 40
default openings once each way). Prints a progress line on stderr and a
summary on stdout: wins, draws and losses per side and colour, A's score and
the Elo difference of A over B with a 95% interval (Wilson's score interval
with draws, mapped through the logistic Elo curve: a perfect score has an
infinite estimate but a finite lower end), and each agent's move times: the
mean of its moves that were not forced (a five to make, a four to block, an
open four to make, a win by continuous fours: arena.Forced; an engine plays
them at once), its longest move (which game, which move) and, with a turn
limit, how many of its moves took more than 95% of it.
The clock: -turn-ms per move and, with -match-ms, a match clock of that many
milliseconds per side and game; -turn-ms 0 with -match-ms is the match clock
alone. Agents get the raw clock (external engines as INFO timeout_turn,
timeout_match and time_left before each move). An agent that errs, plays an
illegal move, overruns the turn limit or runs out of its match time loses the
game.
Interrupted (Ctrl-C), a match still saves and reports the games it finished.
Agent A gets seed S and B seed S+1 (for random and sampling agents).
-save-contested writes the openings whose pair the colour did not decide (one
agent won both games, or one was drawn) to an opening file: most generated
openings favour one colour so much that near-equal engines split their pair,
each winning with it, and the pair says little. An engine played against
itself on many generated openings finds the open ones (search/TUNING.md, "On
the openings", has what they were measured to give; data/openings/ holds a set):
  play match -a search -b search -generate 1000 -games 2000 -turn-ms 100 \
      -concurrency 2 -save-contested open.txt
  play match -a search,OPTION=V -b search -openings open.txt -games 1000 ...`

// matchConfig is the typed configuration of play match.
type matchConfig struct {
	A, B     string
	Games    int
	Openings string
	Rule     string
	TurnMS   int
	MatchMS  int
	MaxPly   int
	Seed     uint64
	Save     string
	// Contested is the file -save-contested writes (Result.Contested).
	Contested string
	JSON      bool
	Log       bool
	// Generate > 0 replaces the opening file by that many generated
	// balanced openings (openings.Generate) from GenSeed.
	Generate    int
	GenSeed     uint64
	SPRT        string // "ELO0,ELO1": stop when the test decides
	Concurrency int
}

const defaultOpenings = "data/openings/piskvork-15.txt"

func runMatch(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	var c matchConfig
	fs := cli.NewFlagSet("play match", "-a AGENT -b AGENT [flags]", matchDoc, stderr)
	fs.StringVar(&c.A, "a", "", "agent A: "+agentHelp+" (required)")
	fs.StringVar(&c.B, "b", "", "agent B (required)")
	fs.IntVar(&c.Games, "games", 80, "number of games, even (each opening once per colour)")
	fs.StringVar(&c.Openings, "openings", defaultOpenings, `opening file (Gomocup offset or pos format); "" starts every game from h8`)
	fs.StringVar(&c.Rule, "rule", "freestyle", "freestyle, standard or renju")
	fs.IntVar(&c.TurnMS, "turn-ms", 1000, "time limit per move in milliseconds (0: none, with -match-ms)")
	fs.IntVar(&c.MatchMS, "match-ms", 0, "each side's time for a game in milliseconds (a match clock; 0: none)")
	fs.IntVar(&c.MaxPly, "max-ply", 0, "draw once this many stones stand (0: full board)")
	fs.Uint64Var(&c.Seed, "seed", 1, "random seed: A gets S, B gets S+1")
	fs.StringVar(&c.Save, "save", "", "write the games to this SGF file")
	fs.StringVar(&c.Contested, "save-contested", "", "write the openings whose pair the colour did not decide to this opening file")
	fs.BoolVar(&c.JSON, "json", false, "print the summary as one JSON object")
	fs.BoolVar(&c.Log, "engine-log", false, "copy external engines' stderr to stderr")
	fs.IntVar(&c.Generate, "generate", 0, "play from this many generated balanced openings instead of -openings (each twice, colours swapped)")
	fs.Uint64Var(&c.GenSeed, "gen-seed", 1, "seed of the generated openings")
	fs.StringVar(&c.SPRT, "sprt", "", fmt.Sprintf(`"ELO0,ELO1": stop as soon as an SPRT (alpha = beta = 0.05, on game pairs, at least %d of them) decides between A being ELO0 or ELO1 stronger`, arena.DefaultMinPairs))
	fs.IntVar(&c.Concurrency, "concurrency", 1, "games played at once (each game gets fresh agents, seeded from -seed and the game's index)")
	if err := cli.ParseNoArgs(fs, args); err != nil {
		return err
	}
	cfg, err := c.arenaConfig()
	if err != nil {
		return err
	}
	if c.Concurrency > 1 {
		return c.runParallel(ctx, cfg, stdout, stderr)
	}
	a, b, err := c.agents(stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	defer b.Close()
	cfg.Progress = c.progress(stderr)
	r, err := arena.Match(ctx, a, b, cfg)
	return c.report(r, err, cfg, stdout, stderr)
}

// runParallel plays the match with c.Concurrency games at once, each game
// with fresh agents seeded from -seed and its index.
func (c *matchConfig) runParallel(ctx context.Context, cfg arena.Config, stdout, stderr io.Writer) error {
	env := agentEnv{turn: c.engineTurn()}
	if c.Log {
		env.log = stderr
	}
	mkA, err := agentMaker(c.A, env)
	if err != nil {
		return err
	}
	mkB, err := agentMaker(c.B, env)
	if err != nil {
		return err
	}
	cfg.Concurrency = c.Concurrency
	cfg.Progress = c.progress(stderr)
	newA := func(i int) (agent.Agent, error) { return mkA(splitmix.Derive(c.Seed, 0, uint64(i))) }
	newB := func(i int) (agent.Agent, error) { return mkB(splitmix.Derive(c.Seed, 1, uint64(i))) }
	r, err := arena.MatchFactories(ctx, newA, newB, cfg)
	return c.report(r, err, cfg, stdout, stderr)
}

// progress shows the score after each game: on a terminal in one line
// rewritten in place, elsewhere (a log file) a line every 10 seconds and
// after the last game.
func (c *matchConfig) progress(stderr io.Writer) func(*arena.Game, *arena.Result) {
	tty := cli.IsTerminal(stderr)
	var last time.Time
	return func(g *arena.Game, r *arena.Result) {
		t := r.Total
		line := fmt.Sprintf("game %d/%d: %s %d, %s %d, draws %d", t.Games(), c.Games, r.A, t.AWins, r.B, t.BWins, t.Draws)
		switch {
		case tty:
			fmt.Fprintf(stderr, "\r%s ", line)
		case time.Since(last) >= 10*time.Second || t.Games() == c.Games:
			fmt.Fprintln(stderr, line)
			last = time.Now()
		}
	}
}

// report saves and prints what the match played.
func (c *matchConfig) report(r *arena.Result, err error, cfg arena.Config, stdout, stderr io.Writer) error {
	if r == nil || len(r.Games) == 0 {
		if err != nil {
			return fmt.Errorf("match: %w", err)
		}
		return nil
	}
	if cli.IsTerminal(stderr) { // end the line rewritten in place
		fmt.Fprintln(stderr)
	}
	// An interrupted match still saves and reports the games it finished.
	if err != nil {
		err = fmt.Errorf("match stopped after %d of %d games: %w", len(r.Games), c.Games, err)
	}
	if c.Save != "" {
		if serr := saveGames(c.Save, cfg.Rule, r.Games); serr != nil {
			return serr
		}
	}
	if c.Contested != "" {
		if serr := c.saveContested(r, cfg, stderr); serr != nil {
			return serr
		}
	}
	if c.JSON {
		if jerr := writeJSON(stdout, c, cfg.Rule, r); jerr != nil {
			return jerr
		}
		return err
	}
	writeSummary(stdout, c, cfg, r)
	return err
}

func (c *matchConfig) arenaConfig() (arena.Config, error) {
	var cfg arena.Config
	switch {
	case c.A == "" || c.B == "":
		return cfg, cli.Usagef("match: -a and -b are required")
	case c.Games < 1:
		return cfg, cli.Usagef("match: -games %d: want at least 1", c.Games)
	case c.Games%2 != 0:
		return cfg, cli.Usagef("match: -games %d: want an even number (games are played in pairs, colours swapped)", c.Games)
	case c.TurnMS < 0 || c.MatchMS < 0:
		return cfg, cli.Usagef("match: -turn-ms %d, -match-ms %d: want no negative time", c.TurnMS, c.MatchMS)
	case c.TurnMS == 0 && c.MatchMS == 0:
		return cfg, cli.Usagef("match: -turn-ms 0 without -match-ms: want a turn limit or a match clock")
	case c.MaxPly < 0:
		return cfg, cli.Usagef("match: -max-ply %d is negative", c.MaxPly)
	case c.Contested != "" && c.Generate == 0 && c.Openings == "":
		return cfg, cli.Usagef("match: -save-contested needs openings (-openings or -generate)")
	}
	rule, err := gomoku.ParseRule(c.Rule)
	if err != nil {
		return cfg, cli.Usagef("match: -rule: %v", err)
	}
	cfg = arena.Config{Rule: rule, MaxPly: c.MaxPly, Games: c.Games,
		Turn: time.Duration(c.TurnMS) * time.Millisecond, Match: time.Duration(c.MatchMS) * time.Millisecond}
	switch {
	case c.Generate < 0:
		return cfg, cli.Usagef("match: -generate %d is negative", c.Generate)
	case c.Concurrency < 1:
		return cfg, cli.Usagef("match: -concurrency %d: want at least 1", c.Concurrency)
	case c.Generate > 0:
		if cfg.Openings, err = openings.Generate(c.GenSeed, c.Generate, rule); err != nil {
			return cfg, fmt.Errorf("match: %w", err)
		}
	case c.Openings != "":
		if cfg.Openings, err = openings.ReadFile(c.Openings); err != nil {
			return cfg, fmt.Errorf("match: %w (run from the repository root, or pass -openings)", err)
		}
	}
	if c.SPRT != "" {
		t, err := parseSPRT(c.SPRT)
		if err != nil {
			return cfg, cli.Usagef("match: -sprt: %v", err)
		}
		if c.Games/2 < arena.DefaultMinPairs {
			return cfg, cli.Usagef("match: -sprt with -games %d: the SPRT needs %d pairs (-games %d or more) to decide",
				c.Games, arena.DefaultMinPairs, 2*arena.DefaultMinPairs)
		}
		cfg.SPRT = &t
	}
	return cfg, nil
}

// parseSPRT reads "ELO0,ELO1".
func parseSPRT(s string) (arena.SPRT, error) {
	a, b, ok := strings.Cut(s, ",")
	e0, err0 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	e1, err1 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if !ok || err0 != nil || err1 != nil {
		return arena.SPRT{}, fmt.Errorf("%q: want ELO0,ELO1, e.g. 0,20", s)
	}
	t := arena.SPRT{Elo0: e0, Elo1: e1, Alpha: 0.05, Beta: 0.05}
	return t, t.Validate()
}

func (c *matchConfig) agents(stderr io.Writer) (a, b agent.Agent, err error) {
	env := agentEnv{seed: c.Seed, turn: c.engineTurn()}
	if c.Log {
		env.log = stderr
	}
	if a, err = newAgent(c.A, env); err != nil {
		return nil, nil, err
	}
	env.seed++
	if b, err = newAgent(c.B, env); err != nil {
		a.Close()
		return nil, nil, err
	}
	return a, b, nil
}

// saveContested writes the openings of r's pairs that the colour did not
// decide (Result.Contested) to c.Contested, and says how many on stderr.
func (c *matchConfig) saveContested(r *arena.Result, cfg arena.Config, stderr io.Writer) error {
	idx := r.Contested()
	ops := make([]openings.Opening, len(idx))
	for i, k := range idx {
		ops[i] = cfg.Openings[k]
	}
	_, _, _, pairs := arena.PairScore(r.Pentanomial())
	header := fmt.Sprintf("the %d openings of %d pairs the colour did not decide: %s against %s, %s, openings %s, seed %d, %s",
		len(ops), pairs, r.A, r.B, cfg.Rule, c.openingsText(cfg), c.Seed, c.clockText())
	if err := policy.WriteFileAtomic(c.Contested, openings.Format(header, ops)); err != nil {
		return fmt.Errorf("save contested openings: %w", err)
	}
	fmt.Fprintf(stderr, "%d contested openings of %d pairs written to %s\n", len(ops), pairs, c.Contested)
	return nil
}

func saveGames(path string, rule gomoku.Rule, games []arena.Game) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("save games: %w", err)
	}
	if err := arena.WriteSGF(f, rule, games); err != nil {
		f.Close()
		return fmt.Errorf("save games %q: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("save games %q: %w", path, err)
	}
	return nil
}

func forfeits(r *arena.Result) (a, b int) {
	for _, g := range r.Games {
		if g.Forfeit {
			if g.AResult() == 0 {
				a++
			} else {
				b++
			}
		}
	}
	return a, b
}

// openingsText names the match's openings.
func (c *matchConfig) openingsText(cfg arena.Config) string {
	switch {
	case c.Generate > 0:
		return fmt.Sprintf("%d generated (seed %d)", len(cfg.Openings), c.GenSeed)
	case c.Openings != "":
		return fmt.Sprintf("%s (%d)", c.Openings, len(cfg.Openings))
	}
	return "h8 (no opening set)"
}

func writeSummary(w io.Writer, c *matchConfig, cfg arena.Config, r *arena.Result) {
	fmt.Fprintf(w, "A = %s, B = %s: %d games, %s, openings %s, seed %d, %s\n",
		r.A, r.B, r.Total.Games(), cfg.Rule, c.openingsText(cfg), c.Seed, c.clockText())
	fmt.Fprintf(w, "%-14s %6s %6s %6s\n", "", "A wins", "draws", "B wins")
	for _, row := range []struct {
		name string
		t    arena.Tally
	}{{"all games", r.Total}, {"A black", r.ABlack}, {"A white", r.AWhite}} {
		fmt.Fprintf(w, "%-14s %6d %6d %6d\n", row.name, row.t.AWins, row.t.Draws, row.t.BWins)
	}
	elo, lo, hi := r.Elo()
	fmt.Fprintf(w, "score of A: %.1f%%; Elo A-B: %s (95%% interval %s to %s)\n",
		100*r.Score(), fmtElo(elo), fmtElo(lo), fmtElo(hi))
	p := r.Pentanomial()
	if ps, lo, hi, n := arena.PairScore(p); n > 0 {
		fmt.Fprintf(w, "pairs: %d, pentanomial (A scores 0, ½, 1, 1½, 2) %v; pair score %.1f%% (95%% interval %.1f%% to %.1f%%)\n",
			n, p, 100*ps, 100*lo, 100*hi)
	}
	if cfg.SPRT != nil {
		lo, hi := cfg.SPRT.Bounds()
		fmt.Fprintf(w, "SPRT elo0 %g, elo1 %g: LLR %.2f (bounds %.2f, %.2f): %v\n", cfg.SPRT.Elo0, cfg.SPRT.Elo1, r.LLR, lo, hi, r.Decision)
	}
	fa, fb := forfeits(r)
	fmt.Fprintf(w, "forfeits: A %d, B %d\n", fa, fb)
	for i, name := range []string{"A", "B"} {
		t := r.Time[i]
		where, past := "", ""
		if g, m := longestAt(t); g > 0 {
			where = fmt.Sprintf(" (game %d, move %d)", g, m)
		}
		if cfg.Turn > 0 {
			past = fmt.Sprintf("; %d past 95%% of the turn", r.Over(i, late(cfg.Turn)))
		}
		fmt.Fprintf(w, "move time of %s: mean %s over %d moves not forced (%d forced left out), longest %s%s%s\n",
			name, fmtDur(t.Mean()), t.Moves-t.Forced, t.Forced, fmtDur(t.Max), where, past)
	}
	for i, name := range []string{"A", "B"} {
		if pr := r.Proofs[i]; pr.Games > 0 {
			forfeited := ""
			if len(pr.Thrown) > 0 {
				forfeited = fmt.Sprintf(", of them %d lost by forfeit%s", len(pr.Forfeited), gameList(pr.Forfeited))
			}
			fmt.Fprintf(w, "announced wins of %s: %d games, %d not won%s%s\n", name, pr.Games, len(pr.Thrown), gameList(pr.Thrown), forfeited)
		}
	}
}

// gameList names up to ten games by their 1-based number (as the progress
// line and -save count them): " (games 3, 17)", or "" for none.
func gameList(idx []int) string {
	if len(idx) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(" (games")
	for i, g := range idx {
		if i == 10 {
			fmt.Fprintf(&b, " and %d more", len(idx)-10)
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %d", g+1)
	}
	b.WriteString(")")
	return b.String()
}

// clockText says the match's clock.
func (c *matchConfig) clockText() string {
	switch {
	case c.MatchMS > 0 && c.TurnMS > 0:
		return fmt.Sprintf("%d ms per move, %d ms per side and game", c.TurnMS, c.MatchMS)
	case c.MatchMS > 0:
		return fmt.Sprintf("%d ms per side and game", c.MatchMS)
	}
	return fmt.Sprintf("%d ms per move", c.TurnMS)
}

// engineTurn is the turn limit an external engine is told when it starts
// (each move then sends its clock): the turn limit, or the match time.
func (c *matchConfig) engineTurn() time.Duration {
	if c.TurnMS > 0 {
		return time.Duration(c.TurnMS) * time.Millisecond
	}
	return time.Duration(c.MatchMS) * time.Millisecond
}

func fmtElo(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "+inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return fmt.Sprintf("%+.1f", x)
}

func fmtDur(d time.Duration) string { return fmt.Sprintf("%.1f ms", msOf(d)) }

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// finite is a JSON number, or null for an infinite or NaN value.
func finite(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}

// matchJSON is play match -json's output. Infinite Elo values (a score of
// 0 or 1) are null.
type matchJSON struct {
	A        string      `json:"a"`
	B        string      `json:"b"`
	Seed     uint64      `json:"seed"`
	Rule     string      `json:"rule"`
	Openings string      `json:"openings"`
	TurnMS   int         `json:"turn_ms"`
	MatchMS  int         `json:"match_ms"`
	Games    int         `json:"games"`
	AWins    int         `json:"a_wins"`
	BWins    int         `json:"b_wins"`
	Draws    int         `json:"draws"`
	ABlack   arena.Tally `json:"a_black"`
	AWhite   arena.Tally `json:"a_white"`
	Score    float64     `json:"score"`
	Elo      *float64    `json:"elo"`
	EloLow   *float64    `json:"elo_low"`
	EloHigh  *float64    `json:"elo_high"`
	AForfeit int         `json:"a_forfeits"`
	BForfeit int         `json:"b_forfeits"`
	AMaxMS   float64     `json:"a_max_move_ms"`
	BMaxMS   float64     `json:"b_max_move_ms"`
	AMeanMS  float64     `json:"a_mean_move_ms"` // moves not forced
	BMeanMS  float64     `json:"b_mean_move_ms"`
	AMoves   int         `json:"a_moves"`
	BMoves   int         `json:"b_moves"`
	AForced  int         `json:"a_forced_moves"`
	BForced  int         `json:"b_forced_moves"`
	// AMaxGame and AMaxMove locate A's longest move (B's likewise): its
	// game (1: the first) and move number (1: the first stone, the
	// opening's counted); 0 with no move.
	AMaxGame int `json:"a_max_move_game"`
	AMaxMove int `json:"a_max_move_number"`
	BMaxGame int `json:"b_max_move_game"`
	BMaxMove int `json:"b_max_move_number"`
	// ALate and BLate count the moves past 95% of the turn limit (null
	// without one).
	ALate *int   `json:"a_moves_past_95pct"`
	BLate *int   `json:"b_moves_past_95pct"`
	Penta [5]int `json:"pentanomial"`
	// AProved and BProved count the games in which A (B) announced a
	// proved win; AThrown and BThrown list those it did not win, and
	// AForfeited and BForfeited those of them it lost by forfeit.
	AProved    int     `json:"a_proved_games"`
	BProved    int     `json:"b_proved_games"`
	AThrown    []int   `json:"a_thrown_games"`
	BThrown    []int   `json:"b_thrown_games"`
	AForfeited []int   `json:"a_thrown_forfeited_games"`
	BForfeited []int   `json:"b_thrown_forfeited_games"`
	SPRT       string  `json:"sprt,omitempty"`
	LLR        float64 `json:"llr"`
}

// late is the move time past which a move counts as late under a turn
// limit of turn: 95% of it.
func late(turn time.Duration) time.Duration { return turn * 95 / 100 }

// longestAt locates the longest of t's moves: its game (1: the first) and
// move number; 0, 0 when t has no move.
func longestAt(t arena.MoveTimes) (game, move int) {
	if t.Moves == 0 {
		return 0, 0
	}
	return t.MaxGame + 1, t.MaxMove
}

func writeJSON(w io.Writer, c *matchConfig, rule gomoku.Rule, r *arena.Result) error {
	elo, lo, hi := r.Elo()
	fa, fb := forfeits(r)
	openings := c.Openings
	if c.Generate > 0 {
		openings = fmt.Sprintf("%d generated (seed %d)", c.Generate, c.GenSeed)
	}
	out := matchJSON{
		A: r.A, B: r.B, Seed: c.Seed, Rule: rule.String(), Openings: openings, TurnMS: c.TurnMS, MatchMS: c.MatchMS,
		Games: r.Total.Games(), AWins: r.Total.AWins, BWins: r.Total.BWins, Draws: r.Total.Draws,
		ABlack: r.ABlack, AWhite: r.AWhite, Score: r.Score(),
		Elo: finite(elo), EloLow: finite(lo), EloHigh: finite(hi), AForfeit: fa, BForfeit: fb,
		AMaxMS: msOf(r.Time[0].Max), BMaxMS: msOf(r.Time[1].Max), AMeanMS: msOf(r.Time[0].Mean()), BMeanMS: msOf(r.Time[1].Mean()),
		AMoves: r.Time[0].Moves, BMoves: r.Time[1].Moves, AForced: r.Time[0].Forced, BForced: r.Time[1].Forced,
		Penta: r.Pentanomial(), LLR: r.LLR,
		AProved: r.Proofs[0].Games, BProved: r.Proofs[1].Games, AThrown: r.Proofs[0].Thrown, BThrown: r.Proofs[1].Thrown,
		AForfeited: r.Proofs[0].Forfeited, BForfeited: r.Proofs[1].Forfeited,
	}
	out.AMaxGame, out.AMaxMove = longestAt(r.Time[0])
	out.BMaxGame, out.BMaxMove = longestAt(r.Time[1])
	if turn := time.Duration(c.TurnMS) * time.Millisecond; turn > 0 {
		a, b := r.Over(0, late(turn)), r.Over(1, late(turn))
		out.ALate, out.BLate = &a, &b
	}
	if c.SPRT != "" {
		out.SPRT = r.Decision.String()
	}
	enc := json.NewEncoder(w)
	return enc.Encode(out)
}
