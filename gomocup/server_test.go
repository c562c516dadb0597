package gomocup

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"ocvist/gomoku"
)

var testAbout = ReplyAbout{[]Pair{{"name", "Test"}, {"version", "1.2"}}}

// randEngine plays the centre on an empty board, else a seeded uniform
// choice among the board's candidates.
type randEngine struct {
	rng   *rand.Rand
	games int
}

func newRand(seed uint64) *randEngine { return &randEngine{rng: rand.New(rand.NewPCG(seed, 1))} }

func (e *randEngine) NewGame(gomoku.Rule) error { e.games++; return nil }

func (e *randEngine) Move(_ context.Context, b *gomoku.Board, _ gomoku.Clock) (gomoku.Point, error) {
	if b.Stones() == 0 {
		return gomoku.Center, nil
	}
	c := b.Candidates(nil)
	return c[e.rng.IntN(len(c))], nil
}

// stubEngine moves with a function, and keeps the last clock it was given.
type stubEngine struct {
	move    func(ctx context.Context, b *gomoku.Board) (gomoku.Point, error)
	newGame error
	clock   gomoku.Clock
}

func (s *stubEngine) NewGame(gomoku.Rule) error { return s.newGame }
func (s *stubEngine) Move(ctx context.Context, b *gomoku.Board, clk gomoku.Clock) (gomoku.Point, error) {
	s.clock = clk
	return s.move(ctx, b)
}

// stopEngine is a thinking engine: Move thinks until its context is done
// and then answers best, as a search does.
type stopEngine struct {
	best     gomoku.Point
	deadline time.Duration // how far the context's deadline was when Move began
	ctxErr   error         // the context's error when Move returned
}

func newStopEngine(best gomoku.Point) *stopEngine { return &stopEngine{best: best} }

func (s *stopEngine) NewGame(gomoku.Rule) error { return nil }
func (s *stopEngine) Move(ctx context.Context, b *gomoku.Board, _ gomoku.Clock) (gomoku.Point, error) {
	d, _ := ctx.Deadline()
	s.deadline = time.Until(d)
	<-ctx.Done()
	s.ctxErr = ctx.Err()
	return s.best, nil
}

// transcript runs a protocol session through Handle. Lines starting "> "
// are sent to the server one at a time; the lines starting "< " that
// follow are the replies expected to that command: exact text, "MOVE" for
// any legal move (checked against the server's board), or a prefix ending
// in "*". Blank lines and lines starting "#" are comments.
func transcript(t *testing.T, s *Server, out *bytes.Buffer, script string) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(script, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	for i := 0; i < len(lines); {
		in := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(in, "> ") {
			t.Fatalf("script line %d: %q is not a command", i+1, in)
		}
		i++
		var want []string
		for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "< "); i++ {
			want = append(want, strings.TrimSpace(lines[i])[2:])
		}
		out.Reset()
		before := *s.Board()
		s.Handle(context.Background(), in[2:]+"\r\n")
		got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if out.Len() == 0 {
			got = nil
		}
		if len(got) != len(want) {
			t.Fatalf("%q: replies %q, want %q", in, got, want)
		}
		for k, w := range want {
			if !replyMatches(got[k], w, &before, s.Board()) {
				t.Errorf("%q: reply %q, want %q", in, got[k], w)
			}
		}
	}
}

func replyMatches(got, want string, before, after *gomoku.Board) bool {
	switch {
	case want == "MOVE":
		p, err := gomoku.ParseGomocup(got)
		return err == nil && after.Last() == p && !(before.Last() == p && before.Stones() == after.Stones())
	case strings.HasSuffix(want, "*"):
		return strings.HasPrefix(got, strings.TrimSuffix(want, "*"))
	}
	return got == want
}

func newTestServer(e Engine) (*Server, *bytes.Buffer) {
	var out bytes.Buffer
	return NewServer(e, &out, Options{About: testAbout}), &out
}

