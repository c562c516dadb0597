package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"ocvist/agent"
	"ocvist/arena"
	"ocvist/gomoku"
	"ocvist/patterns"
)

// Player is who plays one colour: "human" or an agent kind, with the
// models ("" for the shipped ones, "DB/GEN" for a database's generation).
type Player struct {
	Agent string `json:"agent"`
	Model string `json:"model,omitempty"`
}

func (p Player) human() bool { return p.Agent == "human" }

func (p Player) String() string {
	if p.Model == "" || p.human() || p.Agent == "patterns" {
		return p.Agent
	}
	return p.Agent + ":" + p.Model
}

// game is one game on the server. Its fields are guarded by mu; at most
// one search runs for it (stop, done).
type game struct {
	id string

	mu       sync.Mutex
	rule     gomoku.Rule
	players  [2]Player // Black, White
	moveTime time.Duration
	board    *gomoku.Board
	book     int      // set-up stones (or an SGF's book) that begin the moves
	reasons  []string // per move: what it did, in a player's words
	last     *Info    // the last engine move's search
	result   string   // how it ended, "" while it goes on
	winner   gomoku.Player
	resigned bool
	notice   string
	version  int // bumped by every change
	sets     [2]*modelSet
	agents   [2]agent.Agent // forest and patterns agents, made when first needed
	used     time.Time
	stop     context.CancelFunc // the running search's
	done     chan struct{}      // closed when it has ended
}

// GameJSON is a game as the page sees it.
type GameJSON struct {
	ID         string   `json:"id"`
	Rule       string   `json:"rule"`
	Black      Player   `json:"black"`
	White      Player   `json:"white"`
	MoveTimeMS int64    `json:"move_time_ms"`
	Moves      []string `json:"moves"`
	Book       int      `json:"book"`
	Reasons    []string `json:"reasons"`
	ToMove     string   `json:"to_move"` // "x", "o", or "" when over
	Over       bool     `json:"over"`
	Winner     string   `json:"winner"` // "x", "o", "" (a draw or not over)
	Result     string   `json:"result"`
	WinLine    []string `json:"win_line"`
	Last       *Info    `json:"last,omitempty"`
	Notice     string   `json:"notice,omitempty"`
	// Forbidden are Black's forbidden points, under renju with Black to
	// move (the referee's, gomoku.Board.Forbidden).
	Forbidden []string `json:"forbidden,omitempty"`
}

func (g *game) json() GameJSON {
	b := g.board
	j := GameJSON{ID: g.id, Rule: g.rule.String(), Black: g.players[0], White: g.players[1], MoveTimeMS: g.moveTime.Milliseconds(),
		Moves: pointStrings(b.History()), Book: g.book, Reasons: append([]string{}, g.reasons...), Over: g.over(), Result: g.result,
		Winner: sideName(g.winner), WinLine: pointStrings(b.WinLine()), Last: g.last, Notice: g.notice}
	if !j.Over {
		j.ToMove = sideName(b.ToMove())
	}
	if !j.Over && g.rule == gomoku.Renju && b.ToMove() == gomoku.Black {
		for p := gomoku.Point(0); p < gomoku.NumCells; p++ {
			if b.At(p) == gomoku.Empty && b.Forbidden(p) != gomoku.NoFoul {
				j.Forbidden = append(j.Forbidden, p.String())
			}
		}
	}
	return j
}

func (g *game) over() bool { return g.result != "" }

// settle records the end of the game if the board says it is over.
func (g *game) settle() {
	b := g.board
	switch {
	case g.resigned:
	case b.Winner() != gomoku.Empty:
		g.winner, g.result = b.Winner(), colourName(b.Winner())+" wins: five"
	case b.Over():
		g.winner, g.result = gomoku.Empty, "draw: full board"
	default:
		g.winner, g.result = gomoku.Empty, ""
	}
}

// play puts q for the side to move, with its reason.
func (g *game) play(q gomoku.Point, reason string) error {
	if err := g.board.Play(q); err != nil {
		return err
	}
	g.reasons = append(g.reasons, reason)
	g.version++
	g.settle()
	return nil
}

// idle stops the game's running search, waits for it to end and returns
// with g.mu held and no search running. It fails only when ctx ends.
func (g *game) idle(ctx context.Context) error {
	for {
		g.mu.Lock()
		if g.done == nil {
			return nil
		}
		stop, done := g.stop, g.done
		g.mu.Unlock()
		stop()
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// begin registers a search for the game (stopping the one running) and
// returns its context, with g.mu released; end must be called when it is
// over.
func (g *game) begin(ctx context.Context) (sctx context.Context, end func(), err error) {
	if err := g.idle(ctx); err != nil {
		return nil, nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	g.stop, g.done = cancel, done
	g.mu.Unlock()
	return sctx, func() {
		cancel()
		g.mu.Lock()
		g.stop, g.done = nil, nil
		g.mu.Unlock()
		close(done)
	}, nil
}

// gameList keeps the server's games, at most max of them.
type gameList struct {
	mu   sync.Mutex
	byID map[string]*game
	next int
	max  int
}

func newGameList(max int) *gameList { return &gameList{byID: map[string]*game{}, max: max} }

// add gives g an id and keeps it, forgetting the least recently used
// game when the list is full (finished games first).
func (l *gameList) add(g *game) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	g.id = fmt.Sprintf("g%d", l.next)
	for len(l.byID) >= l.max {
		var oldest *game
		for _, o := range l.byID {
			if oldest == nil || o.lastUsed().Before(oldest.lastUsed()) {
				oldest = o
			}
		}
		delete(l.byID, oldest.id)
	}
	l.byID[g.id] = g
}

func (g *game) lastUsed() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.used
}

func (l *gameList) get(id string) *game {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byID[id]
}

func (l *gameList) all() []*game {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*game, 0, len(l.byID))
	for _, g := range l.byID {
		out = append(out, g)
	}
	return out
}

