package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"ocvist/arena"
	"ocvist/gomoku"
)

const gomocupDoc = `usage: play gomocup [-agent A | -model FILE] [-seed S]

Runs an agent as a Gomocup protocol engine ("pbrain") on stdin and stdout,
for tournament managers and GUIs such as Piskvork or c-gomoku-cli. Supported:
START 15, RECTSTART 15,15, RESTART, BEGIN, TURN, BOARD (field 3 is ignored),
INFO (rule 0 freestyle, 1 standard; timeout_turn, timeout_match, time_left,
max_memory), TAKEBACK, PLAY, ABOUT, END; YXSTOP is ignored (moves are never
late). Managers need an executable whose name starts with "pbrain-": a copy of
this program named, say, pbrain-ocvist starts as the engine without arguments.

`

func runGomocup(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("gomocup", gomocupDoc, stderr)
	agentName := fs.String("agent", defaultAgent, "the engine's agent: "+agentHelp)
	model := fs.String("model", "", "forest model `file` (the same as -agent forest:FILE); default: the shipped model")
	seed := fs.Uint64("seed", 1, "the agent's random seed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *model != "" {
		*agentName = "forest:" + *model
	}
	ag, err := newAgent(*agentName, agentEnv{seed: *seed, turn: time.Second})
	if err != nil {
		return err
	}
	defer ag.Close()
	br := newBrain(ag, stdout)
	br.setMemoryLimit = func(n int64) { debug.SetMemoryLimit(n) }
	return br.Serve(ctx, stdin)
}

// Engine identity for ABOUT.
const (
	engineVersion = "0.1"
	aboutLine     = `name="Ocvist", version="` + engineVersion + `", author="Ocvist developers", country="Unknown"`
)

// Timing of the engine's moves.
const (
	defaultTurn = time.Second            // when the manager sends no timeout_turn
	fastTurn    = 100 * time.Millisecond // for timeout_turn 0, "as fast as possible"
	minMemory   = 16 << 20               // max_memory below this cannot be honoured
	unlimited   = 2147483647             // time_left's "no limit"
	maxLineLen  = 1 << 12                // longer input lines are truncated
	maxMillis   = 1 << 40                // larger times (35 years) are taken as this
)

// brain speaks the Gomocup protocol (PROTOCOL.md) for one agent: Handle
// takes one input line and writes at most one reply line, so a transcript
// can be replayed line by line. Serve adds the input loop.
//
// Replies: OK, a move "x,y", the ABOUT line, "ERROR reason" for a known
// command that cannot be carried out (malformed, off the board, occupied,
// an impossible BOARD, an unsupported INFO value reported on the next
// move-requiring command) and "UNKNOWN command" otherwise. A "MESSAGE"
// line may precede a move when the agent failed and the fallback move was
// played. INFO, YXSTOP and END get no reply; BOARD and SWAP2BOARD reply once,
// at DONE.
type brain struct {
	agent arena.Agent
	out   io.Writer
	now   func() time.Time
	// setMemoryLimit honours INFO max_memory; nil ignores it.
	setMemoryLimit func(int64)

	rule    gomoku.Rule
	board   *gomoku.Board
	newGame bool // the agent has not been told of this game yet

	turn     time.Duration // timeout_turn
	match    time.Duration // timeout_match, 0 = none
	timeLeft time.Duration // time_left
	haveLeft bool          // time_left was sent and is not "unlimited"
	used     time.Duration // time spent on moves this game

	problems map[string]string // INFO keys that cannot be honoured, reported on moves

	block      string   // "BOARD" or "SWAP2BOARD" while reading one
	blockLines []string // its lines
	blockStart time.Time

	mover mover
}

func newBrain(ag arena.Agent, out io.Writer) *brain {
	br := &brain{agent: ag, out: out, now: time.Now, turn: defaultTurn, problems: map[string]string{}}
	br.mover.agent = ag
	br.reset()
	return br
}

// Serve reads commands from in until END, the end of input or ctx is done.
func (br *brain) Serve(ctx context.Context, in io.Reader) error {
	lines := make(chan string)
	errc := make(chan error, 1)
	go func() {
		r := bufio.NewReader(in)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				errc <- err
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errc:
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("read commands: %w", err)
		case line := <-lines:
			if !br.Handle(ctx, line) {
				return nil
			}
		}
	}
}