func TestServerFullGame(t *testing.T) {
	s, out := newTestServer(newRand(1))
	transcript(t, s, out, `
> START 15
< OK
> INFO timeout_turn 1000
> INFO timeout_match 0
> INFO max_memory 83886080
> INFO rule 0
> INFO game_type 1
> ABOUT
< name="Test", version="1.2"
> BEGIN
< 7,7`)
	// Play the server against a second random engine until the game ends.
	opp := newRand(2)
	for !s.Board().Over() {
		view := *s.Board()
		p, _ := opp.Move(context.Background(), &view, gomoku.Clock{})
		out.Reset()
		s.Handle(context.Background(), "TURN "+p.Gomocup()+"\r\n")
		reply := strings.TrimSpace(out.String())
		if s.Board().Over() && s.Board().Last() == p {
			if reply != "ERROR the game is over after "+p.Gomocup() {
				t.Fatalf("TURN ending the game: reply %q", reply)
			}
			break
		}
		q, err := gomoku.ParseGomocup(reply)
		if err != nil || s.Board().Last() != q || s.Board().At(q) != gomoku.Black {
			t.Fatalf("TURN %s: reply %q is not the engine's stone", p.Gomocup(), reply)
		}
	}
	if err := s.Board().Verify(); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if s.Handle(context.Background(), "END\r\n") || out.Len() > 0 {
		t.Errorf("END: went on or replied %q", out.String())
	}
}

func TestServerBoardThenTurn(t *testing.T) {
	e := newRand(1)
	s, out := newTestServer(e)
	// An opening given to White: Black's stones are the opponent's (2).
	transcript(t, s, out, `
> START 15
< OK
> BOARD
> 7,7,2
> 8,7,1
> 8,10,2
> DONE
< MOVE
> TURN 3,3
< MOVE`)
	b := s.Board()
	if b.Stones() != 6 || b.Count(gomoku.White) != 3 || b.At(gomoku.Pt(8, 7)) != gomoku.White {
		t.Errorf("board after BOARD+TURN:\n%v", b)
	}
	transcript(t, s, out, `
> RESTART
< OK
> BOARD
> 7,7,1
> 8,7,2
> DONE
< MOVE`)
	if b := s.Board(); b.Stones() != 3 || b.At(gomoku.Pt(7, 7)) != gomoku.Black {
		t.Errorf("board after the second BOARD:\n%v", b)
	}
	transcript(t, s, out, `
> RESTART
< OK
> BOARD
> DONE
< 7,7`)
	if e.games != 3 {
		t.Errorf("the engine was told of %d games, want 3", e.games)
	}
}

func TestServerBadBoards(t *testing.T) {
	tests := []struct{ name, lines, want string }{
		{"too many own", "7,7,1\n8,8,1", "ERROR BOARD has 2 own and 0 opponent*"},
		{"too many opponent", "7,7,2\n8,8,2", "ERROR BOARD has 0 own and 2*"},
		{"duplicate", "7,7,2\n7,7,1", "ERROR BOARD line 2: 7,7 is listed twice"},
		{"off board", "15,7,2", "ERROR BOARD line 1: bad point*"},
		{"bad field", "7,7,4", "ERROR BOARD line 1 \"7,7,4\": field must be*"},
		{"malformed", "7,7", "ERROR BOARD line 1 \"7,7\": want x,y,field"},
		{"won", "0,0,2\n5,5,1\n1,0,2\n6,5,1\n2,0,2\n7,5,1\n3,0,2\n8,5,1\n4,0,2", "ERROR the game is over"},
		{"won then more", "0,0,2\n1,0,2\n2,0,2\n3,0,2\n4,0,2\n5,5,1\n6,5,1\n7,5,1\n8,5,1\n9,9,2\n10,10,1", "ERROR BOARD: the game is already over*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, out := newTestServer(newRand(1))
			script := "> START 15\n< OK\n> BOARD\n"
			for _, l := range strings.Split(tt.lines, "\n") {
				script += "> " + l + "\n"
			}
			transcript(t, s, out, script+"> DONE\n< "+tt.want+"\n> BOARD\n> 7,7,2\n> DONE\n< MOVE")
		})
	}
}

