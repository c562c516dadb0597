package gomocup

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"ocvist/gomoku"
)

// Command is one command of the manager to the brain (the protocol's
// mandatory and optional commands and INFO), as Parse reads it and String
// writes it. The concrete types are the
// Cmd* structs of this file.
type Command interface {
	// String is the command's text as a manager sends it: one line, or
	// for CmdBoard and CmdSwap2Board the block of lines up to DONE,
	// separated by "\n" (the line endings are the transport's business).
	String() string
	command()
}

// CmdStart is "START N": a new empty N×N board.
type CmdStart struct{ Size int }

// CmdRectStart is "RECTSTART W,H": a new empty W×H board.
type CmdRectStart struct{ Width, Height int }

// CmdRestart is "RESTART": a new game on a board of the same size.
type CmdRestart struct{}

// CmdBegin is "BEGIN": the brain plays the first move.
type CmdBegin struct{}

// CmdTurn is "TURN x,y": the opponent played Move; the brain answers.
type CmdTurn struct{ Move gomoku.Point }

// CmdBoard is the block "BOARD", one "x,y,field" line per stone, "DONE": a
// whole new position, after which the brain answers with its move.
type CmdBoard struct{ Stones []Stone }

// CmdSwap2Board is the block "SWAP2BOARD", one "x,y" line per stone, "DONE".
type CmdSwap2Board struct{ Stones []gomoku.Point }

// CmdInfo is "INFO key value". Key is lower-cased; Value is the rest of the
// line, trimmed, uninterpreted (see Info.Int).
type CmdInfo struct{ Key, Value string }

// CmdEnd is "END": the brain must exit.
type CmdEnd struct{}

// CmdAbout is "ABOUT": the brain answers with a ReplyAbout line.
type CmdAbout struct{}

// CmdTakeback is "TAKEBACK x,y": remove the stone at Move.
type CmdTakeback struct{ Move gomoku.Point }

// CmdPlay is "PLAY x,y": the manager's answer to SUGGEST.
type CmdPlay struct{ Move gomoku.Point }

// CmdYXStop is "YXSTOP" (c-gomoku-cli, Yixin): answer the running search's
// move now.
type CmdYXStop struct{}

// CmdYXBoard is the block "YXBOARD", one "x,y,field" line per stone,
// "DONE" (Yixin-Board): the position, set up without a move in answer.
type CmdYXBoard struct{ Stones []Stone }

// CmdYXNBest is "YXNBEST N" (Yixin-Board): search the position and
// report its N best moves (multi-PV), answering with the best.
type CmdYXNBest struct{ N int }

// CmdYXShowForbid is "YXSHOWFORBID": list Black's forbidden points (Renju).
type CmdYXShowForbid struct{}

// CmdYXShowInfo is "YXSHOWINFO": describe the engine's settings.
type CmdYXShowInfo struct{}

// CmdYXHashClear is "YXHASHCLEAR": forget the transposition table.
type CmdYXHashClear struct{}

// CmdUnknown is any other command: Name is its first word, upper-cased,
// Args the rest of the line, trimmed.
type CmdUnknown struct{ Name, Args string }

// Field says whose a stone of a BOARD block is.
type Field int

// The BOARD fields.
const (
	Own      Field = 1 // the brain's stone
	Opponent Field = 2 // the opponent's stone
	Marker   Field = 3 // continuous game: a winning-line or forbidden marker
)

// Stone is one line "x,y,field" of a BOARD block.
type Stone struct {
	Point gomoku.Point
	Field Field
}

func (CmdStart) command()        {}
func (CmdRectStart) command()    {}
func (CmdRestart) command()      {}
func (CmdBegin) command()        {}
func (CmdTurn) command()         {}
func (CmdBoard) command()        {}
func (CmdSwap2Board) command()   {}
func (CmdInfo) command()         {}
func (CmdEnd) command()          {}
func (CmdAbout) command()        {}
func (CmdTakeback) command()     {}
func (CmdPlay) command()         {}
func (CmdYXStop) command()       {}
func (CmdYXBoard) command()      {}
func (CmdYXNBest) command()      {}
func (CmdYXShowForbid) command() {}
func (CmdYXShowInfo) command()   {}
func (CmdYXHashClear) command()  {}
func (CmdUnknown) command()      {}

