package gomocup

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"ocvist/gomoku"
)

// analyst is a deterministic Analyst, Reporter, Hasher and Limiter: it
// scores each candidate cell by score(point) (the side to move's view),
// best first, reports once per Analyze and keeps what it was told.
type analyst struct {
	score    func(b *gomoku.Board, p gomoku.Point) int
	report   func(Report)
	hash     []int64
	cleared  int
	nodes    int64
	depth    int
	analyzed []string // the positions analysed, as their move lists
}

func (a *analyst) NewGame(gomoku.Rule) error { return nil }

func (a *analyst) Move(ctx context.Context, b *gomoku.Board, clk gomoku.Clock) (gomoku.Point, error) {
	lines, err := a.Analyze(ctx, b, clk)
	if err != nil {
		return gomoku.NoPoint, err
	}
	return lines[0].Move, nil
}

func (a *analyst) Analyze(_ context.Context, b *gomoku.Board, _ gomoku.Clock) ([]Line, error) {
	a.analyzed = append(a.analyzed, fmt.Sprint(b.History()))
	var lines []Line
	for _, p := range near(b) {
		lines = append(lines, Line{Move: p, Score: a.score(b, p), Depth: 3})
	}
	slices.SortStableFunc(lines, func(x, y Line) int { return y.Score - x.Score })
	if len(lines) > 1 {
		lines[0].PV = []gomoku.Point{lines[0].Move, lines[1].Move}
	}
	if a.report != nil && len(lines) > 0 {
		a.report(Report{Line: lines[0], Nodes: 1234, Elapsed: 50 * time.Millisecond})
	}
	return lines, nil
}

func (a *analyst) SetReport(f func(Report))               { a.report = f }
func (a *analyst) SetHashSize(n int64)                    { a.hash = append(a.hash, n) }
func (a *analyst) ClearHash()                             { a.cleared++ }
func (a *analyst) SetSearchLimits(nodes int64, depth int) { a.nodes, a.depth = nodes, depth }

