package gomocup

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"ocvist/gomoku"
)

// Engine is what the server needs of a player. arena.Agent is one.
type Engine interface {
	// NewGame is called before the first move of each game, with its rule.
	// An error is reported to the manager and the move is not made.
	NewGame(rule gomoku.Rule) error
	// Move returns a move for b.ToMove() on b, which holds the whole game
	// so far. ctx's deadline is the move's time budget; Move must return
	// once ctx is done (with its best move so far, or ctx's error). It
	// must not keep or change b.
	Move(ctx context.Context, b *gomoku.Board) (gomoku.Point, error)
}

// Stopper is implemented by an engine that thinks: Stop asks the Move in
// progress to return its best move so far at once (the manager's YXSTOP).
// The server calls it from another goroutine than Move's, only while Move
// runs.
type Stopper interface {
	Stop()
}

// Noticer is implemented by an engine that may have something to tell the
// user about a game it accepted: the server sends Notice, if not "", as a
// MESSAGE line after NewGame, before the first move.
type Noticer interface {
	Notice() string
}

// Options configure a Server.
type Options struct {
	// About is the answer to ABOUT (name, version, author, …).
	About ReplyAbout
	// SetMemoryLimit honours INFO max_memory (bytes, > 0); nil ignores it.
	SetMemoryLimit func(bytes int64)
}

// Limits of the server.
const (
	minMemory  = 16 << 20 // max_memory below this cannot be honoured
	maxLineLen = 1 << 12  // longer input lines are truncated
)

// Server is the engine side of the protocol (PROTOCOL.md) for one Engine:
// it keeps the board, the rule and the time control, asks the engine for
// moves with the time budget as the context deadline, and answers for it
// with a quick fallback move when it fails or is late. Handle takes one
// input line at a time; Serve adds the input loop, YXSTOP and END while
// the engine thinks.
//
// Replies: OK, a move "x,y", the ABOUT line, "ERROR reason" for a known
// command that cannot be carried out (malformed, off the board, occupied,
// an impossible BOARD, an INFO value that cannot be honoured, reported on
// the next move-requiring command) and "UNKNOWN command" otherwise. A
// MESSAGE line precedes a fallback move. INFO, YXSTOP and END get no
// reply; BOARD and SWAP2BOARD reply once, at DONE.
//
// A Server is used by one goroutine. While the engine thinks, Move runs
// on a goroutine of the call that asked for it, which waits for Move to
// return before it returns.
type Server struct {
	engine Engine
	out    io.Writer
	opts   Options

	rule    gomoku.Rule
	board   *gomoku.Board
	newGame bool // the engine has not been told of this game yet
	clock   clock

	problems map[string]string // INFO keys that cannot be honoured, reported on moves

	block      []string  // the lines of a BOARD or SWAP2BOARD block being read
	blockStart time.Time // when its first line came
	pending    []string  // lines that came while the engine thought
	ended      bool      // END came while the engine thought
}

// NewServer returns a server of engine writing its replies to out.
func NewServer(engine Engine, out io.Writer, opts Options) *Server {
	s := &Server{engine: engine, out: out, opts: opts, clock: clock{turn: DefaultTurn}, problems: map[string]string{}}
	s.reset()
	return s
}

// Board returns the server's position (for tests and logs; do not change it).
func (s *Server) Board() *gomoku.Board { return s.board }

// Serve answers the lines of in until END, the end of in (a closed
// channel) or ctx is done (then it returns ctx's error). While the engine
// thinks it still reads in: YXSTOP stops the engine (Stopper) or cancels
// its move, END ends the session, other lines wait for the move.
func (s *Server) Serve(ctx context.Context, in <-chan string) error {
	for {
		var line string
		if len(s.pending) > 0 {
			line, s.pending = s.pending[0], s.pending[1:]
		} else {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case l, ok := <-in:
				if !ok {
					return nil
				}
				line = l
			}
		}
		if !s.handle(ctx, line, in) {
			return ctx.Err()
		}
	}
}

// Handle carries out one input line and reports whether to go on (false
// after END or once ctx is done).
func (s *Server) Handle(ctx context.Context, line string) bool { return s.handle(ctx, line, nil) }

func (s *Server) handle(ctx context.Context, line string, in <-chan string) bool {
	start := time.Now()
	if len(line) > maxLineLen {
		line = line[:maxLineLen]
	}
	line = strings.TrimSpace(line)
	word, _ := cutWord(line)
	word = strings.ToUpper(word)
	switch {
	case s.block != nil:
		return s.blockLine(ctx, line, word, in)
	case word == "":
		return true
	case word == "BOARD" || word == "SWAP2BOARD":
		s.block, s.blockStart = []string{line}, start
		return true
	}
	cmd, err := Parse(line)
	if err != nil {
		s.reply(ReplyError{err.Error()})
		return true
	}
	return s.do(ctx, start, cmd, in)
}

