package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"ocvist/arena"
	"ocvist/gomoku"
)

// transcript runs a protocol session. Lines starting "> " are sent to the
// brain one at a time; the lines starting "< " that follow are the replies
// expected to that command: exact text, "MOVE" for any legal move (checked
// against the brain's board), or a prefix ending in "*".
func transcript(t *testing.T, br *brain, out *bytes.Buffer, script string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(script), "\n")
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
		before := *br.board
		br.Handle(context.Background(), in[2:]+"\r\n")
		got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if out.Len() == 0 {
			got = nil
		}
		if len(got) != len(want) {
			t.Fatalf("%q: replies %q, want %q", in, got, want)
		}
		for k, w := range want {
			if !replyMatches(got[k], w, &before, br.board) {
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

func newTestBrain(ag arena.Agent) (*brain, *bytes.Buffer) {
	var out bytes.Buffer
	return newBrain(ag, &out), &out
}

func TestGomocupFullGame(t *testing.T) {
	br, out := newTestBrain(arena.NewRandom(1))
	transcript(t, br, out, `
> START 15
< OK
> INFO timeout_turn 1000
> INFO timeout_match 0
> INFO max_memory 83886080
> INFO rule 0
> INFO game_type 1
> ABOUT
< name="Ocvist", version="`+engineVersion+`", author="Ocvist developers", country="Unknown"
> BEGIN
< 7,7`)
	// Play the engine against a second Random until the game ends.
	opp := arena.NewRandom(2)
	for !br.board.Over() {
		view := *br.board
		p, err := opp.Move(context.Background(), &view)
		if err != nil {
			t.Fatal(err)
		}
		out.Reset()
		br.Handle(context.Background(), "TURN "+p.Gomocup()+"\r\n")
		reply := strings.TrimSpace(out.String())
		if br.board.Over() && br.board.Last() == p {
			if !strings.HasPrefix(reply, "ERROR the game is over") {
				t.Fatalf("TURN ending the game: reply %q", reply)
			}
			break
		}
		q, err := gomoku.ParseGomocup(reply)
		if err != nil || br.board.Last() != q || br.board.At(q) != gomoku.Black {
			t.Fatalf("TURN %s: reply %q is not the engine's stone", p.Gomocup(), reply)
		}
	}
	if err := br.board.Verify(); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if br.Handle(context.Background(), "END\r\n") || out.Len() > 0 {
		t.Errorf("END: went on or replied %q", out.String())
	}
}

func TestGomocupBoardThenTurn(t *testing.T) {
	br, out := newTestBrain(arena.NewRandom(1))
	// The first Piskvork opening (h8 i8 i5) given to White: 2 own, ... no:
	// black stones are the opponent's (field 2), white's are own (field 1).
	transcript(t, br, out, `
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
	if br.board.Stones() != 6 || br.board.Count(gomoku.White) != 3 || br.board.At(gomoku.Pt(8, 7)) != gomoku.White {
		t.Errorf("engine board after BOARD+TURN:\n%v", br.board)
	}
	transcript(t, br, out, `
> RESTART
< OK
> BOARD
> 7,7,1
> 8,7,2
> DONE
< MOVE`)
	if br.board.Stones() != 3 || br.board.At(gomoku.Pt(7, 7)) != gomoku.Black {
		t.Errorf("engine board after second BOARD:\n%v", br.board)
	}
	transcript(t, br, out, `
> RESTART
< OK
> BOARD
> DONE
< 7,7`)
}

func TestGomocupBadBoards(t *testing.T) {
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
			br, out := newTestBrain(arena.NewRandom(1))
			script := "> START 15\n< OK\n> BOARD\n"
			for _, l := range strings.Split(tt.lines, "\n") {
				script += "> " + l + "\n"
			}
			transcript(t, br, out, script+"> DONE\n< "+tt.want+"\n> BOARD\n> 7,7,2\n> DONE\n< MOVE")
		})
	}
}

func TestGomocupTakeback(t *testing.T) {
	br, out := newTestBrain(arena.NewRandom(1))
	transcript(t, br, out, `
> START 15
< OK
> BEGIN
< 7,7
> TURN 8,8
< MOVE`)
	mine := br.board.Last()
	transcript(t, br, out, fmt.Sprintf(`
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
	if br.board.Stones() != 3 || br.board.At(gomoku.Pt(6, 6)) != gomoku.White {
		t.Errorf("board after takebacks:\n%v", br.board)
	}
	// TAKEBACK of a stone that is not the last one.
	transcript(t, br, out, `
> TAKEBACK 7,7
< OK`)
	if br.board.Stones() != 2 || br.board.At(gomoku.Center) != gomoku.Empty {
		t.Errorf("board after TAKEBACK 7,7:\n%v", br.board)
	}
}

func TestGomocupInfo(t *testing.T) {
	br, out := newTestBrain(arena.NewRandom(1))
	var limit int64
	br.setMemoryLimit = func(n int64) { limit = n }
	transcript(t, br, out, `
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
	if br.turn != 2*time.Second || br.match != time.Minute || br.timeLeft != 30*time.Second || !br.haveLeft {
		t.Errorf("timing: turn %v match %v left %v", br.turn, br.match, br.timeLeft)
	}
	if limit != 83886080 || br.rule != gomoku.Standard || br.board.Rule() != gomoku.Standard {
		t.Errorf("memory limit %d, rule %v, board rule %v", limit, br.rule, br.board.Rule())
	}
	// min(2000, 30000/15) = 2000 less 20 ms and 200 ms.
	if got := br.budget(); got != 1780*time.Millisecond {
		t.Errorf("budget = %v, want 1.78s", got)
	}
	transcript(t, br, out, `> INFO time_left 1500`)
	if got := br.budget(); got != 70*time.Millisecond { // 100 - 20 - 10
		t.Errorf("budget with 1.5 s left = %v, want 70ms", got)
	}
	transcript(t, br, out, `> INFO time_left 2147483647`)
	if got := br.budget(); got != 1780*time.Millisecond {
		t.Errorf("budget with unlimited time = %v, want 1.78s", got)
	}
	transcript(t, br, out, `
> INFO time_left 9300000000000
> INFO timeout_turn 9300000000000`)
	if got := br.budget(); got < 24*time.Hour {
		t.Errorf("budget with huge limits = %v, want huge (no overflow)", got)
	}
	transcript(t, br, out, `
> INFO time_left 2147483647
> INFO timeout_turn 0
> INFO timeout_match 0`)
	if got := br.budget(); got != 70*time.Millisecond {
		t.Errorf("budget for timeout_turn 0 = %v, want 70ms", got)
	}
}

func TestGomocupUnhonourableInfo(t *testing.T) {
	br, out := newTestBrain(arena.NewRandom(1))
	transcript(t, br, out, `
> START 15
< OK
> INFO rule 4
> BEGIN
< ERROR rule 4 is not supported (0 freestyle, 1 standard)
> INFO rule 1
> INFO max_memory 1000
> BEGIN
< ERROR max_memory 1000 bytes is below*
> INFO max_memory 0
> INFO timeout_turn soon
> TURN 7,7
< ERROR INFO timeout_turn "soon" is not an integer
> INFO timeout_turn -5
> BOARD
> 7,7,2
> DONE
< ERROR INFO timeout_turn -5 is negative
> INFO timeout_turn 500
> BEGIN
< 7,7`)
}

func TestGomocupUnknownAndMalformed(t *testing.T) {
	br, out := newTestBrain(arena.NewRandom(1))
	transcript(t, br, out, `
> START 20
< ERROR unsupported board size 20*
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
< ERROR SWAP2BOARD: swap2 openings are not supported
> start 15
< OK
> PLAY 3,3
< 3,3`)
}

func TestGomocupLateAgentFallsBack(t *testing.T) {
	slow := &stubAgent{move: func(ctx context.Context, b *gomoku.Board) (gomoku.Point, error) {
		<-ctx.Done()
		time.Sleep(5 * time.Millisecond) // returns late, after the fallback
		return gomoku.Center, nil
	}}
	br, out := newTestBrain(slow)
	transcript(t, br, out, `
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
< MESSAGE agent: no move before the deadline; playing a quick move
< 4,4
> TURN 14,14
< MESSAGE agent: *
< 13,13`)
	bad := &stubAgent{move: func(ctx context.Context, b *gomoku.Board) (gomoku.Point, error) {
		return b.Last(), nil
	}}
	br, out = newTestBrain(bad)
	transcript(t, br, out, `
> START 15
< OK
> TURN 7,7
< MESSAGE agent: illegal move h8; playing a quick move
< 6,6`)
}

type stubAgent struct {
	move func(ctx context.Context, b *gomoku.Board) (gomoku.Point, error)
}

func (s *stubAgent) Name() string              { return "stub" }
func (s *stubAgent) NewGame(gomoku.Rule) error { return nil }
func (s *stubAgent) Close() error              { return nil }
func (s *stubAgent) Move(ctx context.Context, b *gomoku.Board) (gomoku.Point, error) {
	return s.move(ctx, b)
}

func TestGomocupServe(t *testing.T) {
	var out bytes.Buffer
	br := newBrain(arena.NewRandom(1), &out)
	in := "START 15\r\nINFO timeout_turn 1000\r\nBEGIN\r\nABOUT\nEND\r\nBEGIN\r\n"
	if err := br.Serve(context.Background(), strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	want := "OK\n7,7\n" + aboutLine + "\n"
	if out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
}

// expectedReplies is the protocol's reply count for each line, from the
// specification rather than from the brain: every command needs one reply
// except INFO, END, blank lines and the lines of a BOARD block before DONE.
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
		switch {
		case cmd == "END":
			return append(counts, -1)
		case block:
			if cmd == "DONE" {
				block, n = false, 1
			}
		case cmd == "" || cmd == "INFO" || cmd == "YXSTOP": // YXSTOP: stop a search, none runs
		case cmd == "BOARD" || cmd == "SWAP2BOARD":
			block = true
		default:
			n = 1
		}
		counts = append(counts, n)
	}
	return counts
}

var replyRE = regexp.MustCompile(`^(OK|\d{1,2},\d{1,2}|ERROR .+|UNKNOWN .+|name="Ocvist".*)$`)

func FuzzProtocol(f *testing.F) {
	for _, s := range []string{
		"START 15\nBEGIN\nTURN 8,8\nTURN 9,9\nEND",
		"START 15\nBOARD\n7,7,2\n8,8,1\n9,9,2\nDONE\nTAKEBACK 9,9\nTURN 9,9",
		"INFO rule 5\nBEGIN\nINFO rule 1\nBEGIN\nRESTART\nSWAP2BOARD\nDONE",
		"RECTSTART 15,15\nINFO time_left 10\nTURN 0,0\nPLAY 1,1\nABOUT\nfoo\n\n",
		"START 15\nTURN 7,7\nTURN 7,8\nTURN 7,9\nTURN 7,10\nTURN 7,11\nTURN 7,12",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		br := newBrain(arena.NewRandom(1), &out)
		lines := strings.Split(in, "\n")
		want := expectedReplies(lines)
		for i, l := range lines {
			out.Reset()
			goOn := br.Handle(context.Background(), l+"\n")
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
			if err := br.board.Verify(); err != nil {
				t.Fatalf("line %q: board: %v", l, err)
			}
		}
	})
}