func (c CmdStart) String() string      { return "START " + strconv.Itoa(c.Size) }
func (c CmdRectStart) String() string  { return fmt.Sprintf("RECTSTART %d,%d", c.Width, c.Height) }
func (CmdRestart) String() string      { return "RESTART" }
func (CmdBegin) String() string        { return "BEGIN" }
func (c CmdTurn) String() string       { return "TURN " + c.Move.Gomocup() }
func (CmdEnd) String() string          { return "END" }
func (CmdAbout) String() string        { return "ABOUT" }
func (c CmdTakeback) String() string   { return "TAKEBACK " + c.Move.Gomocup() }
func (c CmdPlay) String() string       { return "PLAY " + c.Move.Gomocup() }
func (CmdYXStop) String() string       { return "YXSTOP" }
func (c CmdYXNBest) String() string    { return "YXNBEST " + strconv.Itoa(c.N) }
func (CmdYXShowForbid) String() string { return "YXSHOWFORBID" }
func (CmdYXShowInfo) String() string   { return "YXSHOWINFO" }
func (CmdYXHashClear) String() string  { return "YXHASHCLEAR" }
func (c CmdInfo) String() string       { return joinWords("INFO", c.Key, c.Value) }
func (c CmdUnknown) String() string    { return joinWords(c.Name, c.Args) }

func (c CmdBoard) String() string   { return blockText("BOARD", c.Stones) }
func (c CmdYXBoard) String() string { return blockText("YXBOARD", c.Stones) }

func blockText(name string, stones []Stone) string {
	var sb strings.Builder
	sb.WriteString(name + "\n")
	for _, s := range stones {
		fmt.Fprintf(&sb, "%s,%d\n", s.Point.Gomocup(), s.Field)
	}
	sb.WriteString("DONE")
	return sb.String()
}

func (c CmdSwap2Board) String() string {
	var sb strings.Builder
	sb.WriteString("SWAP2BOARD\n")
	for _, p := range c.Stones {
		sb.WriteString(p.Gomocup() + "\n")
	}
	sb.WriteString("DONE")
	return sb.String()
}

// Int is the value as a whole number, the form of every INFO key that
// Ocvist reads (timeouts, time_left, max_memory, rule).
func (c CmdInfo) Int() (int64, error) {
	n, err := strconv.ParseInt(c.Value, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("INFO %s %q is not an integer", c.Key, c.Value)
	}
	return n, nil
}