func TestServerTakeback(t *testing.T) {
	s, out := newTestServer(newRand(1))
	transcript(t, s, out, `
> START 15
< OK
> BEGIN
< 7,7
> TURN 8,8
< MOVE`)
	mine := s.Board().Last()
	transcript(t, s, out, fmt.Sprintf(`
> TAKEBACK %s
< OK
> TAKEBACK 8,8
< OK
> TAKEBACK 8,8
< ERROR TAKEBACK: 8,8 is empty
> TAKEBACK 20,1
< ERROR TAKEBACK: bad point*
> TURN 6,6
< MOVE`, mine.Gomocup()))
	if b := s.Board(); b.Stones() != 3 || b.At(gomoku.Pt(6, 6)) != gomoku.White {
		t.Errorf("board after takebacks:\n%v", b)
	}
	// TAKEBACK of a stone that is not the last one.
	transcript(t, s, out, `
> TAKEBACK 7,7
< OK`)
	if b := s.Board(); b.Stones() != 2 || b.At(gomoku.Center) != gomoku.Empty {
		t.Errorf("board after TAKEBACK 7,7:\n%v", b)
	}
}

func TestServerInfo(t *testing.T) {
	var limit int64
	var out bytes.Buffer
	s := NewServer(newRand(1), &out, Options{SetMemoryLimit: func(n int64) { limit = n }})
	transcript(t, s, &out, `
> START 15
< OK
> INFO timeout_turn 2000
> INFO timeout_match 60000
> INFO time_left 30000
> INFO max_memory 83886080
> INFO rule 1
> INFO game_type 2
> INFO folder /tmp
> INFO evaluate 3,4
> INFO thread_num 2
> INFO caution_factor 4`)
	c := s.clock
	if c.turn != 2*time.Second || c.match != time.Minute || c.timeLeft != 30*time.Second || !c.haveLeft {
		t.Errorf("timing: turn %v match %v left %v", c.turn, c.match, c.timeLeft)
	}
	if limit != 83886080 || s.rule != gomoku.Standard || s.Board().Rule() != gomoku.Standard {
		t.Errorf("memory limit %d, rule %v, board rule %v", limit, s.rule, s.Board().Rule())
	}
	// The engine gets the raw clock; the server keeps only the limit, by
	// which it gives up on the engine.
	const ms = time.Millisecond
	t0 := time.Unix(1000, 0)
	for _, tt := range []struct {
		script string
		clk    gomoku.Clock
	}{
		{"", gomoku.Clock{Start: t0, Turn: 2000 * ms, Match: time.Minute, Left: 30 * time.Second}},
		{"> INFO time_left 1500", gomoku.Clock{Start: t0, Turn: 2000 * ms, Match: time.Minute, Left: 1500 * ms}},
		{"> INFO time_left 2147483647", gomoku.Clock{Start: t0, Turn: 2000 * ms, Match: time.Minute, Left: time.Minute}},
		{"> INFO time_left -5", gomoku.Clock{Start: t0, Turn: 2000 * ms, Match: time.Minute, Left: -5 * ms}},
		{"> INFO time_left 2147483647\n> INFO timeout_turn 0\n> INFO timeout_match 0", gomoku.Clock{Start: t0, Turn: 100 * ms}},
		{"> INFO timeout_turn 10000\n> INFO timeout_match 30000", gomoku.Clock{Start: t0, Turn: 10 * time.Second, Match: 30 * time.Second, Left: 30 * time.Second}},
	} {
		if tt.script != "" {
			transcript(t, s, &out, tt.script)
		}
		if got := s.clock.raw(t0); got != tt.clk {
			t.Errorf("after %q: clock %+v, want %+v", tt.script, got, tt.clk)
		}
	}
	// timeout_match 0 is no match limit: time_left, which means something
	// only when the match time is limited, is then ignored.
	transcript(t, s, &out, "> INFO timeout_turn 2000\n> INFO timeout_match 0\n> INFO time_left 0")
	if got := s.clock.raw(t0); got != (gomoku.Clock{Start: t0, Turn: 2 * time.Second}) {
		t.Errorf("timeout_match 0, time_left 0: clock %+v, want the turn's 2s alone", got)
	}
	// Without any timeout_match, time_left alone limits the game.
	s2, out2 := newTestServer(newRand(1))
	transcript(t, s2, out2, "> INFO timeout_turn 2000\n> INFO time_left 1500")
	if got := s2.clock.raw(t0); got != (gomoku.Clock{Start: t0, Turn: 2 * time.Second, Match: 1500 * ms, Left: 1500 * ms}) {
		t.Errorf("time_left 1500 alone: clock %+v", got)
	}
	// The engine's context ends 2 margins before the limit, the fallback
	// one margin before: a 40th of the limit, at least 5 ms, at most a
	// quarter of it.
	for _, tt := range []struct{ limit, engine, fallback time.Duration }{
		{time.Second, 950 * ms, 975 * ms},
		{100 * ms, 90 * ms, 95 * ms},
		{8 * ms, 4 * ms, 6 * ms},
		{0, 0, 0},
	} {
		if e, f := deadlines(tt.limit); e != tt.engine || f != tt.fallback {
			t.Errorf("limit %v: engine's end %v, fallback %v; want %v, %v", tt.limit, e, f, tt.engine, tt.fallback)
		}
	}
	// max_memory 0 lifts a limit set before.
	transcript(t, s, &out, "> INFO max_memory 0")
	if limit != math.MaxInt64 {
		t.Errorf("after max_memory 0 the memory limit is %d, want none (MaxInt64)", limit)
	}
	transcript(t, s, &out, "> INFO time_left 9300000000000\n> INFO timeout_turn 9300000000000")
	if limit, _ := s.clock.raw(t0).Limit(); limit < 24*time.Hour {
		t.Errorf("limit with huge values = %v, want huge (no overflow)", limit)
	}
}

