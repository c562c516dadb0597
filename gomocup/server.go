package gomocup

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"ocvist/gomoku"
)

// Engine is what the server needs of a player. agent.Agent is one.
type Engine interface {
	// NewGame is called before the first move of each game, with its rule.
	// An error is reported to the manager and the move is not made.
	NewGame(rule gomoku.Rule) error
	// Move returns a move for b.ToMove() on b, which holds the whole game
	// so far. clock is the move's time control as the manager stated it
	// (the INFO limits, passed through: the engine decides how much to
	// use), its Start when the manager's command came. ctx's deadline is
	// shortly before the move's limit; Move must return once ctx is done
	// (with its best move so far, or ctx's error): the manager's YXSTOP
	// and END cancel it, also before Move begins. It must not keep or
	// change b.
	Move(ctx context.Context, b *gomoku.Board, clock gomoku.Clock) (gomoku.Point, error)
}

// Threader is implemented by an engine that thinks on several threads:
// the server passes it the manager's INFO thread_num (at least 1), between
// moves.
type Threader interface {
	SetThreads(n int)
}

// Options configure a Server.
type Options struct {
	// About is the answer to ABOUT (name, version, author, …); without
	// pairs, name="unknown".
	About ReplyAbout
	// SetMemoryLimit honours INFO max_memory: bytes, or math.MaxInt64 for
	// "no limit" (max_memory 0, which lifts a limit set before); nil
	// ignores it.
	SetMemoryLimit func(bytes int64)
	// YixinRules reads INFO rule 2 as Yixin-Board does, as renju; by
	// default it is Piskvork's bit "continuous game", which the brain
	// ignores (freestyle). Rule 4 (Piskvork's renju bit) is renju either
	// way.
	YixinRules bool
}

// Limits of the server.
const (
	minMemory = 16 << 20 // max_memory below this cannot be honoured
	// tableShare: without INFO hash_size, a Hasher engine's table gets
	// 1/tableShare of INFO max_memory (the engine rounds it down to its
	// table's sizes). The shipped engine holds about 90 MB besides its
	// table (16 MiB by default, a million entries); a 30 s move's 40
	// million nodes load that as the 1-4 MiB tables of BenchmarkTableLoad
	// are loaded, which need 3-10% more nodes to finish a search than a
	// table that does not fill: search/TUNING.md, "The table's size".
	tableShare = 2
	maxLineLen = 1 << 12 // longer input lines are truncated
)

// Server is the engine side of the protocol for one Engine: it keeps the
// board, the rule and the time control, asks the engine for moves with the
// raw clock (the context's deadline shortly before the move's limit), and
// answers for it with a quick
// fallback move when it fails or is late. Handle takes one input line at a
// time; Serve adds the input loop, YXSTOP and END while the engine thinks.
//
// Replies: every command gets one reply, or none for INFO, YXSTOP and
// END; BOARD and SWAP2BOARD reply once, at DONE, or when a command comes
// before their DONE (an ERROR, and the command is carried out). A reply
// is OK, a move "x,y", the ABOUT line, "ERROR reason" for a known command
// that cannot be carried out (malformed, no board before START, off the
// board, occupied, an impossible BOARD, a move under a rule Ocvist does
// not play) or "UNKNOWN command". MESSAGE lines may precede a reply: why
// a fallback move is played, and an INFO value that was ignored
// (malformed, or one that cannot be honoured: the previous value stays),
// each reported once, before the next reply, since managers read no
// reply to INFO. No bad line leaves the server in a state that refuses
// later valid commands.
//
// A Server is used by one goroutine. While the engine thinks, Move runs
// on a goroutine of the call that asked for it, which waits for Move to
// return before it returns.
type Server struct {
	engine Engine
	out    *lineWriter // the replies, and the engine's reports while it thinks
	opts   Options

	rule    gomoku.Rule
	ruleErr error // the last INFO rule is one Ocvist does not play: moves are refused
	board   *gomoku.Board
	started bool // START (or RECTSTART) succeeded: there is a board
	newGame bool // the engine has not been told of this game yet
	clock   clock

	notes []string // ignored INFO values, reported as MESSAGE lines before the next reply

	threadNum, maxDepth int   // INFO thread_num and max_depth as set (0: not)
	hashKiB, maxNodes   int64 // INFO hash_size and max_node as set (0: not)
	memory              int64 // INFO max_memory as honoured (0: no limit)
	tableBytes          int64 // the table size last given to a Hasher engine (0: its default)

	block      []string  // the lines of a BOARD or SWAP2BOARD block being read
	blockStart time.Time // when its first line came
	pending    []string  // lines that came while the engine thought
	ended      bool      // END came while the engine thought
}

