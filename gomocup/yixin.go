package gomocup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"ocvist/gomoku"
)

// The analysis extensions of Yixin-Board and the engines that follow it
// (Rapfi): YXBOARD, YXNBEST, YXSHOWFORBID, YXSHOWINFO, YXHASHCLEAR, INFO
// hash_size, max_node, max_depth and pondering, the realtime MESSAGE
// lines while the engine thinks, and the answers to SWAP2BOARD.

// Analyst is implemented by an engine that scores every root move
// (multi-PV): YXNBEST and SWAP2BOARD need one.
type Analyst interface {
	// Analyze searches b for the side to move within clock, as Move does
	// (ctx likewise), and returns its root moves best first, each with
	// its score; the first carries the principal variation.
	Analyze(ctx context.Context, b *gomoku.Board, clock gomoku.Clock) ([]Line, error)
}

// Line is a move of an analysis: its score in the engine's units from the
// side to move's view (positive is good), Mate the plies to a proved end
// (positive a win, negative a loss, 0 none), the depth searched and the
// principal variation, which starts with Move (it may be Move alone).
type Line struct {
	Move  gomoku.Point
	Score int
	Mate  int
	Depth int
	PV    []gomoku.Point
}

// Reporter is implemented by an engine that reports its thinking: the
// server gives it the function to call with its best line so far (after
// each finished iteration, and at least once a second while one runs).
// While the engine thinks for the server, each report becomes MESSAGE
// lines: "REALTIME BEST x,y" and "depth … | ev … | nodes … | nps … | time
// … ms | pv x,y …".
type Reporter interface {
	SetReport(func(Report))
}

// Report is a best line so far, with the nodes searched and the time
// since the engine began thinking.
type Report struct {
	Line
	Nodes   int64
	Elapsed time.Duration
}

// Hasher is implemented by an engine with a transposition table: INFO
// hash_size sizes it (or, without one, a share of INFO max_memory: see
// Server.sizeTable), YXHASHCLEAR empties it. SetHashSize(0) restores the
// engine's default size.
type Hasher interface {
	SetHashSize(bytes int64)
	ClearHash()
}

// Limiter is implemented by an engine whose search can be bounded by
// nodes and depth besides the clock (INFO max_node, max_depth; 0 lifts a
// bound).
type Limiter interface {
	SetSearchLimits(nodes int64, depth int)
}

// lineWriter writes the server's lines, one call at a time, and the
// engine's reports while reporting is on (the engine thinks for the
// server): reports come from the engine's goroutine.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
	on bool
}

func (l *lineWriter) write(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.w, s)
}

func (l *lineWriter) reporting(on bool) {
	l.mu.Lock()
	l.on = on
	l.mu.Unlock()
}

// report writes r's MESSAGE lines if reporting is on.
func (l *lineWriter) report(r Report) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on || !r.Move.Valid() {
		return
	}
	nps := int64(0)
	if ms := r.Elapsed.Milliseconds(); ms > 0 {
		nps = r.Nodes * 1000 / ms
	}
	io.WriteString(l.w, ReplyMessage{"REALTIME BEST " + r.Move.Gomocup()}.String()+"\n")
	io.WriteString(l.w, ReplyMessage{fmt.Sprintf("depth %d | ev %s | nodes %d | nps %d | time %d ms | pv %s",
		r.Depth, scoreText(r.Line), r.Nodes, nps, r.Elapsed.Milliseconds(), pvText(r.PV, r.Move))}.String()+"\n")
}

// scoreText is a line's score: "+M9" or "-M12" for a proved end, else the
// signed score.
func scoreText(l Line) string {
	switch {
	case l.Mate > 0:
		return "+M" + strconv.Itoa(l.Mate)
	case l.Mate < 0:
		return "-M" + strconv.Itoa(-l.Mate)
	}
	return fmt.Sprintf("%+d", l.Score)
}

// pvText is a principal variation in Gomocup coordinates (move alone when
// pv is empty).
func pvText(pv []gomoku.Point, move gomoku.Point) string {
	if len(pv) == 0 {
		pv = []gomoku.Point{move}
	}
	parts := make([]string, len(pv))
	for i, p := range pv {
		parts[i] = p.Gomocup()
	}
	return strings.Join(parts, " ")
}

