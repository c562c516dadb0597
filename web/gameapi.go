package web

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"ocvist/arena"
	"ocvist/gomoku"
	"ocvist/patterns"
)

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
