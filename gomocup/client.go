package gomocup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"ocvist/gomoku"
)

// ClientOptions configure a Client. Zero fields take the defaults.
type ClientOptions struct {
	// Turn is sent as INFO timeout_turn when the engine starts (with
	// timeout_match 0), and bounds a move without a clock; 0 means
	// DefaultTurn. Each move's clock, when it has limits, is sent before
	// the move (see Move).
	Turn  time.Duration
	Grace time.Duration // after a move's deadline, before a silent engine is killed; 0 means 1 s
	Greet time.Duration // for the answers to START, RESTART and ABOUT; 0 means 5 s
	// Log receives the engine's stderr and its MESSAGE and DEBUG lines;
	// nil discards them. It must be safe for concurrent writes: os/exec
	// copies the engine's stderr to it on a goroutine of its own.
	Log io.Writer
}

func (o *ClientOptions) defaults() {
	if o.Turn <= 0 {
		o.Turn = DefaultTurn
	}
	if o.Grace <= 0 {
		o.Grace = time.Second
	}
	if o.Greet <= 0 {
		o.Greet = 5 * time.Second
	}
}

// Client is the manager side of the protocol: it drives an external engine
// process as a tournament manager does. START 15, the INFO limits and
// ABOUT when started; RESTART and INFO rule before each game (a new
// process when RESTART is not answered OK); the move's clock (INFO
// timeout_turn and timeout_match when they change, time_left under a
// match clock) and BEGIN, TURN or BOARD for each move; END on Close. An
// engine that does not answer a move by the move's limit plus the grace
// is killed, and started again for the next game.
//
// A Client has the methods of agent.Agent. It is used by one goroutine and
// starts none of its own: replies are read with deadlines on the engine's
// output pipe. (Where pipes cannot have read deadlines, outside Unix, a
// read waits for the engine.)
type Client struct {
	argv  []string
	opts  ClientOptions
	name  string
	p     *proc          // nil when not running
	clean bool           // the engine's board is empty and no game command was sent
	known []gomoku.Point // the position the engine holds, in order
	rule  gomoku.Rule
	sent  [2]int64 // the timeout_turn and timeout_match the engine was last sent, in ms
}

// StartClient starts the engine argv[0] with the arguments argv[1:] and
// greets it (START 15, the INFO limits, ABOUT).
func StartClient(argv []string, opts ClientOptions) (*Client, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("gomocup: start engine: no command")
	}
	opts.defaults()
	c := &Client{argv: argv, opts: opts, name: "engine:" + filepath.Base(argv[0])}
	if err := c.start(); err != nil {
		return nil, err
	}
	if name := c.about(); name != "" {
		c.name = "engine:" + name
	}
	return c, nil
}

// Name is "engine:" and the name the engine gave in its ABOUT answer (or
// its program's name).
func (c *Client) Name() string { return c.name }

func (c *Client) start() error {
	p, err := startProc(c.argv, c.opts.Log)
	if err != nil {
		return fmt.Errorf("engine %q: %w", c.argv[0], err)
	}
	c.p = p
	if err := c.ask(CmdStart{gomoku.Size}); err != nil {
		c.kill()
		return fmt.Errorf("engine %q: %w", c.argv[0], err)
	}
	for _, info := range []CmdInfo{
		{"timeout_turn", fmt.Sprint(c.opts.Turn.Milliseconds())},
		{"timeout_match", "0"}, {"max_memory", "0"}, {"game_type", "1"},
	} {
		p.send(info)
	}
	c.sent = [2]int64{c.opts.Turn.Milliseconds(), 0}
	c.clean, c.known = true, nil
	return nil
}

// sendClock tells the engine the move's clock, if it has limits:
// timeout_turn and timeout_match when they differ from what the engine
// was told (a match clock without a turn limit is sent as a turn limit of
// the whole match time: no move can take longer), and time_left under a
// match clock.
func (c *Client) sendClock(clk gomoku.Clock) error {
	if !clk.Limited() {
		return nil
	}
	turn := clk.Turn
	if turn == 0 {
		turn = clk.Match
	}
	want := [2]int64{turn.Milliseconds(), clk.Match.Milliseconds()}
	for i, key := range []string{"timeout_turn", "timeout_match"} {
		if want[i] != c.sent[i] {
			if err := c.p.send(CmdInfo{key, fmt.Sprint(want[i])}); err != nil {
				return err
			}
			c.sent[i] = want[i]
		}
	}
	if clk.Match > 0 {
		return c.p.send(CmdInfo{"time_left", fmt.Sprint(clk.Left.Milliseconds())})
	}
	return nil
}

// about asks for the engine's name; "" if it does not say.
func (c *Client) about() string {
	if c.p.send(CmdAbout{}) != nil {
		return ""
	}
	r, err := c.p.reply(nil, time.Now().Add(c.opts.Greet))
	if a, ok := r.(ReplyAbout); ok && err == nil {
		return a.Get("name")
	}
	return ""
}

