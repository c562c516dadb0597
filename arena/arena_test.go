package arena

import (
	"bytes"
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"ocvist/gomoku"
)

func mustOpenings(t *testing.T, path string) []Opening {
	t.Helper()
	ops, err := ReadOpeningsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

func TestParseOpeningsFile(t *testing.T) {
	ops := mustOpenings(t, "../data/openings/piskvork-15.txt")
	if len(ops) != 40 {
		t.Fatalf("%d openings, want 40", len(ops))
	}
	// 0,0, 1,0, 1,3: centre, one right, then (8,10) = row 15-10 = 5.
	if got := ops[0].String(); got != "h8 i8 i5" {
		t.Errorf("opening 1 = %q, want h8 i8 i5", got)
	}
	three, five := 0, 0
	for _, o := range ops {
		switch len(o.Moves) {
		case 3:
			three++
		case 5:
			five++
		}
	}
	if three != 22 || five != 18 {
		t.Errorf("%d three-stone and %d five-stone openings, want 22 and 18", three, five)
	}
}

func TestParseOpenings(t *testing.T) {
	tests := []struct {
		name, in, want, err string
	}{
		{"offsets", "0,0, 1,0, 1,3\n", "h8 i8 i5", ""},
		{"spaces and trailing comma", " 0 , 0 ,-1,-1 ,\n", "h8 g9", ""},
		{"pos", "h8i9j7\n", "h8 i7 j9", ""},
		{"comment and blank", "# c\n\n0,0\n", "h8", ""},
		{"odd", "0,0, 1\n", "", "openings line 1: odd number of offsets"},
		{"not a number", "0,0\n0,x\n", "", "openings line 2: stone 1"},
		{"off board", "0,0, 8,0\n", "", "openings line 1: stone 2: offset 8,0 is off the board"},
		{"occupied", "0,0, 1,1, 0,0\n", "", "openings line 1: stone 3 (h8): cell is occupied"},
		{"bad pos", "h8z\n", "", "openings line 1: stone 2"},
		{"empty", "\n", "", "no openings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, err := ParseOpenings(strings.NewReader(tt.in))
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("err = %v, want prefix %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ops[0].String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestElo(t *testing.T) {
	// Hand-computed: s = 0.7, per-game variance 0.16, se = 0.04,
	// interval 0.7 ± 0.0784 → 400·log10(0.6216/0.3784), 400·log10(0.7784/0.2216).
	elo, lo, hi := Elo(60, 20, 20)
	for _, c := range []struct{ got, want float64 }{{elo, 147.1907}, {lo, 86.2250}, {hi, 218.2518}} {
		if math.Abs(c.got-c.want) > 1e-3 {
			t.Errorf("Elo(60,20,20) = %.4f %.4f %.4f, want 147.1907 86.2250 218.2518", elo, lo, hi)
		}
	}
	if elo, lo, hi := Elo(3, 4, 3); elo != 0 || math.Abs(lo+181.7445) > 1e-3 || math.Abs(hi-181.7445) > 1e-3 {
		t.Errorf("Elo(3,4,3) = %v %v %v, want 0 ±181.7445", elo, lo, hi)
	}
	if elo, _, _ := Elo(10, 0, 0); !math.IsInf(elo, 1) {
		t.Errorf("Elo(10,0,0) = %v, want +Inf", elo)
	}
	if elo, _, _ := Elo(0, 0, 10); !math.IsInf(elo, -1) {
		t.Errorf("Elo(0,0,10) = %v, want -Inf", elo)
	}
}

func TestMatchRandomConservation(t *testing.T) {
	ops := mustOpenings(t, "../data/openings/piskvork-15.txt")
	r, err := Match(context.Background(), NewRandom(1), NewRandom(2), Config{Games: 80, Openings: ops})
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
	for _, g := range r.Games {
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
	r, err := Match(context.Background(), NewRandom(3), NewRandom(4), Config{Games: 10, Openings: ops})
	if err != nil {
		t.Fatal(err)
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
		wantBlack := "random"
		if g.Black != wantBlack || g.White != wantBlack {
			t.Errorf("game %d: players %s/%s", g.Index, g.Black, g.White)
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
	r, err := Match(context.Background(), NewRandom(5), NewRandom(6), Config{Games: 4, MaxPly: 20})
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

// scripted is a test agent that misbehaves in a chosen way.
type scripted struct {
	name  string
	move  func(b *gomoku.Board) (gomoku.Point, error)
	games int
}

func (s *scripted) Name() string              { return s.name }
func (s *scripted) NewGame(gomoku.Rule) error { s.games++; return nil }
func (s *scripted) Close() error              { return nil }
func (s *scripted) Move(ctx context.Context, b *gomoku.Board) (gomoku.Point, error) {
	return s.move(b)
}

func TestMatchForfeits(t *testing.T) {
	tests := []struct {
		name   string
		move   func(b *gomoku.Board) (gomoku.Point, error)
		turn   time.Duration
		reason string
	}{
		{"occupied", func(b *gomoku.Board) (gomoku.Point, error) { return b.Last(), nil },
			0, "illegal move"},
		{"off board", func(b *gomoku.Board) (gomoku.Point, error) { return gomoku.NoPoint, nil },
			0, "illegal move -: point is off the board"},
		{"error", func(b *gomoku.Board) (gomoku.Point, error) { return 0, errors.New("boom") },
			0, "error: boom"},
		{"slow", func(b *gomoku.Board) (gomoku.Point, error) {
			time.Sleep(20 * time.Millisecond)
			c := b.Candidates(nil)
			return c[0], nil
		}, time.Millisecond, "time: "},
		{"mutates the board", func(b *gomoku.Board) (gomoku.Point, error) {
			c := b.Candidates(nil)
			b.Play(c[0]) // on the agent's copy: the match must not see it
			return c[0], errors.New("gave up")
		}, 0, "error: gave up"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := &scripted{name: "bad", move: tt.move}
			r, err := Match(context.Background(), NewRandom(7), bad, Config{Games: 2, Turn: tt.turn})
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

func TestMatchCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	r, err := Match(ctx, NewRandom(1), NewRandom(2), Config{Games: 10, Progress: func(*Game, *Result) {
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
		r, err := Match(context.Background(), NewRandom(11), NewRandom(12), Config{Games: 6})
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
	r, err := Match(context.Background(), NewRandom(1), &scripted{name: `odd]na\me`, move: func(b *gomoku.Board) (gomoku.Point, error) {
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
		w.WinLine, w.Times = nil, nil
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
		if _, err := Match(context.Background(), NewRandom(1), NewRandom(2), Config{Games: 2}); err != nil {
			b.Fatal(err)
		}
	}
}
