package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"ocvist/arena"
	"ocvist/gomoku"
)

const terminalDoc = `usage: play [terminal] [-agent A] [-color x|o] [-rule R] [-seed S]

Play gomoku against an agent in the terminal. Type a move as a column a-o and
a row 1-15 (h8 is the centre), or a command:
  undo   take back your last move and the agent's reply
  hint   the agent's best moves (or its candidates if it cannot rank)
  new    start a new game
  quit   leave
The last move is shown in brackets, a winning line in capitals.

`

func runTerminal(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("terminal", terminalDoc, stderr)
	agentName := fs.String("agent", defaultAgent, "your opponent: "+agentHelp)
	color := fs.String("color", "x", "your colour: x (black, moves first) or o (white)")
	ruleName := fs.String("rule", "freestyle", "freestyle or standard")
	seed := fs.Uint64("seed", 1, "the agent's random seed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rule, err := gomoku.ParseRule(*ruleName)
	if err != nil {
		return err
	}
	human := gomoku.Black
	switch *color {
	case "x", "X", "black":
	case "o", "O", "white":
		human = gomoku.White
	default:
		return fmt.Errorf("-color %q: want x or o", *color)
	}
	ag, err := newAgent(*agentName, agentEnv{seed: *seed, turn: defaultTurn})
	if err != nil {
		return err
	}
	defer ag.Close()
	t := &terminal{in: bufio.NewScanner(stdin), out: stdout, agent: ag, human: human, rule: rule}
	return t.run(ctx)
}

// terminal is one session of a person against an agent.
type terminal struct {
	in    *bufio.Scanner
	out   io.Writer
	agent arena.Agent
	human gomoku.Player
	rule  gomoku.Rule
	board *gomoku.Board
	drawn bool // the board has been shown since it last changed
}

func (t *terminal) printf(format string, a ...any) { fmt.Fprintf(t.out, format, a...) }

func (t *terminal) run(ctx context.Context) error {
	t.printf("Ocvist: you play %c (%v) against %s, %v rule.\n", t.human.Char(), t.human, t.agent.Name(), t.rule)
	t.printf("Type a move like h8, or undo, hint, new, quit.\n")
	if err := t.newGame(); err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !t.board.Over() && t.board.ToMove() != t.human {
			if err := t.agentMove(ctx); err != nil {
				return err
			}
			continue
		}
		if !t.drawn {
			t.printf("\n%s", render(t.board))
			t.drawn = true
			if t.board.Over() {
				t.announce()
			}
		}
		if t.board.Over() {
			t.printf("Game over: new, undo or quit? ")
		} else {
			t.printf("Your move (%c): ", t.human.Char())
		}
		if !t.in.Scan() {
			t.printf("\n")
			return t.in.Err()
		}
		quit, err := t.command(strings.TrimSpace(t.in.Text()))
		if quit || err != nil {
			return err
		}
	}
}

func (t *terminal) newGame() error {
	t.board = gomoku.New(gomoku.Options{Rule: t.rule})
	t.drawn = false
	if err := t.agent.NewGame(t.rule); err != nil {
		return fmt.Errorf("new game: %w", err)
	}
	return nil
}

func (t *terminal) agentMove(ctx context.Context) error {
	view := *t.board
	p, err := t.agent.Move(ctx, &view)
	if err != nil {
		return fmt.Errorf("%s: %w", t.agent.Name(), err)
	}
	if err := t.board.Play(p); err != nil {
		return fmt.Errorf("%s played %v: %w", t.agent.Name(), p, err)
	}
	t.printf("%s plays %v.\n", t.agent.Name(), p)
	t.drawn = false
	return nil
}

// command carries out one input line; quit reports the end of the session.
func (t *terminal) command(line string) (quit bool, err error) {
	switch strings.ToLower(line) {
	case "":
		return false, nil
	case "quit", "exit", "q":
		t.printf("Bye.\n")
		return true, nil
	case "new":
		t.printf("New game.\n")
		return false, t.newGame()
	case "undo":
		t.undo()
	case "hint":
		t.hint()
	case "help", "?":
		t.printf("A move is a column a-o and a row 1-15, like h8. Commands: undo, hint, new, quit.\n")
	default:
		t.move(line)
	}
	return false, nil
}