// Handle carries out one input line and reports whether to go on (false
// after END).
func (br *brain) Handle(ctx context.Context, line string) bool {
	start := br.now()
	if len(line) > maxLineLen {
		line = line[:maxLineLen]
	}
	line = strings.TrimSpace(line)
	cmd, rest := cutWord(line)
	cmd = strings.ToUpper(cmd)
	if br.block != "" {
		return br.blockLine(ctx, line, cmd)
	}
	switch cmd {
	case "", "YXSTOP":
		// YXSTOP (c-gomoku-cli, Yixin) asks for the move of a running
		// search now. Commands are handled one at a time, so any move has
		// been sent already: a reply would be read as the next move's.
	case "END":
		return false
	case "INFO":
		br.info(rest)
	case "START":
		br.start(rest)
	case "RECTSTART":
		br.rectStart(rest)
	case "RESTART":
		br.reset()
		br.reply("OK")
	case "ABOUT":
		br.reply(aboutLine)
	case "BEGIN":
		br.begin(ctx, start)
	case "TURN":
		br.turnCmd(ctx, start, rest)
	case "BOARD", "SWAP2BOARD":
		br.block, br.blockLines, br.blockStart = cmd, br.blockLines[:0], start
	case "TAKEBACK":
		br.takeBack(rest)
	case "PLAY":
		br.play(rest)
	default:
		br.reply("UNKNOWN " + cmd)
	}
	return true
}

// reply writes one line, with any control characters from the input
// replaced so that it stays one line.
func (br *brain) reply(s string) {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return '?'
		}
		return r
	}, s)
	io.WriteString(br.out, s+"\n")
}

func (br *brain) replyErr(format string, a ...any) { br.reply("ERROR " + fmt.Sprintf(format, a...)) }

// reset clears the board for a new game, keeping the INFO settings.
func (br *brain) reset() {
	br.board = gomoku.New(gomoku.Options{Rule: br.rule})
	br.newGame = true
	br.used = 0
}

func (br *brain) start(arg string) {
	switch n, err := strconv.Atoi(arg); {
	case err != nil:
		br.replyErr("START wants a board size, got %q", arg)
	case n != gomoku.Size:
		br.replyErr("unsupported board size %d: Ocvist plays on %dx%d only", n, gomoku.Size, gomoku.Size)
	default:
		br.reset()
		br.reply("OK")
	}
}

func (br *brain) rectStart(arg string) {
	ws, hs, ok := strings.Cut(arg, ",")
	w, err1 := strconv.Atoi(strings.TrimSpace(ws))
	h, err2 := strconv.Atoi(strings.TrimSpace(hs))
	switch {
	case !ok || err1 != nil || err2 != nil:
		br.replyErr("RECTSTART wants width,height, got %q", arg)
	case w != gomoku.Size || h != gomoku.Size:
		br.replyErr("unsupported board size %dx%d: Ocvist plays on %dx%d only", w, h, gomoku.Size, gomoku.Size)
	default:
		br.reset()
		br.reply("OK")
	}
}

// info records an INFO setting. Values that are malformed or cannot be
// honoured are kept as problems and reported by the next move-requiring
// command, because managers do not read replies to INFO.
func (br *brain) info(arg string) {
	key, val := cutWord(arg)
	key = strings.ToLower(key)
	switch key {
	case "timeout_turn", "timeout_match", "time_left", "max_memory", "rule":
	default:
		return // game_type, folder, evaluate and unknown keys are ignored
	}
	n, err := strconv.ParseInt(val, 10, 64)
	if err != nil {
		br.problems[key] = fmt.Sprintf("INFO %s %q is not an integer", key, val)
		return
	}
	delete(br.problems, key)
	ms := time.Duration(min(n, maxMillis)) * time.Millisecond // no overflow
	switch {
	case key == "time_left":
		br.timeLeft, br.haveLeft = ms, n != unlimited
	case n < 0:
		br.problems[key] = fmt.Sprintf("INFO %s %d is negative", key, n)
	case key == "timeout_turn":
		br.turn = ms
	case key == "timeout_match":
		br.match = ms
	case key == "max_memory":
		br.maxMemory(n)
	case key == "rule":
		br.setRule(n)
	}
}

func (br *brain) maxMemory(n int64) {
	if n > 0 && n < minMemory {
		br.problems["max_memory"] = fmt.Sprintf("max_memory %d bytes is below the %d MiB Ocvist needs", n, minMemory>>20)
		return
	}
	if n > 0 && br.setMemoryLimit != nil {
		br.setMemoryLimit(n)
	}
}

func (br *brain) setRule(n int64) {
	var r gomoku.Rule
	switch n {
	case 0:
		r = gomoku.Freestyle
	case 1:
		r = gomoku.Standard
	default:
		br.problems["rule"] = fmt.Sprintf("rule %d is not supported (0 freestyle, 1 standard)", n)
		return
	}
	if r != br.rule {
		br.rule = r
		stones := br.stones()
		if err := br.rebuild(stones); err != nil {
			br.reset() // the position is over under the new rule: start afresh
		}
		br.newGame = true
	}
}

// stone is a cell with its owner.
type stone struct {
	p gomoku.Point
	c gomoku.Player
}