// ask sends cmd and wants OK within the greeting time.
func (c *Client) ask(cmd Command) error {
	if err := c.p.send(cmd); err != nil {
		return err
	}
	r, err := c.p.reply(nil, time.Now().Add(c.opts.Greet))
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	if _, ok := r.(ReplyOK); !ok {
		return fmt.Errorf("%s: answered %q, want OK", cmd, r)
	}
	return nil
}

func (c *Client) kill() {
	if c.p != nil {
		c.p.kill()
		c.p = nil
	}
}

// restart gives the engine an empty board: RESTART, or a new process.
func (c *Client) restart() error {
	if c.p != nil && !c.clean {
		if err := c.ask(CmdRestart{}); err != nil {
			c.kill()
		}
	}
	if c.p == nil {
		return c.start()
	}
	c.clean, c.known = true, nil
	return nil
}

// ruleInfo is the INFO rule command of a rule.
func ruleInfo(r gomoku.Rule) CmdInfo {
	n, ok := ruleCodes[r]
	if !ok {
		panic("gomocup: a rule without an INFO code") // a caller bug: every gomoku.Rule has one
	}
	return CmdInfo{"rule", fmt.Sprint(n)}
}

// NewGame prepares the engine for a game under rule.
func (c *Client) NewGame(rule gomoku.Rule) error {
	c.rule = rule
	if err := c.restart(); err != nil {
		return err
	}
	return c.p.send(ruleInfo(rule))
}

// Move sends the move's clock (sendClock) and the position b (TURN when
// the engine holds all of it but the last stone, BEGIN on an empty board,
// else BOARD) and reads the engine's move by the clock's limit (without
// one, ctx's deadline or the turn limit of the options) plus the grace. A
// cancelled ctx stops the wait. An engine that fails to answer is killed.
func (c *Client) Move(ctx context.Context, b *gomoku.Board, clock gomoku.Clock) (gomoku.Point, error) {
	if c.p == nil {
		return gomoku.NoPoint, errors.New("engine is not running")
	}
	if clock.Start.IsZero() {
		clock.Start = time.Now()
	}
	if err := c.sendPosition(b, clock); err != nil {
		c.kill()
		return gomoku.NoPoint, err
	}
	deadline, ok := ctx.Deadline()
	if limit, limited := clock.Limit(); limited {
		deadline = clock.Start.Add(limit)
	} else if !ok {
		deadline = clock.Start.Add(c.opts.Turn)
	}
	p, err := c.readMove(ctx, deadline.Add(c.opts.Grace))
	if err != nil {
		return gomoku.NoPoint, err
	}
	c.known = append(slices.Clone(b.History()), p)
	return p, nil
}

// sendPosition sends the clock and the command that asks for the move on b.
func (c *Client) sendPosition(b *gomoku.Board, clk gomoku.Clock) error {
	hist := b.History()
	var err error
	switch {
	case c.clean && len(hist) == 0:
		if err = c.sendClock(clk); err == nil {
			err = c.p.send(CmdBegin{})
		}
	case len(hist) == len(c.known)+1 && slices.Equal(hist[:len(c.known)], c.known):
		if err = c.sendClock(clk); err == nil {
			err = c.p.send(CmdTurn{hist[len(hist)-1]})
		}
	default:
		err = c.board(b, clk)
	}
	c.clean, c.known = false, nil
	return err
}

// readMove reads the engine's move, answering a SUGGEST with PLAY.
func (c *Client) readMove(ctx context.Context, deadline time.Time) (gomoku.Point, error) {
	for {
		r, err := c.p.reply(ctx, deadline)
		if err != nil {
			c.kill()
			return gomoku.NoPoint, err
		}
		switch r := r.(type) {
		case ReplyMove:
			return r.Move, nil
		case ReplySuggest:
			if err := c.p.send(CmdPlay{r.Move}); err != nil {
				c.kill()
				return gomoku.NoPoint, err
			}
			continue
		}
		return gomoku.NoPoint, fmt.Errorf("engine answered %q", r)
	}
}

// board sends the position b as a BOARD block in play order, after
// RESTART when the engine holds another position, and the clock.
func (c *Client) board(b *gomoku.Board, clk gomoku.Clock) error {
	if !c.clean {
		if err := c.restart(); err != nil {
			return err
		}
		if err := c.p.send(ruleInfo(c.rule)); err != nil {
			return err
		}
	}
	if err := c.sendClock(clk); err != nil {
		return err
	}
	cmd := CmdBoard{}
	me := b.ToMove()
	for _, p := range b.History() {
		f := Opponent
		if b.At(p) == me {
			f = Own
		}
		cmd.Stones = append(cmd.Stones, Stone{p, f})
	}
	return c.p.send(cmd)
}

// Close sends END and gives the engine a second to exit before killing it.
func (c *Client) Close() error {
	if c.p == nil {
		return nil
	}
	p := c.p
	c.p = nil
	p.send(CmdEnd{})
	p.end(time.Now().Add(time.Second))
	return nil
}