// TestServerTranscripts plays the sessions of testdata/transcripts, each
// on a fresh server.
func TestServerTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			script, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s, out := newTestServer(newRand(1))
			transcript(t, s, out, string(script))
		})
	}
}

// TestServerAboutDefault: a server given no ABOUT line still answers
// ABOUT (a blank line is no answer: managers skip it).
func TestServerAboutDefault(t *testing.T) {
	var out bytes.Buffer
	s := NewServer(newRand(1), &out, Options{})
	transcript(t, s, &out, `
> ABOUT
< name="unknown"`)
}

// TestServerBadInfoKept: a malformed or unhonourable INFO value leaves
// the previous one in force.
func TestServerBadInfoKept(t *testing.T) {
	var limits []int64
	var out bytes.Buffer
	s := NewServer(newRand(1), &out, Options{SetMemoryLimit: func(n int64) { limits = append(limits, n) }})
	transcript(t, s, &out, `
> START 15
< OK
> INFO timeout_turn 500
> INFO timeout_match 60000
> INFO max_memory 83886080
> INFO rule 1
> INFO timeout_turn abc
> INFO timeout_match -1
> INFO max_memory 1000
> INFO rule x
> INFO rule 8
> INFO rule -4`)
	if c := s.clock; c.turn != 500*time.Millisecond || c.match != time.Minute {
		t.Errorf("timing: turn %v match %v, want 500ms 1m", c.turn, c.match)
	}
	if s.rule != gomoku.Standard || !slices.Equal(limits, []int64{83886080}) {
		t.Errorf("rule %v, memory limits set %v; want standard, [83886080]", s.rule, limits)
	}
}

func TestServerUnknownAndMalformed(t *testing.T) {
	s, out := newTestServer(newRand(1))
	transcript(t, s, out, `
> START 20
< ERROR unsupported board size 20:*
> START x
< ERROR START wants a board size*
> RECTSTART 20,15
< ERROR unsupported board size 20x15*
> RECTSTART 15
< ERROR RECTSTART wants width,height*
> RECTSTART 15,15
< OK
> FOO bar
< UNKNOWN FOO
> YXSTOP
> Foo
< UNKNOWN FOO
> TURN
< ERROR TURN: bad point*
> TURN 7;7
< ERROR TURN: bad point*
> TURN 15,0
< ERROR TURN: bad point*
> TURN -1,3
< ERROR TURN: bad point*
> TURN 7,7
< MOVE
> TURN 7,7
< ERROR TURN: 7,7 is occupied
> BEGIN
< ERROR BEGIN on a board with stones*
> PLAY 7,7
< ERROR PLAY: 7,7 is occupied
> SWAP2BOARD
> 7,7
> DONE
< ERROR SWAP2BOARD: this engine does not rank moves (use the search agent)
> start 15
< OK
> PLAY 3,3
< 3,3`)
}