// yixinInfo takes the INFO keys of the analysis extensions; n is the
// value, not negative.
func (s *Server) yixinInfo(c CmdInfo, n int64) {
	switch c.Key {
	case "hash_size": // KiB, as Yixin-Board and Rapfi read it; 0: the default
		switch _, ok := s.engine.(Hasher); {
		case !ok:
			s.ignore(c, "the engine has no hash table")
		case n > 0 && n < 64:
			s.ignore(c, "below 64 KiB")
		default:
			s.hashKiB = n
			s.sizeTable()
		}
	case "max_node", "max_depth":
		l, ok := s.engine.(Limiter)
		if !ok {
			s.ignore(c, "the engine does not search")
			return
		}
		if c.Key == "max_node" {
			s.maxNodes = n
		} else {
			s.maxDepth = int(min(n, 1<<20))
		}
		l.SetSearchLimits(s.maxNodes, s.maxDepth)
	case "pondering":
		if n != 0 {
			s.ignore(c, "Ocvist does not think on the opponent's time")
		}
	}
}

// yxBoard sets up a YXBOARD position: no move in answer, an ERROR if the
// block is not a position with us to move.
func (s *Server) yxBoard(block []Stone) {
	if err := s.position("YXBOARD", block); err != nil {
		s.replyErr("%v", err)
	}
}

// forbidden lists Black's forbidden points on the board: none unless the
// rule is renju and Black is to move.
func (s *Server) forbidden() []gomoku.Point {
	b := s.board
	if b.Rule() != gomoku.Renju || b.ToMove() != gomoku.Black || b.Over() {
		return nil
	}
	var out []gomoku.Point
	for p := gomoku.Point(0); p < gomoku.NumCells; p++ {
		if b.At(p) == gomoku.Empty && b.Forbidden(p) != gomoku.NoFoul {
			out = append(out, p)
		}
	}
	return out
}

// showInfo answers YXSHOWINFO with MESSAGE INFO lines: the rule and how
// INFO rule is read, the clock, the threads and the limits set.
func (s *Server) showInfo() {
	reading := "piskvork (rule 2: continuous game)"
	if s.opts.YixinRules {
		reading = "yixin (rule 2: renju)"
	}
	lines := []string{
		"INFO RULE " + s.rule.String(),
		"INFO RULE_CODES " + reading,
		fmt.Sprintf("INFO TIMEOUT_TURN %d", s.clock.turn.Milliseconds()),
		fmt.Sprintf("INFO TIMEOUT_MATCH %d", s.clock.match.Milliseconds()),
		fmt.Sprintf("INFO THREAD_NUM %d", max(s.threadNum, 1)),
		fmt.Sprintf("INFO HASH_SIZE %d", s.hashKiB),
		fmt.Sprintf("INFO MAX_NODE %d", s.maxNodes),
		fmt.Sprintf("INFO MAX_DEPTH %d", s.maxDepth),
	}
	s.reply(ReplyMessage{lines[0]}) // after the notes
	for _, l := range lines[1:] {
		s.out.write(ReplyMessage{l}.String() + "\n")
	}
}

// nBest answers YXNBEST n: the engine analyses the position (without
// playing), a MESSAGE line gives each of its n best moves, "(rank) ev |
// depth | pv", and the answer is the best move, which is not played.
func (s *Server) nBest(ctx context.Context, start time.Time, n int, in <-chan string) bool {
	a, ok := s.engine.(Analyst)
	if !ok {
		s.replyErr("YXNBEST: this engine does not rank moves (use the search agent)")
		return true
	}
	if !s.ready() || !s.prepare() {
		return true
	}
	return s.analyse(ctx, start, in, a, func(b *gomoku.Board) Reply { return ReplyMove{quickMove(b)} }, func(lines []Line) {
		for i, l := range lines[:min(n, len(lines))] {
			s.out.write(ReplyMessage{fmt.Sprintf("(%d) %s | %d | %s", i+1, scoreText(l), l.Depth, pvText(l.PV, l.Move))}.String() + "\n")
		}
		s.reply(ReplyMove{lines[0].Move})
	})
}

// analyse runs the engine's analysis of the board under the move's clock
// (see run) and answers with answer(lines); an engine that fails, is late
// or finds no move gets a MESSAGE saying why, and fallback's reply on the
// board.
func (s *Server) analyse(ctx context.Context, start time.Time, in <-chan string, a Analyst, fallback func(*gomoku.Board) Reply, answer func([]Line)) bool {
	clk := s.clock.raw(start)
	view := *s.board
	return s.run(ctx, clk, in, func(mctx context.Context) (any, error) {
		return a.Analyze(mctx, &view, clk)
	}, func(v any, err error) {
		lines, _ := v.([]Line)
		if err == nil && len(lines) == 0 {
			err = errors.New("no move")
		}
		if err != nil {
			s.reply(ReplyMessage{"engine: " + oneLine(err.Error()) + "; a quick answer"})
			s.reply(fallback(&view))
			return
		}
		answer(lines)
	})
}
