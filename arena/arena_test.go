package arena

import (
	"bytes"
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"ocvist/agent"
	"ocvist/gomoku"
	"ocvist/openings"
)

func TestElo(t *testing.T) {
	// Reference values from an independent script solving
	// (s-p)² = Z95²/n · (p(1-p) - δ/4) for p.
	tests := []struct {
		w, d, l        int
		elo, low, high float64
	}{
		{60, 20, 20, 147.1907, 81.5944, 209.7983},
		{3, 4, 3, 0, -150.5408, 150.5408},
		{199, 1, 0, 1040.3892, 655.7487, 1151.0433},
		{200, 0, 0, math.Inf(1), 686.6135, math.Inf(1)},
		{0, 0, 10, math.Inf(-1), math.Inf(-1), -166.2015},
	}
	for _, tt := range tests {
		elo, low, high := Elo(tt.w, tt.d, tt.l)
		for _, c := range []struct{ got, want float64 }{{elo, tt.elo}, {low, tt.low}, {high, tt.high}} {
			if !(c.got == c.want || math.Abs(c.got-c.want) < 1e-3) {
				t.Errorf("Elo(%d,%d,%d) = %.4f %.4f %.4f, want %.4f %.4f %.4f",
					tt.w, tt.d, tt.l, elo, low, high, tt.elo, tt.low, tt.high)
				break
			}
		}
	}
	if elo, low, high := Elo(0, 0, 0); !math.IsNaN(elo) || !math.IsNaN(low) || !math.IsNaN(high) {
		t.Errorf("Elo with no games = %v %v %v, want NaN", elo, low, high)
	}
}

func TestScoreInterval(t *testing.T) {
	// The interval holds s, stays in [0, 1], narrows as games grow, and is
	// close to the normal approximation s ± Z95·σ/√n away from 0 and 1.
	for _, r := range [][3]int{{0, 0, 1}, {1, 0, 0}, {5, 0, 5}, {30, 40, 30}, {150, 10, 40}, {999, 0, 1}, {0, 7, 0}} {
		s, lo, hi := ScoreInterval(r[0], r[1], r[2])
		if !(0 <= lo && lo <= s && s <= hi && hi <= 1) {
			t.Errorf("ScoreInterval%v = %v [%v, %v]", r, s, lo, hi)
		}
		_, lo4, hi4 := ScoreInterval(4*r[0], 4*r[1], 4*r[2])
		if hi > lo && hi4-lo4 >= hi-lo {
			t.Errorf("ScoreInterval%v: width %v, four times the games %v", r, hi-lo, hi4-lo4)
		}
	}
	s, lo, hi := ScoreInterval(600, 200, 200)
	se := math.Sqrt((600*0.09 + 200*0.04 + 200*0.49) / 1000 / 1000)
	if math.Abs(lo-(s-Z95*se)) > 2e-3 || math.Abs(hi-(s+Z95*se)) > 2e-3 {
		t.Errorf("ScoreInterval(600,200,200) = [%v, %v], normal approximation [%v, %v]", lo, hi, s-Z95*se, s+Z95*se)
	}
	// Every game won: the interval must not collapse onto 1.
	if _, lo, _ := ScoreInterval(200, 0, 0); lo > 0.99 || lo < 0.97 {
		t.Errorf("ScoreInterval(200,0,0) low = %v, want about 0.981", lo)
	}
}