// TestServerFallback: an engine that fails, answers an illegal move or has
// no move by its deadline gets the fallback move, after a MESSAGE.
func TestServerFallback(t *testing.T) {
	late := &stubEngine{move: func(ctx context.Context, b *gomoku.Board) (gomoku.Point, error) {
		<-ctx.Done() // its deadline is 30 ms of the 40, the fallback comes at 35
		return gomoku.NoPoint, ctx.Err()
	}}
	s, out := newTestServer(late)
	transcript(t, s, out, `
> START 15
< OK
> INFO timeout_turn 40
> BOARD
> 0,0,2
> 5,0,1
> 1,1,2
> 7,0,1
> 2,2,2
> 9,0,1
> 3,3,2
> 11,0,1
> DONE
< MESSAGE engine: no move before the deadline; playing a quick move
< 4,4
> TURN 14,14
< MESSAGE engine: no move before the deadline; playing a quick move
< 13,13`)
	bad := &stubEngine{move: func(ctx context.Context, b *gomoku.Board) (gomoku.Point, error) {
		return b.Last(), nil
	}}
	s, out = newTestServer(bad)
	transcript(t, s, out, `
> START 15
< OK
> TURN 7,7
< MESSAGE engine: illegal move h8; playing a quick move
< 6,6`)
	failing := &stubEngine{move: func(ctx context.Context, b *gomoku.Board) (gomoku.Point, error) {
		return gomoku.NoPoint, errors.New("out of\nideas")
	}}
	s, out = newTestServer(failing)
	transcript(t, s, out, `
> START 15
< OK
> BEGIN
< MESSAGE engine: out of ideas; playing a quick move
< 7,7`)
}

func TestServerNewGameError(t *testing.T) {
	r := newRand(1)
	e := &stubEngine{newGame: errors.New("model made for freestyle"), move: func(ctx context.Context, b *gomoku.Board) (gomoku.Point, error) {
		return r.Move(ctx, b, gomoku.Clock{})
	}}
	s, out := newTestServer(e)
	transcript(t, s, out, `
> START 15
< OK
> INFO rule 1
> BEGIN
< ERROR engine: model made for freestyle`)
	e.newGame = nil
	transcript(t, s, out, `
> BEGIN
< 7,7`)
	// A TURN the engine refuses leaves the opponent's stone off the board,
	// so that the TURN can come again.
	e.newGame = errors.New("model made for freestyle")
	transcript(t, s, out, `
> RESTART
< OK
> TURN 7,7
< ERROR engine: model made for freestyle`)
	e.newGame = nil
	transcript(t, s, out, `
> TURN 7,7
< MOVE`)
}

// noticeEngine accepts every game and has a notice for standard ones.
type noticeEngine struct {
	*randEngine
	notice string
}

func (e *noticeEngine) NewGame(r gomoku.Rule) error {
	e.notice = ""
	if r == gomoku.Standard {
		e.notice = "a model for freestyle\nserves standard"
	}
	return nil
}

func (e *noticeEngine) Notice() string { return e.notice }

func TestServerNotice(t *testing.T) {
	e := &noticeEngine{randEngine: newRand(1)}
	s, out := newTestServer(e)
	transcript(t, s, out, `
> START 15
< OK
> BEGIN
< 7,7
> RESTART
< OK
> INFO rule 1
> BEGIN
< MESSAGE a model for freestyle serves standard
< 7,7
> TURN 8,8
< MOVE
> RESTART
< OK
> INFO rule 0
> BEGIN
< 7,7`)
}

