package gomocup

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"ocvist/gomoku"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Command
		text string // String(); "" means in itself
	}{
		{"START 15", CmdStart{15}, ""},
		{"  start\t20 \r", CmdStart{20}, "START 20"},
		{"RECTSTART 15, 15", CmdRectStart{15, 15}, "RECTSTART 15,15"},
		{"RESTART", CmdRestart{}, ""},
		{"BEGIN", CmdBegin{}, ""},
		{"BEGIN now", CmdBegin{}, "BEGIN"},
		{"TURN 7,8", CmdTurn{gomoku.Pt(7, 8)}, ""},
		{"turn 0, 14", CmdTurn{gomoku.Pt(0, 14)}, "TURN 0,14"},
		{"TAKEBACK 3,4", CmdTakeback{gomoku.Pt(3, 4)}, ""},
		{"PLAY 14,0", CmdPlay{gomoku.Pt(14, 0)}, ""},
		{"INFO timeout_turn 1000", CmdInfo{"timeout_turn", "1000"}, ""},
		{"INFO Folder C:\\My  Dir ", CmdInfo{"folder", "C:\\My  Dir"}, "INFO folder C:\\My  Dir"},
		{"INFO", CmdInfo{}, ""},
		{"END", CmdEnd{}, ""},
		{"ABOUT", CmdAbout{}, ""},
		{"YXSTOP", CmdYXStop{}, ""},
		{"foo bar  baz", CmdUnknown{"FOO", "bar  baz"}, "FOO bar  baz"},
		{"DONE", CmdUnknown{"DONE", ""}, ""},
		{"BOARD\n7,7,2\r\n8, 7, 1\n\n9,9,3\nDONE", CmdBoard{[]Stone{{gomoku.Pt(7, 7), Opponent}, {gomoku.Pt(8, 7), Own}, {gomoku.Pt(9, 9), Marker}}},
			"BOARD\n7,7,2\n8,7,1\n9,9,3\nDONE"},
		{"BOARD\nDONE", CmdBoard{}, ""},
		{"SWAP2BOARD\n7,7\n8,8\ndone\n", CmdSwap2Board{[]gomoku.Point{gomoku.Pt(7, 7), gomoku.Pt(8, 8)}}, "SWAP2BOARD\n7,7\n8,8\nDONE"},
		{"yxboard\n7,7,1\n8,8,2\nDONE", CmdYXBoard{[]Stone{{gomoku.Pt(7, 7), Own}, {gomoku.Pt(8, 8), Opponent}}}, "YXBOARD\n7,7,1\n8,8,2\nDONE"},
		{"YXNBEST 5", CmdYXNBest{5}, ""},
		{"YXSHOWFORBID", CmdYXShowForbid{}, ""},
		{"yxshowinfo", CmdYXShowInfo{}, "YXSHOWINFO"},
		{"YXHASHCLEAR", CmdYXHashClear{}, ""},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %#v, %v; want %#v", tt.in, got, err, tt.want)
			continue
		}
		text := tt.text
		if text == "" {
			text = tt.in
		}
		if got.String() != text {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got.String(), text)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "empty command"},
		{" \r\n", "empty command"},
		{"START x", `START wants a board size, got "x"`},
		{"START", `START wants a board size, got ""`},
		{"RECTSTART 15", `RECTSTART wants width,height, got "15"`},
		{"TURN", "TURN: bad point"},
		{"TURN 7;7", "TURN: bad point"},
		{"TURN 15,0", `TURN: bad point: "15,0" is off the 15x15 board`},
		{"TAKEBACK -1,3", "TAKEBACK: bad point"},
		{"PLAY 1,2,3", "PLAY: bad point"},
		{"TURN 1,1\nTURN 2,2", `TURN: a command of one line is followed by "TURN 2,2"`},
		{"YXNBEST", `YXNBEST wants a number of moves of at least 1, got ""`},
		{"YXNBEST -2", `YXNBEST wants a number of moves of at least 1, got "-2"`},
		{"YXBOARD\n7,7\nDONE", `YXBOARD line 1 "7,7": want x,y,field`},
		{"\nBEGIN", "must start on its first line"},
		{"BOARD\n7,7\nDONE", `BOARD line 1 "7,7": want x,y,field`},
		{"BOARD\n7,7,1\n15,7,2\nDONE", "BOARD line 2: bad point"},
		{"BOARD\n7,7,4\nDONE", `BOARD line 1 "7,7,4": field must be 1, 2 or 3`},
		{"BOARD\n7,7,2\n7,7,1\nDONE", "BOARD line 2: 7,7 is listed twice"},
		{"BOARD\n7,7,2", "BOARD: no DONE line"},
		{"BOARD", "BOARD: no DONE line"},
		{"BOARD\nDONE\nBEGIN", `BOARD: "BEGIN" after DONE`},
		{"SWAP2BOARD\n7,7,1\nDONE", "SWAP2BOARD line 1: bad point"},
		{"SWAP2BOARD\n1,1\n2,2\n3,3\n4,4\n5,5\n6,6\nDONE", "SWAP2BOARD line 6: more than 5 stones"},
	}
	for _, tt := range tests {
		c, err := Parse(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, %v; want an error with %q", tt.in, c, err, tt.want)
		}
	}
	if _, err := Parse("  "); !errors.Is(err, ErrEmpty) {
		t.Errorf("blank line: %v, want ErrEmpty", err)
	}
}