// NewServer returns a server of engine writing its replies to out.
func NewServer(engine Engine, out io.Writer, opts Options) *Server {
	s := &Server{engine: engine, out: &lineWriter{w: out}, opts: opts, clock: clock{turn: DefaultTurn}}
	if r, ok := engine.(Reporter); ok {
		r.SetReport(s.out.report)
	}
	s.reset()
	return s
}

// Board returns the server's position (for tests and logs; do not change it).
func (s *Server) Board() *gomoku.Board { return s.board }

// Serve answers the lines of in until END, the end of in (a closed
// channel) or ctx is done (then it returns ctx's error). While the engine
// thinks it still reads in: YXSTOP cancels the move's context (the engine
// answers with its best move so far), END ends the session, other lines
// wait for the move.
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
	case word == "BOARD" || word == "SWAP2BOARD" || word == "YXBOARD":
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

// blockLine takes a line inside a BOARD or SWAP2BOARD block. A command
// other than DONE (the manager lost it) ends the block with an ERROR and
// is then carried out.
func (s *Server) blockLine(ctx context.Context, line, word string, in <-chan string) bool {
	switch {
	case word == "END":
		s.block = nil
		return false
	case commandWords[word]:
		name, _ := cutWord(s.block[0])
		s.block = nil
		s.replyErr("%s: no DONE before %s", strings.ToUpper(name), word)
		return s.handle(ctx, line, in)
	}
	switch word {
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

// commandWords are the words that start a command of a manager (END and
// DONE aside), which no line of a BOARD or SWAP2BOARD block starts with.
var commandWords = map[string]bool{
	"START": true, "RECTSTART": true, "RESTART": true, "BEGIN": true, "TURN": true, "BOARD": true,
	"SWAP2BOARD": true, "INFO": true, "ABOUT": true, "TAKEBACK": true, "PLAY": true, "YXSTOP": true,
	"YXBOARD": true, "YXNBEST": true, "YXSHOWFORBID": true, "YXSHOWINFO": true, "YXHASHCLEAR": true,
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
	case CmdAbout:
		about := s.opts.About
		if len(about.Pairs) == 0 {
			about = ReplyAbout{[]Pair{{"name", "unknown"}}}
		}
		s.reply(about)
	case CmdYXShowInfo:
		s.showInfo()
	case CmdYXHashClear:
		if h, ok := s.engine.(Hasher); ok {
			h.ClearHash()
		}
	case CmdUnknown:
		s.reply(ReplyUnknown{c.Name})
	default:
		return s.onBoard(ctx, start, cmd, in)
	}
	return true
}

// onBoard carries out a command that needs the board of a START.
func (s *Server) onBoard(ctx context.Context, start time.Time, cmd Command, in <-chan string) bool {
	if !s.started {
		name, _ := cutWord(cmd.String())
		s.replyErr("%s: no board (START comes first)", name)
		return true
	}
	switch c := cmd.(type) {
	case CmdRestart:
		s.reset()
		s.reply(ReplyOK{})
	case CmdBegin:
		return s.begin(ctx, start, in)
	case CmdTurn:
		return s.turn(ctx, start, c.Move, in)
	case CmdBoard:
		return s.setBoard(ctx, start, c.Stones, in)
	case CmdTakeback:
		s.takeBack(c.Move)
	case CmdPlay:
		s.play(c.Move)
	case CmdYXBoard:
		s.yxBoard(c.Stones)
	case CmdYXShowForbid:
		s.reply(ReplyForbid{s.forbidden()})
	case CmdYXNBest:
		return s.nBest(ctx, start, c.N, in)
	case CmdSwap2Board:
		return s.swap2(ctx, start, c.Stones, in)
	}
	return true
}

// reply writes r, after the notes not yet reported.
func (s *Server) reply(r Reply) {
	var b strings.Builder
	for _, n := range s.notes {
		b.WriteString(ReplyMessage{n}.String() + "\n")
	}
	s.notes = nil
	b.WriteString(r.String() + "\n")
	s.out.write(b.String())
}

// note keeps a line for the next reply, once.
func (s *Server) note(format string, a ...any) {
	if n := fmt.Sprintf(format, a...); !slices.Contains(s.notes, n) {
		s.notes = append(s.notes, n)
	}
}

func (s *Server) replyErr(format string, a ...any) { s.reply(ReplyError{fmt.Sprintf(format, a...)}) }

// reset clears the board for a new game, keeping the INFO settings.
func (s *Server) reset() {
	s.board = gomoku.New(gomoku.Options{Rule: s.rule})
	s.newGame = true
	s.clock.used = 0
}

// start sets up an empty w×h board; after a size Ocvist does not play
// there is no board until a START succeeds.
func (s *Server) start(w, h int, size string) {
	if w != gomoku.Size || h != gomoku.Size {
		s.started = false
		s.replyErr("unsupported board size %s: Ocvist plays on %dx%d only", size, gomoku.Size, gomoku.Size)
		return
	}
	s.reset()
	s.started = true
	s.reply(ReplyOK{})
}

// info records an INFO setting. A value that is malformed or cannot be
// honoured is ignored, the previous one staying, and noted for the next
// reply, because managers do not read replies to INFO.
func (s *Server) info(c CmdInfo) {
	switch c.Key {
	case "timeout_turn", "timeout_match", "time_left", "max_memory", "rule", "thread_num",
		"hash_size", "max_node", "max_depth", "pondering":
	default:
		return // game_type, folder, evaluate, caution_factor and unknown keys are ignored
	}
	n, err := c.Int()
	switch {
	case err != nil:
		s.ignore(c, "not an integer")
		return
	case n < 0 && c.Key != "time_left": // time left may be negative
		s.ignore(c, "negative")
		return
	}
	switch c.Key {
	case "time_left":
		s.clock.timeLeft, s.clock.haveLeft = millis(max(n, -maxMillis)), n != unlimited
	case "timeout_turn":
		s.clock.turn = millis(n)
	case "timeout_match":
		s.clock.match, s.clock.matchSet = millis(n), true
	case "max_memory":
		s.maxMemory(c, n)
	case "rule":
		s.setRule(n)
	case "thread_num":
		s.threads(c, n)
	default:
		s.yixinInfo(c, n)
	}
}

// threads honours thread_num n for an engine that can (Threader).
func (s *Server) threads(c CmdInfo, n int64) {
	if n < 1 {
		s.ignore(c, "want at least 1")
		return
	}
	if t, ok := s.engine.(Threader); ok {
		s.threadNum = int(min(n, 1<<16))
		t.SetThreads(s.threadNum)
	}
}

// ignore notes that the value of c was ignored, and why.
func (s *Server) ignore(c CmdInfo, why string) {
	v := strconv.Quote(c.Value)
	if _, err := c.Int(); err == nil {
		v = c.Value
	}
	s.note("INFO %s %s ignored (%s): the previous value stays", c.Key, v, why)
}

// maxMemory honours max_memory n (0: no limit): the process's memory
// limit, and the engine's table (sizeTable).
func (s *Server) maxMemory(c CmdInfo, n int64) {
	if n > 0 && n < minMemory {
		s.ignore(c, fmt.Sprintf("below the %d MiB Ocvist needs", minMemory>>20))
		return
	}
	s.memory = n
	switch {
	case s.opts.SetMemoryLimit == nil:
	case n == 0:
		s.opts.SetMemoryLimit(math.MaxInt64)
	default:
		s.opts.SetMemoryLimit(n)
	}
	s.sizeTable()
}

// sizeTable gives a Hasher engine its table's size: INFO hash_size when
// set, else 1/tableShare of INFO max_memory when set, else its default
// (0). Only a change reaches the engine (a new size empties the table;
// managers repeat their INFO lines).
func (s *Server) sizeTable() {
	h, ok := s.engine.(Hasher)
	if !ok {
		return
	}
	n := s.hashKiB << 10
	if n == 0 && s.memory > 0 {
		n = s.memory / tableShare
	}
	if n != s.tableBytes {
		s.tableBytes = n
		h.SetHashSize(n)
	}
}

// Bits of INFO rule (Piskvork's bitmask).
const (
	ruleExactFive  = 1 // overlines do not win: standard
	ruleContinuous = 2 // the manager's continuous game: nothing for the brain to do
	ruleRenju      = 4
	ruleCaro       = 8
)

// ruleCodes are the INFO rule values of the rules Ocvist plays.
var ruleCodes = map[gomoku.Rule]int64{gomoku.Freestyle: 0, gomoku.Standard: ruleExactFive, gomoku.Renju: ruleRenju}

// ruleOf reads INFO rule n (not negative): Piskvork's bitmask, or with
// yixin 2 as renju.
func ruleOf(n int64, yixin bool) (gomoku.Rule, error) {
	switch {
	case yixin && n == ruleContinuous:
		return gomoku.Renju, nil
	case n&^(ruleExactFive|ruleContinuous|ruleRenju|ruleCaro) != 0:
		return 0, fmt.Errorf("INFO rule %d: unknown rule bits (1 exactly five, 2 continuous game, 4 renju, 8 caro)", n)
	case n&ruleCaro != 0:
		return 0, fmt.Errorf("INFO rule %d: caro is not supported; Ocvist plays freestyle (rule 0), standard (rule 1) and renju (rule 4)", n)
	case n&ruleRenju != 0:
		return gomoku.Renju, nil
	case n&ruleExactFive != 0:
		return gomoku.Standard, nil
	}
	return gomoku.Freestyle, nil
}

// setRule takes INFO rule n: a rule Ocvist does not play refuses the moves
// until a rule it plays comes.
func (s *Server) setRule(n int64) {
	r, err := ruleOf(n, s.opts.YixinRules)
	if err == nil && n == ruleContinuous && !s.opts.YixinRules {
		s.note("INFO rule 2 read as Piskvork's continuous game: freestyle (for Yixin-Board's renju, start the engine with -yixin-rules, or send rule 4)")
	}
	s.ruleErr = err
	if err != nil || r == s.rule {
		return
	}
	s.rule = r
	if err := s.rebuild(s.stones()); err != nil {
		s.reset() // the position is over under the new rule: start afresh
	}
	s.newGame = true
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
	if !s.playable() {
		return false
	}
	if s.board.Over() {
		s.replyErr("the game is over")
		return false
	}
	return true
}

// playable replies ERROR and reports false under a rule Ocvist does not
// play.
func (s *Server) playable() bool {
	if s.ruleErr != nil {
		s.replyErr("%v", s.ruleErr)
		return false
	}
	return true
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
	if !s.ready() || !s.prepare() {
		return true // the opponent's stone is not placed: TURN may come again
	}
	if err := s.board.Play(p); err != nil { // under Renju: Black's forbidden point
		s.replyErr("TURN %s: %v (Black loses by it under renju)", p.Gomocup(), err)
		return true
	}
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
	if !s.playable() {
		return true
	}
	if err := s.position("BOARD", block); err != nil {
		s.replyErr("%v", err)
		return true
	}
	if !s.ready() {
		return true
	}
	return s.think(ctx, start, in)
}

// position sets up the board of a BOARD or YXBOARD block (name): the side
// to move is ours, Black with as many own stones as opponent stones,
// White with one opponent stone more; markers (field 3) are ignored.
func (s *Server) position(name string, block []Stone) error {
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
		return fmt.Errorf("%s has %d own and %d opponent stones: not a position with us to move", name, own, opp)
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
		return fmt.Errorf("%s: the game is already over at %v", name, err)
	}
	return nil
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
