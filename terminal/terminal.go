// Package terminal is a game of gomoku between a person and an agent in a
// text terminal: the board drawn with coordinates and the last move
// marked, moves typed as "h8", undo, hints from agents that rank moves,
// and a clear message and a new prompt for bad input.
//
// The package is synchronous: Play reads the person's lines from a
// channel that the command fills (so that it can wait for a line and for
// its context at once) and writes only to the writer it is given.
package terminal

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"ocvist/agent"
	"ocvist/gomoku"
)

// Config is a session's setting.
type Config struct {
	Human gomoku.Player // the person's colour, Black (moves first) or White
	Rule  gomoku.Rule
	// Turn is the agent's time limit per move, given to it as its clock
	// (a thinking agent uses most of it); 0: no limit (an agent that
	// thinks then takes its own default).
	Turn time.Duration
}

// Play runs a session of a person against agent: lines come from in (one
// typed line each, without the line break), the screen goes to out. It
// returns nil when the person quits or the input ends, and ctx's error at
// once when ctx is done (whether or not a line is being waited for). It
// does not close the agent.
func Play(ctx context.Context, agent agent.Agent, cfg Config, in <-chan string, out io.Writer) error {
	s := &session{in: in, out: out, agent: agent, human: cfg.Human, rule: cfg.Rule, turn: cfg.Turn}
	return s.run(ctx)
}

// session is one session of a person against an agent.
type session struct {
	in    <-chan string
	out   io.Writer
	agent agent.Agent
	human gomoku.Player
	rule  gomoku.Rule
	turn  time.Duration
	board *gomoku.Board
	drawn bool // the board has been shown since it last changed
}

func (s *session) printf(format string, a ...any) { fmt.Fprintf(s.out, format, a...) }

func (s *session) run(ctx context.Context) error {
	s.printf("Ocvist: you play %c (%v) against %s, %v rule.\n", s.human.Char(), s.human, s.agent.Name(), s.rule)
	s.printf("Type a move like h8, or undo, hint, new, quit.\n")
	if err := s.newGame(); err != nil {
		return err
	}
	for {
		if !s.board.Over() && s.board.ToMove() != s.human {
			if err := s.agentMove(ctx); err != nil {
				return err
			}
			continue
		}
		s.prompt()
		line, ok, err := s.read(ctx)
		if !ok || err != nil {
			s.printf("\n")
			return err
		}
		quit, err := s.command(strings.TrimSpace(line))
		if quit || err != nil {
			return err
		}
	}
}

// prompt shows the board if it changed and asks for a move or a command.
func (s *session) prompt() {
	if !s.drawn {
		s.printf("\n%s", Render(s.board))
		s.drawn = true
		if s.board.Over() {
			s.announce()
		}
	}
	if s.board.Over() {
		s.printf("Game over: new, undo or quit? ")
	} else {
		s.printf("Your move (%c): ", s.human.Char())
	}
}

// read waits for the next line; ok is false at the end of the input, err
// is ctx's error once ctx is done.
func (s *session) read(ctx context.Context) (line string, ok bool, err error) {
	select {
	case <-ctx.Done():
		return "", false, ctx.Err()
	case line, ok = <-s.in:
		return line, ok, nil
	}
}

func (s *session) newGame() error {
	s.board = gomoku.New(gomoku.Options{Rule: s.rule})
	s.drawn = false
	if err := s.agent.NewGame(s.rule); err != nil {
		return fmt.Errorf("new game: %w", err)
	}
	if n, ok := s.agent.(agent.Noticer); ok && n.Notice() != "" {
		s.printf("Note: %s.\n", n.Notice())
	}
	return nil
}

func (s *session) agentMove(ctx context.Context) error {
	view := *s.board
	p, err := s.agent.Move(ctx, &view, gomoku.Clock{Start: time.Now(), Turn: s.turn})
	if err != nil {
		return fmt.Errorf("%s: %w", s.agent.Name(), err)
	}
	if err := s.board.Play(p); err != nil {
		return fmt.Errorf("%s played %v: %w", s.agent.Name(), p, err)
	}
	s.printf("%s plays %v.\n", s.agent.Name(), p)
	s.drawn = false
	return nil
}

// command carries out one input line; quit reports the end of the session.
func (s *session) command(line string) (quit bool, err error) {
	switch strings.ToLower(line) {
	case "":
		return false, nil
	case "quit", "exit", "q":
		s.printf("Bye.\n")
		return true, nil
	case "new":
		s.printf("New game.\n")
		return false, s.newGame()
	case "undo":
		s.undo()
	case "hint":
		s.hint()
	case "help", "?":
		s.printf("A move is a column a-o and a row 1-15, like h8. Commands: undo, hint, new, quit.\n")
	default:
		s.move(line)
	}
	return false, nil
}

func (s *session) move(line string) {
	p, err := gomoku.ParsePoint(line)
	if err != nil {
		s.printf("%q is not a move or a command: a move is a column a-o and a row 1-15, like h8; commands are undo, hint, new, quit.\n", line)
		return
	}
	if s.board.Over() {
		s.printf("The game is over: type new, undo or quit.\n")
		return
	}
	if c := s.board.At(p); c != gomoku.Empty {
		s.printf("%v is taken by %c: choose an empty point.\n", p, c.Char())
		return
	}
	if f := s.board.Forbidden(p); s.board.ToMove() == gomoku.Black && f != gomoku.NoFoul {
		s.printf("%v is forbidden to Black under renju (%v; marked #): choose another point.\n", p, f)
		return
	}
	if err := s.board.Play(p); err != nil {
		s.printf("%v: %v.\n", p, err)
		return
	}
	s.drawn = false
}

// undo takes back stones up to and including the person's last one.
func (s *session) undo() {
	if s.board.Count(s.human) == 0 {
		s.printf("Nothing to undo.\n")
		return
	}
	var taken []string
	for {
		p, _ := s.board.Undo()
		taken = append(taken, p.String())
		if s.board.ToMove() == s.human {
			break
		}
	}
	s.printf("Took back %s.\n", strings.Join(taken, " and "))
	s.drawn = false
}

func (s *session) announce() {
	w := s.board.Winner()
	if w == gomoku.Empty {
		s.printf("Draw: no more moves.\n")
		return
	}
	who := s.agent.Name()
	if w == s.human {
		who = "you"
	}
	var line []string
	for _, p := range s.board.WinLine() {
		line = append(line, p.String())
	}
	s.printf("%c (%s) wins with %s.\n", w.Char(), who, strings.Join(line, " "))
}