func TestParseReply(t *testing.T) {
	tests := []struct {
		in   string
		want Reply
		text string // String(); "" means in itself
	}{
		{"OK", ReplyOK{}, ""},
		{" ok\r", ReplyOK{}, "OK"},
		{"7,7", ReplyMove{gomoku.Pt(7, 7)}, ""},
		{"11, 10", ReplyMove{gomoku.Pt(11, 10)}, "11,10"},
		{"ERROR unsupported size", ReplyError{"unsupported size"}, ""},
		{"ERROR", ReplyError{}, ""},
		{"UNKNOWN FOO", ReplyUnknown{"FOO"}, ""},
		{"MESSAGE a\x01b", ReplyMessage{"a?b"}, "MESSAGE a?b"},
		{"DEBUG depth 8, nodes 1000", ReplyDebug{"depth 8, nodes 1000"}, ""},
		{"SUGGEST 3,4", ReplySuggest{gomoku.Pt(3, 4)}, ""},
		{`name="Ocvist", version="0.1.0", author="Ocvist developers"`,
			ReplyAbout{[]Pair{{"name", "Ocvist"}, {"version", "0.1.0"}, {"author", "Ocvist developers"}}}, ""},
		{`name = "pela" version="1"`, ReplyAbout{[]Pair{{"name", "pela"}, {"version", "1"}}}, `name="pela", version="1"`},
		{"Pela by Petr Lastovicka", ReplyText{"Pela by Petr Lastovicka"}, ""},
		{"OK then", ReplyText{"OK then"}, ""},
		{"15,15", ReplyText{"15,15"}, ""},
	}
	for _, tt := range tests {
		got, err := ParseReply(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseReply(%q) = %#v, %v; want %#v", tt.in, got, err, tt.want)
			continue
		}
		text := tt.text
		if text == "" {
			text = tt.in
		}
		if got.String() != text {
			t.Errorf("ParseReply(%q).String() = %q, want %q", tt.in, got.String(), text)
		}
	}
	if _, err := ParseReply("SUGGEST 20,1"); err == nil || !strings.Contains(err.Error(), "SUGGEST: bad point") {
		t.Errorf("SUGGEST off the board: %v", err)
	}
	if got := (ReplyAbout{[]Pair{{"name", "x"}}}).Get("NAME"); got != "x" {
		t.Errorf("Get = %q", got)
	}
	if got := (ReplyError{"two\nlines"}).String(); got != "ERROR two?lines" {
		t.Errorf("a reply with a line break: %q", got)
	}
}

// FuzzParse: Parse never panics, and every command it returns comes back
// from its own text.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"START 15", "RECTSTART 15,15", "TURN 7,7", "INFO timeout_turn 1000", "BOARD\n7,7,1\n8,8,2\nDONE",
		"SWAP2BOARD\n1,1\nDONE", "takeback 3, 4", "foo bar", "INFO  folder  a b ", "BOARD\r\n1,1,3\r\nDONE\r\n",
		"YXBOARD\n7,7,1\n8,8,2\nDONE", "yxnbest 5", "YXNBEST x", "YXSHOWFORBID", "yxshowinfo", "YXHASHCLEAR now",
		"INFO hash_size 65536", "INFO max_node 100000",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(s)
		if err != nil {
			if c != nil {
				t.Fatalf("Parse(%q) returned %#v with the error %v", s, c, err)
			}
			return
		}
		again, err := Parse(c.String())
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("Parse(%q) = %#v; its text %q parses as %#v, %v", s, c, c.String(), again, err)
		}
	})
}

// FuzzParseReply: ParseReply never panics, and every reply it returns is
// one line that comes back from its own text.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{"OK", "7,7", "ERROR x", `name="a", version="1"`, "MESSAGE hi", "SUGGEST 1,2", "free text",
		"FORBID 07080910.", "FORBID .", "FORBID 0716.", "SWAP", "7,7 8,8 9,9", "7,7 8,8", "1,2 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseReply(s)
		if err != nil {
			return
		}
		if strings.ContainsAny(r.String(), "\r\n") {
			t.Fatalf("ParseReply(%q).String() = %q spans lines", s, r.String())
		}
		again, err := ParseReply(r.String())
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("ParseReply(%q) = %#v; its text %q parses as %#v, %v", s, r, r.String(), again, err)
		}
	})
}