func TestMatchRandomConservation(t *testing.T) {
	ops := mustOpenings(t, "../data/openings/piskvork-15.txt")
	r, err := Match(context.Background(), agent.NewRandom(1), agent.NewRandom(2), Config{Games: 80, Openings: ops})
	if err != nil {
		t.Fatal(err)
	}
	if r.Total.Games() != 80 || len(r.Games) != 80 {
		t.Fatalf("%d games counted, %d recorded, want 80", r.Total.Games(), len(r.Games))
	}
	if r.ABlack.Games() != 40 || r.AWhite.Games() != 40 {
		t.Errorf("A played black %d and white %d times, want 40 each", r.ABlack.Games(), r.AWhite.Games())
	}
	sum := Tally{r.ABlack.AWins + r.AWhite.AWins, r.ABlack.BWins + r.AWhite.BWins, r.ABlack.Draws + r.AWhite.Draws}
	if sum != r.Total {
		t.Errorf("colour split %+v + %+v != total %+v", r.ABlack, r.AWhite, r.Total)
	}
	if r.A != "random (A)" || r.B != "random (B)" { // two agents of one name are told apart
		t.Errorf("agents named %q and %q", r.A, r.B)
	}
	for _, g := range r.Games {
		if black := map[bool]string{true: r.A, false: r.B}[g.ABlack]; g.Black != black {
			t.Errorf("game %d (A black %v): black is %q", g.Index, g.ABlack, g.Black)
		}
		if g.Forfeit {
			t.Errorf("game %d forfeited: %s", g.Index, g.Reason)
		}
		checkReplay(t, &g)
	}
}

// checkReplay replays a game record and checks its result.
func checkReplay(t *testing.T, g *Game) {
	t.Helper()
	b := gomoku.New(gomoku.Options{})
	for _, p := range g.Moves {
		if err := b.Play(p); err != nil {
			t.Fatalf("game %d: replay %v: %v", g.Index, p, err)
		}
	}
	if !g.Forfeit && (b.Winner() != g.Winner || !reflect.DeepEqual(b.WinLine(), g.WinLine)) {
		t.Errorf("game %d: replay gives winner %v, record says %v", g.Index, b.Winner(), g.Winner)
	}
}

func TestMatchGivesEachOpeningToBothColours(t *testing.T) {
	ops := mustOpenings(t, "../data/openings/piskvork-15.txt")[:5]
	// Two distinguishable agents that record the colour they are asked to
	// move for in each game.
	type asked struct{ game, black, white int }
	newRec := func(name string, seed uint64) (*scripted, *asked) {
		rnd := agent.NewRandom(seed)
		var a asked
		s := &scripted{name: name}
		s.move = func(b *gomoku.Board) (gomoku.Point, error) {
			if b.ToMove() == gomoku.Black {
				a.black |= 1 << (s.games - 1)
			} else {
				a.white |= 1 << (s.games - 1)
			}
			return rnd.Move(context.Background(), b, gomoku.Clock{})
		}
		return s, &a
	}
	a, aAsked := newRec("A", 3)
	b, bAsked := newRec("B", 4)
	r, err := Match(context.Background(), a, b, Config{Games: 10, Openings: ops})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Games) != 10 || r.ABlack.Games() != 5 || r.AWhite.Games() != 5 {
		t.Fatalf("%d games, A black %d, A white %d", len(r.Games), r.ABlack.Games(), r.AWhite.Games())
	}
	type key struct {
		opening int
		aBlack  bool
	}
	seen := map[key]int{}
	for _, g := range r.Games {
		seen[key{g.Opening, g.ABlack}]++
		if want := ops[g.Opening].Moves; !reflect.DeepEqual(g.Moves[:g.Book], want) {
			t.Errorf("game %d starts %v, want opening %v", g.Index, g.Moves[:g.Book], want)
		}
		wantBlack, wantWhite := "B", "A"
		if g.ABlack {
			wantBlack, wantWhite = "A", "B"
		}
		if g.Black != wantBlack || g.White != wantWhite {
			t.Errorf("game %d (A black %v): players %s/%s", g.Index, g.ABlack, g.Black, g.White)
		}
		// Each agent was asked to move only for its own colour.
		bit := 1 << g.Index
		got := [4]bool{aAsked.black&bit != 0, aAsked.white&bit != 0, bAsked.black&bit != 0, bAsked.white&bit != 0}
		want := [4]bool{g.ABlack, !g.ABlack, !g.ABlack, g.ABlack}
		if got != want {
			t.Errorf("game %d (A black %v): asked to move for A black, A white, B black, B white: %v, want %v",
				g.Index, g.ABlack, got, want)
		}
	}
	for i := range ops {
		for _, ab := range []bool{true, false} {
			if n := seen[key{i, ab}]; n != 1 {
				t.Errorf("opening %d with A black=%v played %d times, want 1", i, ab, n)
			}
		}
	}
}

