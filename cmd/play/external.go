package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"ocvist/gomoku"
)

// external is an arena.Agent played by an external program speaking the
// Gomocup protocol, driven as a tournament manager drives it: START 15, the
// INFO limits and ABOUT when started; RESTART and INFO rule before each game
// (a restart of the process when RESTART is not answered OK); BEGIN, TURN or
// BOARD for moves; END on Close. An engine that does not answer within its
// turn limit plus grace is killed and restarted for the next game.
type external struct {
	command string
	argv    []string
	turn    time.Duration
	grace   time.Duration
	log     io.Writer

	name  string
	p     *proc          // nil when not running
	clean bool           // the engine's board is empty and no game command was sent
	known []gomoku.Point // the position the engine holds, in order
	rule  gomoku.Rule
}

// Timing of the engine client.
const (
	engineGrace = time.Second     // after the turn limit, before a silent engine is killed
	engineStart = 5 * time.Second // for START, RESTART and ABOUT answers
)

// startExternal starts command (split on spaces) and greets it.
func startExternal(command string, turn time.Duration, log io.Writer) (*external, error) {
	argv := strings.Fields(command)
	e := &external{command: command, argv: argv, turn: turn, grace: engineGrace, log: log}
	e.name = "engine:" + filepath.Base(argv[0])
	if err := e.start(); err != nil {
		return nil, err
	}
	if name := e.about(); name != "" {
		e.name = "engine:" + name
	}
	return e, nil
}

func (e *external) Name() string { return e.name }

func (e *external) start() error {
	p, err := startProc(e.argv, e.log)
	if err != nil {
		return fmt.Errorf("engine %q: %w", e.command, err)
	}
	e.p = p
	if err := e.ask("START 15", "OK"); err != nil {
		e.kill()
		return fmt.Errorf("engine %q: %w", e.command, err)
	}
	turn := e.turn
	if turn <= 0 {
		turn = defaultTurn
	}
	for _, s := range []string{
		fmt.Sprintf("INFO timeout_turn %d", turn.Milliseconds()),
		"INFO timeout_match 0",
		"INFO max_memory 0",
		"INFO game_type 1",
	} {
		p.send(s)
	}
	e.clean, e.known = true, nil
	return nil
}

var aboutName = regexp.MustCompile(`(?i)name="([^"]*)"`)

// about asks for the engine's name; "" if it does not say.
func (e *external) about() string {
	if e.p.send("ABOUT") != nil {
		return ""
	}
	line, err := e.p.read(nil, time.Now().Add(engineStart))
	if err != nil {
		return ""
	}
	if m := aboutName.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

// ask sends cmd and wants the reply want within engineStart.
func (e *external) ask(cmd, want string) error {
	if err := e.p.send(cmd); err != nil {
		return err
	}
	line, err := e.p.read(nil, time.Now().Add(engineStart))
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	if line != want {
		return fmt.Errorf("%s: answered %q, want %q", cmd, line, want)
	}
	return nil
}

func (e *external) kill() {
	if e.p != nil {
		e.p.kill()
		e.p = nil
	}
}

// restart gives the engine an empty board: RESTART, or a new process.
func (e *external) restart() error {
	if e.p != nil && !e.clean {
		if err := e.ask("RESTART", "OK"); err != nil {
			e.kill()
		}
	}
	if e.p == nil {
		return e.start()
	}
	e.clean, e.known = true, nil
	return nil
}

func (e *external) NewGame(rule gomoku.Rule) error {
	e.rule = rule
	if err := e.restart(); err != nil {
		return err
	}
	return e.p.send(fmt.Sprintf("INFO rule %d", rule))
}

func (e *external) Move(ctx context.Context, b *gomoku.Board) (gomoku.Point, error) {
	if e.p == nil {
		return gomoku.NoPoint, errors.New("engine is not running")
	}
	hist := b.History()
	var err error
	switch {
	case e.clean && len(hist) == 0:
		err = e.p.send("BEGIN")
	case len(hist) == len(e.known)+1 && slices.Equal(hist[:len(e.known)], e.known):
		err = e.p.send("TURN " + hist[len(hist)-1].Gomocup())
	default:
		err = e.board(b)
	}
	if err != nil {
		e.kill()
		return gomoku.NoPoint, err
	}
	e.clean = false
	e.known = nil
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(e.turn)
	}
	line, err := e.p.read(ctx, deadline.Add(e.grace))
	if err != nil {
		e.kill()
		return gomoku.NoPoint, err
	}
	p, err := gomoku.ParseGomocup(line)
	if err != nil {
		return gomoku.NoPoint, fmt.Errorf("engine answered %q", line)
	}
	e.known = append(slices.Clone(hist), p)
	return p, nil
}