func (br *brain) stones() []stone {
	var s []stone
	for _, p := range br.board.History() {
		s = append(s, stone{p, br.board.At(p)})
	}
	return s
}

// rebuild replaces the board by the stones, placed in order under the
// current rule.
func (br *brain) rebuild(stones []stone) error {
	b := gomoku.New(gomoku.Options{Rule: br.rule})
	for _, s := range stones {
		if err := b.Put(s.p, s.c); err != nil {
			return fmt.Errorf("%s: %w", s.p.Gomocup(), err)
		}
	}
	br.board = b
	return nil
}

// ready reports whether a move may be asked for, replying ERROR if not.
func (br *brain) ready() bool {
	if !br.honoured() {
		return false
	}
	if br.board.Over() {
		br.replyErr("the game is over")
		return false
	}
	return true
}

// honoured replies ERROR and reports false if an INFO setting cannot be
// honoured.
func (br *brain) honoured() bool {
	if len(br.problems) > 0 {
		keys := make([]string, 0, len(br.problems))
		for k := range br.problems {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		br.replyErr("%s", br.problems[keys[0]])
		return false
	}
	return true
}

func (br *brain) begin(ctx context.Context, start time.Time) {
	if br.board.Stones() > 0 {
		br.replyErr("BEGIN on a board with stones (send RESTART or BOARD)")
		return
	}
	if br.ready() {
		br.think(ctx, start)
	}
}

func (br *brain) turnCmd(ctx context.Context, start time.Time, arg string) {
	p, err := br.point(arg)
	if err != nil {
		br.replyErr("TURN: %v", err)
		return
	}
	if !br.ready() {
		return
	}
	if err := br.board.Play(p); err != nil {
		br.replyErr("TURN %s: %v", arg, err) // unreachable: point checked emptiness
		return
	}
	if br.board.Over() {
		br.reply("ERROR the game is over after " + p.Gomocup())
		return
	}
	br.think(ctx, start)
}

// point parses "x,y" and checks that the cell is empty.
func (br *brain) point(arg string) (gomoku.Point, error) {
	p, err := gomoku.ParseGomocup(arg)
	if err != nil {
		return p, err
	}
	if br.board.At(p) != gomoku.Empty {
		return p, fmt.Errorf("%s is occupied", p.Gomocup())
	}
	return p, nil
}

func (br *brain) takeBack(arg string) {
	p, err := gomoku.ParseGomocup(arg)
	if err != nil {
		br.replyErr("TAKEBACK: %v", err)
		return
	}
	if br.board.At(p) == gomoku.Empty {
		br.replyErr("TAKEBACK: %s is empty", p.Gomocup())
		return
	}
	stones := slices.DeleteFunc(br.stones(), func(s stone) bool { return s.p == p })
	if err := br.rebuild(stones); err != nil {
		br.replyErr("TAKEBACK: %v", err) // unreachable: a subset of a legal position
		return
	}
	br.reply("OK")
}

// play is the manager's answer to SUGGEST: the engine's move, echoed.
func (br *brain) play(arg string) {
	p, err := br.point(arg)
	if err != nil {
		br.replyErr("PLAY: %v", err)
		return
	}
	if !br.ready() {
		return
	}
	br.board.Play(p)
	br.reply(p.Gomocup())
}

// blockLine handles a line inside BOARD or SWAP2BOARD.
func (br *brain) blockLine(ctx context.Context, line, cmd string) bool {
	switch cmd {
	case "END":
		return false
	case "DONE":
		block := br.block
		br.block = ""
		if block == "SWAP2BOARD" {
			br.replyErr("SWAP2BOARD: swap2 openings are not supported")
			return true
		}
		br.boardDone(ctx)
	default:
		if line != "" {
			br.blockLines = append(br.blockLines, line)
		}
	}
	return true
}

// boardDone sets up the position of a BOARD block and answers with a move.
// The side to move is ours: with as many own stones (field 1) as opponent
// stones (field 2) we are Black, with one opponent stone more White. Field 3
// (continuous-game markers) is ignored.
func (br *brain) boardDone(ctx context.Context) {
	var own, opp []gomoku.Point
	seen := map[gomoku.Point]bool{}
	for i, l := range br.blockLines {
		f := strings.Split(l, ",")
		if len(f) != 3 {
			br.replyErr("BOARD line %d %q: want x,y,field", i+1, l)
			return
		}
		p, err := gomoku.ParseGomocup(f[0] + "," + f[1])
		if err != nil {
			br.replyErr("BOARD line %d: %v", i+1, err)
			return
		}
		if seen[p] {
			br.replyErr("BOARD line %d: %s is listed twice", i+1, p.Gomocup())
			return
		}
		seen[p] = true
		switch strings.TrimSpace(f[2]) {
		case "1":
			own = append(own, p)
		case "2":
			opp = append(opp, p)
		case "3":
		default:
			br.replyErr("BOARD line %d %q: field must be 1, 2 or 3", i+1, l)
			return
		}
	}
	if !br.honoured() {
		return
	}
	me := gomoku.Black
	switch len(opp) - len(own) {
	case 0:
	case 1:
		me = gomoku.White
	default:
		br.replyErr("BOARD has %d own and %d opponent stones: not a position with us to move", len(own), len(opp))
		return
	}
	var stones []stone
	for _, l := range br.blockLines {
		f := strings.Split(l, ",")
		p, _ := gomoku.ParseGomocup(f[0] + "," + f[1])
		switch strings.TrimSpace(f[2]) {
		case "1":
			stones = append(stones, stone{p, me})
		case "2":
			stones = append(stones, stone{p, me.Other()})
		}
	}
	if err := br.rebuild(stones); err != nil {
		br.reset()
		br.replyErr("BOARD: the game is already over at %v", err)
		return
	}
	if !br.ready() {
		return
	}
	br.think(ctx, br.blockStart)
}

// think asks the agent for a move within the time budget, plays and
// replies with it. start is when the command arrived: the turn's clock.
func (br *brain) think(ctx context.Context, start time.Time) {
	if br.newGame {
		br.newGame = false
		if err := br.agent.NewGame(br.rule); err != nil {
			br.reply("MESSAGE agent: " + oneLine(err.Error()))
		}
	}
	p, err := br.mover.move(ctx, br.board, start.Add(br.budget()))
	if err == nil && (!p.Valid() || br.board.At(p) != gomoku.Empty) {
		err = fmt.Errorf("illegal move %v", p)
	}
	if err != nil {
		br.reply("MESSAGE agent: " + oneLine(err.Error()) + "; playing a quick move")
		p = quickMove(br.board)
	}
	br.board.Play(p)
	br.used += br.now().Sub(start)
	br.reply(p.Gomocup())
}

// cutWord splits s at its first run of white space.
func cutWord(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// budget is the agent's time for this move: the turn limit (fastTurn for
// timeout_turn 0), at most a 15th of the game time left (time_left when
// sent, else timeout_match less the time used), less a safety margin of
// 20 ms and a tenth of it.
func (br *brain) budget() time.Duration {
	limit := br.turn
	if limit == 0 {
		limit = fastTurn
	}
	left, ok := br.timeLeft, br.haveLeft
	if !ok && br.match > 0 {
		left, ok = br.match-br.used, true
	}
	if ok {
		limit = min(limit, max(left, 0)/15)
	}
	return max(limit-20*time.Millisecond-limit/10, time.Millisecond)
}

// mover runs the agent's Move with a deadline on its own goroutine, so that
// a late agent costs a quick fallback move rather than the game. A late
// call is waited for (until the next deadline) before the agent is called
// again: agents are never called concurrently.
type mover struct {
	agent arena.Agent
	busy  chan struct{} // closed when the last call returned
}

var errLate = fmt.Errorf("no move before the deadline")

func (m *mover) move(ctx context.Context, b *gomoku.Board, deadline time.Time) (gomoku.Point, error) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if m.busy != nil {
		select {
		case <-m.busy:
			m.busy = nil
		case <-ctx.Done():
			return gomoku.NoPoint, fmt.Errorf("the previous move is still running: %w", errLate)
		}
	}
	type result struct {
		p   gomoku.Point
		err error
	}
	view := *b
	res := make(chan result, 1)
	done := make(chan struct{})
	m.busy = done
	go func() {
		defer close(done)
		p, err := m.agent.Move(ctx, &view)
		res <- result{p, err}
	}()
	select {
	case r := <-res:
		return r.p, r.err
	case <-ctx.Done():
		return gomoku.NoPoint, errLate
	}
}

// quickMove is the fallback: the centre on an empty board, else a five,
// else a block of the opponent's five, else the candidate nearest the last
// stone (the lowest such point). It needs microseconds.
func quickMove(b *gomoku.Board) gomoku.Point {
	if b.Stones() == 0 {
		return gomoku.Center
	}
	cands := b.Candidates(nil)
	me := b.ToMove()
	for _, c := range []gomoku.Player{me, me.Other()} {
		for _, p := range cands {
			if b.MakesFive(p, c) {
				return p
			}
		}
	}
	best, bestD := gomoku.NoPoint, 1<<30
	last := b.Last()
	for _, p := range cands {
		if d := max(abs(p.X()-last.X()), abs(p.Y()-last.Y())); d < bestD {
			best, bestD = p, d
		}
	}
	if best == gomoku.NoPoint { // no candidates: any empty cell
		for p := gomoku.Point(0); p < gomoku.NumCells; p++ {
			if b.At(p) == gomoku.Empty {
				return p
			}
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