func (t *terminal) move(line string) {
	p, err := gomoku.ParsePoint(line)
	if err != nil {
		t.printf("%q is not a move or a command: a move is a column a-o and a row 1-15, like h8; commands are undo, hint, new, quit.\n", line)
		return
	}
	if t.board.Over() {
		t.printf("The game is over: type new, undo or quit.\n")
		return
	}
	if c := t.board.At(p); c != gomoku.Empty {
		t.printf("%v is taken by %c: choose an empty point.\n", p, c.Char())
		return
	}
	t.board.Play(p)
	t.drawn = false
}

// undo takes back stones up to and including the person's last one.
func (t *terminal) undo() {
	if t.board.Count(t.human) == 0 {
		t.printf("Nothing to undo.\n")
		return
	}
	var taken []string
	for {
		p, _ := t.board.Undo()
		taken = append(taken, p.String())
		if t.board.ToMove() == t.human {
			break
		}
	}
	t.printf("Took back %s.\n", strings.Join(taken, " and "))
	t.drawn = false
}

func (t *terminal) hint() {
	if t.board.Over() {
		t.printf("The game is over.\n")
		return
	}
	if r, ok := t.agent.(arena.Ranker); ok {
		ranked := r.Rank(t.board)
		if len(ranked) > 1 && allEqual(ranked) {
			t.printf("%s sees %d equal moves (%s): %s\n", t.agent.Name(), len(ranked), ranked[0].Level, listPoints(ranked, 12))
			return
		}
		var s []string
		for _, m := range ranked[:min(5, len(ranked))] {
			h := fmt.Sprintf("%v %.2f", m.Point, m.Score)
			if m.Level != "" {
				h += " (" + m.Level + ")"
			}
			s = append(s, h)
		}
		t.printf("%s suggests: %s\n", t.agent.Name(), strings.Join(s, ", "))
		return
	}
	if t.board.Stones() == 0 {
		t.printf("%s cannot rank moves; it would open at %v.\n", t.agent.Name(), gomoku.Center)
		return
	}
	cands := t.board.Candidates(nil)
	var s []string
	for _, p := range cands[:min(12, len(cands))] {
		s = append(s, p.String())
	}
	if len(cands) > 12 {
		s = append(s, "...")
	}
	t.printf("%s cannot rank moves; it picks among %d candidates: %s\n", t.agent.Name(), len(cands), strings.Join(s, " "))
}

func allEqual(s []arena.Scored) bool {
	for _, m := range s {
		if m.Score != s[0].Score || m.Level != s[0].Level {
			return false
		}
	}
	return true
}

// listPoints names the first n moves, with "..." for the rest.
func listPoints(s []arena.Scored, n int) string {
	var out []string
	for _, m := range s[:min(n, len(s))] {
		out = append(out, m.Point.String())
	}
	if len(s) > n {
		out = append(out, "...")
	}
	return strings.Join(out, " ")
}

func (t *terminal) announce() {
	w := t.board.Winner()
	if w == gomoku.Empty {
		t.printf("Draw: no more moves.\n")
		return
	}
	who := t.agent.Name()
	if w == t.human {
		who = "you"
	}
	var line []string
	for _, p := range t.board.WinLine() {
		line = append(line, p.String())
	}
	t.printf("%c (%s) wins with %s.\n", w.Char(), who, strings.Join(line, " "))
}

// render draws the board with a-o above and below, 15-1 left and right,
// the last stone in brackets and a winning line in capitals.
func render(b *gomoku.Board) string {
	var sb strings.Builder
	const letters = "    a b c d e f g h i j k l m n o\n"
	win := map[gomoku.Point]bool{}
	for _, p := range b.WinLine() {
		win[p] = true
	}
	last := b.Last()
	sb.WriteString(letters)
	for y := range gomoku.Size {
		fmt.Fprintf(&sb, "%2d ", gomoku.Size-y)
		for x := range gomoku.Size {
			p := gomoku.Pt(x, y)
			switch {
			case p == last:
				sb.WriteByte('[')
			case x > 0 && gomoku.Pt(x-1, y) == last:
				sb.WriteByte(']')
			default:
				sb.WriteByte(' ')
			}
			c := b.At(p).Char()
			if win[p] {
				c -= 'a' - 'A'
			}
			sb.WriteByte(c)
		}
		if gomoku.Pt(gomoku.Size-1, y) == last {
			sb.WriteByte(']')
		} else {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%2d\n", gomoku.Size-y)
	}
	sb.WriteString(letters)
	return sb.String()
}