// session runs Serve on its own goroutine and plays the manager: send
// puts lines on the server's channel, each taken when the server is ready
// for it (thinking or not); expect reads reply lines as they are written.
type session struct {
	t    *testing.T
	in   chan string
	r    *bufio.Reader
	done chan error
}

func startSession(t *testing.T, ctx context.Context, e Engine) *session {
	in := make(chan string)
	pr, pw, err := os.Pipe() // buffered: the server never waits for the reader
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pr.Close() })
	s := &session{t: t, in: in, r: bufio.NewReader(pr), done: make(chan error, 1)}
	go func() {
		err := NewServer(e, pw, Options{About: testAbout}).Serve(ctx, in)
		pw.Close()
		s.done <- err
	}()
	return s
}

func (s *session) send(lines ...string) {
	for _, l := range lines {
		s.in <- l + "\r\n"
	}
}

func (s *session) expect(want ...string) {
	s.t.Helper()
	for _, w := range want {
		l, err := s.r.ReadString('\n')
		if l != w+"\n" || err != nil {
			s.t.Fatalf("reply %q, %v; want %q", l, err, w)
		}
	}
}

// end waits for Serve to return (closing the input first if closeInput), checks
// that nothing more was written and returns Serve's error.
func (s *session) end(closeInput bool) error {
	s.t.Helper()
	if closeInput {
		close(s.in)
	}
	if rest, _ := io.ReadAll(s.r); len(rest) > 0 {
		s.t.Errorf("unexpected output %q", rest)
	}
	return <-s.done
}

func TestServe(t *testing.T) {
	s := startSession(t, context.Background(), newRand(1))
	s.send("START 15", "INFO timeout_turn 1000")
	s.expect("OK")
	s.send("BEGIN")
	s.expect("7,7")
	s.send("ABOUT")
	s.expect(testAbout.String())
	s.send("END")
	if err := s.end(false); err != nil {
		t.Errorf("after END: %v", err)
	}
	s = startSession(t, context.Background(), newRand(1))
	s.send("START 15")
	s.expect("OK")
	if err := s.end(true); err != nil {
		t.Errorf("at the end of input: %v", err)
	}
}

// TestServeYXStop: YXSTOP while the engine thinks cancels its context,
// and its best move so far is the reply, without a fallback; lines other
// than YXSTOP and END that come meanwhile are answered after the move.
// The engine's context deadline is shortly before the move's limit.
func TestServeYXStop(t *testing.T) {
	e := newStopEngine(gomoku.Pt(3, 4))
	s := startSession(t, context.Background(), e)
	s.send("START 15", "INFO timeout_turn 1000000")
	s.expect("OK")
	s.send("TURN 7,7", "ABOUT", "YXSTOP") // the engine thinks until YXSTOP
	s.expect("3,4", testAbout.String())
	s.send("YXSTOP", "END") // nothing thinks: no reply
	if err := s.end(false); err != nil {
		t.Error(err)
	}
	if !errors.Is(e.ctxErr, context.Canceled) {
		t.Errorf("the engine's context ended with %v, want it cancelled", e.ctxErr)
	}
	// 1000 s less two margins of 25 s; what is left of it when Move begins.
	if e.deadline > 950*time.Second || e.deadline < 900*time.Second {
		t.Errorf("the engine's deadline was %v away, want just under 950s", e.deadline)
	}
}

// TestServeYXStopCancels: an engine that answers a cancelled move with
// its context's error gets the fallback move.
func TestServeYXStopCancels(t *testing.T) {
	e := &stubEngine{move: func(ctx context.Context, b *gomoku.Board) (gomoku.Point, error) {
		<-ctx.Done()
		return gomoku.NoPoint, ctx.Err()
	}}
	s := startSession(t, context.Background(), e)
	s.send("START 15", "INFO timeout_turn 1000000")
	s.expect("OK")
	s.send("BEGIN", "YXSTOP")
	s.expect("MESSAGE engine: context canceled; playing a quick move", "7,7")
	if err := s.end(true); err != nil {
		t.Error(err)
	}
}

// gateEngine begins its move only once the move's context is done (a
// YXSTOP that came before the engine began), then asks inner.
type gateEngine struct {
	inner Engine
	began error // the context's error when inner's Move began
}