// near lists the empty cells next to a stone, in index order.
func near(b *gomoku.Board) []gomoku.Point {
	var out []gomoku.Point
	for p := gomoku.Point(0); p < gomoku.NumCells; p++ {
		if b.At(p) != gomoku.Empty {
			continue
		}
		for _, q := range b.History() {
			if dx, dy := p.X()-q.X(), p.Y()-q.Y(); dx*dx <= 1 && dy*dy <= 1 {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// byIndex scores a cell by its index: the lowest cell is the best.
func byIndex(_ *gomoku.Board, p gomoku.Point) int { return -int(p) }

// TestRuleCodes: INFO rule as Piskvork's bitmask (the default) and with
// Options.YixinRules, where 2 is renju; caro and unknown bits are refused
// on the next move, and rule 2 under the bitmask says how it was read.
func TestRuleCodes(t *testing.T) {
	for _, tt := range []struct {
		code  int64
		yixin bool
		rule  gomoku.Rule
		err   string
	}{
		{0, false, gomoku.Freestyle, ""}, {1, false, gomoku.Standard, ""}, {2, false, gomoku.Freestyle, ""},
		{3, false, gomoku.Standard, ""}, {4, false, gomoku.Renju, ""}, {5, false, gomoku.Renju, ""},
		{6, false, gomoku.Renju, ""}, {8, false, 0, "caro is not supported"}, {16, false, 0, "unknown rule bits"},
		{0, true, gomoku.Freestyle, ""}, {1, true, gomoku.Standard, ""}, {2, true, gomoku.Renju, ""},
		{4, true, gomoku.Renju, ""}, {9, true, 0, "caro is not supported"},
	} {
		r, err := ruleOf(tt.code, tt.yixin)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("rule %d (yixin %v): %v, %v; want the error %q", tt.code, tt.yixin, r, err, tt.err)
			}
			continue
		}
		if err != nil || r != tt.rule {
			t.Errorf("rule %d (yixin %v): %v, %v; want %v", tt.code, tt.yixin, r, err, tt.rule)
		}
	}

	s, out := newTestServer(newRand(1))
	transcript(t, s, out, `
> START 15
< OK
> INFO rule 2
> BEGIN
< MESSAGE INFO rule 2 read as Piskvork's continuous game: freestyle*
< 7,7
> RESTART
< OK
> INFO rule 8
> BEGIN
< ERROR INFO rule 8: caro is not supported*
> INFO rule 4
> BEGIN
< 7,7`)
	if s.Board().Rule() != gomoku.Renju {
		t.Errorf("board rule %v after INFO rule 4", s.Board().Rule())
	}
	var yout bytes.Buffer
	y := NewServer(newRand(1), &yout, Options{YixinRules: true})
	transcript(t, y, &yout, `
> INFO rule 2
> START 15
< OK
> BEGIN
< 7,7`)
	if y.Board().Rule() != gomoku.Renju {
		t.Errorf("Yixin reading: board rule %v after INFO rule 2", y.Board().Rule())
	}
}

// TestYXBoardAndForbid: YXBOARD sets a position without answering;
// YXSHOWFORBID lists Black's forbidden points under renju (a double three
// at 7,8 here), none under freestyle or with White to move.
func TestYXBoardAndForbid(t *testing.T) {
	a := &analyst{score: byIndex}
	s, out := newTestServer(a)
	transcript(t, s, out, `
> INFO rule 4
> START 15
< OK
> YXBOARD
> 7,6,1
> 0,0,2
> 7,7,1
> 0,2,2
> 5,8,1
> 0,4,2
> 6,8,1
> 0,6,2
> DONE
> YXSHOWFORBID
< FORBID 0708.
> YXBOARD
> 7,6,2
> 0,0,1
> 7,7,2
> 0,2,1
> 5,8,2
> 0,4,1
> 6,8,2
> DONE
> YXSHOWFORBID
< FORBID .
> YXBOARD
> 7,7,1
> 7,7,2
> DONE
< ERROR YXBOARD line 2: 7,7 is listed twice
> YXBOARD
> 7,7,1
> 8,8,1
> DONE
< ERROR YXBOARD has 2 own and 0 opponent stones*
> INFO rule 0
> YXBOARD
> 7,6,1
> 0,0,2
> 7,7,1
> 0,2,2
> 5,8,1
> 0,4,2
> 6,8,1
> 0,6,2
> DONE
> YXSHOWFORBID
< FORBID .`)
	if got := fmt.Sprint(s.Board().History()); s.Board().Stones() != 8 {
		t.Errorf("board after YXBOARD: %s", got)
	}
	if len(a.analyzed) != 0 {
		t.Errorf("YXBOARD made the engine think: %v", a.analyzed)
	}
}

// TestYXNBest: YXNBEST N answers the best move, not played, after one
// MESSAGE line per move up to N (fewer when fewer moves exist), and the
// engine's report while it thinks; an engine that cannot rank moves gets
// an ERROR.
func TestYXNBest(t *testing.T) {
	a := &analyst{score: byIndex}
	s, out := newTestServer(a)
	transcript(t, s, out, `
> START 15
< OK
> YXBOARD
> 7,7,2
> DONE
> YXNBEST 3
< MESSAGE REALTIME BEST 6,6
< MESSAGE depth 3 | ev -96 | nodes 1234 | nps 24680 | time 50 ms | pv 6,6 7,6
< MESSAGE (1) -96 | 3 | 6,6 7,6
< MESSAGE (2) -97 | 3 | 7,6
< MESSAGE (3) -98 | 3 | 8,6
< 6,6
> YXNBEST 50
< MESSAGE REALTIME BEST*
< MESSAGE depth*
< MESSAGE (1)*
< MESSAGE (2)*
< MESSAGE (3)*
< MESSAGE (4)*
< MESSAGE (5)*
< MESSAGE (6)*
< MESSAGE (7)*
< MESSAGE (8)*
< 6,6
> YXNBEST 0
< ERROR YXNBEST wants a number of moves of at least 1, got "0"`)
	if s.Board().Stones() != 1 {
		t.Errorf("YXNBEST played its move: %d stones", s.Board().Stones())
	}
	r, rout := newTestServer(newRand(1))
	transcript(t, r, rout, `
> START 15
< OK
> YXNBEST 2
< ERROR YXNBEST: this engine does not rank moves*`)
}

// TestYXSettings: INFO hash_size (KiB), max_node and max_depth reach the
// engine, pondering is declined with a MESSAGE, caution_factor is
// ignored; YXHASHCLEAR empties the table; YXSHOWINFO describes the
// settings.
func TestYXSettings(t *testing.T) {
	a := &analyst{score: byIndex}
	s, out := newTestServer(a)
	transcript(t, s, out, `
> START 15
< OK
> INFO hash_size 65536
> INFO hash_size 10
> INFO max_node 500000
> INFO max_depth 12
> INFO pondering 1
> INFO caution_factor 2
> INFO thread_num 3
> YXHASHCLEAR
> YXSHOWINFO
< MESSAGE INFO hash_size 10 ignored (below 64 KiB)*
< MESSAGE INFO pondering 1 ignored (Ocvist does not think on the opponent's time)*
< MESSAGE INFO RULE freestyle
< MESSAGE INFO RULE_CODES piskvork (rule 2: continuous game)
< MESSAGE INFO TIMEOUT_TURN 1000
< MESSAGE INFO TIMEOUT_MATCH 0
< MESSAGE INFO THREAD_NUM 1
< MESSAGE INFO HASH_SIZE 65536
< MESSAGE INFO MAX_NODE 500000
< MESSAGE INFO MAX_DEPTH 12`)
	if !slices.Equal(a.hash, []int64{65536 << 10}) || a.cleared != 1 || a.nodes != 500000 || a.depth != 12 {
		t.Errorf("engine told: hash %v, cleared %d, nodes %d, depth %d", a.hash, a.cleared, a.nodes, a.depth)
	}
}

// TestTableSize: without INFO hash_size the engine's table gets half of
// INFO max_memory, told again only when that changes; hash_size, when
// set, wins; hash_size 0 and max_memory 0 give the size back to the next
// rule, down to the engine's default (0). A max_memory too small to honour
// leaves the table alone.
func TestTableSize(t *testing.T) {
	a := &analyst{score: byIndex}
	s, out := newTestServer(a)
	transcript(t, s, out, `
> START 15
< OK
> INFO max_memory 367001600
> INFO max_memory 367001600
> INFO max_memory 1000
> INFO hash_size 65536
> INFO max_memory 83886080
> INFO hash_size 0
> INFO max_memory 0
> INFO max_memory 0`)
	want := []int64{183500800, 65536 << 10, 41943040, 0}
	if !slices.Equal(a.hash, want) {
		t.Errorf("engine told table sizes %v, want %v", a.hash, want)
	}
}

// TestSwap2Board: SWAP2BOARD with 0, 3 and 5 stones answered from the
// engine's scores: three stones; a move, SWAP or two stones; a move or
// SWAP. Other counts get an ERROR.
func TestSwap2Board(t *testing.T) {
	score := 0
	a := &analyst{score: func(b *gomoku.Board, p gomoku.Point) int { return score - int(p) }}
	s, out := newTestServer(a)
	// 0 stones: centre, diagonal, and the third stone scoring nearest 0.
	score = 100
	two := gomoku.New(gomoku.Options{})
	must(t, two.Play(gomoku.Pt(7, 7)))
	must(t, two.Play(gomoku.Pt(8, 8)))
	third := gomoku.NoPoint
	for _, p := range near(two) {
		if third == gomoku.NoPoint || abs(score-int(p)) < abs(score-int(third)) {
			third = p
		}
	}
	transcript(t, s, out, `
> START 15
< OK
> SWAP2BOARD
> DONE
< MESSAGE REALTIME BEST*
< MESSAGE depth*
< 7,7 8,8 `+third.Gomocup())
	for _, tt := range []struct {
		score int
		want  string
	}{
		{1000, "MOVE3"}, // White much better: stay White, play
		{-1000, "SWAP"}, // Black much better: take Black
		{100, "TWO"},    // balanced: place the 4th and 5th
	} {
		score = tt.score
		out.Reset()
		for _, l := range []string{"SWAP2BOARD", "7,7", "8,8", "9,9", "DONE"} {
			s.Handle(context.Background(), l)
		}
		got := lastLine(out.String())
		best := near(s.Board())[0]
		want := map[string]string{"MOVE3": best.Gomocup(), "SWAP": "SWAP"}[tt.want]
		if tt.want == "TWO" {
			r, err := ParseReply(got)
			if m, ok := r.(ReplyMoves); err != nil || !ok || len(m.Moves) != 2 {
				t.Errorf("3 stones, score %d: %q, want two moves", tt.score, got)
			}
			continue
		}
		if got != want {
			t.Errorf("3 stones, score %d: %q, want %q", tt.score, got, want)
		}
	}
	for _, tt := range []struct {
		score int
		want  string
	}{{300, "MOVE"}, {-300, "SWAP"}} {
		score = tt.score
		out.Reset()
		for _, l := range []string{"SWAP2BOARD", "7,7", "8,8", "9,9", "6,6", "7,9", "DONE"} {
			s.Handle(context.Background(), l)
		}
		got := lastLine(out.String())
		if tt.want == "SWAP" && got != "SWAP" || tt.want == "MOVE" && (got == "SWAP" || strings.Contains(got, " ")) {
			t.Errorf("5 stones, score %d: %q, want %s", tt.score, got, tt.want)
		}
	}
	transcript(t, s, out, `
> SWAP2BOARD
> 7,7
> DONE
< ERROR SWAP2BOARD: 1 stones; want 0, 3 or 5`)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