// blockLine takes a line inside a BOARD or SWAP2BOARD block.
func (s *Server) blockLine(ctx context.Context, line, word string, in <-chan string) bool {
	switch word {
	case "END":
		s.block = nil
		return false
	case "DONE":
		text := strings.Join(append(s.block, line), "\n")
		s.block = nil
		cmd, err := Parse(text)
		if err != nil {
			s.reply(ReplyError{err.Error()})
			return true
		}
		return s.do(ctx, s.blockStart, cmd, in)
	case "":
		return true
	}
	s.block = append(s.block, line)
	return true
}

// do carries out one command that arrived at start.
func (s *Server) do(ctx context.Context, start time.Time, cmd Command, in <-chan string) bool {
	switch c := cmd.(type) {
	case CmdEnd:
		return false
	case CmdYXStop:
		// Commands are handled one at a time: no move is being thought
		// of, and a reply would be read as the next move's.
	case CmdInfo:
		s.info(c)
	case CmdStart:
		s.start(c.Size, c.Size, fmt.Sprint(c.Size))
	case CmdRectStart:
		s.start(c.Width, c.Height, fmt.Sprintf("%dx%d", c.Width, c.Height))
	case CmdRestart:
		s.reset()
		s.reply(ReplyOK{})
	case CmdAbout:
		s.reply(s.opts.About)
	case CmdBegin:
		return s.begin(ctx, start, in)
	case CmdTurn:
		return s.turn(ctx, start, c.Move, in)
	case CmdBoard:
		return s.setBoard(ctx, start, c.Stones, in)
	case CmdSwap2Board:
		s.replyErr("SWAP2BOARD: swap2 openings are not supported")
	case CmdTakeback:
		s.takeBack(c.Move)
	case CmdPlay:
		s.play(c.Move)
	case CmdUnknown:
		s.reply(ReplyUnknown{c.Name})
	}
	return true
}

func (s *Server) reply(r Reply) { io.WriteString(s.out, r.String()+"\n") }

func (s *Server) replyErr(format string, a ...any) { s.reply(ReplyError{fmt.Sprintf(format, a...)}) }

// reset clears the board for a new game, keeping the INFO settings.
func (s *Server) reset() {
	s.board = gomoku.New(gomoku.Options{Rule: s.rule})
	s.newGame = true
	s.clock.used = 0
}

func (s *Server) start(w, h int, size string) {
	if w != gomoku.Size || h != gomoku.Size {
		s.replyErr("unsupported board size %s: Ocvist plays on %dx%d only", size, gomoku.Size, gomoku.Size)
		return
	}
	s.reset()
	s.reply(ReplyOK{})
}

// info records an INFO setting. Values that are malformed or cannot be
// honoured are kept as problems and reported by the next move-requiring
// command, because managers do not read replies to INFO.
func (s *Server) info(c CmdInfo) {
	switch c.Key {
	case "timeout_turn", "timeout_match", "time_left", "max_memory", "rule":
	default:
		return // game_type, folder, evaluate and unknown keys are ignored
	}
	n, err := c.Int()
	if err != nil {
		s.problems[c.Key] = err.Error()
		return
	}
	delete(s.problems, c.Key)
	switch {
	case c.Key == "time_left":
		s.clock.timeLeft, s.clock.haveLeft = millis(n), n != unlimited
	case n < 0:
		s.problems[c.Key] = fmt.Sprintf("INFO %s %d is negative", c.Key, n)
	case c.Key == "timeout_turn":
		s.clock.turn = millis(n)
	case c.Key == "timeout_match":
		s.clock.match = millis(n)
	case c.Key == "max_memory":
		s.maxMemory(n)
	case c.Key == "rule":
		s.setRule(n)
	}
}

func (s *Server) maxMemory(n int64) {
	if n > 0 && n < minMemory {
		s.problems["max_memory"] = fmt.Sprintf("max_memory %d bytes is below the %d MiB Ocvist needs", n, minMemory>>20)
		return
	}
	if n > 0 && s.opts.SetMemoryLimit != nil {
		s.opts.SetMemoryLimit(n)
	}
}

// Rules of INFO rule: bit 1 is "exactly five".
var rules = map[int64]gomoku.Rule{0: gomoku.Freestyle, 1: gomoku.Standard}

