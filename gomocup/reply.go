package gomocup

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"ocvist/gomoku"
)

// Reply is one line of the brain to the manager (an answer, or MESSAGE,
// DEBUG, ERROR, UNKNOWN, SUGGEST), as
// ParseReply reads it and String writes it. The concrete types are the
// Reply* structs of this file.
type Reply interface {
	// String is the reply's line, without a line break. Text fields are
	// written with control characters replaced by '?', so a reply is
	// always one line.
	String() string
	reply()
}

// ReplyOK is "OK", the answer to START, RECTSTART, RESTART and TAKEBACK.
type ReplyOK struct{}

// ReplyMove is the brain's move "x,y".
type ReplyMove struct{ Move gomoku.Point }

// ReplyError is "ERROR text": a known command that cannot be carried out.
type ReplyError struct{ Text string }

// ReplyUnknown is "UNKNOWN text": a command the brain does not know.
type ReplyUnknown struct{ Text string }

// ReplyMessage is "MESSAGE text", for the user; it may precede a move.
type ReplyMessage struct{ Text string }

// ReplyDebug is "DEBUG text", for the engine's author.
type ReplyDebug struct{ Text string }

// ReplySuggest is "SUGGEST x,y": a move proposed to the manager, who
// answers PLAY.
type ReplySuggest struct{ Move gomoku.Point }

// ReplyAbout is the answer to ABOUT: key="value" pairs separated by ", ".
// Values must not contain '"'.
type ReplyAbout struct{ Pairs []Pair }

// Pair is one key="value" of an ABOUT line.
type Pair struct{ Key, Value string }

// ReplyForbid is "FORBID xxyyxxyy….", the answer to YXSHOWFORBID:
// Black's forbidden points, each as two-digit x and y, ended by a dot
// ("FORBID ." for none).
type ReplyForbid struct{ Points []gomoku.Point }

// ReplySwap is "SWAP", a swap2 answer: the brain takes Black.
type ReplySwap struct{}

// ReplyMoves is two or three moves on one line, "x,y x,y[ x,y]": a swap2
// answer placing stones.
type ReplyMoves struct{ Moves []gomoku.Point }

// ReplyText is any other line, such as an old free-text ABOUT answer.
type ReplyText struct{ Text string }

func (ReplyOK) reply()      {}
func (ReplyMove) reply()    {}
func (ReplyError) reply()   {}
func (ReplyUnknown) reply() {}
func (ReplyMessage) reply() {}
func (ReplyDebug) reply()   {}
func (ReplySuggest) reply() {}
func (ReplyAbout) reply()   {}
func (ReplyText) reply()    {}
func (ReplyForbid) reply()  {}
func (ReplySwap) reply()    {}
func (ReplyMoves) reply()   {}

func (ReplySwap) String() string { return "SWAP" }

func (r ReplyForbid) String() string {
	var sb strings.Builder
	sb.WriteString("FORBID ")
	for _, p := range r.Points {
		fmt.Fprintf(&sb, "%02d%02d", p.X(), p.Y())
	}
	sb.WriteString(".")
	return sb.String()
}

func (r ReplyMoves) String() string {
	parts := make([]string, len(r.Moves))
	for i, p := range r.Moves {
		parts[i] = p.Gomocup()
	}
	return strings.Join(parts, " ")
}

func (ReplyOK) String() string        { return "OK" }
func (r ReplyMove) String() string    { return r.Move.Gomocup() }
func (r ReplyError) String() string   { return joinWords("ERROR", clean(r.Text)) }
func (r ReplyUnknown) String() string { return joinWords("UNKNOWN", clean(r.Text)) }
func (r ReplyMessage) String() string { return joinWords("MESSAGE", clean(r.Text)) }
func (r ReplyDebug) String() string   { return joinWords("DEBUG", clean(r.Text)) }
func (r ReplySuggest) String() string { return "SUGGEST " + r.Move.Gomocup() }
func (r ReplyText) String() string    { return clean(r.Text) }

func (r ReplyAbout) String() string {
	parts := make([]string, len(r.Pairs))
	for i, p := range r.Pairs {
		parts[i] = clean(p.Key) + `="` + clean(p.Value) + `"`
	}
	return strings.Join(parts, ", ")
}

// Get returns the value of key ("" if the line has none).
func (r ReplyAbout) Get(key string) string {
	for _, p := range r.Pairs {
		if strings.EqualFold(p.Key, key) {
			return p.Value
		}
	}
	return ""
}

// aboutPair is one key="value" of an ABOUT line.
var aboutPair = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"([^"]*)"`)

// ParseReply reads one line of a brain. It never fails on a non-blank line:
// a line it cannot classify is a ReplyText; SUGGEST with a malformed move
// is an error. Text is trimmed and control characters in it become '?', so
// ParseReply(r.String()) gives r for every r it returns.
func ParseReply(line string) (Reply, error) {
	line = clean(strings.TrimSpace(line))
	word, rest := cutWord(line)
	switch strings.ToUpper(word) {
	case "":
		return nil, ErrEmpty
	case "OK":
		if rest == "" {
			return ReplyOK{}, nil
		}
	case "ERROR":
		return ReplyError{rest}, nil
	case "UNKNOWN":
		return ReplyUnknown{rest}, nil
	case "MESSAGE":
		return ReplyMessage{rest}, nil
	case "DEBUG":
		return ReplyDebug{rest}, nil
	case "SUGGEST":
		p, err := gomoku.ParseGomocup(rest)
		if err != nil {
			return nil, fmt.Errorf("SUGGEST: %w", err)
		}
		return ReplySuggest{p}, nil
	case "SWAP":
		if rest == "" {
			return ReplySwap{}, nil
		}
	case "FORBID":
		if r, ok := parseForbid(rest); ok {
			return r, nil
		}
	}
	if r, ok := parseMoves(line); ok {
		return r, nil
	}
	if p, err := gomoku.ParseGomocup(line); err == nil {
		return ReplyMove{p}, nil
	}
	if m := aboutPair.FindAllStringSubmatch(line, -1); m != nil {
		r := ReplyAbout{}
		for _, kv := range m {
			r.Pairs = append(r.Pairs, Pair{kv[1], kv[2]})
		}
		return r, nil
	}
	return ReplyText{line}, nil
}

// parseForbid reads the points of a FORBID line: pairs of two-digit x and
// y, then a dot.
func parseForbid(s string) (ReplyForbid, bool) {
	body, ok := strings.CutSuffix(s, ".")
	if !ok || len(body)%4 != 0 {
		return ReplyForbid{}, false
	}
	r := ReplyForbid{}
	for i := 0; i < len(body); i += 4 {
		x, err1 := strconv.ParseUint(body[i:i+2], 10, 8)
		y, err2 := strconv.ParseUint(body[i+2:i+4], 10, 8)
		if err1 != nil || err2 != nil || !gomoku.OnBoard(int(x), int(y)) {
			return ReplyForbid{}, false
		}
		r.Points = append(r.Points, gomoku.Pt(int(x), int(y)))
	}
	return r, true
}

// parseMoves reads a line of two or three moves separated by spaces.
func parseMoves(s string) (ReplyMoves, bool) {
	f := strings.Fields(s)
	if len(f) < 2 || len(f) > 3 {
		return ReplyMoves{}, false
	}
	r := ReplyMoves{}
	for _, w := range f {
		p, err := gomoku.ParseGomocup(w)
		if err != nil || p.Gomocup() != w {
			return ReplyMoves{}, false
		}
		r.Moves = append(r.Moves, p)
	}
	return r, true
}

// clean replaces control characters (line breaks among them) by '?'.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}
