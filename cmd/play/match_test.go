package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"ocvist/agent"
	"ocvist/arena"
	"ocvist/gomocup"
	"ocvist/gomoku"
	"ocvist/openings"
	"ocvist/patterns"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// playBinary builds this command once per test run.
func playBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ocvist-play-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "play")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v", buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

func standardOpenings(t testing.TB) []openings.Opening {
	ops, err := openings.ReadFile("../../" + defaultOpenings)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

// TestEngineMatchesInProcess plays the same match twice, B once in-process
// and once as "play gomocup" driven through the protocol by the arena's
// engine client. Agents with the same seed asked the same positions play
// the same moves, so every game must be identical.
func TestEngineMatchesInProcess(t *testing.T) {
	bin := playBinary(t)
	for _, name := range []string{"random", "patterns", "forest"} {
		t.Run(name, func(t *testing.T) {
			mk := func(seed uint64) agent.Agent {
				switch name {
				case "random":
					return agent.NewRandom(seed)
				case "forest": // the shipped model, as the engine loads it
					a, err := newAgent("forest", agentEnv{seed: seed})
					if err != nil {
						t.Fatal(err)
					}
					return a
				}
				return arena.NewPatterns(seed, patterns.Config{})
			}
			// 19 openings of the set and the bare centre stone, each once per colour:
			// the engine gets BOARD, and TURN on its empty board.
			ops := append(standardOpenings(t)[:19:19], openings.Opening{Moves: []gomoku.Point{gomoku.Center}})
			cfg := arena.Config{Games: 40, Openings: ops, Turn: 5 * time.Second}
			want, err := arena.Match(context.Background(), mk(1), mk(2), cfg)
			if err != nil {
				t.Fatal(err)
			}
			eng, err := gomocup.StartClient([]string{bin, "gomocup", "-agent", name, "-seed", "2"}, gomocup.ClientOptions{Turn: cfg.Turn})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			if eng.Name() != "engine:Ocvist" {
				t.Errorf("engine name %q, want engine:Ocvist (from ABOUT)", eng.Name())
			}
			got, err := arena.Match(context.Background(), mk(1), eng, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != want.Total || got.ABlack != want.ABlack {
				t.Errorf("engine match %+v %+v, in-process %+v %+v", got.Total, got.ABlack, want.Total, want.ABlack)
			}
			for i := range got.Games {
				g, w := got.Games[i], want.Games[i]
				if g.Forfeit || !reflect.DeepEqual(g.Moves, w.Moves) || g.Winner != w.Winner {
					t.Errorf("game %d (opening %d): %s\n engine   %v\n in-proc  %v", i, g.Opening, g.Reason, g.Moves, w.Moves)
				}
			}
		})
	}
}

var repoRoot, _ = filepath.Abs("../..")

// runCLI runs the command in the repository root (where the default
// opening file lives) and returns stdout.
func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	t.Chdir(repoRoot)
	var out, errb bytes.Buffer
	if err := Run(context.Background(), args, strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("play %s: %v\nstderr: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

func matchJSONOut(t *testing.T, args ...string) matchJSON {
	t.Helper()
	var m matchJSON
	out := runCLI(t, append([]string{"match", "-json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if m.AWins+m.BWins+m.Draws != m.Games || m.ABlack.Games()+m.AWhite.Games() != m.Games {
		t.Errorf("counts do not add up: %+v", m)
	}
	return m
}

func TestMatchCLIPatternsBeatsRandom(t *testing.T) {
	m := matchJSONOut(t, "-a", "patterns", "-b", "random", "-games", "200")
	if m.Games != 200 || m.Score < 0.95 {
		t.Errorf("patterns scored %.3f over %d games, want at least 0.95", m.Score, m.Games)
	}
	// A perfect score: infinite (null) Elo and upper end, a finite lower end.
	if m.Score == 1 && (m.Elo != nil || m.EloHigh != nil || m.EloLow == nil || *m.EloLow < 400) {
		t.Errorf("a perfect score over 200 games: Elo %v, interval [%v, %v]; want null, [about +690, null]",
			fmtPtr(m.Elo), fmtPtr(m.EloLow), fmtPtr(m.EloHigh))
	}
	if m.Score < 1 && (m.Elo == nil || m.EloLow == nil || *m.EloLow > *m.Elo) {
		t.Errorf("Elo %v, interval [%v, %v]", fmtPtr(m.Elo), fmtPtr(m.EloLow), fmtPtr(m.EloHigh))
	}
}

func fmtPtr(x *float64) string {
	if x == nil {
		return "null"
	}
	return fmt.Sprint(*x)
}

func fmtCount(n *int) string {
	if n == nil {
		return "null"
	}
	return fmt.Sprint(*n)
}

func TestMatchCLIRandomSymmetry(t *testing.T) {
	m := matchJSONOut(t, "-a", "random", "-b", "random", "-games", "80", "-seed", "3")
	// Same agent both sides: the score is near one half (a fixed seed, so
	// this is a check of the bookkeeping, not a statistical test).
	if m.Elo == nil || *m.EloLow > 0 || *m.EloHigh < 0 {
		t.Errorf("random vs random: Elo %v, interval [%v, %v] should contain 0", m.Elo, m.EloLow, m.EloHigh)
	}
	if m.Seed != 3 || m.A != "random (A)" || m.B != "random (B)" || m.Rule != "freestyle" {
		t.Errorf("metadata %+v", m)
	}
	// Each side's longest move is located in a game of the match, past
	// the opening's first stone.
	for _, at := range [][2]int{{m.AMaxGame, m.AMaxMove}, {m.BMaxGame, m.BMaxMove}} {
		if at[0] < 1 || at[0] > m.Games || at[1] < 2 {
			t.Errorf("longest move at game %d, move %d; want a game in 1..%d and a move after the first stone", at[0], at[1], m.Games)
		}
	}
	// A minute a move: random moves take microseconds, none is late.
	m = matchJSONOut(t, "-a", "random", "-b", "random", "-games", "4", "-seed", "3", "-turn-ms", "60000")
	if m.ALate == nil || m.BLate == nil || *m.ALate != 0 || *m.BLate != 0 {
		t.Errorf("moves past 95%% of a minute: %s, %s; want 0 and 0", fmtCount(m.ALate), fmtCount(m.BLate))
	}
	// A match clock alone: no turn limit, so no count (null).
	m = matchJSONOut(t, "-a", "random", "-b", "random", "-games", "4", "-seed", "3", "-turn-ms", "0", "-match-ms", "600000")
	if m.ALate != nil || m.BLate != nil {
		t.Errorf("moves past 95%% of no turn limit: %s, %s; want null", fmtCount(m.ALate), fmtCount(m.BLate))
	}
}

func TestMatchCLIEngineSameAsInProcess(t *testing.T) {
	bin := playBinary(t)
	in := matchJSONOut(t, "-a", "patterns", "-b", "patterns", "-games", "20", "-seed", "5")
	// B gets seed S+1 = 6.
	ext := matchJSONOut(t, "-a", "patterns", "-b", "engine:"+bin+" gomocup -agent patterns -seed 6", "-games", "20", "-seed", "5")
	if in.AWins != ext.AWins || in.BWins != ext.BWins || in.ABlack != ext.ABlack || ext.BForfeit != 0 {
		t.Errorf("in-process %+v\nengine %+v", in, ext)
	}
	if ext.B != "engine:Ocvist" {
		t.Errorf("engine named %q", ext.B)
	}
}

func TestMatchCLISaveAndSummary(t *testing.T) {
	save := filepath.Join(t.TempDir(), "games.sgf")
	out := runCLI(t, "match", "-a", "patterns", "-b", "random", "-games", "4", "-save", save)
	for _, want := range []string{"A = patterns, B = random: 4 games", "all games", "A black", "Elo A-B: +inf", "longest", "move time of A: mean", ", move ", " past 95% of the turn"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	readSaved(t, save, 4)
}

// readSaved reads the games -save wrote to path, failing unless there are n.
func readSaved(t *testing.T, path string, n int) []arena.Game {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	games, err := arena.ReadSGF(f)
	if err != nil || len(games) != n {
		t.Fatalf("saved games: %d, %v; want %d", len(games), err, n)
	}
	return games
}

// TestMatchCLISaveContested: -save-contested writes exactly the openings
// whose pair in the saved games the colour did not decide (the same colour
// did not win both games), in the opening set's order, as an opening file
// that -openings reads; random games give some of each.
func TestMatchCLISaveContested(t *testing.T) {
	dir := t.TempDir()
	save, contested := filepath.Join(dir, "games.sgf"), filepath.Join(dir, "open.txt")
	runCLI(t, "match", "-a", "random", "-b", "random", "-games", "80", "-seed", "3", "-save", save, "-save-contested", contested)
	games := readSaved(t, save, 80)
	winners := map[int][]gomoku.Player{}
	for _, g := range games {
		winners[g.Opening] = append(winners[g.Opening], g.Winner)
	}
	all := mustReadOpenings(t, filepath.Join(repoRoot, defaultOpenings))
	var want []string
	for k := range len(all) {
		if w := winners[k]; len(w) != 2 {
			t.Fatalf("opening %d played %d times", k+1, len(w))
		} else if w[0] == gomoku.Empty || w[0] != w[1] {
			want = append(want, all[k].String())
		}
	}
	var got []string
	for _, o := range mustReadOpenings(t, contested) {
		got = append(got, o.String())
	}
	if !slices.Equal(got, want) || len(want) == 0 || len(want) == len(all) {
		t.Errorf("contested openings %q,\nwant %q (of %d)", got, want, len(all))
	}
	head, _ := os.ReadFile(contested)
	if !strings.HasPrefix(string(head), fmt.Sprintf("# the %d openings of 40 pairs the colour did not decide: random (A) against random (B)", len(want))) {
		t.Errorf("file begins %.120q", head)
	}
}

func mustReadOpenings(t *testing.T, path string) []openings.Opening {
	t.Helper()
	ops, err := openings.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

// cancelAt is a progress writer that cancels the match once it sees want.
type cancelAt struct {
	want   string
	cancel context.CancelFunc
	buf    bytes.Buffer
}

func (c *cancelAt) Write(p []byte) (int, error) {
	c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.want) {
		c.cancel()
	}
	return len(p), nil
}

func TestMatchCLIInterruptedKeepsGames(t *testing.T) {
	t.Chdir(repoRoot)
	save := filepath.Join(t.TempDir(), "games.sgf")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	// Not on a terminal, progress is a line every 10 s and the first at
	// once: the match is cancelled after its first game.
	errw := &cancelAt{want: "game 1/50: patterns ", cancel: cancel}
	err := Run(ctx, []string{"match", "-a", "patterns", "-b", "random", "-games", "50", "-save", save},
		strings.NewReader(""), &out, errw)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stopped after 1 of 50 games") {
		t.Fatalf("error %v, want a cancelled match after 1 game", err)
	}
	if strings.Contains(errw.buf.String(), "\r") {
		t.Errorf("carriage returns in the progress of a non-terminal: %q", errw.buf.String())
	}
	if !strings.Contains(out.String(), "A = patterns, B = random: 1 games") {
		t.Errorf("no summary of the finished games:\n%s", out.String())
	}
	readSaved(t, save, 1)
}

// TestMatchCLIMatchClock: a match clock alone (-turn-ms 0), for an
// in-process agent and an external engine (told its clock by INFO
// timeout_match and time_left): no game is lost on time, and the summary
// counts every move of both sides.
func TestMatchCLIMatchClock(t *testing.T) {
	bin := playBinary(t)
	m := matchJSONOut(t, "-a", "patterns", "-b", "engine:"+bin+" gomocup -agent patterns", "-games", "4", "-turn-ms", "0", "-match-ms", "60000")
	if m.AForfeit != 0 || m.BForfeit != 0 || m.MatchMS != 60000 || m.TurnMS != 0 {
		t.Errorf("%+v", m)
	}
	if m.AMoves == 0 || m.BMoves == 0 || m.AForced > m.AMoves {
		t.Errorf("moves: A %d (%d forced), B %d", m.AMoves, m.AForced, m.BMoves)
	}
}

func TestMatchCLIErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"match", "-a", "random"}, "-a and -b are required"},
		{[]string{"match", "-a", "random", "-b", "forest:/nonexistent/model.ocf"}, "no such file"},
		{[]string{"match", "-a", "random", "-b", "forest:cmd/play/match_test.go"}, "not a forest model"},
		{[]string{"match", "-a", "random", "-b", "nobody"}, `unknown agent "nobody"`},
		{[]string{"match", "-a", "random", "-b", "engine:/nonexistent/pbrain"}, "engine"},
		{[]string{"match", "-a", "random", "-b", "random", "-rule", "caro"}, `unknown rule "caro"`},
		{[]string{"match", "-a", "random", "-b", "random", "-openings", "/nonexistent"}, "read openings"},
		{[]string{"match", "-a", "random", "-b", "random", "-games", "0"}, "-games 0"},
		{[]string{"match", "-a", "random", "-b", "random", "-games", "3"}, "match: -games 3: want an even number (games are played in pairs, colours swapped)"},
		{[]string{"match", "-a", "random", "-b", "random", "-sprt", "0,20", "-games", "100"}, "match: -sprt with -games 100: the SPRT needs 100 pairs (-games 200 or more) to decide"},
		{[]string{"match", "-a", "random", "-b", "random", "-max-ply", "3"}, "the game is over after the opening"},
		{[]string{"bogus"}, `unknown command "bogus"`},
		{[]string{"terminal", "-color", "red"}, `-color "red"`},
		{[]string{"match", "-a", "random", "-b", "random", "-turn-ms", "0"}, "want a turn limit or a match clock"},
		{[]string{"match", "-a", "random", "-b", "random", "-match-ms", "-1"}, "want no negative time"},
		{[]string{"terminal", "-turn-ms", "0"}, "-turn-ms 0"},
	}
	t.Chdir(repoRoot)
	for _, tt := range tests {
		var out, errb bytes.Buffer
		err := Run(context.Background(), tt.args, strings.NewReader(""), &out, &errb)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("play %v: error %v, want %q", tt.args, err, tt.want)
		}
	}
}

// BenchmarkEngineMoveTime measures the longest move of "play gomocup" with
// its default agent (the shipped forest) under INFO timeout_turn 1000 over
// a whole 80-game match against patterns, driven through the protocol (the
// max_move_ms metric). It asserts nothing about the clock; a move over the
// limit would show as a forfeit, which fails the benchmark.
func BenchmarkEngineMoveTime(b *testing.B) {
	bin := playBinary(b)
	ops := standardOpenings(b)
	for b.Loop() {
		eng, err := gomocup.StartClient([]string{bin, "gomocup"}, gomocup.ClientOptions{Turn: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		r, err := arena.Match(context.Background(), eng, arena.NewPatterns(1, patterns.Config{}), arena.Config{Games: 80, Openings: ops, Turn: time.Second})
		eng.Close()
		if err != nil {
			b.Fatal(err)
		}
		fa, _ := forfeits(r)
		if fa > 0 {
			b.Fatalf("the engine forfeited %d games", fa)
		}
		var moves int
		for _, g := range r.Games {
			moves += len(g.Moves) - g.Book
		}
		b.ReportMetric(float64(r.Time[0].Max.Microseconds())/1000, "max_move_ms")
		b.ReportMetric(float64(moves/2), "engine_moves")
	}
}

// TestSearchAgentSpecs: options follow the name after ',' or ':', with or
// without a model, as the help text writes them.
func TestSearchAgentSpecs(t *testing.T) {
	tests := []struct {
		spec         string
		nodes        int64
		depth        int
		model, value bool
	}{
		{"search", 0, 0, true, true},
		{"search,nodes=500", 500, 0, true, true},
		{"search:nodes=500,depth=3", 500, 3, true, true},
		{"search:none,depth=4", 0, 4, false, false},
		{"search,value=none,nodes=7", 7, 0, true, false},
	}
	for _, tt := range tests {
		name, arg := splitSpec(tt.spec)
		if name != "search" {
			t.Fatalf("%s: name %q, want search", tt.spec, name)
		}
		cfg, err := searchConfig(arg)
		if err != nil {
			t.Errorf("%s: %v", tt.spec, err)
			continue
		}
		if cfg.Nodes != tt.nodes || cfg.Depth != tt.depth || (cfg.Model != nil) != tt.model || (cfg.Value != nil) != tt.value {
			t.Errorf("%s: nodes %d depth %d model %v value %v, want %d %d %v %v", tt.spec,
				cfg.Nodes, cfg.Depth, cfg.Model != nil, cfg.Value != nil, tt.nodes, tt.depth, tt.model, tt.value)
		}
		if _, err := agentMaker(tt.spec, agentEnv{}); err != nil {
			t.Errorf("agentMaker(%q): %v", tt.spec, err)
		}
	}
	if _, err := agentMaker("search,nodes=x", agentEnv{}); err == nil || !strings.Contains(err.Error(), "nodes=N") {
		t.Errorf("search,nodes=x: error %v, want the options' help", err)
	}
}

// TestSearchAgentKnobs: every other option sets its search.Config knob to
// the value written (nodevcf=N is N VCF nodes, 0 none), and a value out
// of range or an unknown name is an error naming it.
func TestSearchAgentKnobs(t *testing.T) {
	cfg, err := searchConfig("none,nodevcf=0,leafvcf=150,width=1/5/6,lmr=0,priorweight=30,valuescale=2400")
	if err != nil {
		t.Fatal(err)
	}
	e := cfg.Engine
	if e.NodeVCF != 0 || e.LeafVCF != 150 || !slices.Equal(e.Width, []int{1, 5, 6}) || !e.NoLMR || e.PriorWeight != 30 || e.ValueScale != 2400 {
		t.Errorf("knobs not set as written: %+v", e)
	}
	for _, bad := range []string{"none,nodevcf=-1", "none,width=1/0", "none,lmr=2", "none,bogus=3", "none,rootwidth"} {
		if _, err := searchConfig(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestSummaryProofs: the summary names the games in which an agent
// announced a win and did not win it, and which of them it lost by
// forfeit rather than on the board; the JSON lists both.
func TestSummaryProofs(t *testing.T) {
	r := &arena.Result{A: "a", B: "b", Total: arena.Tally{AWins: 5, BWins: 2, Draws: 1}, Proofs: [2]arena.Proofs{
		{Games: 5, Thrown: []int{2, 4}, Forfeited: []int{4}},
		{Games: 3},
	}}
	var out bytes.Buffer
	writeSummary(&out, &matchConfig{TurnMS: 100}, arena.Config{}, r)
	for _, want := range []string{
		"announced wins of A: 5 games, 2 not won (games 3, 5), of them 1 lost by forfeit (games 5)\n",
		"announced wins of B: 3 games, 0 not won\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := writeJSON(&out, &matchConfig{TurnMS: 100}, gomoku.Freestyle, r); err != nil {
		t.Fatal(err)
	}
	var j matchJSON
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(j.AThrown, []int{2, 4}) || !slices.Equal(j.AForfeited, []int{4}) || j.BProved != 3 || len(j.BForfeited) != 0 {
		t.Errorf("JSON: A thrown %v, forfeited %v; B proved %d, forfeited %v; want [2 4], [4]; 3, []", j.AThrown, j.AForfeited, j.BProved, j.BForfeited)
	}
}