func TestMatchCentreOpening(t *testing.T) {
	r, err := Match(context.Background(), agent.NewRandom(5), agent.NewRandom(6), Config{Games: 4, MaxPly: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range r.Games {
		if g.Opening != -1 || g.Book != 1 || g.Moves[0] != gomoku.Center {
			t.Errorf("game %d: opening %d, book %d, first %v; want the centre", g.Index, g.Opening, g.Book, g.Moves[0])
		}
		if g.Winner == gomoku.Empty && (g.Reason != "ply limit" || len(g.Moves) != 20) {
			t.Errorf("game %d: draw %q after %d stones, want a ply-limit draw at 20", g.Index, g.Reason, len(g.Moves))
		}
	}
}

// scripted is a test agent that misbehaves in a chosen way. It keeps the
// clocks it was given.
type scripted struct {
	name   string
	move   func(b *gomoku.Board) (gomoku.Point, error)
	games  int
	clocks []gomoku.Clock
}

func (s *scripted) Name() string              { return s.name }
func (s *scripted) NewGame(gomoku.Rule) error { s.games++; return nil }
func (s *scripted) Close() error              { return nil }
func (s *scripted) Move(ctx context.Context, b *gomoku.Board, clk gomoku.Clock) (gomoku.Point, error) {
	s.clocks = append(s.clocks, clk)
	return s.move(b)
}

func TestMatchForfeits(t *testing.T) {
	tests := []struct {
		name   string
		move   func(b *gomoku.Board) (gomoku.Point, error)
		turn   time.Duration
		reason string
		match  time.Duration
	}{
		{"occupied", func(b *gomoku.Board) (gomoku.Point, error) { return b.Last(), nil },
			0, "illegal move", 0},
		{"off board", func(b *gomoku.Board) (gomoku.Point, error) { return gomoku.NoPoint, nil },
			0, "illegal move -: point is off the board", 0},
		{"error", func(b *gomoku.Board) (gomoku.Point, error) { return 0, errors.New("boom") },
			0, "error: boom", 0},
		{"slow", func(b *gomoku.Board) (gomoku.Point, error) {
			time.Sleep(20 * time.Millisecond)
			c := b.Candidates(nil)
			return c[0], nil
		}, time.Millisecond, "time: ", 0},
		{"late and failing", func(b *gomoku.Board) (gomoku.Point, error) {
			time.Sleep(20 * time.Millisecond) // an engine killed after its grace period
			return gomoku.NoPoint, errors.New("engine did not answer in time")
		}, time.Millisecond, "time: ", 0},
		{"mutates the board", func(b *gomoku.Board) (gomoku.Point, error) {
			c := b.Candidates(nil)
			b.Play(c[0]) // on the agent's copy: the match must not see it
			return c[0], errors.New("gave up")
		}, 0, "error: gave up", 0},
		{"out of match time", func(b *gomoku.Board) (gomoku.Point, error) {
			time.Sleep(3 * time.Millisecond) // two moves take more than the game's 5 ms
			c := b.Candidates(nil)
			return c[0], nil
		}, 0, "over the match clock", 5 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := &scripted{name: "bad", move: tt.move}
			r, err := Match(context.Background(), agent.NewRandom(7), bad, Config{Games: 2, Turn: tt.turn, Match: tt.match})
			if err != nil {
				t.Fatal(err)
			}
			if r.Total.AWins != 2 {
				t.Fatalf("A won %d of 2", r.Total.AWins)
			}
			for _, g := range r.Games {
				if !g.Forfeit || !strings.Contains(g.Reason, tt.reason) {
					t.Errorf("game %d: forfeit=%v reason %q, want %q", g.Index, g.Forfeit, g.Reason, tt.reason)
				}
				checkReplay(t, &g)
			}
			if bad.games != 2 {
				t.Errorf("NewGame called %d times, want 2", bad.games)
			}
		})
	}
}

// TestMatchClock: every move gets the raw clock, its match time left
// being the game's less what the side's moves took, plus its increments.
func TestMatchClock(t *testing.T) {
	const match, inc = time.Hour, time.Second
	a := &scripted{name: "a", move: func(b *gomoku.Board) (gomoku.Point, error) { return b.Candidates(nil)[0], nil }}
	r, err := Match(context.Background(), a, agent.NewRandom(3), Config{Games: 2, Turn: time.Minute, Match: match, Increment: inc})
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for _, g := range r.Games {
		left := match
		for j, d := range g.Times {
			if ((g.Book+j)%2 == 0) != g.ABlack {
				continue // B's move
			}
			c := a.clocks[k]
			k++
			if c.Turn != time.Minute || c.Match != match || c.Left != left || c.Increment != inc || c.Start.IsZero() {
				t.Fatalf("game %d, move %d: clock %+v, want turn 1m, match 1h, %v left, increment 1s", g.Index, j, c, left)
			}
			left += inc - d
		}
	}
	if k != len(a.clocks) || k == 0 {
		t.Errorf("%d clocks checked of %d", k, len(a.clocks))
	}
}

// TestMoveTimes: each agent's move times are its own (colours swap
// between games), the longest is located by game and move number (the
// opening's stones counted), and Over counts the moves past a limit.
func TestMoveTimes(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		d := make([]time.Duration, len(v))
		for i, x := range v {
			d[i] = time.Duration(x) * time.Millisecond
		}
		return d
	}
	var r Result
	// Game 0: A Black, one opening stone, so White (B) plays move 2.
	r.add(&Game{Index: 0, ABlack: true, Book: 1, Times: ms(10, 50, 20, 70), Forced: []bool{false, true, false, false}})
	// Game 1: A White, three opening stones: A plays moves 4 and 6.
	r.add(&Game{Index: 1, ABlack: false, Book: 3, Times: ms(90, 5, 20, 60), Forced: []bool{false, false, false, true}})
	a, b := r.Time[0], r.Time[1]
	if a.Moves != 4 || a.Forced != 1 || a.Max != 90*time.Millisecond || a.MaxGame != 1 || a.MaxMove != 4 {
		t.Errorf("A: %+v, want 4 moves, 1 forced, longest 90ms in game 1 at move 4", a)
	}
	if a.Mean() != 60*time.Millisecond { // 70, 90, 20: the forced 50 left out
		t.Errorf("A's mean %v, want 60ms", a.Mean())
	}
	if b.Moves != 4 || b.Forced != 1 || b.Max != 60*time.Millisecond || b.MaxGame != 1 || b.MaxMove != 7 {
		t.Errorf("B: %+v, want 4 moves, 1 forced, longest 60ms in game 1 at move 7", b)
	}
	for _, tt := range []struct {
		k     int
		limit time.Duration
		want  int
	}{{0, 45 * time.Millisecond, 3}, {0, 90 * time.Millisecond, 0}, {1, 15 * time.Millisecond, 2}, {1, 0, 4}} {
		if got := r.Over(tt.k, tt.limit); got != tt.want {
			t.Errorf("Over(%d, %v) = %d, want %d", tt.k, tt.limit, got, tt.want)
		}
	}
}