// newGameRequest is the body of POST /api/games.
type newGameRequest struct {
	Rule       string   `json:"rule"`
	Black      Player   `json:"black"`
	White      Player   `json:"white"`
	MoveTimeMS int64    `json:"move_time_ms"`
	Moves      []string `json:"moves"` // a position set up by clicks, Black first
	SGF        string   `json:"sgf"`   // or a game saved as SGF
}

func (s *Server) newGame(w http.ResponseWriter, r *http.Request) {
	var req newGameRequest
	if err := decode(w, r, &req); err != nil {
		fail(w, http.StatusBadRequest, err)
		return
	}
	g, err := s.makeGame(r.Context(), req)
	if err != nil {
		fail(w, http.StatusBadRequest, err)
		return
	}
	s.games.add(g)
	g.mu.Lock()
	defer g.mu.Unlock()
	reply(w, g.json())
}

// makeGame checks a new game's request and builds the game.
func (s *Server) makeGame(ctx context.Context, req newGameRequest) (*game, error) {
	rule, err := parseRule(req.Rule)
	if err != nil {
		return nil, err
	}
	moves, book := req.Moves, len(req.Moves)
	if strings.TrimSpace(req.SGF) != "" {
		if len(req.Moves) > 0 {
			return nil, errors.New("give set-up moves or an SGF, not both")
		}
		if rule, moves, book, err = readSGF(req.SGF); err != nil {
			return nil, err
		}
	}
	g := &game{rule: rule, players: [2]Player{req.Black, req.White}, moveTime: time.Duration(req.MoveTimeMS) * time.Millisecond,
		board: gomoku.New(gomoku.Options{Rule: rule}), book: book, used: time.Now()}
	if g.moveTime == 0 {
		g.moveTime = time.Second
	}
	if g.moveTime < minMoveTime || g.moveTime > maxMoveTime {
		return nil, fmt.Errorf("move time %d ms: want %d to %d", req.MoveTimeMS, minMoveTime.Milliseconds(), maxMoveTime.Milliseconds())
	}
	for i, p := range g.players {
		if err := s.checkPlayer(ctx, g, i, p); err != nil {
			return nil, err
		}
	}
	for i, m := range moves {
		q, err := gomoku.ParsePoint(m)
		if err != nil {
			return nil, fmt.Errorf("move %d %q: %v", i+1, m, err)
		}
		if g.over() {
			return nil, fmt.Errorf("move %d %s: the game was over after move %d (%s)", i+1, m, i, g.result)
		}
		pos := patterns.FromBoard(g.board)
		if err := g.play(q, explain(pos, q)); err != nil {
			return nil, fmt.Errorf("move %d %s: %v", i+1, m, err)
		}
	}
	return g, nil
}

// checkPlayer checks who plays colour i and loads its models.
func (s *Server) checkPlayer(ctx context.Context, g *game, i int, p Player) error {
	colour := [2]string{"black", "white"}[i]
	if p.human() {
		if p.Model != "" {
			return fmt.Errorf("%s: a person plays without a model", colour)
		}
		return nil
	}
	if !slices.Contains(agentKinds, p.Agent) {
		return fmt.Errorf("%s: unknown player %q (want human or one of %s)", colour, p.Agent, strings.Join(agentKinds, ", "))
	}
	if p.Agent == "patterns" {
		if p.Model != "" {
			return fmt.Errorf("%s: patterns plays without a model", colour)
		}
		g.agents[i] = arena.NewPatterns(uint64(i+1), patterns.Config{})
		return nil
	}
	ms, err := s.models.get(ctx, p.Model, g.rule)
	if err != nil {
		return fmt.Errorf("%s: %w", colour, err)
	}
	g.sets[i] = ms
	if p.Agent == "forest" {
		f, err := arena.NewForest(ms.pure(), arena.ForestConfig{Name: "forest"})
		if err == nil {
			err = f.NewGame(g.rule)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", colour, err)
		}
		g.agents[i] = f
		return nil
	}
	if err := ms.check(g.rule); err != nil {
		return fmt.Errorf("%s: %w", colour, err)
	}
	if ms.anyRule && g.rule != gomoku.Freestyle {
		g.notice = fmt.Sprintf("the shipped models were fitted for freestyle; they serve this %s game", g.rule)
	}
	return nil
}

func parseRule(s string) (gomoku.Rule, error) {
	if s == "" {
		return rules[0], nil
	}
	for _, r := range rules {
		if r.String() == s {
			return r, nil
		}
	}
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = r.String()
	}
	return 0, fmt.Errorf("unknown rule %q (want %s or %s)", s, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

var sgfRule = regexp.MustCompile(`RU\[([^\]]*)\]`)

// readSGF reads the first game of an SGF collection: its rule (RU,
// freestyle when absent), moves and book.
func readSGF(text string) (gomoku.Rule, []string, int, error) {
	games, err := arena.ReadSGF(strings.NewReader(text))
	if err != nil {
		return 0, nil, 0, fmt.Errorf("SGF: %v", strings.TrimPrefix(err.Error(), "read sgf: "))
	}
	if len(games) == 0 {
		return 0, nil, 0, errors.New("SGF: no game in it")
	}
	rule := rules[0]
	if m := sgfRule.FindStringSubmatch(text); m != nil {
		if rule, err = parseRule(strings.ToLower(m[1])); err != nil {
			return 0, nil, 0, fmt.Errorf("SGF: %v", err)
		}
	}
	return rule, pointStrings(games[0].Moves), games[0].Book, nil
}