// joinWords joins the non-empty words with single spaces.
func joinWords(words ...string) string {
	var out []string
	for _, w := range words {
		if w != "" {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// ErrEmpty reports a blank line, which carries no command.
var ErrEmpty = errors.New("gomocup: empty command")

// Parse reads one command: a line (surrounding white space and a trailing
// "\r" do not matter, the command word is case-insensitive), or a whole
// BOARD, YXBOARD or SWAP2BOARD block up to its DONE line, lines separated by "\n".
// A known command with malformed arguments gives an error that names it
// (e.g. "TURN: bad point …"); an unknown word gives CmdUnknown. For any s
// that Parse accepts, Parse(c.String()) gives c again.
func Parse(s string) (Command, error) {
	first, rest, multi := strings.Cut(s, "\n")
	word, args := cutWord(first)
	word = strings.ToUpper(word)
	switch word {
	case "":
		if strings.TrimSpace(s) == "" {
			return nil, ErrEmpty
		}
		return nil, errors.New("gomocup: a command must start on its first line")
	case "BOARD":
		st, err := parseStones("BOARD", rest, multi)
		if err != nil {
			return nil, err
		}
		return CmdBoard{st}, nil
	case "YXBOARD":
		st, err := parseStones("YXBOARD", rest, multi)
		if err != nil {
			return nil, err
		}
		return CmdYXBoard{st}, nil
	case "SWAP2BOARD":
		return parseSwap2(rest, multi)
	}
	if multi && strings.TrimSpace(rest) != "" {
		return nil, fmt.Errorf("%s: a command of one line is followed by %q", word, firstLine(rest))
	}
	return parseLine(word, args)
}

// parseLine parses a one-line command.
func parseLine(word, args string) (Command, error) {
	switch word {
	case "START":
		n, err := strconv.Atoi(args)
		if err != nil {
			return nil, fmt.Errorf("START wants a board size, got %q", args)
		}
		return CmdStart{n}, nil
	case "RECTSTART":
		return parseRectStart(args)
	case "TURN", "TAKEBACK", "PLAY":
		return parseMove(word, args)
	case "INFO":
		key, val := cutWord(args)
		return CmdInfo{Key: strings.ToLower(key), Value: val}, nil
	case "YXNBEST":
		n, err := strconv.Atoi(args)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("YXNBEST wants a number of moves of at least 1, got %q", args)
		}
		return CmdYXNBest{n}, nil
	}
	if c, ok := simple[word]; ok {
		return c, nil // any arguments are ignored
	}
	return CmdUnknown{Name: word, Args: args}, nil
}

// simple are the commands without arguments.
var simple = map[string]Command{
	"RESTART": CmdRestart{}, "BEGIN": CmdBegin{}, "END": CmdEnd{}, "ABOUT": CmdAbout{}, "YXSTOP": CmdYXStop{},
	"YXSHOWFORBID": CmdYXShowForbid{}, "YXSHOWINFO": CmdYXShowInfo{}, "YXHASHCLEAR": CmdYXHashClear{},
}

func parseRectStart(args string) (Command, error) {
	ws, hs, ok := strings.Cut(args, ",")
	w, err1 := strconv.Atoi(strings.TrimSpace(ws))
	h, err2 := strconv.Atoi(strings.TrimSpace(hs))
	if !ok || err1 != nil || err2 != nil {
		return nil, fmt.Errorf("RECTSTART wants width,height, got %q", args)
	}
	return CmdRectStart{w, h}, nil
}

func parseMove(word, args string) (Command, error) {
	p, err := gomoku.ParseGomocup(args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", word, err)
	}
	switch word {
	case "TURN":
		return CmdTurn{p}, nil
	case "TAKEBACK":
		return CmdTakeback{p}, nil
	}
	return CmdPlay{p}, nil
}

// parseStones reads the lines of a BOARD or YXBOARD block (name) after
// its first line.
func parseStones(name, body string, multi bool) ([]Stone, error) {
	var stones []Stone
	err := blockLines(name, body, multi, func(i int, l string) error {
		f := strings.Split(l, ",")
		if len(f) != 3 {
			return fmt.Errorf("%s line %d %q: want x,y,field", name, i, l)
		}
		p, err := gomoku.ParseGomocup(f[0] + "," + f[1])
		if err != nil {
			return fmt.Errorf("%s line %d: %w", name, i, err)
		}
		field, err := strconv.Atoi(strings.TrimSpace(f[2]))
		if err != nil || field < int(Own) || field > int(Marker) {
			return fmt.Errorf("%s line %d %q: field must be 1, 2 or 3", name, i, l)
		}
		for _, s := range stones {
			if s.Point == p {
				return fmt.Errorf("%s line %d: %s is listed twice", name, i, p.Gomocup())
			}
		}
		stones = append(stones, Stone{p, Field(field)})
		return nil
	})
	return stones, err
}

// parseSwap2 reads the lines of a SWAP2BOARD block after its first line.
func parseSwap2(body string, multi bool) (Command, error) {
	c := CmdSwap2Board{}
	err := blockLines("SWAP2BOARD", body, multi, func(i int, l string) error {
		p, err := gomoku.ParseGomocup(l)
		if err != nil {
			return fmt.Errorf("SWAP2BOARD line %d: %w", i, err)
		}
		if c.Stones = append(c.Stones, p); len(c.Stones) > 5 {
			return fmt.Errorf("SWAP2BOARD line %d: more than 5 stones", i)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// blockLines calls fn with the number (from 1) and the trimmed text of
// each non-blank line of a block's body up to its DONE line, which must
// end it.
func blockLines(name, body string, multi bool, fn func(i int, line string) error) error {
	lines := strings.Split(body, "\n")
	n := 0
	for k, l := range lines {
		l = strings.TrimSpace(l)
		switch {
		case !multi:
		case isDone(l):
			if tail := strings.TrimSpace(strings.Join(lines[k+1:], "\n")); tail != "" {
				return fmt.Errorf("%s: %q after DONE", name, firstLine(tail))
			}
			return nil
		case l != "":
			n++
			if err := fn(n, l); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("%s: no DONE line", name)
}

// isDone reports whether line is DONE (whatever follows the word).
func isDone(line string) bool {
	w, _ := cutWord(line)
	return strings.EqualFold(w, "DONE")
}

// cutWord splits s at its first run of white space; both parts are trimmed.
func cutWord(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}