func (g *gateEngine) NewGame(r gomoku.Rule) error { return g.inner.NewGame(r) }
func (g *gateEngine) Move(ctx context.Context, b *gomoku.Board, clk gomoku.Clock) (gomoku.Point, error) {
	<-ctx.Done()
	g.began = ctx.Err()
	return g.inner.Move(ctx, b, clk)
}

// TestServeYXStopBeforeMove: a YXSTOP that comes before the engine begins
// its move (queued behind TURN) still reaches it: the move's context is
// already cancelled when the engine starts, and its answer is the reply.
// (arena's TestSearchStoppedBeforeMove runs the search engine so.)
func TestServeYXStopBeforeMove(t *testing.T) {
	g := &gateEngine{inner: newStopEngine(gomoku.Pt(3, 4))}
	s := startSession(t, context.Background(), g)
	s.send("START 15", "INFO timeout_turn 1000000")
	s.expect("OK")
	s.send("TURN 7,7", "YXSTOP")
	s.expect("3,4")
	if err := s.end(true); err != nil {
		t.Error(err)
	}
	if !errors.Is(g.began, context.Canceled) {
		t.Errorf("the engine began with its context %v, want cancelled", g.began)
	}
}

// TestServeEndWhileThinking: END stops the engine, nothing more is written
// and Serve returns once the engine has.
func TestServeEndWhileThinking(t *testing.T) {
	e := newStopEngine(gomoku.Pt(3, 4))
	s := startSession(t, context.Background(), e)
	s.send("START 15", "INFO timeout_turn 1000000")
	s.expect("OK")
	s.send("BEGIN", "END")
	if err := s.end(false); err != nil {
		t.Error(err)
	}
}

// TestServeCancelled: a cancelled context ends Serve while the engine
// thinks, once the engine has returned, with no move written.
func TestServeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	returned := false
	e := &stubEngine{move: func(mctx context.Context, b *gomoku.Board) (gomoku.Point, error) {
		cancel()
		<-mctx.Done()
		returned = true
		return gomoku.Center, nil
	}}
	s := startSession(t, ctx, e)
	s.send("START 15", "INFO timeout_turn 1000000")
	s.expect("OK")
	s.send("BEGIN")
	if err := s.end(false); !errors.Is(err, context.Canceled) || !returned {
		t.Errorf("Serve returned %v, engine returned %v; want context.Canceled, true", err, returned)
	}
}

// TestServeHardDeadline: an engine that ignores its context gets the
// fallback move at the hard deadline, and the server waits for it to
// return before it takes the next command.
func TestServeHardDeadline(t *testing.T) {
	release := make(chan struct{})
	e := &stubEngine{move: func(ctx context.Context, b *gomoku.Board) (gomoku.Point, error) {
		<-release
		return gomoku.Pt(1, 1), nil
	}}
	s := startSession(t, context.Background(), e)
	s.send("START 15", "INFO timeout_turn 30")
	s.expect("OK")
	s.send("BEGIN")
	s.expect("MESSAGE engine: no move before the deadline; playing a quick move", "7,7")
	s.send("ABOUT") // taken while the server waits for the engine
	close(release)
	s.expect(testAbout.String())
	if err := s.end(true); err != nil {
		t.Error(err)
	}
}

// expectedReplies is the protocol's reply count for each line, from the
// specification rather than from the server: every command needs one reply
// except INFO, YXSTOP, END, blank lines and the lines of a BOARD block
// before DONE; a command inside a block (its DONE lost) gets one more, the
// block's ERROR.
func expectedReplies(lines []string) (counts []int) {
	block := false
	for _, l := range lines {
		if len(l) > maxLineLen {
			l = l[:maxLineLen]
		}
		f := strings.Fields(l)
		cmd := ""
		if len(f) > 0 {
			cmd = strings.ToUpper(f[0])
		}
		n := 0
		if block {
			switch cmd {
			case "DONE":
				block, n = false, 1
			case "START", "RECTSTART", "RESTART", "BEGIN", "TURN", "BOARD", "SWAP2BOARD", "INFO", "ABOUT", "TAKEBACK", "PLAY", "YXSTOP":
				block, n = false, 1
			case "END":
			default:
				counts = append(counts, 0)
				continue
			}
		}
		switch {
		case cmd == "END":
			return append(counts, -1)
		case cmd == "" || cmd == "INFO" || cmd == "YXSTOP" || n == 1 && cmd == "DONE":
		case cmd == "BOARD" || cmd == "SWAP2BOARD":
			block = true
		default:
			n++
		}
		counts = append(counts, n)
	}
	return counts
}

