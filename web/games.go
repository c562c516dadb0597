package web

import (
	"bytes"
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
	ms, err := s.models.get(ctx, p.Model)
	if err != nil {
		return fmt.Errorf("%s: %w", colour, err)
	}
	g.sets[i] = ms
	if p.Agent == "forest" {
		f, err := arena.NewForest(ms.policy, arena.ForestConfig{Name: "forest"})
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

func (s *Server) listGames(w http.ResponseWriter, r *http.Request) {
	type entry struct {
		GameJSON
		used time.Time
	}
	var list []entry
	for _, g := range s.games.all() {
		g.mu.Lock()
		j := g.json()
		j.Reasons, j.Last = nil, nil
		list = append(list, entry{j, g.used})
		g.mu.Unlock()
	}
	slices.SortFunc(list, func(a, b entry) int { return b.used.Compare(a.used) })
	out := make([]GameJSON, len(list))
	for i, e := range list {
		out[i] = e.GameJSON
	}
	reply(w, out)
}

func (s *Server) withGame(h func(http.ResponseWriter, *http.Request, *game)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		g := s.games.get(r.PathValue("id"))
		if g == nil {
			fail(w, http.StatusNotFound, fmt.Errorf("no game %q (the server forgets the oldest of %d games)", r.PathValue("id"), s.cfg.MaxGames))
			return
		}
		h(w, r, g)
	}
}

func (s *Server) getGame(w http.ResponseWriter, r *http.Request, g *game) {
	g.mu.Lock()
	defer g.mu.Unlock()
	reply(w, g.json())
}

// change runs f on the game with no search running, and answers the game.
func (s *Server) change(w http.ResponseWriter, r *http.Request, g *game, f func() error) {
	if err := g.idle(r.Context()); err != nil {
		fail(w, http.StatusServiceUnavailable, err)
		return
	}
	defer g.mu.Unlock()
	g.used = time.Now()
	if err := f(); err != nil {
		fail(w, http.StatusConflict, err)
		return
	}
	reply(w, g.json())
}

func (s *Server) move(w http.ResponseWriter, r *http.Request, g *game) {
	var req struct {
		Move string `json:"move"`
	}
	if err := decode(w, r, &req); err != nil {
		fail(w, http.StatusBadRequest, err)
		return
	}
	q, err := gomoku.ParsePoint(req.Move)
	if err != nil {
		fail(w, http.StatusBadRequest, fmt.Errorf("move %q: %v", req.Move, err))
		return
	}
	s.change(w, r, g, func() error {
		switch side := g.board.ToMove(); {
		case g.over():
			return fmt.Errorf("move %s: the game is over (%s)", q, g.result)
		case !g.players[side-1].human():
			return fmt.Errorf("move %s: it is %s's turn, played by %s", q, colourName(side), g.players[side-1].Agent)
		}
		if err := g.play(q, explain(patterns.FromBoard(g.board), q)); err != nil {
			return fmt.Errorf("move %s: %v", q, err)
		}
		return nil
	})
}

// undo takes back the last move, and the agents' moves before it, back to
// a person's turn (one move when no person plays). Set-up stones are
// taken back too, one at a time.
func (s *Server) undo(w http.ResponseWriter, r *http.Request, g *game) {
	s.change(w, r, g, func() error {
		if len(g.board.History()) == 0 {
			return errors.New("undo: no move to take back")
		}
		anyHuman := g.players[0].human() || g.players[1].human()
		for {
			if _, err := g.board.Undo(); err != nil {
				return fmt.Errorf("undo: %v", err)
			}
			g.reasons = g.reasons[:len(g.reasons)-1]
			g.book = min(g.book, len(g.reasons))
			if !anyHuman || len(g.reasons) == 0 || g.players[g.board.ToMove()-1].human() {
				break
			}
		}
		g.resigned, g.last = false, nil
		g.version++
		g.settle()
		return nil
	})
}

func (s *Server) resign(w http.ResponseWriter, r *http.Request, g *game) {
	s.change(w, r, g, func() error {
		loser := g.board.ToMove()
		if !g.players[loser-1].human() {
			loser = loser.Other()
		}
		switch {
		case g.over():
			return fmt.Errorf("resign: the game is over (%s)", g.result)
		case !g.players[loser-1].human():
			return errors.New("resign: no person plays this game")
		}
		g.resigned, g.winner, g.result = true, loser.Other(), colourName(loser)+" resigned"
		g.version++
		return nil
	})
}

func (s *Server) sgf(w http.ResponseWriter, r *http.Request, g *game) {
	g.mu.Lock()
	ag := arena.Game{Index: 0, Opening: -1, Black: g.players[0].String(), White: g.players[1].String(), Moves: g.board.History(),
		Book: g.book, Winner: g.winner, WinLine: g.board.WinLine(), Reason: g.result, Forfeit: g.resigned}
	rule := g.rule
	g.mu.Unlock()
	var b bytes.Buffer
	if err := arena.WriteSGF(&b, rule, []arena.Game{ag}); err != nil {
		fail(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-go-sgf")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="ocvist-%s.sgf"`, g.id))
	w.Write(b.Bytes())
}

// engineMove lets the agent to move play, streaming the search's
// iterations; the move is played only if the game did not change and the
// page is still there when the search ends.
func (s *Server) engineMove(w http.ResponseWriter, r *http.Request, g *game) {
	ctx, end, err := g.begin(r.Context())
	if err != nil {
		fail(w, http.StatusServiceUnavailable, err)
		return
	}
	defer end()
	g.mu.Lock()
	side := g.board.ToMove()
	p := g.players[side-1]
	switch {
	case g.over():
		err = errorf(http.StatusConflict, "engine: the game is over (%s)", g.result)
	case p.human():
		err = errorf(http.StatusConflict, "engine: it is %s's turn, played by a person", colourName(side))
	}
	board, version, ms, agent, moveTime := *g.board, g.version, g.sets[side-1], g.agents[side-1], g.moveTime
	g.mu.Unlock()
	if err != nil {
		fail(w, http.StatusConflict, err)
		return
	}
	ev, err := newEvents(w)
	if err != nil {
		fail(w, http.StatusInternalServerError, err)
		return
	}
	var q gomoku.Point
	var inf Info
	if agent != nil {
		q, inf, err = agentMove(ctx, agent, &board)
	} else {
		pos := patterns.FromBoard(&board)
		lim := thinkLimits{nodes: s.cfg.Nodes, time: moveTime}
		res, terr := s.eng.think(ctx, pos, ms, lim, func(i Info) { ev.send("info", i) })
		q, err = res.Move, terr
		if err == nil {
			inf = infoOf(pos, res, false)
		}
	}
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("engine: stopped (%w)", ctx.Err())
	}
	if err != nil {
		ev.send("error", map[string]string{"error": err.Error()})
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.version != version {
		ev.send("error", map[string]string{"error": "engine: the game changed while it thought"})
		return
	}
	if err := g.play(q, inf.Reason); err != nil {
		ev.send("error", map[string]string{"error": fmt.Sprintf("engine (%s): move %s: %v", p.Agent, q, err)})
		return
	}
	g.last, g.used = &inf, time.Now()
	ev.send("done", g.json())
}

// analyse runs the search on the position after ply moves (all by
// default) for the analysis time, streaming its iterations; the last one
// ends the stream as "done". It never changes the game.
func (s *Server) analyse(w http.ResponseWriter, r *http.Request, g *game) {
	var req struct {
		Ply  *int `json:"ply"`
		Hint bool `json:"hint"` // the game's move time, not the analysis time
	}
	if err := decode(w, r, &req); err != nil {
		fail(w, http.StatusBadRequest, err)
		return
	}
	ctx, end, err := g.begin(r.Context())
	if err != nil {
		fail(w, http.StatusServiceUnavailable, err)
		return
	}
	defer end()
	g.mu.Lock()
	hist := g.board.History()
	ply := len(hist)
	if req.Ply != nil {
		ply = *req.Ply
	}
	rule, moveTime := g.rule, g.moveTime
	ms := g.sets[g.board.ToMove()-1]
	g.mu.Unlock()
	if ply < 0 || ply > len(hist) {
		fail(w, http.StatusBadRequest, fmt.Errorf("analyse: ply %d: the game has %d moves", ply, len(hist)))
		return
	}
	b := gomoku.New(gomoku.Options{Rule: rule})
	for _, q := range hist[:ply] {
		b.Play(q)
	}
	if b.Over() {
		fail(w, http.StatusConflict, fmt.Errorf("analyse: the game is over at move %d", ply))
		return
	}
	if ms == nil {
		ms = s.models.shipped
	}
	// Not Limits.RootExact: with it the search reported one-move lines
	// here (measured on the browser test's positions), and the line on the
	// board matters more than exact scores of the other moves, which the
	// page marks as bounds.
	lim := thinkLimits{nodes: s.cfg.Nodes, time: s.cfg.AnalyseTime}
	if req.Hint {
		lim.time = moveTime
	}
	ev, err := newEvents(w)
	if err != nil {
		fail(w, http.StatusInternalServerError, err)
		return
	}
	pos := patterns.FromBoard(b)
	res, err := s.eng.think(ctx, pos, ms, lim, func(i Info) { ev.send("info", i) })
	if err != nil {
		ev.send("error", map[string]string{"error": "analyse: " + err.Error()})
		return
	}
	ev.send("done", infoOf(pos, res, lim.exact))
}