func (s *Server) setRule(n int64) {
	r, ok := rules[n]
	if !ok {
		s.problems["rule"] = fmt.Sprintf("rule %d is not supported (0 freestyle, 1 standard)", n)
		return
	}
	if r != s.rule {
		s.rule = r
		if err := s.rebuild(s.stones()); err != nil {
			s.reset() // the position is over under the new rule: start afresh
		}
		s.newGame = true
	}
}

// placed is a cell with its owner.
type placed struct {
	p gomoku.Point
	c gomoku.Player
}

func (s *Server) stones() []placed {
	var out []placed
	for _, p := range s.board.History() {
		out = append(out, placed{p, s.board.At(p)})
	}
	return out
}

// rebuild replaces the board by the stones, placed in order under the
// current rule.
func (s *Server) rebuild(stones []placed) error {
	b := gomoku.New(gomoku.Options{Rule: s.rule})
	for _, st := range stones {
		if err := b.Put(st.p, st.c); err != nil {
			return fmt.Errorf("%s: %w", st.p.Gomocup(), err)
		}
	}
	s.board = b
	return nil
}

// ready reports whether a move may be asked for, replying ERROR if not.
func (s *Server) ready() bool {
	if !s.honoured() {
		return false
	}
	if s.board.Over() {
		s.replyErr("the game is over")
		return false
	}
	return true
}

// honoured replies ERROR and reports false if an INFO setting cannot be
// honoured (the first by key, so the reply does not depend on map order).
func (s *Server) honoured() bool {
	if len(s.problems) == 0 {
		return true
	}
	keys := make([]string, 0, len(s.problems))
	for k := range s.problems {
		keys = append(keys, k)
	}
	s.replyErr("%s", s.problems[slices.Min(keys)])
	return false
}

func (s *Server) begin(ctx context.Context, start time.Time, in <-chan string) bool {
	if s.board.Stones() > 0 {
		s.replyErr("BEGIN on a board with stones (send RESTART or BOARD)")
		return true
	}
	if !s.ready() {
		return true
	}
	return s.think(ctx, start, in)
}

func (s *Server) turn(ctx context.Context, start time.Time, p gomoku.Point, in <-chan string) bool {
	if s.board.At(p) != gomoku.Empty {
		s.replyErr("TURN: %s is occupied", p.Gomocup())
		return true
	}
	if !s.ready() {
		return true
	}
	s.board.Play(p) // legal: the cell is empty and the game not over
	if s.board.Over() {
		s.replyErr("the game is over after %s", p.Gomocup())
		return true
	}
	return s.think(ctx, start, in)
}

// setBoard sets up the position of a BOARD block and answers with a move.
// The side to move is ours: with as many own stones as opponent stones we
// are Black, with one opponent stone more White. Markers (field 3) are
// ignored.
func (s *Server) setBoard(ctx context.Context, start time.Time, block []Stone, in <-chan string) bool {
	if !s.honoured() {
		return true
	}
	var own, opp int
	for _, st := range block {
		own, opp = own+b2i(st.Field == Own), opp+b2i(st.Field == Opponent)
	}
	me := gomoku.Black
	switch opp - own {
	case 0:
	case 1:
		me = gomoku.White
	default:
		s.replyErr("BOARD has %d own and %d opponent stones: not a position with us to move", own, opp)
		return true
	}
	var stones []placed
	for _, st := range block {
		switch st.Field {
		case Own:
			stones = append(stones, placed{st.Point, me})
		case Opponent:
			stones = append(stones, placed{st.Point, me.Other()})
		}
	}
	if err := s.rebuild(stones); err != nil {
		s.reset()
		s.replyErr("BOARD: the game is already over at %v", err)
		return true
	}
	if !s.ready() {
		return true
	}
	return s.think(ctx, start, in)
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

func (s *Server) takeBack(p gomoku.Point) {
	if s.board.At(p) == gomoku.Empty {
		s.replyErr("TAKEBACK: %s is empty", p.Gomocup())
		return
	}
	stones := slices.DeleteFunc(s.stones(), func(st placed) bool { return st.p == p })
	if err := s.rebuild(stones); err != nil {
		s.replyErr("TAKEBACK: %v", err) // unreachable: a subset of a legal position
		return
	}
	s.reply(ReplyOK{})
}

// play is the manager's answer to SUGGEST: the engine's move, echoed.
func (s *Server) play(p gomoku.Point) {
	if s.board.At(p) != gomoku.Empty {
		s.replyErr("PLAY: %s is occupied", p.Gomocup())
		return
	}
	if !s.ready() {
		return
	}
	s.board.Play(p)
	s.reply(ReplyMove{p})
}