var replyRE = regexp.MustCompile(`^(OK|\d{1,2},\d{1,2}|ERROR .+|UNKNOWN .+|name="Test".*)$`)

// FuzzServer: any input gets exactly the replies the protocol asks for,
// each well formed, and the board stays consistent.
func FuzzServer(f *testing.F) {
	for _, s := range []string{
		"START 15\nBEGIN\nTURN 8,8\nTURN 9,9\nEND",
		"START 15\nBOARD\n7,7,2\n8,8,1\n9,9,2\nDONE\nTAKEBACK 9,9\nTURN 9,9",
		"INFO rule 5\nBEGIN\nINFO rule 1\nBEGIN\nRESTART\nSWAP2BOARD\nDONE",
		"RECTSTART 15,15\nINFO time_left 10\nTURN 0,0\nPLAY 1,1\nABOUT\nfoo\n\n",
		"START 15\nTURN 7,7\nTURN 7,8\nTURN 7,9\nTURN 7,10\nTURN 7,11\nTURN 7,12",
		"TURN 7,7\nBOARD\n7,7,2\nDONE\nRESTART\nSTART 20\nTAKEBACK 7,7\nSTART 15\nBEGIN",
		"START 15\nINFO rule 4\nTURN 7,7\nINFO rule 3\nTURN 7,7\nINFO timeout_turn x\nINFO time_left -9\nABOUT",
		"START 15\nBOARD\n7,7,2\nTURN 8,8\nSWAP2BOARD\nBOARD\n1,1,1\nDONE\nSWAP2BOARD\nEND",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		s := NewServer(newRand(1), &out, Options{About: testAbout})
		lines := strings.Split(in, "\n")
		want := expectedReplies(lines)
		for i, l := range lines {
			out.Reset()
			goOn := s.Handle(context.Background(), l+"\n")
			if want[i] < 0 {
				if goOn || out.Len() > 0 {
					t.Fatalf("line %q: END went on or replied %q", l, out.String())
				}
				return
			}
			var replies []string
			for _, r := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
				if r != "" && !strings.HasPrefix(r, "MESSAGE ") {
					replies = append(replies, r)
				}
			}
			if len(replies) != want[i] {
				t.Fatalf("line %q: %d replies %q, want %d", l, len(replies), replies, want[i])
			}
			for _, r := range replies {
				if !replyRE.MatchString(r) || strings.ContainsAny(r, "\r\n") {
					t.Fatalf("line %q: malformed reply %q", l, r)
				}
			}
			if err := s.Board().Verify(); err != nil {
				t.Fatalf("line %q: board: %v", l, err)
			}
		}
	})
}

// threadEngine is a Threader: it keeps the thread counts it was given.
type threadEngine struct {
	randEngine
	threads []int
}

func (e *threadEngine) SetThreads(n int) { e.threads = append(e.threads, n) }

// TestServerThreads: INFO thread_num reaches an engine that is a
// Threader; a value below 1 is ignored, with a MESSAGE.
func TestServerThreads(t *testing.T) {
	e := &threadEngine{randEngine: *newRand(1)}
	s, out := newTestServer(e)
	transcript(t, s, out, `
> START 15
< OK
> INFO thread_num 4
> INFO thread_num 0
> INFO thread_num 1
> BEGIN
< MESSAGE INFO thread_num 0 ignored (want at least 1): the previous value stays
< 7,7`)
	if !slices.Equal(e.threads, []int{4, 1}) {
		t.Errorf("threads set: %v, want [4 1]", e.threads)
	}
}