// board sends the position b as a BOARD block in play order, after
// RESTART when the engine holds another position.
func (e *external) board(b *gomoku.Board) error {
	if !e.clean {
		if err := e.restart(); err != nil {
			return err
		}
		if err := e.p.send(fmt.Sprintf("INFO rule %d", e.rule)); err != nil {
			return err
		}
	}
	var sb strings.Builder
	sb.WriteString("BOARD")
	me := b.ToMove()
	for _, p := range b.History() {
		f := 2
		if b.At(p) == me {
			f = 1
		}
		fmt.Fprintf(&sb, "\r\n%s,%d", p.Gomocup(), f)
	}
	sb.WriteString("\r\nDONE")
	return e.p.send(sb.String())
}

// Close sends END and waits a second for the engine to exit before killing it.
func (e *external) Close() error {
	if e.p == nil {
		return nil
	}
	p := e.p
	e.p = nil
	p.send("END")
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(time.Second):
		p.kill()
	}
	return nil
}

// proc is one run of the engine's process with a reader goroutine that
// delivers its output lines.
type proc struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	lines    chan string   // output lines; closed at the end of output
	quit     chan struct{} // closed to make the reader discard output
	quitOnce sync.Once
	exited   chan struct{} // closed when the process has been waited for
	log      io.Writer
}

func startProc(argv []string, log io.Writer) (*proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = log // nil discards
	cmd.WaitDelay = time.Second
	isolate(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, stdin: stdin, lines: make(chan string, 16),
		quit: make(chan struct{}), exited: make(chan struct{}), log: log}
	go p.readLoop(stdout)
	return p, nil
}

func (p *proc) readLoop(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		select {
		case p.lines <- sc.Text():
		case <-p.quit:
		}
	}
	close(p.lines)
	p.cmd.Wait()
	close(p.exited)
}

func (p *proc) send(s string) error {
	_, err := io.WriteString(p.stdin, s+"\r\n")
	return err
}

// read returns the next reply line, skipping empty, MESSAGE and DEBUG
// lines (logged), by the deadline. A cancelled ctx (nil for none) stops the
// wait; ctx's own deadline does not, as the caller's deadline includes a
// grace period after it.
func (p *proc) read(ctx context.Context, deadline time.Time) (string, error) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done()
	}
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				return "", errors.New("engine exited")
			}
			line = strings.TrimSpace(line)
			word, _, _ := strings.Cut(line, " ")
			switch strings.ToUpper(word) {
			case "":
				continue
			case "MESSAGE", "DEBUG":
				if p.log != nil {
					fmt.Fprintln(p.log, line)
				}
				continue
			case "ERROR":
				return "", fmt.Errorf("engine: %s", line)
			}
			return line, nil
		case <-timer.C:
			return "", errors.New("engine did not answer in time")
		case <-done:
			if err := ctx.Err(); err != context.DeadlineExceeded {
				return "", err
			}
			done = nil
		}
	}
}

func (p *proc) kill() {
	p.quitOnce.Do(func() { close(p.quit) })
	killTree(p.cmd)
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
	}
}