// TestForced: the moves arena.Forced calls forced, which it leaves out of
// the mean move time.
func TestForced(t *testing.T) {
	for _, tt := range []struct {
		name, moves string
		forced      bool
	}{
		{"empty", "", false},
		{"quiet", "h8 i9 h10", false},
		{"a five to make", "h8 a1 h9 a2 h10 a3 h11 b5", true},
		{"a four to block", "h8 a1 h9 a2 h10 a3 h11", true},
		{"an open four to make", "h8 a1 h9 a2 h10 a4", true},
		{"a VCF", "h8 f7 d6 d5 c6 g8 h9 j11 f8 j7 g5 i9 l5 g11 g3 a5 d7 k5 h1 e3 i5 h6 c5 e7 d8 g6 e5 j3 f12 c7 d13 l4 j6 k7", true},
		{"a win by threes", "h8 j10 i7 g5 f10 e11 k11 h4 j5 h12 e5 d6 f2 j13 d13 b14 i10 l14 c12 b7 i2 i8 g11 e10 h6 e2 m9 c3 g4 b4 e7 a9 l15 n8 d9 h7", false},
		{"an open three to stop", "h8 a1 h9 a2 h10", false},
	} {
		b := gomoku.New(gomoku.Options{})
		for _, m := range strings.Fields(tt.moves) {
			p, err := gomoku.ParsePoint(m)
			if err != nil || b.Play(p) != nil {
				t.Fatalf("%s: bad move %s", tt.name, m)
			}
		}
		if got := Forced(b); got != tt.forced {
			t.Errorf("%s: Forced %v, want %v\n%s", tt.name, got, tt.forced, b)
		}
	}
}

func TestMatchCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	r, err := Match(ctx, agent.NewRandom(1), agent.NewRandom(2), Config{Games: 10, Progress: func(*Game, *Result) {
		if n++; n == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || len(r.Games) != 3 {
		t.Errorf("err %v after %d games, want context.Canceled after 3", err, len(r.Games))
	}
}

func TestMatchDeterministic(t *testing.T) {
	run := func() *Result {
		r, err := Match(context.Background(), agent.NewRandom(11), agent.NewRandom(12), Config{Games: 6})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r1, r2 := run(), run()
	for i := range r1.Games {
		if !reflect.DeepEqual(r1.Games[i].Moves, r2.Games[i].Moves) {
			t.Fatalf("game %d differs between runs with the same seeds", i)
		}
	}
}

func TestSGFRoundTrip(t *testing.T) {
	ops := mustOpenings(t, "../data/openings/piskvork-15.txt")
	r, err := Match(context.Background(), agent.NewRandom(1), &scripted{name: `odd]na\me`, move: func(b *gomoku.Board) (gomoku.Point, error) {
		if b.Stones() > 12 {
			return b.Last(), nil
		}
		return b.Candidates(nil)[0], nil
	}}, Config{Games: 4, Openings: ops})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSGF(&buf, gomoku.Freestyle, r.Games); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSGF(&buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if len(got) != len(r.Games) {
		t.Fatalf("read %d games, wrote %d", len(got), len(r.Games))
	}
	for i := range got {
		w := r.Games[i]
		w.WinLine, w.Times, w.Forced, w.Proved = nil, nil, nil, nil
		if !reflect.DeepEqual(got[i], w) {
			t.Errorf("game %d:\n got %+v\nwant %+v", i, got[i], w)
		}
	}
}

func TestSGFKnownSample(t *testing.T) {
	g := Game{Index: 0, Opening: -1, Black: "a", White: "b", ABlack: true,
		Moves: []gomoku.Point{gomoku.Center, gomoku.Pt(8, 7), gomoku.Pt(0, 14)}, Book: 1,
		Winner: gomoku.White, Reason: "black time: 1s over the 1s turn limit", Forfeit: true}
	var buf bytes.Buffer
	if err := WriteSGF(&buf, gomoku.Standard, []Game{g}); err != nil {
		t.Fatal(err)
	}
	want := "(;FF[4]GM[4]SZ[15]CA[UTF-8]AP[Ocvist]RU[standard]PB[a]PW[b]\n" +
		"GN[game 1, opening 0, book 1]RE[W+T]C[black time: 1s over the 1s turn limit]\n" +
		";B[hh];W[ih];B[ao])\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	for _, bad := range []string{"(;GM[1])", "(;SZ[19])", "(;B[hh];B[ii])", "(;B[zz])", "(;B[hh](;W[ii]))", "(;B[hh]", "(;AB[hh])"} {
		if _, err := ReadSGF(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadSGF(%q) succeeded", bad)
		}
	}
}

func BenchmarkMatchRandom(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Match(context.Background(), agent.NewRandom(1), agent.NewRandom(2), Config{Games: 2}); err != nil {
			b.Fatal(err)
		}
	}
}

// liar is a random agent that claims a proved win with every move.
type liar struct{ *agent.Random }

func (liar) ProvedWin() bool { return true }

// failingLiar is a liar whose move fails once the board holds 8 stones
// or more: it loses every game by forfeit after announcing a win.
type failingLiar struct{ liar }

func (f failingLiar) Move(ctx context.Context, b *gomoku.Board, clock gomoku.Clock) (gomoku.Point, error) {
	if len(b.History()) >= 8 {
		return 0, errors.New("failingLiar: out of order")
	}
	return f.liar.Move(ctx, b, clock)
}

// TestMatchProofs: a match counts the games in which each agent announced
// a proved win and lists those it did not win. The real search, against
// random moves, announces wins in some games and converts every one; an
// agent that claims a win at every move while playing at random is caught
// in every game it does not win.
func TestMatchProofs(t *testing.T) {
	s, err := NewSearch(SearchConfig{Nodes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Match(context.Background(), s, agent.NewRandom(2), Config{Games: 6})
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Proofs[0]; p.Games == 0 || len(p.Thrown) != 0 {
		t.Errorf("search against random: %d games with an announced win, %v not won; want some, none thrown", p.Games, p.Thrown)
	}
	if p := r.Proofs[1]; p.Games != 0 {
		t.Errorf("random announced wins in %d games", p.Games)
	}

	r, err = Match(context.Background(), liar{agent.NewRandom(3)}, agent.NewRandom(4), Config{Games: 20})
	if err != nil {
		t.Fatal(err)
	}
	var lost []int
	for _, g := range r.Games {
		if g.AResult() < 1 {
			lost = append(lost, g.Index)
		}
		if !g.Announced(gomoku.Black) == g.ABlack || g.Announced(gomoku.Black) && g.Announced(gomoku.White) {
			t.Errorf("game %d: Announced black %v, white %v; A (the liar) black: %v", g.Index, g.Announced(gomoku.Black), g.Announced(gomoku.White), g.ABlack)
		}
	}
	if p := r.Proofs[0]; p.Games != 20 || !slices.Equal(p.Thrown, lost) || len(lost) == 0 || len(p.Forfeited) != 0 {
		t.Errorf("liar: %d games announced, thrown %v, forfeited %v; want 20, %v (its games not won), none forfeited", p.Games, p.Thrown, p.Forfeited, lost)
	}

	// A liar that forfeits every game after announcing: all thrown, and
	// all listed as lost by forfeit.
	r, err = Match(context.Background(), failingLiar{liar{agent.NewRandom(5)}}, agent.NewRandom(6), Config{Games: 10})
	if err != nil {
		t.Fatal(err)
	}
	all := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	if p := r.Proofs[0]; p.Games != 10 || !slices.Equal(p.Thrown, all) || !slices.Equal(p.Forfeited, all) {
		t.Errorf("failing liar: %d games announced, thrown %v, forfeited %v; want 10, all, all", p.Games, p.Thrown, p.Forfeited)
	}
	for _, g := range r.Games {
		stones := 9 // A's first turn with 8 stones or more: the ninth stone's as White
		if g.ABlack {
			stones = 8
		}
		if !g.Forfeit || g.AResult() != 0 || len(g.Moves) != stones {
			t.Errorf("game %d: forfeit %v, A's result %v, %d moves; want A's forfeit at %d stones", g.Index, g.Forfeit, g.AResult(), len(g.Moves), stones)
		}
	}
}

func mustOpenings(t *testing.T, path string) []openings.Opening {
	t.Helper()
	ops, err := openings.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}
